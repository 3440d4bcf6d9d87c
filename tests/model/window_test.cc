// The liveness window (model/window.h, spec R70): Fold is idempotent, drops
// only what no step can observe, and is exact for the continuation's actions:
// over every state the tiny BFS reaches, each such action enabled in a state
// is enabled in its fold, with the same folded successor, and the goal's
// ingredients (the head's compacted progress, live set, retirability) agree.
#include "model/window.h"

#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>
#include <vector>

#include "model/actions.h"
#include "model/read.h"

namespace memwal::model {
namespace {

// The actions the liveness continuation runs (checker/engine/liveness.cc).
bool InContinuation(const Action& action) {
  return std::holds_alternative<OptimizeIndex>(action) ||
         std::holds_alternative<Commit>(action) ||
         std::holds_alternative<CleanupVersions>(action) ||
         std::holds_alternative<RetireSsTable>(action) ||
         std::holds_alternative<Append>(action) ||
         std::holds_alternative<FlushMemTable>(action) ||
         std::holds_alternative<CompactSsTable>(action) ||
         std::holds_alternative<RecordProgress>(action);
}

State Folded(const Config& config, State state) {
  Fold(config, &state);
  return state;
}

bool SameGoal(const Config& config, const State& a, const State& b) {
  if (Head(a).compacted != Head(b).compacted || a.retired != b.retired ||
      (Head(a).live == 0) != (Head(b).live == 0))
    return false;
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= config.bounds.generations; ++g) {
      if (Retirable(config, a, s, g) != Retirable(config, b, s, g))
        return false;
    }
  }
  return true;
}

TEST(Window, EveryContinuationStepOfATinyStateIsMatchedByItsFold) {
  Config config;
  config.bounds = TinyBounds();
  config.protocol = Protocol::kAdvance;
  std::set<std::string> seen;
  std::deque<State> queue{Init(config.bounds)};
  std::string bytes;
  Encode(queue.front(), &bytes);
  seen.insert(bytes);
  std::vector<Action> actions;
  std::size_t checked = 0;
  while (!queue.empty()) {
    const State state = queue.front();
    queue.pop_front();
    const State folded = Folded(config, state);
    ASSERT_EQ(Folded(config, folded), folded) << ToString(state);
    ASSERT_TRUE(SameGoal(config, state, folded)) << ToString(state);
    EnabledActions(config, state, &actions);
    for (const Action& action : actions) {
      Outcome outcome;
      const State next = Apply(config, state, action, &outcome);
      if (InContinuation(action)) {
        ASSERT_TRUE(IsEnabled(config, folded, action))
            << ToString(action) << "\n"
            << ToString(state);
        Outcome folded_outcome;
        const State mimic = Apply(config, folded, action, &folded_outcome);
        EXPECT_EQ(folded_outcome, outcome) << ToString(action);
        ASSERT_EQ(Folded(config, mimic), Folded(config, next))
            << ToString(action) << "\n"
            << ToString(state);
        ++checked;
      }
      Encode(next, &bytes);
      if (seen.insert(bytes).second) queue.push_back(next);
    }
  }
  EXPECT_EQ(seen.size(), 145515u);  // the advance tiny count of the BFS
  EXPECT_GT(checked, 100'000u);
}

TEST(Window,
     ACleanedUpHistoryKeepsOnlyTheHeadAndVersionsInFlightTransactionsRead) {
  Config config;
  config.bounds = TinyBounds();
  State state = Init(config.bounds);
  Outcome outcome;
  state = Apply(config, state, Append{}, &outcome);
  state = Apply(config, state, Commit{0}, &outcome);          // v2
  state = Apply(config, state, DeleteFragment{1}, &outcome);  // reads v2
  state = Apply(config, state, CleanupVersions{}, &outcome);
  const State folded = Folded(config, state);
  EXPECT_EQ(folded.version_count, 1);  // v1 dropped, v2 (head, read) kept
  EXPECT_EQ(folded.inflight[0].read_version, 1);
  EXPECT_EQ(folded.committed, 0);
  EXPECT_EQ(Head(folded).live, Head(state).live);
}

TEST(Window, FragmentsEverySetTreatsAlikeMergeIntoOne) {
  Config config;
  config.bounds = TinyBounds();
  State state = Init(config.bounds);
  Outcome outcome;
  state = Apply(config, state, Append{}, &outcome);
  state = Apply(config, state, Commit{0}, &outcome);  // live {0, 1}
  state = Apply(config, state, OptimizeIndex{0}, &outcome);
  state = Apply(config, state, Commit{0}, &outcome);  // idx_0 covers {0}, {1}
  state = Apply(config, state, CleanupVersions{}, &outcome);
  ASSERT_EQ(Head(state).live, 0b11);
  // The two segments still tell fragments 0 and 1 apart.
  EXPECT_EQ(Folded(config, state).next_fragment, 2);
}

}  // namespace
}  // namespace memwal::model
