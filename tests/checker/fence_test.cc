// The proposed change R65 (`fence data-pass`, spec/protocol.md section 11): the
// stale compaction data pass of section 9 breaks CatchupWithinCoverage without
// the fence and is refused with it, on the model and, in lockstep, on the
// implementation. The five-commit searches of `derived` with and without the
// fence are compare_test.cc's (one run of each in the suite).
#include <gtest/gtest.h>

#include "checker/engine/search.h"
#include "checker/lockstep/lockstep.h"
#include "checker/report/trace.h"
#include "model/config.h"
#include "model/switches.h"

namespace memwal::checker {
namespace {

using model::Config;
using model::Protocol;

// The switch as registered (model/commit.cc), found by its name as the CLI
// and traces find it.
model::Switch Fence() { return model::FindSwitch("fence").value(); }

Config Fenced(Config config) {
  Fence().Set(&config, Fence().Parse("data-pass").value());
  return config;
}

TEST(DataPassFence, UnconditionalHoldsAtSmallWithTheFence) {
  Config config;
  config.protocol = Protocol::kUnconditional;
  const engine::SearchResult result =
      engine::SearchModel(Fenced(config), {.symmetry = false});
  EXPECT_EQ(result.verdict, engine::Verdict::kOk);
  EXPECT_EQ(result.stats.states_distinct, 461'354u);
}

// Lockstep: the implementation breaks the invariant on the finding's trace
// without the fence, and with it refuses the stale pass where the model does
// (a disagreement would be ImplementationMatchesModel).
TEST(DataPassFence, TheImplementationRefusesTheStalePassInLockstep) {
  Config config;
  config.protocol = Protocol::kUnconditional;
  const engine::SearchResult found =
      engine::SearchModel(config, {.symmetry = false});
  ASSERT_TRUE(found.violation);
  const std::vector<model::Action>& trace = found.violation->trace;
  ASSERT_EQ(trace.size(), 9u);
  const Result<lockstep::ReplayResult> unfenced = lockstep::ReplayLockstep(
      lockstep::LockstepSetup{.config = config}, trace, false);
  ASSERT_TRUE(unfenced.ok()) << unfenced.status().message();
  ASSERT_TRUE(unfenced->finding);
  EXPECT_EQ(unfenced->finding->invariant, "CatchupWithinCoverage");
  EXPECT_EQ(unfenced->step, 9u);
  config = Fenced(config);
  const Result<lockstep::ReplayResult> fenced = lockstep::ReplayLockstep(
      lockstep::LockstepSetup{.config = config}, trace, false);
  ASSERT_TRUE(fenced.ok()) << fenced.status().message();
  EXPECT_FALSE(fenced->finding)
      << fenced->finding->invariant << ": " << fenced->finding->detail;
  // The stale pass (step 8, the data pass Commit) was refused: no version.
  ASSERT_EQ(fenced->states.size(), 10u);
  EXPECT_EQ(fenced->states[8].version_count, fenced->states[7].version_count);
}

TEST(DataPassFence, TheDefaultConfigHasNoFence) {
  EXPECT_FALSE(Config{}.On(Fence()));
  EXPECT_EQ(Fence().Spelling(Config{}), "none");
  EXPECT_EQ(model::ToString(Config{}).find("fence"), std::string::npos);
}

TEST(DataPassFence, ATraceConfigKeepsTheFence) {
  const Config config = Fenced(Config{});
  // Through text, as a trace file is read.
  const Result<Config> back = report::ConfigFromJson(
      nlohmann::json::parse(report::ConfigToJson(config).dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back.value().On(Fence()));
  EXPECT_EQ(back.value(), config);
  EXPECT_FALSE(report::ConfigToJson(Config{}).contains("fence"));
}

TEST(DataPassFence, AnUnknownFenceIsRefused) {
  EXPECT_FALSE(Fence().Parse("marker").ok());
  EXPECT_EQ(Fence().Parse("data-pass").value(), 1);
}

}  // namespace
}  // namespace memwal::checker
