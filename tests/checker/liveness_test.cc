// CompactedGenerationsEventuallyRetire (checker/liveness.h): holds under the
// default config, fails for the no-work repair that records nothing, and the
// counterexample's last state really has no fair way out.
#include "checker/engine/liveness.h"

#include <gtest/gtest.h>

namespace memwal::checker {
namespace {

model::Config ConfigWith(const model::Bounds& bounds, uint32_t bugs = 0) {
  model::Config config;
  config.bounds = bounds;
  config.bugs = bugs;
  return config;
}

// (small, about 3 s more, is what the default `./memwal check` runs.)
TEST(Liveness, HoldsUnderTheDefaultConfigAtTiny) {
  const engine::LivenessResult result =
      engine::CheckLiveness(ConfigWith(model::TinyBounds()), 10'000'000);
  EXPECT_TRUE(result.complete);
  EXPECT_TRUE(result.holds) << result.note;
  EXPECT_EQ(result.states, 139992u);
  EXPECT_GT(result.fair_states, 0u);
}

TEST(Liveness, StopsIncompleteWhenTheStateBudgetRunsOut) {
  const engine::LivenessResult result =
      engine::CheckLiveness(ConfigWith(model::TinyBounds()), 1000);
  EXPECT_FALSE(result.complete);
}

TEST(Liveness, FailsWhenANoWorkRepairRecordsNothing) {
  const model::Config config =
      ConfigWith(model::TinyBounds(),
                 model::BugBit(model::Bug::kNoWorkRepairRecordsNothing));
  const engine::LivenessResult result =
      engine::CheckLiveness(config, 10'000'000);
  ASSERT_FALSE(result.holds);
  EXPECT_EQ(result.trace.size(), 7u);
  ASSERT_EQ(result.states_on_trace.size(), result.trace.size() + 1);
  std::string note;
  EXPECT_FALSE(
      engine::FairlyRetires(config, result.states_on_trace.back(), &note));
  EXPECT_NE(note.find("can never become retirable"), std::string::npos);
  // Without the bug, the same state can still retire its generation.
  EXPECT_TRUE(engine::FairlyRetires(ConfigWith(model::TinyBounds()),
                                    result.states_on_trace.back(), nullptr));
}

TEST(Liveness, FairContinuationsMayUseCommitsBeyondTheBound) {
  const model::Config config = ConfigWith(model::TinyBounds());
  EXPECT_EQ(engine::FairConfig(config).bounds.commits,
            config.bounds.commits + engine::kFairExtraCommits);
  model::Config at_max = config;
  at_max.bounds.commits = model::kCommitsMax;
  EXPECT_EQ(engine::FairConfig(at_max).bounds.commits, model::kCommitsMax);
}

TEST(Liveness, InitRetiresTriviallyAndFairActionsExcludeWrites) {
  const model::Config config = ConfigWith(model::TinyBounds());
  const model::State init = model::Init(config.bounds);
  EXPECT_TRUE(engine::AllCompactedRetirable(config, init));
  std::vector<model::Action> fair;
  engine::FairActions(engine::FairConfig(config), init, &fair);
  for (const model::Action& action : fair) {
    EXPECT_FALSE(std::holds_alternative<model::Append>(action));
    EXPECT_FALSE(std::holds_alternative<model::FlushMemTable>(action));
    EXPECT_FALSE(std::holds_alternative<model::Restore>(action));
  }
}

}  // namespace
}  // namespace memwal::checker
