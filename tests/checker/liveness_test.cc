// CompactedGenerationsEventuallyRetire (checker/engine/liveness.h): holds for
// the correct protocols, fails with a lasso for the two liveness bugs, the
// lasso replays on the model and (repair-spans-live-at-commit) on the
// implementation, whose persisted state never makes the generation
// retirable, and both budgets stop the search incomplete.
#include "checker/engine/liveness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "checker/engine/fair_cycles.h"
#include "model/window.h"

namespace memwal::checker {
namespace {

using model::Bug;

model::Config ConfigWith(const model::Bounds& bounds, uint32_t bugs = 0,
                         model::Protocol protocol = model::Protocol::kDerived) {
  model::Config config;
  config.bounds = bounds;
  config.bugs = bugs;
  config.protocol = protocol;
  return config;
}

bool CycleHas(const engine::LivenessResult& result, std::string_view kind) {
  return std::any_of(
      result.trace.begin() + result.loop, result.trace.end(),
      [&](const model::Action& a) { return model::KindName(a) == kind; });
}

// Pinned: the bounded graph plus the windowed continuation (R70), with and
// without R75's reduction (flushes first). R70 item 1's summary of the
// versions no transaction read took the unreduced counts from 315,648 and
// 364,385.
TEST(Liveness, HoldsForDerivedAndAdvanceAtTiny) {
  for (const bool reduction : {false, true}) {
    const engine::LivenessOptions options{.max_states = 10'000'000,
                                          .reduction = reduction};
    const engine::LivenessResult derived =
        engine::CheckLiveness(ConfigWith(model::TinyBounds()), options);
    EXPECT_TRUE(derived.complete);
    EXPECT_TRUE(derived.holds) << derived.note;
    EXPECT_EQ(derived.states, reduction ? 230295u : 244324u);
    const engine::LivenessResult advance = engine::CheckLiveness(
        ConfigWith(model::TinyBounds(), 0, model::Protocol::kAdvance), options);
    EXPECT_TRUE(advance.holds) << advance.note;
    EXPECT_EQ(advance.states, reduction ? 263745u : 281667u);
  }
}

TEST(Liveness, StopsIncompleteWhenTheStateBudgetRunsOut) {
  const engine::LivenessResult result =
      engine::CheckLiveness(ConfigWith(model::TinyBounds()), 1000);
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.stopped_by, "max-states");
}

// check --mode dfs runs the pass beside the search and cancels it when the
// search fails (checker/cli/check.cc).
TEST(Liveness, StopsIncompleteAsCancelledWhenItsCancelFlagIsSet) {
  const std::atomic<bool> cancel{true};
  const engine::LivenessResult result = engine::CheckLiveness(
      ConfigWith(model::TinyBounds()),
      engine::LivenessOptions{.max_states = 10'000'000, .cancel = &cancel});
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.stopped_by, "cancelled");
  EXPECT_LT(result.states, 244324u);
}

TEST(Liveness, ThePassBesideASearchGivesWhatThePassAfterItGives) {
  const model::Config config = ConfigWith(model::TinyBounds());
  const engine::LivenessOptions options{.max_states = 10'000'000};
  engine::LivenessBeside beside(config, options);
  const engine::LivenessResult after = engine::CheckLiveness(config, options);
  const engine::LivenessResult& got = beside.Finish(/*search_ok=*/true);
  EXPECT_TRUE(got.complete);
  EXPECT_EQ(got.holds, after.holds);
  EXPECT_EQ(got.states, after.states);
  EXPECT_EQ(got.edges, after.edges);
  EXPECT_EQ(got.states, 230295u);
  EXPECT_GT(beside.seconds(), 0.0);
}

