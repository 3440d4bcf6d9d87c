// The MemWAL re-install (spec R39) in lockstep: the model's action and the
// implementation's BeginReinstallMemWal agree step by step (same outcomes,
// same abstract state, every published version loads), on Lance's outcomes
// for each conflict rule, and the default gate explores the action.
#include <gtest/gtest.h>

#include <vector>

#include "checker/lockstep/lockstep.h"
#include "checker/report/trace.h"
#include "model/actions.h"
#include "model/bounds.h"

namespace memwal::checker {
namespace {

using lockstep::LockstepSetup;
using lockstep::ReplayLockstep;
using lockstep::ReplayResult;
using model::Action;
using model::Outcome;
using report::ConfigFromJson;
using report::ConfigToJson;

LockstepSetup ReinstallSetup(int reinstalls, int commits = 4,
                             int generations = 1) {
  LockstepSetup setup;
  setup.config.protocol = model::Protocol::kUnconditional;
  setup.config.bounds = model::GateBounds();
  setup.config.bounds.reinstalls = reinstalls;
  setup.config.bounds.commits = commits;
  setup.config.bounds.generations = generations;
  setup.config.bounds.fragments = 4;
  setup.config.bounds.inflight = 3;
  return setup;
}

// Replays `trace` in lockstep; fails on a finding; returns the model's
// outcome of each step.
std::vector<Outcome> Lockstep(const LockstepSetup& setup,
                              const std::vector<Action>& trace,
                              model::State* last = nullptr) {
  const Result<ReplayResult> result = ReplayLockstep(setup, trace, false);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok()) return {};
  EXPECT_FALSE(result->finding.has_value())
      << result->finding->invariant << ": " << result->finding->detail << "\n"
      << result->impl_dump;
  EXPECT_EQ(result->step, trace.size());
  std::vector<Outcome> outcomes;
  for (std::size_t k = 0; k + 1 < result->states.size(); ++k) {
    Outcome outcome;
    model::Apply(setup.config, result->states[k], trace[k], &outcome);
    outcomes.push_back(outcome);
  }
  if (last != nullptr) *last = result->states.back();
  return outcomes;
}

TEST(LockstepReinstall, TheGateExploresTheReinstallFromInit) {
  model::Config gate;
  gate.bounds = model::GateBounds();
  // Under `derived` (the gate's protocol) once the table is activated.
  model::Outcome outcome;
  model::State state =
      model::Apply(gate, model::Init(gate.bounds), model::Activate{}, &outcome);
  state = model::Apply(gate, state, model::Commit{0}, &outcome);
  ASSERT_EQ(outcome, Outcome::kPublished);
  std::vector<Action> enabled;
  model::EnabledActions(gate, state, &enabled);
  bool found = false;
  for (const Action& action : enabled)
    found = found || std::holds_alternative<model::ReinstallMemWal>(action);
  EXPECT_TRUE(found);
}

// The finding (docs/findings.md): both sides publish the install rebased over the
// compaction, and both lose the compaction's progress.
TEST(LockstepReinstall, RebasedOverACompactionBothSidesReplaceThatProgress) {
  model::State last;
  const std::vector<Outcome> outcomes = Lockstep(
      ReinstallSetup(1),
      {model::FlushMemTable{0}, model::ReinstallMemWal{},
       model::CompactSsTable{0, true}, model::Commit{1}, model::Commit{0}},
      &last);
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(outcomes[3], Outcome::kPublished);
  EXPECT_EQ(outcomes[4], Outcome::kPublished);
  EXPECT_EQ(model::Head(last).compacted[0], 0);
  EXPECT_EQ(model::Head(last).op.kind, model::OpKind::kReinstallMemWal);
}

TEST(LockstepReinstall, RebasedOverAProgressCommitBothSidesKeepIt) {
  model::State last;
  const std::vector<Outcome> outcomes =
      Lockstep(ReinstallSetup(1),
               {model::FlushMemTable{0}, model::CompactSsTable{0, false},
                model::Commit{0}, model::ReinstallMemWal{},
                model::RecordProgress{0}, model::Commit{1}, model::Commit{0}},
               &last);
  ASSERT_EQ(outcomes.size(), 7u);
  EXPECT_EQ(outcomes[6], Outcome::kPublished);
  EXPECT_EQ(model::Head(last).compacted[0], 1);
}

TEST(LockstepReinstall, ANewerProgressCommitMeetingAnInstallRetriesOnBoth) {
  const std::vector<Outcome> outcomes =
      Lockstep(ReinstallSetup(1, 6, 2),
               {model::FlushMemTable{0}, model::FlushMemTable{0},
                model::CompactSsTable{0, false}, model::Commit{0},
                model::RecordProgress{0}, model::Commit{0},
                model::CompactSsTable{0, false}, model::Commit{0},
                model::ReinstallMemWal{}, model::RecordProgress{0},
                model::Commit{0}, model::Commit{0}});
  ASSERT_EQ(outcomes.size(), 12u);
  EXPECT_EQ(outcomes[10], Outcome::kPublished);
  EXPECT_EQ(outcomes[11], Outcome::kRetry);
}

// The other install is env foreign's MemWAL reset (R62): Lance's two
// installs of the singleton system index.
TEST(LockstepReinstall, AnInstallMeetingAMemWalResetRetriesOnBoth) {
  LockstepSetup setup = ReinstallSetup(1);
  setup.config.env = model::Env::kForeign;
  const std::vector<Outcome> outcomes =
      Lockstep(setup, {model::FlushMemTable{0}, model::CompactSsTable{0, true},
                       model::Commit{0}, model::ReinstallMemWal{},
                       model::ResetMemWal{}, model::Commit{0}});
  ASSERT_EQ(outcomes.size(), 6u);
  EXPECT_EQ(outcomes[5], Outcome::kRetry);
}

TEST(LockstepReinstall, RebasedOverARestoreIsRefusedOnBoth) {
  const std::vector<Outcome> outcomes =
      Lockstep(ReinstallSetup(1),
               {model::Append{}, model::Commit{0}, model::ReinstallMemWal{},
                model::Restore{1}, model::Commit{0}});
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(outcomes[4], Outcome::kRefused);
}

// A trace's config carries the bound only when set, so older traces (no
// "reinstalls" key) still read, as 0.
TEST(LockstepReinstall, TheReinstallBoundRoundTripsThroughATracesConfig) {
  model::Config gate;
  gate.bounds = model::GateBounds();
  // Through text, as a trace file is read.
  const nlohmann::json json = nlohmann::json::parse(ConfigToJson(gate).dump());
  EXPECT_EQ(json["bounds"]["reinstalls"], 1);
  const Result<model::Config> back = ConfigFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->bounds, gate.bounds);
  model::Config tiny;
  tiny.bounds = model::TinyBounds();
  EXPECT_FALSE(ConfigToJson(tiny)["bounds"].contains("reinstalls"));
  nlohmann::json bad = json;
  bad["bounds"]["reinstalls"] = model::kReinstallsMax + 1;
  EXPECT_FALSE(ConfigFromJson(bad).ok());
}

}  // namespace
}  // namespace memwal::checker
