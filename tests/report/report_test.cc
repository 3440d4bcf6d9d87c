// Report pages (checker/report/report.h): explanations of broken invariants, the
// counterexample page's content, the variants and summary pages, and the
// `report` command. The pages in a browser: chromium_test.sh.
#include "checker/report/report.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checker/engine/search.h"
#include "checker/report/trace.h"
#include "model/actions.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using model::Bug;
using model::Config;

constexpr model::Bounds kTiny{1, 1, 2, 1, 4, 2};
constexpr model::Bounds kTwoIndexes{1, 1, 2, 2, 4, 2};

Config WithBug(Bug bug, model::Bounds bounds = kTiny) {
  Config config;
  config.bugs = model::BugBit(bug);
  config.bounds = bounds;
  return config;
}

// The trace file the tool writes (format version 2) for a model-only run.
// (checker/cli/check.h's LockstepTraceText, which this target cannot
// link, writes the same keys).
std::string TraceText(const report::Trace& trace) {
  nlohmann::json json = report::TraceToJson(trace);
  json["version"] = 2;
  json["lockstep"] = false;
  json["impl_bugs"] = nlohmann::json::array();
  json["step"] = trace.steps.size();
  json["detail"] = "";
  json["implementation_state"] = "";
  return json.dump();
}

// The shortest counterexample of `config`, found by BFS.
engine::SearchViolation Find(const Config& config) {
  const engine::SearchResult result =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  EXPECT_EQ(result.verdict, engine::Verdict::kViolation);
  return result.violation.value_or(engine::SearchViolation{});
}

report::Trace TraceOf(const Config& config,
                      const engine::SearchViolation& violation) {
  return report::Trace{.config = config,
                       .seed = 0,
                       .invariant = violation.invariant,
                       .steps = violation.trace};
}

std::string TempPath(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "memwal-report-test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(Explain, NamesNothingOnInit) {
  const Config config;
  EXPECT_TRUE(report::Explain(config, model::Init(config.bounds)).empty());
}

TEST(Explain, PointsAtTheUnbackedRowOfTheUuidOnlyCompare) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::vector<report::Explanation> why =
      report::Explain(config, violation.states.back());
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why[0].invariant, "CatchupWithinCoverage");
  EXPECT_EQ(why[0].shard, 0);
  EXPECT_EQ(why[0].generation, 1);
  EXPECT_EQ(why[0].index, 0);
  ASSERT_EQ(why[0].fragments.size(), 1u);
  // The row lives in the fragment the compaction created, which the pruned
  // bitmap of idx_0 no longer covers.
  const model::State& last = violation.states.back();
  EXPECT_TRUE(last.rows[why[0].fragments[0]] & model::RowBit(0, 1));
  EXPECT_FALSE(model::Contains(model::CoveredBy(model::Head(last), 0),
                               why[0].fragments[0]));
  EXPECT_NE(why[0].detail.find("(0,1)"), std::string::npos);
}

TEST(Explain, NamesTheQueryThatMissesARowWhenTheReaderIgnoresTheBit) {
  const Config config = WithBug(Bug::kReaderIgnoresBit);
  const engine::SearchViolation violation = Find(config);
  ASSERT_EQ(violation.invariant, "ReadsMissNoRows");
  const std::vector<report::Explanation> why =
      report::Explain(config, violation.states.back());
  ASSERT_FALSE(why.empty());
  const auto reads =
      std::find_if(why.begin(), why.end(), [](const report::Explanation& e) {
        return e.invariant == "ReadsMissNoRows";
      });
  ASSERT_NE(reads, why.end());
  EXPECT_GE(reads->shard, 0);
  EXPECT_GE(reads->generation, 1);
  EXPECT_FALSE(reads->query.empty());
  EXPECT_NE(reads->detail.find("misses row"), std::string::npos);
}

TEST(Explain, NamesTheVersionWithOneBitForActivationBugs) {
  const Config config = WithBug(Bug::kBitClearedBySecondApply);
  const engine::SearchViolation violation = Find(config);
  const std::vector<report::Explanation> why =
      report::Explain(config, violation.states.back());
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why[0].invariant, violation.invariant);
  EXPECT_GE(why[0].version, 1);
}