// Beside a search the pass starts on one thread fewer and gets them all when
// the search ends (LivenessBeside::Finish); a thread count that changes while
// a layer is being expanded changes nothing either.
TEST(Liveness, ThePassGivesTheSameGraphWhenItsThreadCountIsRaisedMidway) {
  const model::Config config = ConfigWith(model::TinyBounds());
  const engine::LivenessResult after = engine::CheckLiveness(
      config, engine::LivenessOptions{.max_states = 10'000'000});
  engine::LivenessBeside beside(
      config, engine::LivenessOptions{.max_states = 10'000'000, .threads = 2});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const engine::LivenessResult& got = beside.Finish(/*search_ok=*/true);
  EXPECT_TRUE(got.complete);
  EXPECT_EQ(got.holds, after.holds);
  EXPECT_EQ(got.states, after.states);
  EXPECT_EQ(got.edges, after.edges);
  // Raised by another thread at some chunk of some layer.
  std::atomic<int> threads{1};
  engine::LivenessResult raised;
  std::thread pass([&] {
    raised = engine::CheckLiveness(
        config, engine::LivenessOptions{.max_states = 10'000'000,
                                        .threads_now = &threads});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  threads.store(2);
  pass.join();
  EXPECT_TRUE(raised.complete);
  EXPECT_EQ(raised.states, after.states);
  EXPECT_EQ(raised.edges, after.edges);
  EXPECT_EQ(raised.layers, after.layers);
  EXPECT_EQ(raised.largest_layer, after.largest_layer);
}

TEST(Liveness, StopsIncompleteWhenTheResidentSetPassesTheMemoryLimit) {
  const engine::LivenessResult result = engine::CheckLiveness(
      ConfigWith(model::TinyBounds()),
      engine::LivenessOptions{.max_states = 10'000'000, .memory_limit_mb = 1});
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.stopped_by, "memory-limit");
}

TEST(Liveness, FailsWithALassoWhenANoWorkRepairRecordsNothing) {
  const model::Config config = ConfigWith(
      model::TinyBounds(), model::BugBit(Bug::kNoWorkRepairRecordsNothing));
  const engine::LivenessResult result =
      engine::CheckLiveness(config, 10'000'000);
  ASSERT_TRUE(result.complete);
  ASSERT_FALSE(result.holds);
  // A dead end: the repair has nothing to do and records nothing, so no
  // weakly fair action is enabled and the run stutters there (R72).
  ASSERT_EQ(result.loop, result.trace.size());
  EXPECT_EQ(result.trace.size(), 8u);  // the old AG EF check: 7 (to the state)
  ASSERT_EQ(result.states_on_trace.size(), result.trace.size() + 1);
  EXPECT_EQ(result.states_on_trace.back(), result.states_on_trace[result.loop]);
  std::string note;
  EXPECT_TRUE(engine::CheckLasso(config, result.trace, result.loop,
                                 result.window, &note)
                  .ok());
  EXPECT_NE(note.find("never become retirable"), std::string::npos);
  // Without the bug the same steps are no fair counterexample.
  EXPECT_FALSE(engine::CheckLasso(ConfigWith(model::TinyBounds()), result.trace,
                                  result.loop, result.window, nullptr)
                   .ok());
}

TEST(Liveness, FindsTheRepairOutrunByAppendsAsALassoThatReplaysOnBothSides) {
  const model::Config config = ConfigWith(
      model::TinyBounds(), model::BugBit(Bug::kRepairSpansLiveAtCommit),
      model::Protocol::kAdvance);
  const engine::LivenessResult result =
      engine::CheckLiveness(config, 10'000'000);
  ASSERT_FALSE(result.holds);
  // The cycle keeps appending and keeps repairing: a livelock, not a dead
  // end.
  EXPECT_TRUE(CycleHas(result, "Append"));
  EXPECT_TRUE(CycleHas(result, "OptimizeIndex"));
  ASSERT_TRUE(result.window.has_value());
  EXPECT_TRUE(engine::CheckLasso(config, result.trace, result.loop,
                                 result.window, nullptr)
                  .ok());
  const Result<engine::LassoReplay> replay =
      engine::ReplayLassoOnImplementation(
          lockstep::LockstepSetup{.config = config}, result.trace, result.loop,
          result.window);
  ASSERT_TRUE(replay.ok()) << replay.status().message();
  EXPECT_FALSE(replay->finding.has_value())
      << replay->finding->invariant << ": " << replay->finding->detail;
  EXPECT_GE(replay->turns, 1u);
  EXPECT_GT(replay->checked, 0u);
  EXPECT_EQ(replay->retirable_on_impl, 0u);
  EXPECT_EQ(replay->stuck, "(0,1)");
  // The correct advance protocol passes the same steps: its repair covers the
  // fragments it read, so the same lasso is not a fair counterexample.
  EXPECT_FALSE(
      engine::CheckLasso(
          ConfigWith(model::TinyBounds(), 0, model::Protocol::kAdvance),
          result.trace, result.loop, result.window, nullptr)
          .ok());
}

// Two shards and two indexes (the gate's, with one commit fewer): the graph
// of orbits gives the concrete graph's verdict, and its lasso is concrete.
struct SymmetryRow {
  const char* name;
  model::Protocol protocol;
  uint32_t bugs;
};

void PrintTo(const SymmetryRow& row, std::ostream* out) { *out << row.name; }

// The pass on `config` with `options` (whose max_states is set here: enough
// for every row below, none of which comes near it).
engine::LivenessResult PassOf(const model::Config& config,
                              engine::LivenessOptions options = {}) {
  options.max_states = 20'000'000;
  return engine::CheckLiveness(config, options);
}

class LivenessWithSymmetry : public testing::TestWithParam<SymmetryRow> {};

TEST_P(LivenessWithSymmetry, GivesTheVerdictAndLassoOfTheConcreteGraph) {
  model::Bounds bounds = model::GateBounds();
  bounds.commits = 3;
  const model::Config config =
      ConfigWith(bounds, GetParam().bugs, GetParam().protocol);
  const engine::LivenessResult with = PassOf(config);
  const engine::LivenessResult without = PassOf(config, {.symmetry = false});
  ASSERT_TRUE(with.complete && without.complete);
  EXPECT_EQ(with.holds, without.holds) << with.note << " / " << without.note;
  // (A violation's graph stops at the layer of its fair cycle, spec R74.)
  if (with.holds) {
    EXPECT_LT(3 * with.states, without.states);
  }
  if (!with.holds && !without.holds) {
    EXPECT_EQ(with.trace.size(), without.trace.size());
    EXPECT_EQ(with.trace.size() - with.loop,
              without.trace.size() - without.loop);
    EXPECT_TRUE(
        engine::CheckLasso(config, with.trace, with.loop, with.window, nullptr)
            .ok());
    std::vector<model::State> states;
    ASSERT_TRUE(
        engine::LassoStates(config, with.trace, with.loop, with.window, &states)
            .ok());
    EXPECT_EQ(states, with.states_on_trace);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AtTwoShardsAndTwoIndexes, LivenessWithSymmetry,
    testing::Values(
        SymmetryRow{"derived", model::Protocol::kDerived, 0},
        SymmetryRow{"advance", model::Protocol::kAdvance, 0},
        SymmetryRow{"no_work_repair_records_nothing", model::Protocol::kDerived,
                    model::BugBit(Bug::kNoWorkRepairRecordsNothing)},
        SymmetryRow{"repair_spans_live_at_commit", model::Protocol::kAdvance,
                    model::BugBit(Bug::kRepairSpansLiveAtCommit)}),
    [](const testing::TestParamInfo<SymmetryRow>& row) {
      return std::string(row.param.name);
    });

// R74: deciding one layer at a time gives the whole graph's verdict (with the
// same states and edges where it holds, the same lasso where it does not) for
// every protocol, gc mode and environment and every bug row of the model, at
// tiny bounds with three commits (and with symmetry at two shards and two
// indexes); the layers apply to all of them.
struct LayerRow {
  std::string name;
  model::Config config;
};

void PrintTo(const LayerRow& row, std::ostream* out) { *out << row.name; }

std::vector<LayerRow> LayerRows() {
  std::vector<LayerRow> rows;
  model::Bounds tiny = model::TinyBounds();
  tiny.commits = 3;
  const std::pair<const char*, model::Protocol> protocols[] = {
      {"derived", model::Protocol::kDerived},
      {"advance", model::Protocol::kAdvance},
      {"unconditional", model::Protocol::kUnconditional},
      {"legacy", model::Protocol::kLegacy}};
  for (const auto& [name, protocol] : protocols) {
    for (const model::Env env : {model::Env::kNone, model::Env::kForeign}) {
      model::Config config = ConfigWith(tiny, 0, protocol);
      config.env = env;
      rows.push_back(
          {std::string(name) + (env == model::Env::kForeign ? "_foreign" : ""),
           config});
    }
  }
  for (const model::GcMode gc :
       {model::GcMode::kStaleRead, model::GcMode::kRecheck}) {
    model::Config config = ConfigWith(tiny);
    config.gc = gc;
    rows.push_back(
        {gc == model::GcMode::kStaleRead ? "gc_stale_read" : "gc_recheck",
         config});
  }
  for (const model::BugInfo& info : model::AllBugs()) {
    if (!info.in_model) continue;
    const model::Protocol protocol = info.protocols.starts_with("advance")
                                         ? model::Protocol::kAdvance
                                         : model::Protocol::kDerived;
    std::string name(info.name);
    std::replace(name.begin(), name.end(), '-', '_');
    rows.push_back({name, ConfigWith(tiny, model::BugBit(info.bug), protocol)});
  }
  model::Bounds gate = model::GateBounds();
  gate.commits = 3;
  rows.push_back({"derived_two_shards_two_indexes", ConfigWith(gate)});
  return rows;
}

class LivenessLayers : public testing::TestWithParam<LayerRow> {};

TEST_P(LivenessLayers, DecideWhatTheWholeGraphDecides) {
  const model::Config& config = GetParam().config;
  const engine::LivenessResult layered = PassOf(config);
  const engine::LivenessResult whole = PassOf(config, {.layered = false});
  const engine::LivenessResult threaded = PassOf(config, {.threads = 2});
  ASSERT_TRUE(layered.complete && whole.complete && threaded.complete);
  // The threads expanding a chunk change nothing.
  EXPECT_EQ(threaded.holds, layered.holds);
  EXPECT_EQ(threaded.states, layered.states);
  EXPECT_EQ(threaded.edges, layered.edges);
  EXPECT_EQ(threaded.trace, layered.trace);
  EXPECT_EQ(layered.holds, whole.holds) << layered.note;
  EXPECT_EQ(whole.layers, 0u);
  if (layered.holds) {
    EXPECT_EQ(layered.states, whole.states);
    EXPECT_EQ(layered.edges, whole.edges);
    EXPECT_GT(layered.layers, 1u) << "the layers did not apply";
    EXPECT_LE(layered.largest_layer, layered.states);
  } else {
    // The lasso is rebuilt on the graph up to the layer of the fair cycle:
    // here the whole graph's nearest one.
    EXPECT_LE(layered.states, whole.states);
    EXPECT_EQ(layered.trace, whole.trace);
    EXPECT_EQ(layered.loop, whole.loop);
    EXPECT_EQ(layered.window, whole.window);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryVariantRow, LivenessLayers,
                         testing::ValuesIn(LayerRows()),
                         [](const testing::TestParamInfo<LayerRow>& row) {
                           return row.param.name;
                         });

// R75: the continuation reduced to its flushes where one is enabled gives the
// unreduced graph's verdict on every row LivenessLayers covers, with fewer
// states where a flush is left at some continuation entry, and both lassos
// of a violation replay as fair counterexamples (CheckLasso judges every
// step against the unreduced continuation).
class LivenessReduction : public testing::TestWithParam<LayerRow> {};

TEST_P(LivenessReduction, DecidesWhatTheUnreducedGraphDecides) {
  const model::Config& config = GetParam().config;
  const engine::LivenessResult reduced = PassOf(config);
  const engine::LivenessResult unreduced = PassOf(config, {.reduction = false});
  ASSERT_TRUE(reduced.complete && unreduced.complete);
  EXPECT_EQ(reduced.holds, unreduced.holds)
      << reduced.note << " / " << unreduced.note;
  if (reduced.holds && unreduced.holds) {
    EXPECT_LT(reduced.states, unreduced.states);
    EXPECT_LT(reduced.edges, unreduced.edges);
  }
  // A violation's lasso comes from the unreduced graph either way (R75).
  if (!reduced.holds && !unreduced.holds) {
    EXPECT_EQ(reduced.trace, unreduced.trace);
    EXPECT_EQ(reduced.loop, unreduced.loop);
    EXPECT_EQ(reduced.window, unreduced.window);
  }
  for (const engine::LivenessResult* result : {&reduced, &unreduced}) {
    if (result->holds) continue;
    std::string note;
    EXPECT_TRUE(engine::CheckLasso(config, result->trace, result->loop,
                                   result->window, &note)
                    .ok())
        << note;
    std::vector<model::State> states;
    ASSERT_TRUE(engine::LassoStates(config, result->trace, result->loop,
                                    result->window, &states)
                    .ok());
    EXPECT_EQ(states, result->states_on_trace);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryVariantRow, LivenessReduction,
                         testing::ValuesIn(LayerRows()),
                         [](const testing::TestParamInfo<LayerRow>& row) {
                           return row.param.name;
                         });

// What R75's argument relies on, on every state of the unreduced liveness
// graph (bounded part and continuation, R70) at two shards and two
// generations: in a continuation state where FlushMemTable(s) is enabled, it
// changes neither the goal nor which fair classes are enabled; every other
// continuation step enabled there stays enabled after it, leaves it enabled
// and commutes with it (the same folded state either way); and no
// continuation step lowers `flushed`, so no cycle holds a flush.
struct PremiseRow {
  const char* name;
  model::Protocol protocol;
  model::Env env;
  model::GcMode gc;
};

void PrintTo(const PremiseRow& row, std::ostream* out) { *out << row.name; }

class FlushesFirst : public testing::TestWithParam<PremiseRow> {};

TEST_P(FlushesFirst, CommuteWithEveryContinuationStepAndChangeNoFairClass) {
  model::Config config = ConfigWith(model::Bounds{.shards = 2,
                                                  .generations = 2,
                                                  .fragments = 2,
                                                  .indexes = 1,
                                                  .commits = 3,
                                                  .inflight = 2},
                                    0, GetParam().protocol);
  config.env = GetParam().env;
  config.gc = GetParam().gc;
  std::set<std::pair<bool, std::string>> seen;
  std::deque<std::pair<bool, model::State>> queue;
  const auto visit = [&](bool windowed, const model::State& state) {
    std::string bytes;
    model::Encode(state, &bytes);
    if (seen.emplace(windowed, bytes).second)
      queue.emplace_back(windowed, state);
  };
  visit(false, model::Init(config.bounds));
  std::vector<model::Action> actions;
  std::size_t checked = 0;
  model::Outcome outcome;
  while (!queue.empty()) {
    const auto [windowed, state] = queue.front();
    queue.pop_front();
    model::EnabledActions(config, state, &actions);
    if (!windowed) {
      for (const model::Action& action : actions)
        visit(false, model::Apply(config, state, action, &outcome));
      model::State folded = state;
      model::Fold(config, &folded);
      visit(true, folded);
      continue;
    }
    std::vector<model::Action> steps;
    for (const model::Action& action : actions) {
      if (engine::FairClass(action) != engine::kNoClass ||
          std::holds_alternative<model::Append>(action) ||
          std::holds_alternative<model::FlushMemTable>(action) ||
          std::holds_alternative<model::CompactSsTable>(action) ||
          std::holds_alternative<model::RecordProgress>(action))
        steps.push_back(action);
    }
    for (const model::Action& step : steps) {
      const model::State next = engine::Step(config, state, step);
      for (int s = 0; s < config.bounds.shards; ++s)
        ASSERT_GE(next.flushed[s], state.flushed[s]) << model::ToString(step);
      visit(true, next);
    }
    for (const model::Action& flush : steps) {
      if (!std::holds_alternative<model::FlushMemTable>(flush)) continue;
      ++checked;
      const model::State flushed = engine::Step(config, state, flush);
      ASSERT_EQ(engine::Discharged(config, flushed),
                engine::Discharged(config, state))
          << model::ToString(state);
      ASSERT_EQ(engine::FairEnabled(config, flushed),
                engine::FairEnabled(config, state))
          << model::ToString(state);
      for (const model::Action& other : steps) {
        if (other == flush) continue;
        ASSERT_TRUE(model::IsEnabled(config, flushed, other))
            << model::ToString(other) << "\n"
            << model::ToString(state);
        const model::State next = engine::Step(config, state, other);
        ASSERT_TRUE(model::IsEnabled(config, next, flush))
            << model::ToString(other) << "\n"
            << model::ToString(state);
        ASSERT_EQ(engine::Step(config, next, flush),
                  engine::Step(config, flushed, other))
            << model::ToString(other) << "\n"
            << model::ToString(state);
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

INSTANTIATE_TEST_SUITE_P(
    AtTwoShardsAndTwoGenerations, FlushesFirst,
    testing::Values(PremiseRow{"derived", model::Protocol::kDerived,
                               model::Env::kNone, model::GcMode::kAtomic},
                    PremiseRow{"advance_foreign", model::Protocol::kAdvance,
                               model::Env::kForeign, model::GcMode::kAtomic},
                    PremiseRow{"legacy_recheck", model::Protocol::kLegacy,
                               model::Env::kNone, model::GcMode::kRecheck}),
    [](const testing::TestParamInfo<PremiseRow>& row) {
      return std::string(row.param.name);
    });

TEST(Liveness, ARecordedLassoWhoseLoopIndexIsOutOfRangeIsRefused) {
  const model::Config config = ConfigWith(model::TinyBounds());
  const std::vector<model::Action> steps{model::FlushMemTable{0}};
  EXPECT_EQ(engine::CheckLasso(config, steps, 2, std::nullopt, nullptr).code(),
            StatusCode::kInvalidArgument);
  // A flush is no cycle: it does not return to Init.
  EXPECT_EQ(engine::CheckLasso(config, steps, 0, std::nullopt, nullptr).code(),
            StatusCode::kFailedPrecondition);
}

TEST(Liveness, InitIsAGoalStateAndFairClassesExcludeTheEnvironment) {
  const model::Config config = ConfigWith(model::TinyBounds());
  const model::State init = model::Init(config.bounds);
  EXPECT_TRUE(engine::Discharged(config, init));
  EXPECT_EQ(engine::FairClass(model::Append{}), engine::kNoClass);
  EXPECT_EQ(engine::FairClass(model::FlushMemTable{0}), engine::kNoClass);
  EXPECT_EQ(engine::FairClass(model::Restore{1}), engine::kNoClass);
  EXPECT_NE(engine::FairClass(model::OptimizeIndex{0}), engine::kNoClass);
  EXPECT_NE(engine::FairClass(model::Commit{0}),
            engine::FairClass(model::Commit{1}));
}

TEST(Liveness, ARepairDisabledOnlyByTheInFlightBoundCountsAsEnabled) {
  // Two deletes in flight fill tiny's two slots: the repair cannot begin in
  // the model, but nothing in Lance stops it, so fairness still asks for it.
  const model::Config config = ConfigWith(model::TinyBounds());
  model::State state = model::Init(config.bounds);
  model::Outcome outcome;
  state = model::Apply(config, state, model::Append{}, &outcome);
  state = model::Apply(config, state, model::Commit{0}, &outcome);
  state = model::Apply(config, state, model::DeleteFragment{0}, &outcome);
  ASSERT_EQ(state.inflight_count, 1);
  state = model::Apply(config, state, model::DeleteFragment{1}, &outcome);
  ASSERT_FALSE(
      model::IsEnabled(config, state, model::Action{model::OptimizeIndex{0}}));
  EXPECT_TRUE(engine::FairEnabled(config, state) &
              (1u << engine::FairClass(model::OptimizeIndex{0})));
}

}  // namespace
}  // namespace memwal::checker
