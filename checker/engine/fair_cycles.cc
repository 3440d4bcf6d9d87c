// Accepting SCCs under weak fairness and lassos through them
// (checker/engine/fair_cycles.h).
#include "checker/engine/fair_cycles.h"

#include <algorithm>
#include <deque>

#include "base/status.h"

namespace memwal::checker::engine {
namespace {

constexpr uint32_t kUnseen = 0;
constexpr uint32_t kDone = UINT32_MAX;
constexpr uint32_t kClassMask = ~kGoalBit;

// Is the SCC `members` (marked in `in_scc`) a fair counterexample?
bool Accepting(const FairGraph& graph, const std::vector<uint32_t>& members,
               const std::vector<bool>& in_scc) {
  uint32_t everywhere = kClassMask;
  uint32_t taken = 0;
  bool has_edge = false;
  for (const uint32_t n : members) {
    everywhere &= graph.enabled[n];
    for (uint32_t e = graph.begin[n]; e < graph.begin[n + 1]; ++e) {
      const uint32_t to = FairGraph::Target(graph.edges[e]);
      if (!in_scc[to]) continue;
      has_edge = true;
      const uint32_t c = FairGraph::Class(graph.edges[e]);
      if (c != kNoClass) taken |= 1u << c;
    }
  }
  // A state can stutter forever (TLC's semantics): alone, that is a fair run
  // when no class is enabled in it.
  if (!has_edge) return members.size() == 1 && (everywhere & kClassMask) == 0;
  return (everywhere & ~taken & kClassMask) == 0;
}

// Breadth-first inside `allowed` from `from` to the first node `done` accepts;
// the edge positions of the path (empty when `from` is accepted), or nullopt.
template <typename Done>
std::optional<std::vector<uint32_t>> PathTo(const FairGraph& graph,
                                            const std::vector<bool>* allowed,
                                            uint32_t from, Done done) {
  if (done(from)) return std::vector<uint32_t>{};
  std::vector<uint32_t> via(graph.size(), kDone);  // edge position
  std::vector<bool> seen(graph.size(), false);
  std::deque<uint32_t> queue{from};
  seen[from] = true;
  while (!queue.empty()) {
    const uint32_t n = queue.front();
    queue.pop_front();
    for (uint32_t e = graph.begin[n]; e < graph.begin[n + 1]; ++e) {
      const uint32_t to = FairGraph::Target(graph.edges[e]);
      if (seen[to] || (allowed != nullptr && !(*allowed)[to])) continue;
      seen[to] = true;
      via[to] = e;
      if (done(to)) {
        std::vector<uint32_t> path;
        for (uint32_t at = to; at != from;) {
          path.push_back(via[at]);
          at = SourceOf(graph, via[at]);
        }
        std::reverse(path.begin(), path.end());
        return path;
      }
      queue.push_back(to);
    }
  }
  return std::nullopt;
}

}  // namespace

void FairGraph::AddNode(uint32_t enabled_classes, bool is_goal,
                        const std::vector<uint32_t>& out_edges) {
  MEMWAL_ASSERT(size() + 1 < kMaxNodes);
  enabled.push_back((enabled_classes & kClassMask) | (is_goal ? kGoalBit : 0));
  edges.insert(edges.end(), out_edges.begin(), out_edges.end());
  begin.push_back(static_cast<uint32_t>(edges.size()));
}

uint32_t SourceOf(const FairGraph& graph, uint32_t position) {
  const auto it =
      std::upper_bound(graph.begin.begin(), graph.begin.end(), position);
  return static_cast<uint32_t>(it - graph.begin.begin()) - 1;
}

// Tarjan's algorithm without recursion over the non-goal nodes. index[n]:
// 0 unseen, kDone finished, else the visit number; low[n] the low link.
void ForEachScc(const FairGraph& graph, const SccVisitor& visit,
                std::size_t* scratch_bytes) {
  const uint32_t count = graph.size();
  std::vector<uint32_t> index(count, kUnseen);
  std::vector<uint32_t> low(count, 0);
  std::vector<uint32_t> stack;
  struct Frame {
    uint32_t node;
    uint32_t edge;
  };
  std::vector<Frame> calls;
  std::vector<bool> in_scc(count, false);
  std::vector<uint32_t> members;  // of the SCC found last
  uint32_t visits = 0;
  std::size_t peak = 0;
  for (uint32_t root = 0; root < count; ++root) {
    if (index[root] != kUnseen || graph.goal(root)) continue;
    calls.push_back(Frame{root, graph.begin[root]});
    index[root] = low[root] = ++visits;
    stack.push_back(root);
    while (!calls.empty()) {
      Frame& frame = calls.back();
      const uint32_t n = frame.node;
      if (frame.edge < graph.begin[n + 1]) {
        const uint32_t to = FairGraph::Target(graph.edges[frame.edge++]);
        if (graph.goal(to) || index[to] == kDone) continue;
        if (index[to] == kUnseen) {
          index[to] = low[to] = ++visits;
          stack.push_back(to);
          calls.push_back(Frame{to, graph.begin[to]});
        } else {
          low[n] = std::min(low[n], index[to]);
        }
        continue;
      }
      calls.pop_back();
      if (!calls.empty())
        low[calls.back().node] = std::min(low[calls.back().node], low[n]);
      if (low[n] != index[n]) continue;
      members.clear();
      uint32_t m = 0;
      do {
        m = stack.back();
        stack.pop_back();
        index[m] = kDone;
        in_scc[m] = true;
        members.push_back(m);
      } while (m != n);
      peak = std::max(
          peak, (stack.capacity() + 2 * calls.capacity()) * sizeof(uint32_t));
      std::sort(members.begin(), members.end());
      visit(members, in_scc);
      for (const uint32_t k : members) in_scc[k] = false;
    }
  }
  if (scratch_bytes != nullptr) {
    *scratch_bytes = (index.capacity() + low.capacity()) * sizeof(uint32_t) +
                     in_scc.capacity() / 8 + peak;
  }
}

std::optional<std::vector<uint32_t>> FindFairScc(const FairGraph& graph,
                                                 std::size_t* scratch_bytes) {
  std::optional<std::vector<uint32_t>> best;
  ForEachScc(
      graph,
      [&](const std::vector<uint32_t>& members,
          const std::vector<bool>& in_scc) {
        if ((!best || members.front() < best->front()) &&
            Accepting(graph, members, in_scc)) {
          best = members;
        }
      },
      scratch_bytes);
  return best;
}

std::optional<std::vector<uint32_t>> ShortestPathInto(
    const FairGraph& graph, uint32_t from, const std::vector<bool>& targets) {
  return PathTo(graph, nullptr, from,
                [&](uint32_t n) { return bool(targets[n]); });
}

namespace {

// The fair classes over an SCC: enabled at every node, enabled at some node,
// and taken by an edge inside it.
struct SccClasses {
  uint32_t everywhere = kClassMask;
  uint32_t somewhere = 0;
  uint32_t taken = 0;
};

SccClasses ClassesOf(const FairGraph& graph, const std::vector<uint32_t>& scc,
                     const std::vector<bool>& in_scc) {
  SccClasses classes;
  for (const uint32_t n : scc) {
    classes.everywhere &= graph.enabled[n];
    classes.somewhere |= graph.enabled[n] & kClassMask;
    for (uint32_t e = graph.begin[n]; e < graph.begin[n + 1]; ++e) {
      const uint32_t c = FairGraph::Class(graph.edges[e]);
      if (c != kNoClass && in_scc[FairGraph::Target(graph.edges[e])])
        classes.taken |= 1u << c;
    }
  }
  return classes;
}

// An edge of class `c` from `n` that stays inside the SCC, or kDone.
uint32_t InternalEdge(const FairGraph& graph, const std::vector<bool>& in_scc,
                      uint32_t n, uint32_t c) {
  for (uint32_t e = graph.begin[n]; e < graph.begin[n + 1]; ++e) {
    if (FairGraph::Class(graph.edges[e]) == c &&
        in_scc[FairGraph::Target(graph.edges[e])])
      return e;
  }
  return kDone;
}

// A lasso under construction: its steps, and the node they end at.
struct LassoWalk {
  const FairGraph& graph;
  Lasso* lasso;
  uint32_t at;
  void Walk(const std::vector<uint32_t>& path) {
    lasso->steps.insert(lasso->steps.end(), path.begin(), path.end());
    if (!path.empty()) at = FairGraph::Target(graph.edges[path.back()]);
  }
};

// The cycle's demands: for each fair class enabled somewhere in the SCC,
// an edge of it taken inside the SCC, or a node where it is disabled.
void MeetFairClasses(const FairGraph& graph, std::vector<bool>* in_scc,
                     const SccClasses& classes, LassoWalk* walk) {
  for (uint32_t c = 0; c < kNoClass; ++c) {
    if (!((classes.somewhere >> c) & 1u)) continue;
    if ((classes.taken >> c) & 1u) {
      const auto path = PathTo(graph, in_scc, walk->at, [&](uint32_t n) {
        return InternalEdge(graph, *in_scc, n, c) != kDone;
      });
      MEMWAL_ASSERT(path.has_value());
      walk->Walk(*path);
      walk->Walk({InternalEdge(graph, *in_scc, walk->at, c)});
    } else {
      MEMWAL_ASSERT(!((classes.everywhere >> c) & 1u));
      const auto path = PathTo(graph, in_scc, walk->at, [&](uint32_t n) {
        return !((graph.enabled[n] >> c) & 1u);
      });
      MEMWAL_ASSERT(path.has_value());
      walk->Walk(*path);
    }
  }
}

}  // namespace

Lasso BuildLasso(const FairGraph& graph, const std::vector<uint32_t>& scc,
                 uint32_t from) {
  std::vector<bool> in_scc(graph.size(), false);
  for (const uint32_t n : scc) in_scc[n] = true;
  Lasso lasso;
  const auto stem = ShortestPathInto(graph, from, in_scc);
  MEMWAL_ASSERT(stem.has_value());
  lasso.steps = *stem;
  lasso.loop = lasso.steps.size();
  const uint32_t entry =
      lasso.steps.empty() ? from
                          : FairGraph::Target(graph.edges[lasso.steps.back()]);
  LassoWalk walk{graph, &lasso, entry};
  MeetFairClasses(graph, &in_scc, ClassesOf(graph, scc, in_scc), &walk);
  const bool has_internal_edge = std::any_of(
      graph.edges.begin() + graph.begin[entry],
      graph.edges.begin() + graph.begin[entry + 1],
      [&](uint32_t e) { return bool(in_scc[FairGraph::Target(e)]); });
  if (scc.size() == 1 && !has_internal_edge) return lasso;  // stutters
  if (lasso.steps.size() == lasso.loop) {
    // No requirement moved us: leave by any edge inside the SCC.
    for (uint32_t e = graph.begin[walk.at]; e < graph.begin[walk.at + 1]; ++e) {
      if (in_scc[FairGraph::Target(graph.edges[e])]) {
        walk.Walk({e});
        break;
      }
    }
    MEMWAL_ASSERT(lasso.steps.size() > lasso.loop);
  }
  const auto back =
      PathTo(graph, &in_scc, walk.at, [&](uint32_t n) { return n == entry; });
  MEMWAL_ASSERT(back.has_value());
  walk.Walk(*back);
  return lasso;
}

}  // namespace memwal::checker::engine