// Under several buggy configs, along random walks: Explain names exactly the
// invariants the state breaks, in the spec's order, each with a detail.
RC_GTEST_PROP(Explain, AgreesWithTheInvariantsAlongRandomWalks, ()) {
  const std::vector<Config> configs = {
      WithBug(Bug::kUnchangedByUuidOnly),
      WithBug(Bug::kProgressCommitDropsFragments),
      WithBug(Bug::kClaimPastReadVersion),
      WithBug(Bug::kSingleIndexWatermark, kTwoIndexes),
      WithBug(Bug::kRestoreWalksBack),
      WithBug(Bug::kCoveragePastCompaction),
      WithBug(Bug::kInvalidationOnLegacy)};
  const Config config =
      configs[*rc::gen::inRange<std::size_t>(0, configs.size())];
  model::State state = model::Init(config.bounds);
  std::vector<model::Action> enabled;
  for (int step = 0; step < 12; ++step) {
    model::EnabledActions(config, state, &enabled);
    if (enabled.empty()) break;
    const model::Action action =
        enabled[*rc::gen::inRange<std::size_t>(0, enabled.size())];
    model::Outcome outcome;
    state = model::Apply(config, state, action, &outcome);
    std::vector<std::string> broken;
    for (const model::Invariant& invariant : model::AllInvariants()) {
      if (!invariant.holds(config, state)) broken.emplace_back(invariant.name);
    }
    const std::vector<report::Explanation> why = report::Explain(config, state);
    RC_ASSERT(why.size() == broken.size());
    for (std::size_t k = 0; k < why.size(); ++k) {
      RC_ASSERT(why[k].invariant == broken[k]);
      RC_ASSERT(!why[k].detail.empty());
    }
  }
}

TEST(CounterexamplePage,
     ShowsTheInvariantTheRowTheStepsAndTheReproduceCommand) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::string html = report::RenderCounterexamplePage(
      TraceOf(config, violation), violation.states,
      "memwal-check replay out/CatchupWithinCoverage.trace.json");
  EXPECT_NE(html.find("CatchupWithinCoverage"), std::string::npos);
  EXPECT_NE(html.find("row (0,1)"), std::string::npos);
  EXPECT_NE(
      html.find("memwal-check replay out/CatchupWithinCoverage.trace.json"),
      std::string::npos);
  for (std::size_t k = 0; k <= violation.trace.size(); ++k) {
    EXPECT_NE(html.find("id=\"step-" + std::to_string(k) + "\""),
              std::string::npos)
        << k;
  }
  EXPECT_NE(html.find("id=\"pointer-row\""), std::string::npos);
  // The rebase of the CreateIndex over the UpdateColumns (or the reverse) is
  // drawn as an arrow.
  EXPECT_NE(html.find("rebase v"), std::string::npos);
  EXPECT_NE(html.find("class=\"miss\""), std::string::npos);
  // The query that misses the row (ReadsMissNoRows breaks too) is marked.
  EXPECT_TRUE(std::regex_search(
      html, std::regex("class=\"miss[^\"]*\"[^>]*>not served</td>")));
  EXPECT_NE(html.find(" chg"), std::string::npos);
}

TEST(CounterexamplePage, LoadsNothingFromOutside) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::string html = report::RenderCounterexamplePage(
      TraceOf(config, violation), violation.states, "x");
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST(CounterexamplePage, EmbedsTheStepsAsJsonThatParses) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::string html = report::RenderCounterexamplePage(
      TraceOf(config, violation), violation.states, "x");
  const std::string open =
      "<script type=\"application/json\" id=\"steps-data\">";
  const std::size_t begin = html.find(open);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = html.find("</script>", begin);
  const nlohmann::json data = nlohmann::json::parse(
      html.substr(begin + open.size(), end - begin - open.size()), nullptr,
      false);
  ASSERT_FALSE(data.is_discarded());
  EXPECT_EQ(data["steps"].size(), violation.states.size());
  EXPECT_EQ(data["invariants"][0]["invariant"], "CatchupWithinCoverage");
  const Result<report::Trace> trace = report::TraceFromJson(data["trace"]);
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->steps, violation.trace);
}

