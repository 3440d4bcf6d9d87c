// The CI gate's JUnit output and --expect: the XML is well formed (checked by
// a small parser here, and by xmllint when the machine has it), carries one
// case per invariant and goal, and a failure carries the trace and the
// reproduce command; expectations decide the exit code.
#include "checker/report/junit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/escape.h"
#include "checker/cli/check.h"
#include "checker/cli/commands.h"
#include "checker/cli/expect.h"
#include "checker/report/trace.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

// A minimal XML 1.0 well-formedness check: one root element, balanced and
// properly nested tags, quoted attributes without '<', and only the five
// predefined entities or numeric references. Returns "" or the first error.
class XmlChecker {
 public:
  explicit XmlChecker(std::string text) : text_(std::move(text)) {}

  std::string Check() {
    if (text_.rfind("<?xml", 0) == 0) {
      const std::size_t end = text_.find("?>");
      if (end == std::string::npos) return "unterminated declaration";
      at_ = end + 2;
    }
    int roots = 0;
    while (at_ < text_.size()) {
      if (text_[at_] == '<') {
        std::string error = Tag(&roots);
        if (!error.empty()) return error;
      } else {
        std::string error = Text();
        if (!error.empty()) return error;
      }
    }
    if (!open_.empty()) return "unclosed <" + open_.back() + ">";
    if (roots != 1) return "expected one root element";
    return "";
  }

 private:
  std::string Text() {
    if (text_[at_] == '&') return Entity();
    if (open_.empty() && !std::isspace(static_cast<unsigned char>(text_[at_])))
      return "text outside the root";
    if (text_[at_] == '>') return "bare '>' in text";
    ++at_;
    return "";
  }

  std::string Entity() {
    const std::size_t end = text_.find(';', at_);
    if (end == std::string::npos) return "unterminated entity";
    const std::string name = text_.substr(at_ + 1, end - at_ - 1);
    static const std::vector<std::string> kNames = {"amp", "lt", "gt", "quot",
                                                    "apos"};
    const bool numeric = name.size() > 1 && name[0] == '#';
    if (!numeric &&
        std::find(kNames.begin(), kNames.end(), name) == kNames.end())
      return "unknown entity &" + name + ";";
    at_ = end + 1;
    return "";
  }

  std::string Tag(int* roots) {
    const std::size_t end = text_.find('>', at_);
    if (end == std::string::npos) return "unterminated tag";
    std::string tag = text_.substr(at_ + 1, end - at_ - 1);
    at_ = end + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (open_.empty() || open_.back() != tag.substr(1))
        return "mismatched </" + tag.substr(1) + ">";
      open_.pop_back();
      return "";
    }
    const bool empty = !tag.empty() && tag.back() == '/';
    if (empty) tag.pop_back();
    const std::size_t space = tag.find(' ');
    const std::string name = tag.substr(0, space);
    if (name.empty()) return "tag without a name";
    std::string error =
        Attributes(space == std::string::npos ? "" : tag.substr(space));
    if (!error.empty()) return error;
    if (open_.empty()) ++*roots;
    if (!empty) open_.push_back(name);
    return "";
  }

  // ` a="v" b="w"`: names, '=', double-quoted values without '<' or a raw
  // '"', entities well formed.
  static std::string Attributes(const std::string& text) {
    std::size_t k = 0;
    while (k < text.size()) {
      if (text[k] == ' ') {
        ++k;
        continue;
      }
      const std::size_t eq = text.find('=', k);
      if (eq == std::string::npos || eq + 1 >= text.size() ||
          text[eq + 1] != '"')
        return "attribute without a quoted value";
      const std::size_t close = text.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute";
      const std::string value = text.substr(eq + 2, close - eq - 2);
      if (value.find('<') != std::string::npos) return "'<' in an attribute";
      XmlChecker entities("<a>" + value + "</a>");
      std::string error = entities.Check();
      if (!error.empty()) return "attribute: " + error;
      k = close + 1;
    }
    return "";
  }

  std::string text_;
  std::size_t at_ = 0;
  std::vector<std::string> open_;
};

int CountOf(const std::string& text, const std::string& needle) {
  int count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++count;
  return count;
}

std::string TempDir(const std::string& name) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("memwal-gate-" + name))
          .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(XmlChecker, RejectsBrokenDocuments) {
  EXPECT_EQ(XmlChecker("<a><b/></a>").Check(), "");
  EXPECT_NE(XmlChecker("<a><b></a>").Check(), "");
  EXPECT_NE(XmlChecker("<a x=\"<\"/>").Check(), "");
  EXPECT_NE(XmlChecker("<a>&nbsp;</a>").Check(), "");
  EXPECT_NE(XmlChecker("<a/><b/>").Check(), "");
}

TEST(Junit, EscapesMarkupQuotesAndShowsForbiddenControlCharacters) {
  EXPECT_EQ(MarkupEscaped("a<b>&\"c'\x01\td"),
            "a&lt;b&gt;&amp;&quot;c&apos;\\x01\td");
}

