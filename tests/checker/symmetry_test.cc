// Symmetry reduction (model/symmetry.h) is sound, and the engine's strategies
// agree (checker/engine/search.h): BFS on one and two threads, DFS and the
// symmetric search give the same verdicts; without a violation, BFS and DFS
// store the same states.
#include "model/symmetry.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "checker/engine/search.h"
#include "model/invariants.h"
#include "model/window.h"

namespace memwal::checker {
namespace {

using engine::Options;
using engine::Order;
using engine::SearchModel;
using engine::SearchResult;
using engine::Verdict;

model::State SomeState(const model::Config& config, int steps) {
  model::State state = model::Init(config.bounds);
  std::vector<model::Action> actions;
  for (int k = 0; k < steps; ++k) {
    model::EnabledActions(config, state, &actions);
    if (actions.empty()) break;
    model::Outcome outcome;
    state = model::Apply(config, state, actions[(k * 7) % actions.size()],
                         &outcome);
  }
  return state;
}

TEST(Symmetry, SwappingShardsAndIndexesTwiceGivesTheStateBack) {
  model::Config config;
  config.bounds = model::GateBounds();
  model::Permutation swap;
  swap.shards = {1, 0};
  swap.indexes = {1, 0, 2};
  for (int steps = 0; steps < 12; ++steps) {
    const model::State state = SomeState(config, steps);
    EXPECT_EQ(model::Permute(model::Permute(state, swap), swap), state);
  }
}

TEST(Symmetry, APermutedStateHasItsOrbitsFingerprint) {
  model::Config config;
  config.bounds = model::GateBounds();
  const model::Symmetry symmetry = model::SymmetryOf(config);
  ASSERT_TRUE(symmetry.shards && symmetry.indexes);
  model::Permutation swap;
  swap.shards = {1, 0};
  swap.indexes = {0, 1, 2};
  const model::State state = SomeState(config, 9);
  EXPECT_EQ(model::CanonicalFingerprint(config.bounds, symmetry, state),
            model::CanonicalFingerprint(config.bounds, symmetry,
                                        model::Permute(state, swap)));
}

// What the reduced liveness graph (checker/engine/liveness.cc) relies on:
// renaming commutes with every step, with the continuation's fold and with
// composition, so a path of representatives lifts to a concrete path.
TEST(Symmetry, RenamingCommutesWithEveryStepAndWithTheFold) {
  model::Config config;
  config.bounds = model::GateBounds();
  const std::vector<model::Permutation> all =
      model::Permutations(config.bounds, model::SymmetryOf(config));
  ASSERT_EQ(all.size(), 4u);
  std::vector<model::Action> actions;
  for (int steps = 0; steps < 14; ++steps) {
    const model::State state = SomeState(config, steps);
    model::EnabledActions(config, state, &actions);
    for (const model::Permutation& p : all) {
      EXPECT_EQ(model::Permute(model::Permute(state, p), model::Inverse(p)),
                model::Permute(state, all[0]));
      for (const model::Permutation& q : all) {
        EXPECT_EQ(model::Permute(model::Permute(state, q), p),
                  model::Permute(state, model::Compose(p, q)));
      }
      model::State folded = state;
      model::Fold(config, &folded);
      model::State renamed_folded = model::Permute(state, p);
      model::Fold(config, &renamed_folded);
      EXPECT_EQ(renamed_folded, model::Permute(folded, p));
      for (const model::Action& action : actions) {
        model::Outcome outcome;
        const model::State renamed = model::Permute(state, p);
        const model::Action moved = model::Permute(action, p);
        ASSERT_TRUE(model::IsEnabled(config, renamed, moved))
            << model::ToString(action);
        EXPECT_EQ(
            model::Apply(config, renamed, moved, &outcome),
            model::Permute(model::Apply(config, state, action, &outcome), p))
            << model::ToString(action) << " after " << steps << " steps";
      }
    }
  }
}

// CanonicalPosition encodes only the permutations tied on the encoding's
// header (PermutedHeader), each without building the permuted state
// (EncodePermutedTo): it must pick what encoding every permuted state picks,
// on bounded and on folded states, at the large bounds.
TEST(Symmetry, TheHeaderShortcutPicksTheSmallestEncodingOfEveryPermutation) {
  model::Config config;
  config.bounds = model::LargeBounds();
  const std::vector<model::Permutation> all =
      model::Permutations(config.bounds, model::SymmetryOf(config));
  ASSERT_EQ(all.size(), 4u);
  std::vector<model::Action> actions;
  int states = 0;
  int shortcut = 0;
  for (int stride = 1; stride < 48; ++stride) {
    model::State state = model::Init(config.bounds);
    for (int step = 0; step < 40; ++step) {
      model::EnabledActions(config, state, &actions);
      if (actions.empty()) break;
      model::Outcome outcome;
      state = model::Apply(config, state,
                           actions[(step * stride + stride) % actions.size()],
                           &outcome);
      for (const bool fold : {false, true}) {
        model::State seen = state;
        if (fold) model::Fold(config, &seen);
        std::string smallest;
        std::size_t first = 0;
        for (std::size_t k = 0; k < all.size(); ++k) {
          std::string encoding;
          model::Encode(k == 0 ? seen : model::Permute(seen, all[k]),
                        &encoding);
          uint8_t direct[model::kEncodedMax];
          const std::size_t size =
              model::EncodePermutedTo(seen, all[k], direct);
          EXPECT_EQ(encoding,
                    std::string(reinterpret_cast<const char*>(direct), size));
          uint8_t header[model::kEncodedHeaderBytes];
          model::PermutedHeader(seen, all[k], header);
          EXPECT_EQ(encoding.substr(0, model::kEncodedHeaderBytes),
                    std::string(reinterpret_cast<const char*>(header),
                                sizeof header));
          if (k == 0 || encoding < smallest) {
            smallest = encoding;
            first = k;
          }
        }
        std::string encoding;
        EXPECT_EQ(model::CanonicalPosition(all, seen, &encoding), first);
        EXPECT_EQ(encoding, smallest);
        ++states;
        shortcut += first != 0 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(states, 1000);
  EXPECT_GT(shortcut, 0);  // some representative is not the state itself
}

TEST(Symmetry, TheSingleIndexReaderAndEnvForeignKeepIndexesApart) {
  model::Config config;
  config.bounds = model::GateBounds();
  config.read = model::ReadMode::kSingleIndex;
  EXPECT_TRUE(model::SymmetryOf(config).shards);
  EXPECT_FALSE(model::SymmetryOf(config).indexes);
  config.read = model::ReadMode::kStrict;
  config.env = model::Env::kForeign;
  EXPECT_EQ(model::SymmetryOf(config), model::Symmetry{});
}

struct Row {
  std::string name;
  model::Config config;
};

// ctest lists a row by its name, not its bytes.
void PrintTo(const Row& row, std::ostream* out) { *out << row.name; }

// Every protocol, read side and gc, and every bug the model expresses, at
// the gate's bounds (two shards, two indexes: where symmetry reduces).
std::vector<Row> Rows() {
  std::vector<Row> rows;
  model::Config base;
  base.bounds = model::GateBounds();
  for (model::Protocol protocol :
       {model::Protocol::kDerived, model::Protocol::kAdvance,
        model::Protocol::kUnconditional, model::Protocol::kLegacy}) {
    model::Config config = base;
    config.protocol = protocol;
    rows.push_back({"protocol_" + std::string(model::Name(protocol)), config});
  }
  for (model::ReadMode read :
       {model::ReadMode::kMin, model::ReadMode::kSingleIndex}) {
    model::Config config = base;
    config.read = read;
    rows.push_back({"read_" + std::string(model::Name(read)), config});
  }
  for (model::GcMode gc :
       {model::GcMode::kStaleRead, model::GcMode::kRecheck}) {
    model::Config config = base;
    config.gc = gc;
    rows.push_back({"gc_" + std::string(model::Name(gc)), config});
  }
  for (const model::BugInfo& info : model::AllBugs()) {
    if (!info.in_model) continue;
    model::Config config = base;
    // Derived where the bug applies, else the first protocol its row names.
    config.protocol = model::ProtocolFor(info, model::Protocol::kDerived);
    config.bugs = model::BugBit(info.bug);
    rows.push_back({"bug_" + std::string(info.name), config});
  }
  for (Row& row : rows) {
    for (char& c : row.name) {
      if (c == '-') c = '_';
    }
  }
  return rows;
}

class EveryVariant : public testing::TestWithParam<Row> {};

TEST_P(EveryVariant, HasTheSameVerdictAndInvariantWithAndWithoutSymmetry) {
  const model::Config& config = GetParam().config;
  const engine::SearchResult with =
      SearchModel(config, Options{.threads = 2, .symmetry = true});
  const engine::SearchResult without =
      SearchModel(config, Options{.threads = 2, .symmetry = false});
  ASSERT_NE(with.verdict, engine::Verdict::kIncomplete);
  EXPECT_EQ(with.verdict, without.verdict);
  const std::string a = with.violation ? with.violation->invariant : "";
  const std::string b = without.violation ? without.violation->invariant : "";
  EXPECT_EQ(a, b);
  if (with.violation && without.violation) {
    // BFS: both shortest; the reduced search keeps the concrete trace.
    EXPECT_EQ(with.violation->trace.size(), without.violation->trace.size());
    std::vector<model::State> states;
    ASSERT_TRUE(engine::Replay(config, with.violation->trace, &states).ok());
  }
  EXPECT_LE(with.stats.states_distinct, without.stats.states_distinct);
}

INSTANTIATE_TEST_SUITE_P(AtTheGateBounds, EveryVariant,
                         testing::ValuesIn(Rows()),
                         [](const testing::TestParamInfo<Row>& param_info) {
                           return param_info.param.name;
                         });

// The broken invariant at the end of `result`'s trace, replayed.
bool TraceBreaks(const model::Config& config,
                 const engine::SearchResult& result) {
  if (!result.violation) return false;
  const model::Invariant* invariant =
      model::FindInvariant(result.violation->invariant);
  if (invariant == nullptr) return true;  // a missed goal: no trace
  std::vector<model::State> states;
  if (!engine::Replay(config, result.violation->trace, &states).ok())
    return false;
  return !invariant->holds(config, states.back());
}

RC_GTEST_PROP(Engine, BfsOnOneAndTwoThreadsDfsAndSymmetryAgree, ()) {
  model::Config config;
  config.bounds = model::Bounds{.shards = *rc::gen::inRange(1, 3),
                                .generations = *rc::gen::inRange(1, 3),
                                .fragments = *rc::gen::inRange(1, 3),
                                .indexes = *rc::gen::inRange(0, 3),
                                .commits = *rc::gen::inRange(1, 4),
                                .inflight = *rc::gen::inRange(0, 3)};
  config.protocol = *rc::gen::element(
      model::Protocol::kDerived, model::Protocol::kAdvance,
      model::Protocol::kUnconditional, model::Protocol::kLegacy);
  config.read =
      *rc::gen::element(model::ReadMode::kStrict, model::ReadMode::kMin,
                        model::ReadMode::kSingleIndex);
  config.gc =
      *rc::gen::element(model::GcMode::kAtomic, model::GcMode::kStaleRead,
                        model::GcMode::kRecheck);
  const int bug = *rc::gen::inRange(-1, model::kBugCount);
  if (bug >= 0 && model::AllBugs()[bug].in_model)
    config.bugs = model::BugBit(model::AllBugs()[bug].bug);
  RC_PRE(model::CheckConfig(config).ok());
  const Options plain{.threads = 1, .symmetry = false};
  const engine::SearchResult one = SearchModel(config, plain);
  const engine::SearchResult two =
      SearchModel(config, Options{.threads = 2, .symmetry = false});
  const engine::SearchResult dfs = SearchModel(
      config,
      Options{.order = engine::Order::kDfs, .threads = 1, .symmetry = false});
  const engine::SearchResult reduced =
      SearchModel(config, Options{.threads = 2, .symmetry = true});
  RC_ASSERT(one.verdict != engine::Verdict::kIncomplete);
  RC_ASSERT(two.verdict == one.verdict);
  RC_ASSERT(dfs.verdict == one.verdict);
  RC_ASSERT(reduced.verdict == one.verdict);
  if (one.violation) {
    // BFS on any thread count: the same first counterexample.
    RC_ASSERT(two.violation->invariant == one.violation->invariant);
    RC_ASSERT(two.violation->trace == one.violation->trace);
    // DFS and the reduced search: a real counterexample of their own (the
    // reduced one as short as BFS's); with one broken invariant at the
    // shortest depth, the same one.
    RC_ASSERT(TraceBreaks(config, dfs));
    RC_ASSERT(TraceBreaks(config, reduced));
    RC_ASSERT(reduced.violation->trace.size() == one.violation->trace.size());
  } else {
    RC_ASSERT(dfs.stats.states_distinct == one.stats.states_distinct);
    RC_ASSERT(two.stats.states_distinct == one.stats.states_distinct);
    RC_ASSERT(reduced.stats.states_distinct <= one.stats.states_distinct);
  }
}

}  // namespace
}  // namespace memwal::checker