TEST(VariantsPage, LinksEachRowWithATraceToItsPageAndEscapesText) {
  const nlohmann::json rows = nlohmann::json::parse(R"([
    {"variant":"bug unchanged-by-uuid-only","verdict":"violation",
     "invariant":"CatchupWithinCoverage","states":1234,"seconds":0.5,
     "counterexample_steps":9,"trace_file":"out/uuid/CatchupWithinCoverage.trace.json"},
    {"variant":"protocol <derived>","verdict":"ok","invariant":null,"states":99,
     "seconds":0.25,"counterexample_steps":null}])");
  const std::string html = report::RenderVariantsPage(rows);
  EXPECT_NE(
      html.find(
          "href=\"bug-unchanged-by-uuid-only--CatchupWithinCoverage.html\""),
      std::string::npos);
  EXPECT_NE(html.find("protocol &lt;derived&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<derived>"), std::string::npos);
  EXPECT_NE(html.find("2 variants"), std::string::npos);
  EXPECT_EQ(report::CounterexamplePageName(rows[1]), "");
}

TEST(VariantsPages, WritesThePageAndOneCounterexamplePagePerTrace) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::string trace_path = TempPath("uuid-only.trace.json");
  ASSERT_TRUE(report::WriteFileAtomically(trace_path,
                                          TraceText(TraceOf(config, violation)))
                  .ok());
  const nlohmann::json rows =
      nlohmann::json::array({{{"variant", "bug unchanged-by-uuid-only"},
                              {"verdict", "violation"},
                              {"invariant", "CatchupWithinCoverage"},
                              {"states", 10},
                              {"seconds", 0.1},
                              {"counterexample_steps", 9},
                              {"trace_file", trace_path}}});
  const std::string dir = TempPath("variants");
  ASSERT_TRUE(report::WriteVariantsPages(dir, rows).ok());
  EXPECT_TRUE(std::filesystem::exists(dir + "/variants.html"));
  EXPECT_TRUE(std::filesystem::exists(
      dir + "/bug-unchanged-by-uuid-only--uuid-only.html"));
}

TEST(SummaryPage, ShowsStatesPerDepthCoverageAndGoals) {
  Config config;
  config.bounds = kTiny;
  const engine::SearchResult result =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  uint64_t total = 0;
  for (uint64_t n : result.stats.states_per_depth) total += n;
  EXPECT_EQ(total, result.stats.states_distinct);
  EXPECT_EQ(result.stats.states_per_depth.size(),
            static_cast<std::size_t>(result.stats.depth_max) + 1);
  EXPECT_EQ(result.stats.states_per_depth[0], 1u);
  const report::RunSummary summary{
      .config = config,
      .verdict = std::string(Name(result.verdict)),
      .command_line = "memwal-check check --preset tiny",
      .stats = result.stats};
  const std::string html = report::RenderSummaryPage(summary);
  EXPECT_NE(html.find("Distinct states per depth"), std::string::npos);
  EXPECT_NE(
      html.find("<td>" + std::to_string(result.stats.states_per_depth[1]) +
                "</td>"),
      std::string::npos);
  EXPECT_NE(html.find("CompactSsTable"), std::string::npos);
  for (const std::string& goal : result.stats.goals_reached) {
    EXPECT_NE(html.find(goal), std::string::npos);
  }
}

TEST(ReportCommand, WritesThePageOfATraceFile) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::string trace_path = TempPath("cmd.trace.json");
  ASSERT_TRUE(report::WriteFileAtomically(trace_path,
                                          TraceText(TraceOf(config, violation)))
                  .ok());
  const std::string page = TempPath("cmd.html");
  std::ostringstream out, err;
  EXPECT_EQ(report::RunReportCommand({trace_path, "--out", page}, out, err), 0)
      << err.str();
  const Result<std::string> html = report::ReadFile(page);
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("memwal-check replay " + trace_path), std::string::npos);
}

