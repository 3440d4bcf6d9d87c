// `check --continue` (issue 18 item 9, TLC's -continue): a BFS that goes on
// after a violation and reports every distinct broken invariant with its
// shortest trace, with the same result on any thread count.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/check.h"
#include "checker/cli/commands.h"
#include "checker/cli/cli.h"
#include "checker/cli/compare.h"
#include "checker/engine/search.h"
#include "model/config.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using cli::RunCompareCommand;
using cli::RunMemwalCheck;
using engine::SearchResult;
using engine::SearchViolation;
using engine::Verdict;
using model::Bug;
using model::Config;

// Three mistakes at tiny bounds, each breaking a different invariant: a
// metadata commit that drops fragments (NoRowIsLost, 2 steps), a restore that
// walks the bit back (ActivationIsPermanent, 5 steps) and the min read mode
// (ReadsMissNoRows, 7 steps, past the other two).
Config ThreeBugs() {
  Config config;
  config.read = model::ReadMode::kMin;
  config.bounds = model::TinyBounds();
  config.bugs = model::BugBit(Bug::kRestoreWalksBack) |
                model::BugBit(Bug::kProgressCommitDropsFragments);
  return config;
}

SearchResult Explore(const Config& config, int threads, bool keep_going) {
  return engine::SearchModel(
      config,
      {.threads = threads, .symmetry = false, .keep_going = keep_going});
}

std::vector<std::string> Invariants(const SearchResult& result) {
  std::vector<std::string> names;
  for (const SearchViolation& v : result.violations)
    names.push_back(v.invariant);
  return names;
}

TEST(Continue, ReportsEveryDistinctBrokenInvariantOnce) {
  const SearchResult result = Explore(ThreeBugs(), 1, true);
  EXPECT_EQ(result.verdict, Verdict::kViolation);
  EXPECT_EQ(Invariants(result),
            (std::vector<std::string>{"NoRowIsLost", "ActivationIsPermanent",
                                      "ReadsMissNoRows"}));
  ASSERT_TRUE(result.violation);
  EXPECT_EQ(result.violation->invariant, "NoRowIsLost");
  // The search went on past the first finding: it explored the rest.
  EXPECT_GT(result.stats.states_distinct,
            Explore(ThreeBugs(), 1, false).stats.states_distinct);
}

// Each trace replays on the model, breaks its invariant at its last state and
// no invariant before (a broken state is not expanded further).
TEST(Continue, EveryTraceBreaksItsInvariantAtItsLastStepOnly) {
  const Config config = ThreeBugs();
  const SearchResult result = Explore(config, 1, true);
  ASSERT_EQ(result.violations.size(), 3u);
  for (const SearchViolation& v : result.violations) {
    std::vector<model::State> states;
    ASSERT_TRUE(engine::Replay(config, v.trace, &states).ok()) << v.invariant;
    const model::Invariant* invariant = model::FindInvariant(v.invariant);
    ASSERT_NE(invariant, nullptr);
    EXPECT_FALSE(invariant->holds(config, states.back())) << v.invariant;
    for (std::size_t k = 0; k + 1 < states.size(); ++k) {
      EXPECT_EQ(model::FirstBrokenInvariant(config, states[k]), nullptr)
          << v.invariant << " at step " << k;
    }
  }
}

// Shortest: with the other two bugs off, a plain BFS finds each invariant's
// violation at the same depth the continued search reports.
TEST(Continue, EachTraceIsAsShortAsAPlainSearchForThatBugAlone) {
  const SearchResult all = Explore(ThreeBugs(), 1, true);
  ASSERT_EQ(all.violations.size(), 3u);
  Config drops = ThreeBugs();
  drops.read = model::ReadMode::kStrict;
  drops.bugs = model::BugBit(Bug::kProgressCommitDropsFragments);
  const SearchResult first = Explore(drops, 1, false);
  ASSERT_TRUE(first.violation);
  EXPECT_EQ(first.violation->invariant, "NoRowIsLost");
  EXPECT_EQ(first.violation->trace.size(), all.violations[0].trace.size());
}

TEST(Continue, GivesTheSameViolationsAndCountsOnOneAndTwoThreads) {
  const SearchResult one = Explore(ThreeBugs(), 1, true);
  const SearchResult two = Explore(ThreeBugs(), 2, true);
  EXPECT_EQ(one.stats.states_distinct, two.stats.states_distinct);
  EXPECT_EQ(one.stats.transitions, two.stats.transitions);
  ASSERT_EQ(one.violations.size(), two.violations.size());
  for (std::size_t k = 0; k < one.violations.size(); ++k) {
    EXPECT_EQ(one.violations[k].invariant, two.violations[k].invariant);
    EXPECT_EQ(one.violations[k].trace, two.violations[k].trace);
  }
}

TEST(Continue, OnACleanConfigurationIsAnOrdinaryCompleteSearch) {
  Config config;
  config.bounds = model::TinyBounds();
  const SearchResult plain = Explore(config, 1, false);
  const SearchResult continued = Explore(config, 1, true);
  EXPECT_EQ(plain.verdict, Verdict::kOk);
  EXPECT_EQ(continued.verdict, plain.verdict);
  EXPECT_EQ(continued.stats.states_distinct, plain.stats.states_distinct);
  EXPECT_TRUE(continued.violations.size() == plain.violations.size());
}

int RunCli(const std::vector<std::string>& args, std::string* out_text) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = RunMemwalCheck(args, out, err);
  *out_text = out.str();
  if (code == 2) ADD_FAILURE() << err.str();
  return code;
}

TEST(Continue, CheckJsonListsEveryViolationWithItsTraceFile) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "memwal-continue-test")
          .string();
  std::filesystem::remove_all(dir);
  std::string out;
  const int code = RunCli(
      {"check", "--model-only", "--preset", "tiny", "--read", "min", "--bug",
       "restore-walks-back", "--bug", "progress-commit-drops-fragments",
       "--continue", "--no-liveness", "--threads", "1", "--json", "--out", dir},
      &out);
  EXPECT_EQ(code, 1);
  const nlohmann::json document = nlohmann::json::parse(out);
  ASSERT_EQ(document["violations"].size(), 3u);
  std::set<std::string> names;
  for (const nlohmann::json& v : document["violations"]) {
    names.insert(v["invariant"].get<std::string>());
    EXPECT_TRUE(std::filesystem::exists(v["trace_file"].get<std::string>()));
    EXPECT_TRUE(std::filesystem::exists(v["itf_file"].get<std::string>()));
    EXPECT_EQ(v["trace"].size(), v["step"].get<std::size_t>());
  }
  EXPECT_EQ(names.size(), 3u);
  std::filesystem::remove_all(dir);
}

TEST(Continue, IsRefusedOutsideBreadthFirstSearchAndOutsideCheck) {
  const std::vector<std::vector<std::string>> refused = {
      {"check", "--model-only", "--preset", "tiny", "--continue", "--mode",
       "dfs"},
      {"check", "--model-only", "--preset", "tiny", "--continue", "--mode",
       "random"},
  };
  for (const std::vector<std::string>& args : refused) {
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(RunMemwalCheck(args, out, err), 2) << args[6];
    EXPECT_NE(err.str().find("--continue"), std::string::npos) << err.str();
  }
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(
      RunCompareCommand({"protocol=derived", "protocol=advance", "--model-only",
                         "--preset", "tiny", "--continue"},
                        out, err),
      2);
  EXPECT_NE(err.str().find("--continue"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace memwal::checker