TEST(Junit, ADocumentWithEveryKindOfCaseIsWellFormed) {
  report::JunitSuite suite{.name = "s <&> \"q\"", .seconds = 1.5};
  suite.cases.push_back({.classname = "c", .name = "passes"});
  suite.cases.push_back({.classname = "c",
                         .name = "fails",
                         .result = report::JunitCase::Result::kFailed,
                         .message = "broken <here>",
                         .body = "1. Commit{slot=0}\n]]> & <tricky>"});
  suite.cases.push_back({.classname = "c",
                         .name = "skipped",
                         .result = report::JunitCase::Result::kSkipped,
                         .message = "not decided"});
  const std::string xml = report::JunitXml({suite});
  EXPECT_EQ(XmlChecker(xml).Check(), "") << xml;
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""),
            std::string::npos);
}

TEST(GateCheck, WritesOneCasePerInvariantAndGoalAndAFailureWithTheTrace) {
  const std::string dir = TempDir("junit");
  const std::string junit = dir + "/report.xml";
  std::ostringstream out, err;
  const int code = cli::RunMemwalCheck(
      {"check", "--preset", "tiny", "--model-only", "--no-liveness", "--bug",
       "reader-ignores-bit", "--out", dir, "--junit", junit},
      out, err);
  EXPECT_EQ(code, 1) << err.str();
  const Result<std::string> xml = report::ReadFile(junit);
  ASSERT_TRUE(xml.ok());
  EXPECT_EQ(XmlChecker(*xml).Check(), "") << *xml;
  const int cases = static_cast<int>(model::AllInvariants().size() +
                                     model::AllGoals().size());
  EXPECT_EQ(CountOf(*xml, "<testcase "), cases);
  EXPECT_EQ(CountOf(*xml, "<failure "), 1);
  EXPECT_NE(xml->find("name=\"ReadsMissNoRows\" time=\""), std::string::npos);
  EXPECT_NE(xml->find("reproduce: memwal-check replay "), std::string::npos);
  EXPECT_NE(xml->find("Commit{slot=0}"), std::string::npos);
}

TEST(GateCheck, APassingRunPassesEveryApplicableCaseAndValidatesWithXmllint) {
  const std::string dir = TempDir("junit-ok");
  const std::string junit = dir + "/report.xml";
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunMemwalCheck({"check", "--preset", "tiny", "--model-only",
                                 "--out", dir, "--junit", junit},
                                out, err),
            0)
      << out.str() << err.str();
  const Result<std::string> xml = report::ReadFile(junit);
  ASSERT_TRUE(xml.ok());
  EXPECT_EQ(XmlChecker(*xml).Check(), "");
  EXPECT_EQ(CountOf(*xml, "<failure "), 0);
  // Invariants, goals and liveness (model only: no lockstep case).
  EXPECT_EQ(CountOf(*xml, "<testcase "),
            static_cast<int>(model::AllInvariants().size() +
                             model::AllGoals().size() + 1));
  if (!std::filesystem::exists("/usr/bin/xmllint"))
    GTEST_SKIP() << "xmllint not installed";
  const std::string command = "/usr/bin/xmllint --noout " + junit;
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST(Expect, ParsesAtTheLastEqualsSign) {
  const Result<cli::Expectation> e =
      cli::ParseExpectation("gc=stale-read=violation");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->name, "gc=stale-read");
  EXPECT_EQ(e->verdict, "violation");
  EXPECT_FALSE(cli::ParseExpectation("nothing").ok());
  EXPECT_FALSE(cli::ParseExpectation("name=").ok());
}

TEST(Expect, AnInvariantNameMeetsOnlyAViolationOfThatInvariant) {
  const cli::Expectation e{"x", "ReadsMissNoRows"};
  EXPECT_TRUE(cli::Meets(e, "violation", "ReadsMissNoRows"));
  EXPECT_FALSE(cli::Meets(e, "violation", "CatchupWithinCoverage"));
  EXPECT_FALSE(cli::Meets(e, "ok", ""));
  EXPECT_TRUE(cli::Meets({"x", "ok"}, "ok", ""));
  EXPECT_EQ(cli::Unmet({{"missing", "ok"}}, {}).size(), 1u);
}