TEST(ReportCommand, AcceptsALockstepTraceOfVersionTwo) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  nlohmann::json json = report::TraceToJson(TraceOf(config, violation));
  json["version"] = 2;
  json["lockstep"] = true;
  json["impl_bugs"] = nlohmann::json::array();
  // The keys the lockstep CLI writes besides (checker/cli/check.h).
  json["step"] = violation.trace.size();
  json["detail"] = "why it broke";
  json["implementation_state"] = "the implementation in model terms";
  const std::string trace_path = TempPath("v2.trace.json");
  ASSERT_TRUE(report::WriteFileAtomically(trace_path, json.dump()).ok());
  std::ostringstream out, err;
  EXPECT_EQ(report::RunReportCommand({trace_path, "--out", TempPath("v2.html")},
                                     out, err),
            0)
      << err.str();
}

TEST(ReportCommand, WritesTheVariantsPagesFromTheRowsVariantsPrints) {
  const Config config = WithBug(Bug::kUnchangedByUuidOnly);
  const engine::SearchViolation violation = Find(config);
  const std::string trace_path = TempPath("rows-uuid.trace.json");
  ASSERT_TRUE(report::WriteFileAtomically(trace_path,
                                          TraceText(TraceOf(config, violation)))
                  .ok());
  const nlohmann::json rows =
      nlohmann::json::array({{{"variant", "bug unchanged-by-uuid-only"},
                              {"verdict", "violation"},
                              {"invariant", "CatchupWithinCoverage"},
                              {"states", 10},
                              {"seconds", 0.1},
                              {"counterexample_steps", 9},
                              {"trace_file", trace_path}}});
  const std::string rows_path = TempPath("rows.json");
  ASSERT_TRUE(report::WriteFileAtomically(rows_path, rows.dump()).ok());
  const std::string dir = TempPath("rows-pages");
  std::ostringstream out, err;
  EXPECT_EQ(report::RunReportCommand({"--variants", rows_path, "--out", dir},
                                     out, err),
            0)
      << err.str();
  const Result<std::string> page = report::ReadFile(dir + "/variants.html");
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("bug-unchanged-by-uuid-only--rows-uuid.html"),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(
      dir + "/bug-unchanged-by-uuid-only--rows-uuid.html"));
  // Not an array: refused.
  ASSERT_TRUE(report::WriteFileAtomically(rows_path, "{}").ok());
  EXPECT_EQ(report::RunReportCommand({"--variants", rows_path, "--out", dir},
                                     out, err),
            2);
}

TEST(ReportCommand, RefusesBadUsageAndBadInputWithOneLine) {
  std::ostringstream out, err;
  EXPECT_EQ(report::RunReportCommand({}, out, err), 2);
  EXPECT_EQ(report::RunReportCommand({"a.trace.json"}, out, err), 2);
  EXPECT_EQ(report::RunReportCommand({"a", "--bogus"}, out, err), 2);
  const std::string missing = TempPath("missing.trace.json");
  std::filesystem::remove(missing);
  std::ostringstream err2;
  EXPECT_EQ(report::RunReportCommand({missing, "--out", TempPath("x.html")},
                                     out, err2),
            2);
  const std::string message = err2.str();
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  const std::string garbage = TempPath("garbage.trace.json");
  ASSERT_TRUE(report::WriteFileAtomically(garbage, "{\"format\":1}").ok());
  EXPECT_EQ(report::RunReportCommand({garbage, "--out", TempPath("y.html")},
                                     out, err),
            2);
  // A step that is not enabled is refused, not rendered.
  const std::string disabled = TempPath("disabled.trace.json");
  ASSERT_TRUE(
      report::WriteFileAtomically(
          disabled, TraceText(report::Trace{.config = Config{},
                                            .steps = {model::Commit{0}}}))
          .ok());
  std::ostringstream err3;
  EXPECT_EQ(report::RunReportCommand({disabled, "--out", TempPath("z.html")},
                                     out, err3),
            2);
  EXPECT_NE(err3.str().find("not enabled"), std::string::npos) << err3.str();
}

}  // namespace
}  // namespace memwal::checker
