// The search core: the fingerprint table, BFS/DFS exploration with budgets and
// goals, and replay of traces.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "checker/explorer.h"
#include "checker/fingerprint_set.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using model::Config;

TEST(FingerprintSet, InsertReportsNewFingerprintsOnly) {
  FingerprintSet set(100);
  EXPECT_TRUE(set.Insert(42));
  EXPECT_FALSE(set.Insert(42));
  EXPECT_TRUE(set.Insert(0));  // 0 is the empty marker, stored under a stand-in
  EXPECT_FALSE(set.Insert(0));
  EXPECT_TRUE(set.Contains(0));
  EXPECT_FALSE(set.Contains(7));
  EXPECT_EQ(set.size(), 2u);
}

TEST(FingerprintSet, GrowsPastItsFirstTableAndStopsAtItsBound) {
  FingerprintSet set(5000);
  for (uint64_t k = 1; k <= 5000; ++k)
    EXPECT_TRUE(set.Insert(k * 0x9e3779b97f4a7c15ULL));
  EXPECT_TRUE(set.full());
  EXPECT_GE(set.bytes(), 5000 * 2 * sizeof(uint64_t));
  for (uint64_t k = 1; k <= 5000; ++k)
    EXPECT_TRUE(set.Contains(k * 0x9e3779b97f4a7c15ULL));
  EXPECT_FALSE(
      set.Insert(0x9e3779b97f4a7c15ULL));  // present: allowed even when full
}

RC_GTEST_PROP(FingerprintSet, BehavesLikeASet,
              (const std::vector<uint64_t>& values)) {
  FingerprintSet set(values.size() + 1);
  std::set<uint64_t> model;
  for (uint64_t v : values) RC_ASSERT(set.Insert(v) == model.insert(v).second);
  RC_ASSERT(set.size() == model.size());
  for (uint64_t v : values) RC_ASSERT(set.Contains(v));
}

Config Tiny() {
  Config config;
  config.bounds = model::TinyBounds();
  return config;
}

TEST(Explorer, AStateBudgetEndsTheRunIncomplete) {
  const Exploration result =
      Explore(Tiny(), ExploreOptions{.max_states = 1000});
  EXPECT_EQ(result.verdict, Verdict::kIncomplete);
  EXPECT_EQ(result.stats.states_distinct, 1000u);
  EXPECT_FALSE(result.violation);
}

TEST(Explorer, DepthFirstVisitsTheSameStates) {
  const Exploration bfs = Explore(Tiny(), ExploreOptions{});
  const Exploration dfs =
      Explore(Tiny(), ExploreOptions{.mode = SearchMode::kDfs});
  EXPECT_EQ(dfs.verdict, Verdict::kOk);
  EXPECT_EQ(dfs.stats.states_distinct, bfs.stats.states_distinct);
  EXPECT_EQ(dfs.stats.transitions, bfs.stats.transitions);
  EXPECT_GE(dfs.stats.depth_max, bfs.stats.depth_max);
}

TEST(Explorer, BreadthFirstFindsAShortestTrace) {
  Config config = Tiny();
  config.protocol = model::Protocol::kLegacy;
  const Exploration bfs = Explore(config, ExploreOptions{});
  const Exploration dfs =
      Explore(config, ExploreOptions{.mode = SearchMode::kDfs});
  ASSERT_TRUE(bfs.violation && dfs.violation);
  EXPECT_EQ(bfs.violation->trace.size(), 3u);
  EXPECT_GE(dfs.violation->trace.size(), bfs.violation->trace.size());
  EXPECT_EQ(bfs.violation->states.size(), bfs.violation->trace.size() + 1);
  EXPECT_TRUE(
      model::FirstBrokenInvariant(config, bfs.violation->states.back()));
  for (std::size_t k = 0; k + 1 < bfs.violation->states.size(); ++k) {
    EXPECT_FALSE(model::FirstBrokenInvariant(config, bfs.violation->states[k]));
  }
}

TEST(Explorer, AMissedApplicableGoalIsAViolationNamedAfterTheGoal) {
  Config config = Tiny();
  config.bounds.commits = 2;  // too few commits to credit a position
  const Exploration result = Explore(config, ExploreOptions{});
  EXPECT_EQ(result.verdict, Verdict::kViolation);
  ASSERT_TRUE(result.violation);
  EXPECT_EQ(result.violation->invariant, "ReachPositionCredited");
  EXPECT_TRUE(result.violation->trace.empty());
  EXPECT_EQ(result.stats.goals_missed.front(), "ReachPositionCredited");
}

TEST(Explorer, AGoalItsProtocolCannotReachIsNotApplicable) {
  Config config = Tiny();
  config.protocol = model::Protocol::kUnconditional;
  const Exploration result = Explore(config, ExploreOptions{});
  EXPECT_EQ(result.verdict, Verdict::kOk);
  EXPECT_EQ(result.stats.goals_reached.size(),
            5u);  // no restore on an activated table
  EXPECT_TRUE(result.stats.goals_missed.empty());
}

TEST(Replay, ReExecutesATraceAndRejectsADisabledStep) {
  std::vector<model::State> states;
  EXPECT_TRUE(
      Replay(Tiny(),
             {model::FlushMemTable{0}, model::Activate{}, model::Commit{0}},
             &states)
          .ok());
  EXPECT_EQ(states.size(), 4u);
  EXPECT_TRUE(model::HasBothBits(model::Head(states.back())));
  const Status bad = Replay(Tiny(), {model::Commit{0}}, &states);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(), "step 1 (Commit{slot=0}) is not enabled");
}

}  // namespace
}  // namespace memwal::checker
