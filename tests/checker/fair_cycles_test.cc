// The fair-cycle search (checker/engine/fair_cycles.h) on hand-made graphs:
// a cycle on which a weakly fair class is enabled throughout and never taken
// is not reported; one that takes it, or passes a state where it is disabled,
// is; a cycle through a goal state never is; a state may stutter forever,
// which is a fair counterexample exactly when nothing fair is enabled there;
// the lasso's stem is shortest and its cycle closes, stays in the SCC and meets
// every obligation.
#include "checker/engine/fair_cycles.h"

#include <gtest/gtest.h>

#include <vector>

namespace memwal::checker::engine {
namespace {

constexpr uint32_t kRepair = 0;  // a weakly fair class
constexpr uint32_t kCommit = 1;  // another

uint32_t Bit(uint32_t c) { return 1u << c; }

struct Node {
  uint32_t enabled;
  bool goal;
  std::vector<uint32_t> edges;  // FairGraph::Edge values
};

FairGraph Build(const std::vector<Node>& nodes) {
  FairGraph graph;
  for (const Node& node : nodes)
    graph.AddNode(node.enabled, node.goal, node.edges);
  return graph;
}

uint32_t E(uint32_t to, uint32_t c = kNoClass) {
  return FairGraph::Edge(to, c);
}

// Node 0 is a goal, as Init is. 0 -> 1 <-> 2 by environment edges; the repair
// is enabled in 1 and 2 and leads to the goal 3.
std::vector<Node> EnvironmentLoop(uint32_t enabled_in_2) {
  return {{0, true, {E(1)}},
          {Bit(kRepair), false, {E(2), E(3, kRepair)}},
          {enabled_in_2, false, {E(1), E(3, kRepair)}},
          {0, true, {E(3)}}};
}

TEST(FairCycles, ACycleThatNeverTakesARepairEnabledThroughoutIsNotReported) {
  const FairGraph graph = Build(EnvironmentLoop(Bit(kRepair)));
  EXPECT_FALSE(FindFairScc(graph, nullptr).has_value());
}

TEST(FairCycles, ACyclePassingAStateWhereTheRepairIsDisabledIsReported) {
  // Node 2 has no repair enabled (and no repair edge): weak fairness does
  // not oblige a repair enabled only now and then.
  std::vector<Node> nodes = EnvironmentLoop(0);
  nodes[2].edges = {E(1)};
  const FairGraph graph = Build(nodes);
  const auto scc = FindFairScc(graph, nullptr);
  ASSERT_TRUE(scc.has_value());
  EXPECT_EQ(*scc, (std::vector<uint32_t>{1, 2}));
}

TEST(FairCycles, ACycleThatTakesEveryClassEnabledThroughoutIsReported) {
  // 1 -commit-> 2 -env-> 1; the commit is enabled in both and taken.
  const FairGraph graph = Build({{0, true, {E(1)}},
                                 {Bit(kCommit), false, {E(2, kCommit)}},
                                 {Bit(kCommit), false, {E(1), E(3, kCommit)}},
                                 {0, true, {}}});
  const auto scc = FindFairScc(graph, nullptr);
  ASSERT_TRUE(scc.has_value());
  EXPECT_EQ(*scc, (std::vector<uint32_t>{1, 2}));
  const Lasso lasso = BuildLasso(graph, *scc);
  ASSERT_GT(lasso.steps.size(), lasso.loop);
  EXPECT_EQ(lasso.loop, 1u);  // the stem: 0 -> 1
  bool took_commit = false;
  uint32_t at = FairGraph::Target(graph.edges[lasso.steps[lasso.loop - 1]]);
  const uint32_t entry = at;
  for (std::size_t k = lasso.loop; k < lasso.steps.size(); ++k) {
    const uint32_t edge = graph.edges[lasso.steps[k]];
    EXPECT_EQ(SourceOf(graph, lasso.steps[k]), at);
    at = FairGraph::Target(edge);
    EXPECT_TRUE(at == 1 || at == 2);
    took_commit = took_commit || FairGraph::Class(edge) == kCommit;
  }
  EXPECT_EQ(at, entry);
  EXPECT_TRUE(took_commit);
}

TEST(FairCycles, ACycleThroughAGoalStateIsNotReported) {
  // 1 <-> 2 with 2 a goal: the goal is met infinitely often.
  const FairGraph graph = Build({{0, true, {E(1)}},
                                 {Bit(kCommit), false, {E(2, kCommit)}},
                                 {0, true, {E(1)}}});
  EXPECT_FALSE(FindFairScc(graph, nullptr).has_value());
}

TEST(FairCycles, ASelfLoopWithNoObligationAndADeadEndWithoutOneAreFair) {
  const FairGraph loop = Build({{0, true, {E(1)}}, {0, false, {E(1)}}});
  const auto scc = FindFairScc(loop, nullptr);
  ASSERT_TRUE(scc.has_value());
  EXPECT_EQ(*scc, (std::vector<uint32_t>{1}));
  const Lasso lasso = BuildLasso(loop, *scc);
  EXPECT_EQ(lasso.loop, 1u);
  EXPECT_EQ(lasso.steps.size(), 2u);
  // A state without successors stutters forever, a fair run when nothing
  // fair is enabled in it; with a repair enabled it is not.
  const FairGraph dead = Build({{0, true, {E(1)}}, {0, false, {}}});
  const auto stuck = FindFairScc(dead, nullptr);
  ASSERT_TRUE(stuck.has_value());
  EXPECT_EQ(*stuck, (std::vector<uint32_t>{1}));
  const Lasso stutter = BuildLasso(dead, *stuck);
  EXPECT_EQ(stutter.loop, stutter.steps.size());
  EXPECT_FALSE(FindFairScc(
      Build({{0, true, {E(1)}}, {Bit(kRepair), false, {}}}), nullptr));
}

TEST(FairCycles, TheReportedSccIsTheOneNearestTheInitialState) {
  // Two fair self-loops: node 1 (near) and node 3 (far, through 2).
  const FairGraph graph = Build({{0, true, {E(2), E(1)}},
                                 {0, false, {E(1)}},
                                 {0, true, {E(3)}},
                                 {0, false, {E(3)}}});
  const auto scc = FindFairScc(graph, nullptr);
  ASSERT_TRUE(scc.has_value());
  EXPECT_EQ(*scc, (std::vector<uint32_t>{1}));
}

TEST(FairCycles, TheLassoVisitsAStateWhereAnUntakenClassIsDisabled) {
  // SCC {1, 2, 3}: the repair is enabled in 1 and 2, disabled in 3, never
  // taken inside; the cycle must pass 3.
  const FairGraph graph =
      Build({{0, true, {E(1)}},
             {Bit(kRepair), false, {E(2), E(4, kRepair)}},
             {Bit(kRepair), false, {E(1), E(3), E(4, kRepair)}},
             {0, false, {E(1)}},
             {0, true, {}}});
  const auto scc = FindFairScc(graph, nullptr);
  ASSERT_TRUE(scc.has_value());
  const Lasso lasso = BuildLasso(graph, *scc);
  bool passed_3 = false;
  for (std::size_t k = lasso.loop; k < lasso.steps.size(); ++k)
    passed_3 = passed_3 || FairGraph::Target(graph.edges[lasso.steps[k]]) == 3;
  EXPECT_TRUE(passed_3);
}

}  // namespace
}  // namespace memwal::checker::engine
