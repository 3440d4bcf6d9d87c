// The search core: the seen set, BFS/DFS exploration with budgets and
// goals, and replay of traces.
#include "checker/engine/search.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "checker/engine/seen_set.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using model::Config;

TEST(SeenSet, InsertReportsNewFingerprintsOnly) {
  engine::SeenSet set(engine::Storage::kFingerprint);
  EXPECT_TRUE(set.Insert(42, ""));
  EXPECT_FALSE(set.Insert(42, ""));
  EXPECT_TRUE(set.Insert(uint64_t{1} << 63, ""));
  EXPECT_TRUE(set.Contains(uint64_t{1} << 63, ""));
  EXPECT_FALSE(set.Contains(7ull << 20, ""));
  EXPECT_EQ(set.size(), 2u);
}

TEST(SeenSet, FingerprintModeStoresAStateInAtMostEightBytes) {
  engine::SeenSet set(engine::Storage::kFingerprint);
  uint64_t x = 1;
  for (int k = 0; k < 2'000'000; ++k) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    set.Insert(x, "");
  }
  EXPECT_GE(set.size(), 1'999'990u);  // 52-bit fingerprints may meet
  EXPECT_LE(static_cast<double>(set.bytes()) / set.size(), 8.0);
  EXPECT_GT(set.CollisionProbability(), 0.0);
  EXPECT_LT(set.CollisionProbability(), 1e-3);
}

TEST(SeenSet, ExactModeTellsApartStatesWithOneFingerprint) {
  engine::SeenSet set(engine::Storage::kExact);
  EXPECT_TRUE(set.Insert(5, "state a"));
  EXPECT_TRUE(set.Insert(5, "state b"));
  EXPECT_FALSE(set.Insert(5, "state a"));
  EXPECT_TRUE(set.Contains(5, "state b"));
  EXPECT_FALSE(set.Contains(5, "state c"));
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.CollisionProbability(), 0.0);
}

RC_GTEST_PROP(SeenSet, FingerprintModeBehavesLikeASetOfItsBits,
              (const std::vector<uint64_t>& values)) {
  engine::SeenSet set(engine::Storage::kFingerprint);
  std::set<uint64_t> model;
  // The set tells fingerprints apart by their top 52 bits.
  for (uint64_t v : values) {
    uint64_t bits = v >> 12;
    if ((bits & ((uint64_t{1} << 40) - 1)) == 0) bits |= 1;  // the stand-in
    RC_ASSERT(set.Insert(v, "") == model.insert(bits).second);
  }
  RC_ASSERT(set.size() == model.size());
  for (uint64_t v : values) RC_ASSERT(set.Contains(v, ""));
}

RC_GTEST_PROP(SeenSet, ExactModeBehavesLikeASetOfStates,
              (const std::vector<std::string>& values)) {
  engine::SeenSet set(engine::Storage::kExact);
  std::set<std::string> model;
  for (const std::string& v : values) {
    if (v.size() > 1000) continue;
    // A poor fingerprint on purpose: exact mode must not depend on it.
    RC_ASSERT(set.Insert(v.size(), v) == model.insert(v).second);
  }
  RC_ASSERT(set.size() == model.size());
}

Config Tiny() {
  Config config;
  config.bounds = model::TinyBounds();
  return config;
}

TEST(Explorer, AStateBudgetEndsTheRunIncomplete) {
  const engine::SearchResult result = memwal::checker::engine::SearchModel(
      Tiny(), {.symmetry = false, .max_states = 1000});
  EXPECT_EQ(result.verdict, engine::Verdict::kIncomplete);
  EXPECT_EQ(result.stats.states_distinct, 1000u);
  EXPECT_FALSE(result.violation);
}

TEST(Explorer, DepthFirstVisitsTheSameStates) {
  const engine::SearchResult bfs =
      memwal::checker::engine::SearchModel(Tiny(), {.symmetry = false});
  const engine::SearchResult dfs = memwal::checker::engine::SearchModel(
      Tiny(),
      {.order = memwal::checker::engine::Order::kDfs, .symmetry = false});
  EXPECT_EQ(dfs.verdict, engine::Verdict::kOk);
  EXPECT_EQ(dfs.stats.states_distinct, bfs.stats.states_distinct);
  EXPECT_EQ(dfs.stats.transitions, bfs.stats.transitions);
  EXPECT_GE(dfs.stats.depth_max, bfs.stats.depth_max);
}

TEST(Explorer, BreadthFirstFindsAShortestTrace) {
  Config config = Tiny();
  config.protocol = model::Protocol::kLegacy;
  const engine::SearchResult bfs =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  const engine::SearchResult dfs = memwal::checker::engine::SearchModel(
      config,
      {.order = memwal::checker::engine::Order::kDfs, .symmetry = false});
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
  const engine::SearchResult result =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  EXPECT_EQ(result.verdict, engine::Verdict::kViolation);
  ASSERT_TRUE(result.violation);
  EXPECT_EQ(result.violation->invariant, "ReachPositionCredited");
  EXPECT_TRUE(result.violation->trace.empty());
  EXPECT_EQ(result.stats.goals_missed.front(), "ReachPositionCredited");
}

TEST(Explorer, AGoalItsProtocolCannotReachIsNotApplicable) {
  Config config = Tiny();
  config.protocol = model::Protocol::kUnconditional;
  const engine::SearchResult result =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  EXPECT_EQ(result.verdict, engine::Verdict::kOk);
  EXPECT_EQ(result.stats.goals_reached.size(),
            5u);  // no restore on an activated table
  EXPECT_TRUE(result.stats.goals_missed.empty());
}

TEST(Replay, ReExecutesATraceAndRejectsADisabledStep) {
  std::vector<model::State> states;
  EXPECT_TRUE(engine::Replay(Tiny(),
                             {model::FlushMemTable{0}, model::Activate{},
                              model::Commit{0}},
                             &states)
                  .ok());
  EXPECT_EQ(states.size(), 4u);
  EXPECT_TRUE(model::HasBothBits(model::Head(states.back())));
  const Status bad = engine::Replay(Tiny(), {model::Commit{0}}, &states);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(), "step 1 (Commit{slot=0}) is not enabled");
}

}  // namespace
}  // namespace memwal::checker