TEST(GateCheck, ExpectationsDecideTheExitCode) {
  const std::string dir = TempDir("expect");
  const std::vector<std::string> base = {"check",
                                         "--preset",
                                         "tiny",
                                         "--model-only",
                                         "--no-liveness",
                                         "--bug",
                                         "reader-ignores-bit",
                                         "--out",
                                         dir};
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    return cli::RunMemwalCheck(args, out, err);
  };
  EXPECT_EQ(run({"--expect", "ReadsMissNoRows=violation"}), 0);
  EXPECT_EQ(run({"--expect", "verdict=ReadsMissNoRows"}), 0);
  EXPECT_EQ(run({"--expect", "ReadsMissNoRows=ok"}), 1);
  EXPECT_EQ(run({"--expect", "CatchupWithinCoverage=violation"}), 1);
  // A name check does not decide (a misspelled invariant) is bad usage,
  // refused before the search starts.
  EXPECT_EQ(run({"--expect", "NoSuchInvariant=ok"}), 2);
  EXPECT_EQ(run({"--expect", "ReadsMisNoRows=violation"}), 2);
  EXPECT_EQ(run({"--expect", "bad"}), 2);
  EXPECT_EQ(run({"--expect", "verdict=bogus"}), 2);
  // Every verdict the tool prints is a valid expectation (issue 36 item 6);
  // this run's verdict is a violation, so these are unmet.
  EXPECT_EQ(run({"--expect", "verdict=not run"}), 1);
  EXPECT_EQ(run({"--expect", "verdict=budget"}), 1);
  EXPECT_EQ(run({"--expect", "verdict=not found"}), 1);
}

// The acceptance line of issue 18: --impl-bug switches env foreign on in the
// gate's path too, and --expect, --json, --html, --junit and the ITF trace all
// come from the one run.
TEST(GateCheck, ExpectJsonHtmlJunitAndItfComeFromOneLockstepRun) {
  const std::string dir = TempDir("one-path");
  const std::vector<std::string> base = {"check",
                                         "--impl-bug",
                                         "half-set-folded",
                                         "--preset",
                                         "tiny",
                                         "--commits",
                                         "3",
                                         "--json",
                                         "--html",
                                         dir + "/html",
                                         "--junit",
                                         dir + "/junit.xml",
                                         "--out",
                                         dir + "/out",
                                         "--threads",
                                         "2"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--expect", "verdict=violation"});
  std::ostringstream out, err;
  ASSERT_EQ(cli::RunMemwalCheck(args, out, err), 0) << out.str() << err.str();
  const nlohmann::json document = nlohmann::json::parse(out.str());
  EXPECT_EQ(document["verdict"], "violation");
  EXPECT_EQ(document["config"]["env"], "foreign") << document.dump();
  EXPECT_EQ(document["violation"]["invariant"], "ImplementationMatchesModel");
  EXPECT_EQ(document["expectations"][0]["met"], true);
  EXPECT_EQ(document["junit"], dir + "/junit.xml");
  EXPECT_TRUE(std::filesystem::exists(dir + "/html/summary.html"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/junit.xml"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/ImplementationMatchesModel"
                                            ".itf.json"));
  args = base;
  args.insert(args.end(), {"--expect", "verdict=ok"});
  std::ostringstream out2, err2;
  EXPECT_EQ(cli::RunMemwalCheck(args, out2, err2), 1) << err2.str();
}

// Options that contradict each other are refused with one line and exit 2,
// in the plain path and in the gate's.
TEST(GateCheck, ContradictionsAreRefusedInBothPaths) {
  const std::vector<std::vector<std::string>> refused = {
      {"check", "--model-only", "--impl-bug", "half-set-folded"},
      {"check", "--protocol", "legacy", "--bug", "restore-walks-back"},
      {"check", "--protocol", "derived", "--impl-bug",
       "advance-without-inspected"},
      {"check", "--walks", "5"},
  };
  for (const std::vector<std::string>& args : refused) {
    std::ostringstream out, err;
    EXPECT_EQ(cli::RunMemwalCheck(args, out, err), 2)
        << args[1] << " " << args[2];
    const std::string line = err.str();
    EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
    std::vector<std::string> gate = args;
    gate.insert(gate.end(), {"--expect", "verdict=ok"});
    std::ostringstream out2, err2;
    EXPECT_EQ(cli::RunMemwalCheck(gate, out2, err2), 2)
        << args[1] << " " << args[2];
  }
}

// With no index no position can be credited or withdrawn and no bitmap
// pruned: those goals are not applicable, and the run passes.
TEST(GateCheck, GoalsThatNeedAnIndexAreNotApplicableAtZeroIndexes) {
  const std::string dir = TempDir("zero-indexes");
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunMemwalCheck({"check", "--preset", "tiny", "--indexes", "0",
                                 "--model-only", "--json", "--out", dir},
                                out, err),
            0)
      << out.str() << err.str();
  const nlohmann::json document = nlohmann::json::parse(out.str());
  EXPECT_EQ(document["reachability"]["ReachPositionCredited"],
            "not applicable");
  EXPECT_EQ(document["reachability"]["ReachBitmapPrunedInPlace"],
            "not applicable");
}

TEST(GateCheck, RunsOnlyWhenJunitOrExpectIsGiven) {
  const std::string dir = TempDir("gate-or-not");
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunMemwalCheck({"check", "--preset", "tiny", "--model-only",
                                 "--no-liveness", "--json", "--out", dir},
                                out, err),
            0)
      << err.str();
  EXPECT_FALSE(nlohmann::json::parse(out.str()).contains("expectations"));
}

}  // namespace
}  // namespace memwal::checker
