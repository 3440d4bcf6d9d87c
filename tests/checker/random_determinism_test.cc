// Random mode gives the same counts, coverage and trace for any thread count
// (checker/engine/workers.cc's RunRandom merges each batch of walks in walk order).
// Method: the same seeded run with 1, 2 and 4 threads, three times each, with
// and without a bug; every field but the wall time must agree.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "checker/engine/search.h"

namespace memwal::checker {
namespace {

// Everything a run reports except its wall time.
auto Observable(const engine::SearchResult& result) {
  const engine::Stats& s = result.stats;
  std::vector<model::Action> trace;
  std::string invariant;
  if (result.violation) {
    trace = result.violation->trace;
    invariant = result.violation->invariant;
  }
  return std::make_tuple(result.verdict, s.states_distinct, s.transitions,
                         s.depth_max, s.coverage, s.goals_reached,
                         s.states_per_depth, invariant, trace);
}

void ExpectSameForAnyThreadCount(const lockstep::LockstepSetup& setup) {
  engine::Options options{.order = engine::Order::kRandom,
                          .threads = 1,
                          .lockstep = false,
                          .walks = 3000};
  const auto expected = Observable(engine::Search(setup, options));
  for (int threads : {1, 2, 4}) {
    for (int run = 0; run < 3; ++run) {
      options.threads = threads;
      EXPECT_TRUE(Observable(engine::Search(setup, options)) == expected)
          << threads << " threads, run " << run;
    }
  }
}

TEST(RandomMode, CountsTheSameForAnyThreadCountWithoutAViolation) {
  ExpectSameForAnyThreadCount(lockstep::LockstepSetup{.seed = 11});
}

TEST(RandomMode, CountsAndTracesTheSameForAnyThreadCountWithAViolation) {
  lockstep::LockstepSetup setup{.seed = 0};
  setup.config.bugs = model::BugBit(model::Bug::kClaimPastReadVersion);
  const engine::SearchResult result =
      engine::Search(setup, engine::Options{.order = engine::Order::kRandom,
                                            .lockstep = false,
                                            .walks = 3000});
  ASSERT_EQ(result.verdict, engine::Verdict::kViolation);
  ExpectSameForAnyThreadCount(setup);
}

}  // namespace
}  // namespace memwal::checker
