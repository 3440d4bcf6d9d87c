// Conformance: the implementation in lockstep with the model under the default
// config (derived, strict, atomic). Every model transition is applied to the
// implementation, its persisted state decoded, compared with the model and
// checked against every invariant. The state and transition counts equal the
// model-only search's (lockstep deduplicates by the model's fingerprint).
#include <gtest/gtest.h>

#include "checker/engine/search.h"

namespace memwal::checker {
namespace {

lockstep::LockstepSetup DefaultSetup(const model::Bounds& bounds) {
  lockstep::LockstepSetup setup;
  setup.config.bounds = bounds;
  return setup;
}

// The acceptance run of `./memwal check`: the default config at `small`. Before
// CreateIndex/DropIndex removed the read version's segments by uuid in the
// model (R25, R27), this met a disagreement at step six: a DropIndex rebased
// over a RewriteFragments keeps the remapped segment in the implementation.
TEST(Lockstep, DefaultConfigAtSmallAgreesWithTheModelAndReachesEveryGoal) {
  const engine::SearchResult result = engine::Search(
      DefaultSetup(model::SmallBounds()), engine::Options{.threads = 2});
  ASSERT_FALSE(result.violation.has_value())
      << result.violation->invariant << ": " << result.violation->detail;
  EXPECT_EQ(result.verdict, engine::Verdict::kOk);
  EXPECT_TRUE(result.stats.goals_missed.empty());
  EXPECT_EQ(result.stats.states_distinct, 284634u);
  EXPECT_EQ(result.stats.transitions, 796399u);
}

TEST(Lockstep, ModelOnlyAndLockstepVisitTheSameStates) {
  model::Bounds bounds = model::TinyBounds();
  bounds.commits = 3;
  const engine::SearchResult model_only =
      engine::Search(DefaultSetup(bounds), engine::Options{.lockstep = false});
  const engine::SearchResult lockstep =
      engine::Search(DefaultSetup(bounds), engine::Options{});
  EXPECT_EQ(model_only.stats.states_distinct, lockstep.stats.states_distinct);
  EXPECT_EQ(model_only.stats.transitions, lockstep.stats.transitions);
  EXPECT_EQ(model_only.stats.coverage, lockstep.stats.coverage);
}

}  // namespace
}  // namespace memwal::checker
