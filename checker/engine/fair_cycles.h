// Fair-cycle search on an explicit state graph (spec/protocol.md R71): the
// accepting strongly connected components under weak fairness, as TLC finds
// them, and a lasso (stem + cycle) through one.
//
// The graph: nodes 0..n-1 in breadth-first order from node 0 (the initial
// state), out-edges in compressed rows. Each edge carries the weak-fairness
// class of the action it takes (kNoClass for an action nobody is obliged to
// take: the environment's); each node the set of classes enabled in it and
// whether it is a goal state.
//
// A fair counterexample is an SCC of the graph without its goal nodes that is
// non-trivial (two nodes, or a self-loop) and in which every class enabled in
// all of its nodes is taken by an edge inside it, or a single node in which
// no class is enabled (every state may stutter forever, as in TLC). Under weak
// fairness that is exact: the cycle that walks every node and edge of such an
// SCC is fair (a class not enabled everywhere is disabled somewhere on it), and
// a fair cycle of a sub-SCC is a fair cycle of its SCC, which then passes the
// test.
#ifndef MEMWAL_CHECKER_ENGINE_FAIR_CYCLES_H_
#define MEMWAL_CHECKER_ENGINE_FAIR_CYCLES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace memwal::checker::engine {

inline constexpr uint32_t kNoClass = 31;        // an environment edge
inline constexpr uint32_t kGoalBit = 1u << 31;  // in FairGraph::enabled
inline constexpr uint32_t kMaxNodes = 1u << 27;

struct FairGraph {
  std::vector<uint32_t> begin{0};  // edges of node n: [begin[n], begin[n+1])
  std::vector<uint32_t> edges;     // target (27 bits) | class << 27
  std::vector<uint32_t> enabled;   // bit c: class c enabled; kGoalBit: goal

  static uint32_t Edge(uint32_t target, uint32_t fair_class) {
    return target | (fair_class << 27);
  }
  static uint32_t Target(uint32_t edge) { return edge & (kMaxNodes - 1); }
  static uint32_t Class(uint32_t edge) { return edge >> 27; }
  uint32_t size() const { return static_cast<uint32_t>(enabled.size()); }
  bool goal(uint32_t n) const { return (enabled[n] & kGoalBit) != 0; }
  // Adds node n = size() with these out-edges.
  void AddNode(uint32_t enabled_classes, bool is_goal,
               const std::vector<uint32_t>& out_edges);
  std::size_t bytes() const {
    return (begin.capacity() + edges.capacity() + enabled.capacity()) *
           sizeof(uint32_t);
  }
};

// Calls `visit` with every SCC of the graph without its goal nodes: its
// members in increasing order, and `in_scc` marking exactly them (valid during
// the call). The order of the calls is fixed by the graph.
using SccVisitor = std::function<void(const std::vector<uint32_t>& members,
                                      const std::vector<bool>& in_scc)>;
void ForEachScc(const FairGraph& graph, const SccVisitor& visit,
                std::size_t* scratch_bytes);

// The edge positions of a shortest path from `from` to a node `targets`
// marks (empty when `from` is one), or nullopt when there is none.
std::optional<std::vector<uint32_t>> ShortestPathInto(
    const FairGraph& graph, uint32_t from, const std::vector<bool>& targets);

// The nodes of the fair SCC nearest node 0 (smallest least node number), in
// increasing order; nullopt when there is none. *scratch_bytes (optional)
// receives the peak memory of the search's own arrays.
std::optional<std::vector<uint32_t>> FindFairScc(const FairGraph& graph,
                                                 std::size_t* scratch_bytes);

// A lasso through `scc` (a result of FindFairScc): `steps` are edge positions
// (indexes into graph.edges) from node `from` (0: the initial state); steps
// [loop, end) form the cycle, which returns to the node it starts from, stays
// inside `scc`, takes every class enabled throughout it and passes a node where
// each other class enabled somewhere in it is disabled. The stem is a shortest
// path. An SCC of one node without a self-loop and with no class enabled is a
// stutter (the run stays there forever, R72): its lasso has loop ==
// steps.size().
struct Lasso {
  std::vector<uint32_t> steps;
  std::size_t loop = 0;
};
Lasso BuildLasso(const FairGraph& graph, const std::vector<uint32_t>& scc,
                 uint32_t from = 0);

// The node an edge position leaves from (binary search over begin).
uint32_t SourceOf(const FairGraph& graph, uint32_t position);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_FAIR_CYCLES_H_
