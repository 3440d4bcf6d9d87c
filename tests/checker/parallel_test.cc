// Thread-count and seed determinism of the lockstep search
// (checker/engine/search.h): the same distinct-state and transition counts and
// the same first counterexample for 1, 2 and 3 threads; the same trace for two
// runs with one seed; and the lock-free fingerprint set under concurrent
// inserts.
#include <gtest/gtest.h>

#include <thread>

#include "checker/engine/search.h"
#include "checker/engine/seen_set.h"
#include "impl/blob_cache.h"

namespace memwal::checker {
namespace {

// tiny with one commit less: small enough to run lockstep three times.
model::Bounds ReducedTiny() {
  model::Bounds bounds = model::TinyBounds();
  bounds.commits = 3;
  return bounds;
}

lockstep::LockstepSetup SetupWith(const model::Bounds& bounds,
                                  uint32_t bugs = 0,
                                  uint32_t impl_only_bugs = 0) {
  lockstep::LockstepSetup setup;
  setup.config.bounds = bounds;
  setup.config.bugs = bugs;
  setup.impl_only_bugs = impl_only_bugs;
  return setup;
}

void ExpectSameRun(const engine::SearchResult& a,
                   const engine::SearchResult& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.stats.states_distinct, b.stats.states_distinct);
  EXPECT_EQ(a.stats.transitions, b.stats.transitions);
  EXPECT_EQ(a.stats.depth_max, b.stats.depth_max);
  EXPECT_EQ(a.stats.coverage, b.stats.coverage);
  EXPECT_EQ(a.stats.goals_reached, b.stats.goals_reached);
  ASSERT_EQ(a.violation.has_value(), b.violation.has_value());
  if (!a.violation) return;
  EXPECT_EQ(a.violation->invariant, b.violation->invariant);
  EXPECT_EQ(a.violation->trace, b.violation->trace);
}

TEST(Parallel, ModelOnlySmallHasTheSameCountsWithOneTwoAndThreeThreads) {
  const lockstep::LockstepSetup setup = SetupWith(model::SmallBounds());
  const engine::SearchResult one =
      engine::Search(setup, engine::Options{.threads = 1, .lockstep = false});
  EXPECT_EQ(one.verdict, engine::Verdict::kOk);
  EXPECT_EQ(one.stats.states_distinct, 284634u);
  EXPECT_EQ(one.stats.transitions, 796399u);
  for (int threads : {2, 3}) {
    ExpectSameRun(one,
                  engine::Search(setup, engine::Options{.threads = threads,
                                                        .lockstep = false}));
  }
}

TEST(Parallel, LockstepHasTheSameCountsWithOneTwoAndThreeThreads) {
  const lockstep::LockstepSetup setup = SetupWith(ReducedTiny());
  const engine::SearchResult one =
      engine::Search(setup, engine::Options{.threads = 1});
  // One commit less leaves some goals unreached; no invariant breaks.
  ASSERT_TRUE(!one.violation || one.violation->trace.empty());
  EXPECT_GT(one.stats.states_distinct, 1000u);
  for (int threads : {2, 3})
    ExpectSameRun(one,
                  engine::Search(setup, engine::Options{.threads = threads}));
}

TEST(Parallel,
     DepthFirstLockstepTakesTheSameStatesAndTransitionsAsBreadthFirst) {
  const lockstep::LockstepSetup setup = SetupWith(ReducedTiny());
  const engine::SearchResult bfs =
      engine::Search(setup, engine::Options{.threads = 1});
  const engine::SearchResult dfs = engine::Search(
      setup, engine::Options{.order = engine::Order::kDfs, .threads = 1});
  EXPECT_EQ(dfs.verdict, bfs.verdict);
  EXPECT_GT(bfs.stats.states_distinct, 1000u);
  EXPECT_EQ(dfs.stats.states_distinct, bfs.stats.states_distinct);
  EXPECT_EQ(dfs.stats.transitions, bfs.stats.transitions);
  EXPECT_EQ(dfs.stats.coverage, bfs.stats.coverage);
  EXPECT_EQ(dfs.stats.goals_missed, bfs.stats.goals_missed);
  // The run's share of the decode caches is given back when it ends.
  EXPECT_EQ(impl::cache_divisor, 1u);
}

// A depth-first run's counterexample is the breadth-first run's: same
// invariant, same (shortest) trace, for a bug in both and an impl-only one.
TEST(Parallel, ADepthFirstCounterexampleIsAsShortAsTheBreadthFirstOne) {
  for (const lockstep::LockstepSetup& setup :
       {SetupWith(ReducedTiny(),
                  model::BugBit(model::Bug::kBitDroppedByNewFromPrevious)),
        SetupWith(ReducedTiny(), 0,
                  model::BugBit(model::Bug::kProgressCommitDropsFragments))}) {
    const engine::SearchResult bfs =
        engine::Search(setup, engine::Options{.threads = 1});
    ASSERT_EQ(bfs.verdict, engine::Verdict::kViolation);
    ASSERT_TRUE(bfs.violation.has_value());
    ASSERT_FALSE(bfs.violation->trace.empty());
    for (int threads : {1, 2}) {
      const engine::SearchResult dfs = engine::Search(
          setup,
          engine::Options{.order = engine::Order::kDfs, .threads = threads});
      ASSERT_EQ(dfs.verdict, engine::Verdict::kViolation);
      ASSERT_TRUE(dfs.violation.has_value());
      EXPECT_EQ(dfs.violation->invariant, bfs.violation->invariant);
      EXPECT_EQ(dfs.violation->trace, bfs.violation->trace);
      EXPECT_EQ(dfs.violation->states.size(), dfs.violation->trace.size() + 1);
    }
  }
}

TEST(Parallel, TheFirstCounterexampleIsTheSameWithOneTwoAndThreeThreads) {
  const lockstep::LockstepSetup setup =
      SetupWith(model::TinyBounds(), 0,
                model::BugBit(model::Bug::kBitDroppedByNewFromPrevious));
  const engine::SearchResult one =
      engine::Search(setup, engine::Options{.threads = 1});
  ASSERT_TRUE(one.violation.has_value());
  EXPECT_EQ(one.violation->invariant, "ActivationIsPermanent");
  EXPECT_EQ(one.violation->trace.size(), 4u);
  for (int threads : {2, 3})
    ExpectSameRun(one,
                  engine::Search(setup, engine::Options{.threads = threads}));
}

TEST(Parallel, ModelOnlyCounterexampleIsTheSameWithOneTwoAndThreeThreads) {
  const lockstep::LockstepSetup setup = SetupWith(
      model::SmallBounds(), model::BugBit(model::Bug::kClaimPastReadVersion));
  const engine::SearchResult one =
      engine::Search(setup, engine::Options{.threads = 1, .lockstep = false});
  ASSERT_TRUE(one.violation.has_value());
  EXPECT_EQ(one.violation->invariant, "CatchupWithinCoverage");
  for (int threads : {2, 3}) {
    ExpectSameRun(one,
                  engine::Search(setup, engine::Options{.threads = threads,
                                                        .lockstep = false}));
  }
}

TEST(Parallel, DepthFirstSearchVisitsTheSameStatesAsBreadthFirst) {
  const lockstep::LockstepSetup setup = SetupWith(ReducedTiny());
  const engine::SearchResult bfs =
      engine::Search(setup, engine::Options{.lockstep = false});
  const engine::SearchResult dfs = engine::Search(
      setup, engine::Options{.order = engine::Order::kDfs, .lockstep = false});
  EXPECT_EQ(dfs.verdict, bfs.verdict);
  EXPECT_EQ(bfs.stats.states_distinct, dfs.stats.states_distinct);
  EXPECT_EQ(bfs.stats.transitions, dfs.stats.transitions);
}

TEST(RandomWalks, TwoRunsWithTheSameSeedGiveTheSameTrace) {
  lockstep::LockstepSetup setup =
      SetupWith(model::SmallBounds(), 0,
                model::BugBit(model::Bug::kClaimPastReadVersion));
  setup.seed = 7;
  const engine::Options options{.order = engine::Order::kRandom,
                                .threads = 2,
                                .walks = 3000,
                                .depth = 12};
  const engine::SearchResult a = engine::Search(setup, options);
  const engine::SearchResult b = engine::Search(setup, options);
  ASSERT_TRUE(a.violation.has_value());
  EXPECT_EQ(a.violation->invariant, "CatchupWithinCoverage");
  EXPECT_EQ(a.violation->trace, b.violation->trace);
  engine::Options one_thread = options;
  one_thread.threads = 1;
  EXPECT_EQ(engine::Search(setup, one_thread).violation->trace,
            a.violation->trace);
}

TEST(RandomWalks, WithoutAViolationCountTheSameStatesForAnyThreadCount) {
  lockstep::LockstepSetup setup = SetupWith(model::TinyBounds());
  setup.seed = 3;
  engine::Options options{
      .order = engine::Order::kRandom, .threads = 1, .walks = 200, .depth = 10};
  const engine::SearchResult one = engine::Search(setup, options);
  options.threads = 2;
  const engine::SearchResult two = engine::Search(setup, options);
  EXPECT_EQ(one.verdict, engine::Verdict::kOk);
  EXPECT_EQ(one.stats.states_distinct, two.stats.states_distinct);
  EXPECT_EQ(one.stats.transitions, two.stats.transitions);
}

TEST(Budgets, MaxStatesStopsTheSearchIncomplete) {
  const engine::SearchResult result =
      engine::Search(SetupWith(model::SmallBounds()),
                     engine::Options{.threads = 2, .max_states = 500});
  EXPECT_EQ(result.verdict, engine::Verdict::kIncomplete);
  EXPECT_EQ(result.stopped_by, "max-states");
  EXPECT_EQ(result.stats.states_distinct, 500u);
}

TEST(SeenSet, SharedInsertsAgreeOnOneWinnerPerFingerprint) {
  engine::SeenSet set(engine::Storage::kFingerprint);
  std::atomic<int> wins{0};
  auto insert = [&] {
    for (uint64_t k = 0; k < 20000; ++k) {
      if (set.InsertShared((k + 1) * 0xff51afd7ed558ccdULL, ""))
        wins.fetch_add(1);
    }
  };
  std::thread a(insert);
  std::thread b(insert);
  a.join();
  b.join();
  EXPECT_EQ(wins.load(), 20000);
  EXPECT_EQ(set.size(), 20000u);
  EXPECT_TRUE(set.Contains(0xff51afd7ed558ccdULL, ""));
}

// The refusals are checked once per distinct state, on the World the search
// keeps (checker/lockstep/lockstep.h): R60's half-set head folded by the
// implementation accepts a begin the model disables, a finding of the reached
// state, which every thread count and DFS report alike.
TEST(Parallel, ARefusalFoundOnAReachedStateIsTheSameForAnyThreadCountAndDfs) {
  lockstep::LockstepSetup setup =
      SetupWith(ReducedTiny(), 0, model::BugBit(model::Bug::kHalfSetFolded));
  setup.config.env = model::Env::kForeign;
  const engine::SearchResult one =
      engine::Search(setup, engine::Options{.threads = 1});
  ASSERT_EQ(one.verdict, engine::Verdict::kViolation);
  EXPECT_EQ(one.violation->invariant, "ImplementationMatchesModel");
  EXPECT_NE(one.violation->detail.find("refusals: the implementation accepted"),
            std::string::npos)
      << one.violation->detail;
  for (int threads : {2, 3})
    ExpectSameRun(one,
                  engine::Search(setup, engine::Options{.threads = threads}));
  const engine::SearchResult dfs = engine::Search(
      setup, engine::Options{.order = engine::Order::kDfs, .threads = 1});
  ASSERT_EQ(dfs.verdict, engine::Verdict::kViolation);
  EXPECT_EQ(dfs.violation->invariant, "ImplementationMatchesModel");
  const Result<lockstep::ReplayResult> replay =
      lockstep::ReplayLockstep(setup, dfs.violation->trace, false);
  ASSERT_TRUE(replay.ok());
  ASSERT_TRUE(replay->finding.has_value());
  EXPECT_EQ(replay->step, dfs.violation->trace.size());
}

TEST(RandomWalks, WithAViolationCountTheSameStatesForAnyThreadCount) {
  lockstep::LockstepSetup setup = SetupWith(
      model::SmallBounds(), model::BugBit(model::Bug::kClaimPastReadVersion));
  setup.seed = 7;
  engine::Options options{.order = engine::Order::kRandom,
                          .threads = 1,
                          .lockstep = false,
                          .walks = 3000,
                          .depth = 12};
  const engine::SearchResult one = engine::Search(setup, options);
  ASSERT_EQ(one.verdict, engine::Verdict::kViolation);
  for (int threads : {2, 3, 2, 3}) {
    options.threads = threads;
    const engine::SearchResult many = engine::Search(setup, options);
    EXPECT_EQ(many.stats.states_distinct, one.stats.states_distinct);
    EXPECT_EQ(many.stats.transitions, one.stats.transitions);
    EXPECT_EQ(many.violation->trace, one.violation->trace);
  }
}

}  // namespace
}  // namespace memwal::checker
