// `memwal-check compare A B` (checker/cli/compare.h): both switch sets run in the
// same invocation, side by side.
#include "checker/cli/compare.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/cli.h"

namespace memwal::checker {
namespace {

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome Compare(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::RunCompareCommand(args, out, err);
  return Outcome{code, out.str(), err.str()};
}

TEST(Compare, UnconditionalBreaksCatchupWithinCoverageWhereDerivedDoesNot) {
  const Outcome run =
      Compare({"protocol=derived", "protocol=unconditional", "--model-only",
               "--preset", "small", "--markdown", "--no-liveness"});
  EXPECT_EQ(run.code, cli::kExitOk) << run.err;
  EXPECT_NE(run.out.find("| verdict | ok | violation |"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("| broken invariant | - | CatchupWithinCoverage |"),
            std::string::npos);
  EXPECT_NE(run.out.find("| distinct states | 284634 | 284923 |"),
            std::string::npos);
  EXPECT_NE(run.out.find("| counterexample | - | 9 steps (shortest) |"),
            std::string::npos);
}

// The proposed change R65 at five commits, where the stale data pass breaks
// `derived` (docs/findings.md's first finding: CatchupWithinCoverage in 11 steps) and the
// fence holds (every goal reached). This is the only run of these two searches
// in the suite (2.4M and 2.7M states); fence_test.cc checks the rest of R65.
TEST(Compare, TheFencedDataPassHoldsAtFiveCommitsWhereTheUnfencedBreaks) {
  const Outcome run = Compare(
      {"protocol=derived", "protocol=derived,fence=data-pass", "--model-only",
       "--commits", "5", "--generations", "1", "--no-liveness"});
  EXPECT_EQ(run.code, cli::kExitOk) << run.err;
  EXPECT_NE(run.out.find("verdict           violation              ok"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("--fence data-pass"), std::string::npos);
  EXPECT_NE(run.out.find("2685179"), std::string::npos);
  EXPECT_NE(run.out.find("broken invariant  CatchupWithinCoverage  -"),
            std::string::npos);
  EXPECT_NE(run.out.find("goals reached     6 of 6                 6 of 6"),
            std::string::npos);
  EXPECT_NE(run.out.find("11 steps (shortest)"), std::string::npos);
}

TEST(Compare, HtmlWritesOnePageWithBothRuns) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("memwal-compare-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const Outcome run =
      Compare({"default", "fence=data-pass", "--model-only", "--preset", "tiny",
               "--no-liveness", "--html", dir.string()});
  EXPECT_EQ(run.code, cli::kExitOk) << run.err;
  std::ifstream in(dir / "compare.html");
  std::ostringstream page;
  page << in.rdbuf();
  EXPECT_NE(page.str().find("<td>fence=data-pass</td>"), std::string::npos);
  EXPECT_NE(page.str().find("<td>139992</td><td>139992</td>"),
            std::string::npos)
      << page.str();
  std::filesystem::remove_all(dir);
}

TEST(Compare, AnUnknownSwitchIsBadUsage) {
  const Outcome run = Compare({"protocol=derived", "colour=red"});
  EXPECT_EQ(run.code, cli::kExitUsage);
  EXPECT_NE(run.err.find("unknown switch 'colour'"), std::string::npos);
  EXPECT_EQ(Compare({"protocol=derived", "protocol=nope"}).code,
            cli::kExitUsage);
  EXPECT_EQ(Compare({"protocol=derived"}).code, cli::kExitUsage);
  EXPECT_EQ(Compare({"protocol", "default"}).code, cli::kExitUsage);
}

TEST(Compare, SwitchSetsReadAsCheckFlags) {
  const Result<std::vector<std::string>> flags = cli::SwitchFlags(
      "protocol=derived,fence=data-pass,bug=restore-walks-back");
  ASSERT_TRUE(flags.ok());
  EXPECT_EQ(*flags, (std::vector<std::string>{"--protocol", "derived",
                                              "--fence", "data-pass", "--bug",
                                              "restore-walks-back"}));
  EXPECT_TRUE(cli::SwitchFlags("default")->empty());
}

}  // namespace
}  // namespace memwal::checker
