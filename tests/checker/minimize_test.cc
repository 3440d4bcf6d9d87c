// Counterexample minimization (checker/cli/minimize.h): padded and random-walk
// traces shrink back, whole transactions go with their commits (slots
// renumbered), parameters and bounds are lowered, the result is 1-minimal,
// and `minimize TRACE` reads and writes trace files.
#include "checker/cli/minimize.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/check.h"
#include "checker/engine/search.h"
#include "checker/report/trace.h"
#include "checker/report/trace_reader.h"

namespace memwal::checker {
namespace {

using model::Action;
using model::Bug;

lockstep::LockstepSetup BugSetup(Bug bug,
                                 model::Bounds bounds = model::TinyBounds()) {
  lockstep::LockstepSetup setup;
  setup.config.bugs = model::BugBit(bug);
  setup.config.bounds = bounds;
  return setup;
}

// The pinned 9-step counterexample of unchanged-by-uuid-only at tiny
// (tests/checker/counterexample_test.cc).
std::vector<Action> UuidOnlyTrace() {
  return {model::FlushMemTable{0}, model::Activate{},
          model::Commit{0},        model::CompactSsTable{0, true},
          model::Commit{0},        model::UpdateColumns{1, 0},
          model::CreateIndex{0},   model::Commit{1},
          model::Commit{0}};
}

bool IsOneMinimal(const lockstep::LockstepSetup& setup, bool lockstep,
                  const std::string& invariant,
                  const std::vector<Action>& trace) {
  for (std::size_t k = 0; k < trace.size(); ++k) {
    std::vector<Action> shorter = trace;
    shorter.erase(shorter.begin() + k);
    if (cli::BreaksAt(setup, lockstep, invariant, shorter)) return false;
  }
  return true;
}

TEST(BreaksAt, CutsAtTheFirstFindingAndRefusesAnotherInvariant) {
  const lockstep::LockstepSetup setup = BugSetup(Bug::kUnchangedByUuidOnly);
  std::vector<Action> trace = UuidOnlyTrace();
  EXPECT_EQ(cli::BreaksAt(setup, true, "CatchupWithinCoverage", trace), 9u);
  EXPECT_FALSE(cli::BreaksAt(setup, true, "ReadsMissNoRows", trace));
  trace.push_back(model::FlushMemTable{0});
  EXPECT_EQ(cli::BreaksAt(setup, false, "CatchupWithinCoverage", trace), 9u);
  trace.pop_back();
  trace.pop_back();
  EXPECT_FALSE(cli::BreaksAt(setup, true, "CatchupWithinCoverage", trace));
  EXPECT_FALSE(cli::BreaksAt(setup, true, "CatchupWithinCoverage",
                             {model::Commit{0}}));  // not enabled
}

TEST(Minimize, DropsAnUnrelatedTransactionAndRenumbersTheSlots) {
  lockstep::LockstepSetup setup = BugSetup(Bug::kUnchangedByUuidOnly);
  setup.config.bounds.commits = 5;
  setup.config.bounds.inflight = 3;
  // A transaction begun first and never committed: every other commit's slot
  // shifts by one. (A begin that allocates no fragment id, so that the
  // fragment numbers of the story stay.)
  std::vector<Action> padded = {model::DropIndex{0}};
  for (const Action& action : UuidOnlyTrace()) {
    if (const auto* commit = std::get_if<model::Commit>(&action)) {
      padded.push_back(model::Commit{commit->slot + 1});
    } else {
      padded.push_back(action);
    }
  }
  ASSERT_TRUE(cli::BreaksAt(setup, false, "CatchupWithinCoverage", padded));
  const cli::Minimized result =
      cli::Minimize({setup, false, "CatchupWithinCoverage", padded});
  EXPECT_EQ(result.steps_before, 10u);
  EXPECT_EQ(result.steps_after, 9u);
  EXPECT_EQ(result.trace, UuidOnlyTrace());
  // Bounds lowered back to what the trace needs.
  EXPECT_EQ(result.setup.config.bounds.inflight, 2);
  EXPECT_EQ(result.setup.config.bounds.commits, 4);
}

TEST(Minimize, LeavesNoParameterThatCouldBeLoweredAlone) {
  lockstep::LockstepSetup setup = BugSetup(Bug::kProgressCommitDropsFragments);
  const engine::SearchResult found = engine::Search(
      setup, engine::Options{.order = engine::Order::kBfs, .lockstep = false});
  ASSERT_TRUE(found.violation);
  std::vector<Action> trace = found.violation->trace;
  const cli::Minimized result =
      cli::Minimize({setup, false, found.violation->invariant, trace});
  EXPECT_LE(result.steps_after, trace.size());
  EXPECT_TRUE(cli::BreaksAt(result.setup, false, found.violation->invariant,
                            result.trace));
  for (const Action& action : result.trace) {
    if (std::holds_alternative<model::Commit>(action)) continue;
    const std::array<int, 2> params = model::ActionParams(action);
    for (int p = 0; p < 2; ++p) {
      for (int lower = 0; lower < params[p]; ++lower) {
        std::array<int, 2> changed = params;
        changed[p] = lower;
        std::vector<Action> candidate = result.trace;
        for (Action& step : candidate) {
          if (step == action) {
            step = model::MakeAction(static_cast<int>(action.index()), changed);
            break;
          }
        }
        EXPECT_FALSE(cli::BreaksAt(result.setup, false,
                                   found.violation->invariant, candidate))
            << model::ToString(action) << " could be lowered";
      }
    }
  }
}

TEST(Minimize, ARandomWalkTraceBecomesOneMinimalAndKeepsItsInvariant) {
  lockstep::LockstepSetup setup =
      BugSetup(Bug::kClaimPastReadVersion, model::SmallBounds());
  setup.seed = 7;
  const engine::SearchResult walk = engine::Search(
      setup, engine::Options{
                 .order = engine::Order::kRandom, .walks = 3000, .depth = 12});
  ASSERT_TRUE(walk.violation);
  const std::string invariant = walk.violation->invariant;
  const cli::Minimized result =
      cli::Minimize({setup, true, invariant, walk.violation->trace});
  EXPECT_LE(result.steps_after, result.steps_before);
  EXPECT_TRUE(cli::BreaksAt(result.setup, true, invariant, result.trace));
  EXPECT_TRUE(IsOneMinimal(result.setup, true, invariant, result.trace));
  // Never shorter than the shortest counterexample, which BFS finds.
  const engine::SearchResult bfs = engine::Search(
      setup, engine::Options{.order = engine::Order::kBfs, .lockstep = false});
  ASSERT_TRUE(bfs.violation);
  EXPECT_GE(result.steps_after, bfs.violation->trace.size());
}

TEST(MinimizeCommand, MinimizesATraceFileAndWritesTheResult) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "memwal-gate-minimize")
          .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  lockstep::LockstepSetup setup = BugSetup(Bug::kUnchangedByUuidOnly);
  std::vector<Action> padded = UuidOnlyTrace();
  padded.insert(padded.begin() + 1, model::FlushMemTable{0});
  setup.config.bounds.generations = 2;
  const report::LockstepTrace trace{
      .trace = report::Trace{.config = setup.config,
                             .invariant = "CatchupWithinCoverage",
                             .steps = padded},
      .lockstep = true};
  const std::string path = dir + "/in.trace.json";
  ASSERT_TRUE(
      report::WriteFileAtomically(path, report::LockstepTraceText(trace)).ok());
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunMinimizeCommand({path, "--out", dir}, out, err), 0)
      << err.str();
  EXPECT_NE(out.str().find("steps: 10 -> 9"), std::string::npos) << out.str();
  const Result<std::string> written =
      report::ReadFile(dir + "/CatchupWithinCoverage.min.trace.json");
  ASSERT_TRUE(written.ok());
  const Result<report::LockstepTrace> parsed = report::ReadTraceText(*written);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->trace.steps, UuidOnlyTrace());
  EXPECT_EQ(parsed->trace.config.bounds.generations, 1);
}

TEST(MinimizeCommand, RefusesATraceThatDoesNotBreakItsInvariant) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "memwal-gate-minimize-bad")
          .string();
  std::filesystem::create_directories(dir);
  const report::LockstepTrace trace{
      .trace = report::Trace{.config = model::Config{},
                             .invariant = "ReadsMissNoRows",
                             .steps = {model::FlushMemTable{0}}},
      .lockstep = false};
  const std::string path = dir + "/in.trace.json";
  ASSERT_TRUE(
      report::WriteFileAtomically(path, report::LockstepTraceText(trace)).ok());
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunMinimizeCommand({path}, out, err), 2);
  EXPECT_EQ(cli::RunMinimizeCommand({dir + "/missing.json"}, out, err), 2);
  EXPECT_EQ(cli::RunMinimizeCommand({path, "--bogus"}, out, err), 2);
}

}  // namespace
}  // namespace memwal::checker
