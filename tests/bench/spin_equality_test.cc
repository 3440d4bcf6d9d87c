// The Promela rendition (bench/spin/memwal.pml, instantiated by
// checker::PromelaModel) explores the same state graph as model/: at tiny and
// small SPIN stores exactly our distinct-state count plus its one pre-Init
// state, and for a bug switch SPIN's assertions include the invariant our BFS
// finds broken first. pan is compiled with -O0: compiling it dominates the
// test.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "checker/cli/bench.h"
#include "checker/engine/search.h"

namespace memwal::checker {
namespace {

cli::SpinOptions TestOptions(const std::string& name) {
  return cli::SpinOptions{
      .work_dir = ::testing::TempDir() + "memwal-spin-" + name,
      .cflags = "-O0 -DSAFETY",
      .all_errors = true};
}

void ExpectSameCount(const char* preset) {
  model::Config config;
  config.bounds = *model::ParsePreset(preset);
  const engine::SearchResult ours =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  ASSERT_EQ(ours.verdict, engine::Verdict::kOk) << preset;
  const Result<cli::SpinRun> spin = cli::RunSpin(config, TestOptions(preset));
  ASSERT_TRUE(spin.ok()) << spin.status().ToString();
  EXPECT_EQ(spin->errors, 0u) << preset;
  EXPECT_EQ(spin->states_stored,
            ours.stats.states_distinct + cli::kSpinStateOffset)
      << preset;
}

TEST(SpinRendition, StoresOurDistinctStateCountAtTiny) {
  if (!cli::SpinAvailable()) GTEST_SKIP() << "spin or cc not on PATH";
  ExpectSameCount("tiny");
}

TEST(SpinRendition, StoresOurDistinctStateCountAtSmall) {
  if (!cli::SpinAvailable()) GTEST_SKIP() << "spin or cc not on PATH";
  ExpectSameCount("small");
}

TEST(SpinRendition, AssertsTheInvariantOurSearchFindsBrokenForABug) {
  if (!cli::SpinAvailable()) GTEST_SKIP() << "spin or cc not on PATH";
  // bug                              protocol (tiny bounds)
  const std::pair<model::Bug, model::Protocol> kBugs[] = {
      {model::Bug::kBitClearedBySecondApply, model::Protocol::kDerived},
      {model::Bug::kClaimPastReadVersion, model::Protocol::kDerived},
  };
  for (const auto& [bug, protocol] : kBugs) {
    model::Config config;
    config.protocol = protocol;
    config.bugs = model::BugBit(bug);
    config.bounds = model::TinyBounds();
    const engine::SearchResult ours =
        memwal::checker::engine::SearchModel(config, {.symmetry = false});
    ASSERT_TRUE(ours.violation.has_value()) << model::Name(bug);
    const Result<cli::SpinRun> spin =
        cli::RunSpin(config, TestOptions(std::string(model::Name(bug))));
    ASSERT_TRUE(spin.ok()) << spin.status().ToString();
    EXPECT_GT(spin->errors, 0u) << model::Name(bug);
    EXPECT_NE(std::find(spin->violated.begin(), spin->violated.end(),
                        ours.violation->invariant),
              spin->violated.end())
        << model::Name(bug) << ": ours " << ours.violation->invariant;
  }
}

TEST(SpinRendition, InstantiatesEveryActionWithinTheBounds) {
  model::Config config;
  config.bounds = model::SmallBounds();
  const std::string pml = cli::PromelaModel(config);
  EXPECT_NE(pml.find("#define FRAGS 3\n"), std::string::npos);
  EXPECT_NE(pml.find("RewriteFragments(1, 2)"), std::string::npos);
  EXPECT_EQ(pml.find("RewriteFragments(2, 3)"), std::string::npos);
  EXPECT_EQ(pml.find("/* ACTIONS */"), std::string::npos);
}

// The bench command end to end at tiny (pan at -O0: compiling it at -O2
// took 75 s of the test): every key the issue names, one exact ratio per
// repetition, and the ratio reported is their median.
TEST(BenchCommand, ReportsEveryKeyAndTheMedianOfThePairedRatios) {
  if (!cli::SpinAvailable()) GTEST_SKIP() << "spin or cc not on PATH";
  std::ostringstream out, err;
  const int code = cli::RunBenchCommand(
      {"--preset", "tiny", "--reps", "3", "--no-default-check",
       "--lockstep-states", "2000", "--spin-optimization", "-O0",
       "--side-preset", "tiny", "--large-preset", "tiny", "--json",
       "--work-dir", ::testing::TempDir() + "memwal-bench-command"},
      out, err);
  ASSERT_EQ(code, 0) << err.str();
  const nlohmann::json j = nlohmann::json::parse(out.str());
  for (const char* key : {"ours_states_per_s",
                          "spin_states_per_s",
                          "ratio",
                          "states_ours",
                          "states_spin",
                          "bytes_per_state_ours",
                          "bytes_per_state_spin_hc",
                          "collision_probability",
                          "lockstep_transitions_per_s",
                          "speedup_threads",
                          "symmetry_states_without",
                          "symmetry_states_with",
                          "default_check_seconds",
                          "model_transitions_per_s_per_thread",
                          "lockstep_transitions_per_s_per_thread",
                          "lockstep_ratio",
                          "model_bytes_per_state",
                          "lockstep_bytes_per_state",
                          "large_seconds",
                          "large_peak_rss_mb",
                          "large_start_rss_mb",
                          "large_liveness_seconds",
                          "liveness_states_per_s"})
    EXPECT_TRUE(j.contains(key)) << key;
  // The side-by-side runs and the large run are measured, not left out.
  EXPECT_GT(j["lockstep_transitions_per_s_per_thread"].get<double>(), 0);
  EXPECT_GT(j["model_transitions_per_s_per_thread"].get<double>(), 0);
  EXPECT_EQ(j["lockstep_ratio_runs"].size(), 3u);
  EXPECT_EQ(j["large_verdict"].get<std::string>(), "ok");
  EXPECT_GT(j["large_peak_rss_mb"].get<double>(), 0);
  EXPECT_GT(j["large_start_rss_mb"].get<double>(), 0);
  EXPECT_LE(j["large_start_rss_mb"].get<double>(),
            j["large_peak_rss_mb"].get<double>());
  EXPECT_GT(j["liveness_states_per_s"].get<double>(), 0);
  EXPECT_GT(j["large_liveness_seconds"].get<double>(), 0);
  EXPECT_EQ(j["states_spin"].get<uint64_t>(),
            j["states_ours"].get<uint64_t>() + cli::kSpinStateOffset);
  std::vector<double> runs = j["ratio_runs"].get<std::vector<double>>();
  ASSERT_EQ(runs.size(), 3u);
  std::sort(runs.begin(), runs.end());
  EXPECT_DOUBLE_EQ(j["ratio"].get<double>(), runs[1]);
  EXPECT_TRUE(j["default_check_seconds"].is_null());  // not run: not a figure
}

}  // namespace
}  // namespace memwal::checker
