// CompactedGenerationsEventuallyRetire on the model graph (checker/liveness.h).
#include "checker/engine/liveness.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "checker/engine/packed.h"
#include "checker/engine/search.h"
#include "model/read.h"
#include "model/symmetry.h"

namespace memwal::checker::engine {
namespace {

using model::Action;
using model::State;

bool IsFair(const Action& action) {
  return std::holds_alternative<model::OptimizeIndex>(action) ||
         std::holds_alternative<model::Commit>(action) ||
         std::holds_alternative<model::CleanupVersions>(action) ||
         std::holds_alternative<model::RetireSsTable>(action) ||
         std::holds_alternative<model::RetireDecide>(action) ||
         std::holds_alternative<model::RetireExecute>(action);
}

// The goal of a fair continuation: every compacted generation retirable, or a
// head without live fragments. A read version with no fragments proves nothing
// (R33, Lance's guard), so an empty table earns no catch-up until rows are
// appended, which fairness does not promise: its compacted generations wait,
// and that wait is Lance's, not a liveness failure of the protocol.
bool Discharged(const model::Config& config, const State& state) {
  return model::Head(state).live == 0 || AllCompactedRetirable(config, state);
}

// States by index; fingerprints find them (lookup only, never iterated).
class Graph {
 public:
  // The index of `state`, adding it if new; *added tells which.
  uint32_t Intern(const State& state, bool* added) {
    const auto [it, inserted] = index_.emplace(
        model::Fingerprint(state), static_cast<uint32_t>(states_.size()));
    *added = inserted;
    if (inserted) states_.push_back(state);
    return it->second;
  }
  const State& at(uint32_t k) const { return states_[k]; }
  std::size_t size() const { return states_.size(); }

 private:
  std::vector<State> states_;
  std::unordered_map<uint64_t, uint32_t> index_;
};

struct Parent {
  uint32_t node;
  Action action;
};

std::string StuckGenerations(const model::Config& config, const State& state) {
  std::string out;
  const model::Version& head = model::Head(state);
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= head.compacted[s]; ++g) {
      if (model::Contains(state.retired[s], g - 1) ||
          model::Retirable(config, state, s, g))
        continue;
      out += (out.empty() ? "" : ", ") + std::string("(") + std::to_string(s) +
             "," + std::to_string(g) + ")";
    }
  }
  return out;
}

// Explains why no fair continuation of `from` reaches the goal.
std::string Explain(const model::Config& config, const State& from,
                    std::size_t fair_successors, std::size_t continuation) {
  std::string note = "compacted generation(s) " +
                     StuckGenerations(config, from) +
                     " can never become retirable: ";
  if (fair_successors == 0) {
    return note +
           "no fair action is enabled (the fair continuation is a dead end)";
  }
  return note + "all " + std::to_string(continuation) +
         " states of its fair continuation (repairs, commits, cleanup, "
         "retirement) stay short of it, cycling or ending in dead ends";
}

// The number of states a fair continuation from `from` visits, and whether
// one of them is a goal state.
bool SearchFair(const model::Config& config, const State& from,
                std::size_t* visited, std::size_t* fair_successors) {
  const model::Config fair = FairConfig(config);
  Graph graph;
  bool added = false;
  graph.Intern(from, &added);
  std::vector<Action> actions;
  FairActions(fair, from, &actions);
  *fair_successors = actions.size();
  for (uint32_t k = 0; k < graph.size(); ++k) {
    const State state = graph.at(k);
    if (Discharged(config, state)) {
      *visited = graph.size();
      return true;
    }
    FairActions(fair, state, &actions);
    for (const Action& action : actions) {
      model::Outcome outcome;
      graph.Intern(model::Apply(fair, state, action, &outcome), &added);
    }
  }
  *visited = graph.size();
  return false;
}

}  // namespace

model::Config FairConfig(const model::Config& config) {
  model::Config fair = config;
  fair.bounds.commits =
      std::min(config.bounds.commits + kFairExtraCommits, model::kCommitsMax);
  return fair;
}

bool AllCompactedRetirable(const model::Config& config, const State& state) {
  const model::Version& head = model::Head(state);
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= head.compacted[s]; ++g) {
      if (model::Contains(state.retired[s], g - 1)) continue;
      if (!model::Retirable(config, state, s, g)) return false;
    }
  }
  return true;
}

void FairActions(const model::Config& fair_config, const State& state,
                 std::vector<Action>* out) {
  std::vector<Action> all;
  model::EnabledActions(fair_config, state, &all);
  out->clear();
  for (const Action& action : all) {
    if (IsFair(action)) out->push_back(action);
  }
}

namespace {

// Node numbers by fingerprint: open addressing over (fingerprint, number)
// pairs, 12 bytes a slot, at most 70% full.
class NodeMap {
 public:
  // The number of `fingerprint`, or `next` (and it is added) when new.
  uint32_t Find(uint64_t fingerprint, uint32_t next, bool* added) {
    if ((size_ + 1) * 10 > keys_.size() * 7) Grow();
    std::size_t k = Home(fingerprint);
    for (;; k = (k + 1) & (keys_.size() - 1)) {
      if (numbers_[k] == kEmpty) break;
      if (keys_[k] == fingerprint) {
        *added = false;
        return numbers_[k];
      }
    }
    keys_[k] = fingerprint;
    numbers_[k] = next;
    ++size_;
    *added = true;
    return next;
  }
  std::size_t bytes() const {
    return keys_.capacity() * sizeof(uint64_t) +
           numbers_.capacity() * sizeof(uint32_t);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::size_t Home(uint64_t fingerprint) const {
    return static_cast<std::size_t>(fingerprint ^ (fingerprint >> 31)) &
           (keys_.size() - 1);
  }
  void Grow() {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> numbers;
    keys.swap(keys_);
    numbers.swap(numbers_);
    const std::size_t slots = keys.empty() ? 1024 : 2 * keys.size();
    keys_.assign(slots, 0);
    numbers_.assign(slots, kEmpty);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (numbers[k] == kEmpty) continue;
      std::size_t at = Home(keys[k]);
      while (numbers_[at] != kEmpty) at = (at + 1) & (slots - 1);
      keys_[at] = keys[k];
      numbers_[at] = numbers[k];
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> numbers_;
  std::size_t size_ = 0;
};

// What a queued node still needs: its reachable successors (it was reached
// under the run's bounds), its fair successors (first time met), or both.
enum Need : uint8_t { kReach = 1, kFair = 2 };

struct Queued {
  std::string packed;
  uint32_t node;
  uint8_t need;
};

constexpr uint32_t kNone = UINT32_MAX;

}  // namespace

LivenessResult CheckLiveness(const model::Config& config, uint64_t max_states) {
  return CheckLiveness(config, LivenessOptions{.max_states = max_states});
}

// One BFS builds the graph: every state reachable under the run's bounds (with
// its parent, for the counterexample) and every state of their fair
// continuations (relaxed commits), with the fair edges only. Per node: its
// number in the node map (about 24 bytes), a flag byte, the parent link
// (6 bytes), its fair edges (4 bytes each) and their offset (4 bytes); the
// states themselves are kept only while queued. Then the fair edges are
// reversed and walked backward from the goal states.
LivenessResult CheckLiveness(const model::Config& config,
                             const LivenessOptions& options) {
  LivenessResult result;
  const model::Config fair = FairConfig(config);
  const model::Symmetry symmetry =
      options.symmetry ? model::SymmetryOf(config) : model::Symmetry{};
  auto fingerprint = [&](const State& state) {
    return model::CanonicalFingerprint(config.bounds, symmetry, state);
  };
  NodeMap nodes;
  std::vector<uint8_t> flags;           // kReach: reached; bit 2: goal
  std::vector<uint32_t> parent;         // reachable nodes: the parent, or kNone
  std::vector<uint16_t> parent_action;  // PackAction-style (kind, params)
  std::vector<uint32_t> edge_begin;     // fair edges of node n: [begin, end)
  std::vector<uint8_t> edge_count;
  std::vector<uint32_t> edges;
  std::vector<uint32_t> reach_order;  // reachable nodes in BFS order
  std::deque<Queued> queue;
  constexpr uint8_t kGoal = 4;

  auto add_node = [&](const State& state, bool* added) {
    const uint32_t n = nodes.Find(fingerprint(state),
                                  static_cast<uint32_t>(flags.size()), added);
    if (*added) {
      flags.push_back(Discharged(config, state) ? kGoal : 0);
      parent.push_back(kNone);
      parent_action.push_back(0);
      edge_begin.push_back(0);
      edge_count.push_back(0);
    }
    return n;
  };
  auto enqueue = [&](const State& state, uint32_t n, uint8_t need) {
    std::string packed;
    engine::Pack(state, &packed);
    queue.push_back(Queued{std::move(packed), n, need});
  };
  auto pack_action = [](const Action& action) {
    const std::array<int, 2> p = model::ActionParams(action);
    return static_cast<uint16_t>((action.index() << 8) | (p[0] << 4) | p[1]);
  };

  bool added = false;
  const State init = model::Init(config.bounds);
  const uint32_t root = add_node(init, &added);
  flags[root] |= kReach;
  reach_order.push_back(root);
  enqueue(init, root, kReach | kFair);
  std::vector<Action> actions;
  State state;
  uint64_t expanded = 0;
  while (!queue.empty()) {
    Queued item = std::move(queue.front());
    queue.pop_front();
    if ((++expanded & 1023) == 0 && options.memory_limit_mb > 0 &&
        engine::ResidentMegabytes() > options.memory_limit_mb) {
      result.complete = false;
      result.stopped_by = "memory-limit";
      return result;
    }
    MEMWAL_ASSERT(engine::Unpack(item.packed, &state));
    if (item.need & kReach) {
      model::EnabledActions(config, state, &actions);
      for (const Action& action : actions) {
        model::Outcome outcome;
        const State next = model::Apply(config, state, action, &outcome);
        const uint32_t n = add_node(next, &added);
        if (flags[n] & kReach) continue;
        flags[n] |= kReach;
        parent[n] = item.node;
        parent_action[n] = pack_action(action);
        reach_order.push_back(n);
        enqueue(next, n, added ? (kReach | kFair) : kReach);
      }
      if (reach_order.size() > options.max_states) {
        result.complete = false;
        result.stopped_by = "max-states";
        return result;
      }
    }
    if (item.need & kFair) {
      FairActions(fair, state, &actions);
      MEMWAL_ASSERT(actions.size() < 256 && edges.size() < UINT32_MAX);
      edge_begin[item.node] = static_cast<uint32_t>(edges.size());
      edge_count[item.node] = static_cast<uint8_t>(actions.size());
      for (const Action& action : actions) {
        model::Outcome outcome;
        const State next = model::Apply(fair, state, action, &outcome);
        const uint32_t n = add_node(next, &added);
        edges.push_back(n);
        if (added) enqueue(next, n, kFair);
      }
      if (flags.size() > 4 * options.max_states) {
        result.complete = false;
        result.stopped_by = "max-states";
        return result;
      }
    }
  }
  const uint32_t count = static_cast<uint32_t>(flags.size());
  result.states = reach_order.size();
  result.fair_states = count - reach_order.size();
  // Reverse the fair edges (counting sort by target).
  std::vector<uint32_t> reverse_begin(count + 1, 0);
  for (const uint32_t to : edges) ++reverse_begin[to + 1];
  for (uint32_t n = 0; n < count; ++n) reverse_begin[n + 1] += reverse_begin[n];
  std::vector<uint32_t> reverse(edges.size());
  {
    std::vector<uint32_t> fill(reverse_begin.begin(), reverse_begin.end() - 1);
    for (uint32_t from = 0; from < count; ++from) {
      for (uint32_t e = 0; e < edge_count[from]; ++e)
        reverse[fill[edges[edge_begin[from] + e]]++] = from;
    }
  }
  result.bytes = nodes.bytes() + flags.capacity() +
                 parent.capacity() * sizeof(uint32_t) +
                 parent_action.capacity() * sizeof(uint16_t) +
                 edge_begin.capacity() * sizeof(uint32_t) +
                 edge_count.capacity() + edges.capacity() * sizeof(uint32_t) +
                 reverse.capacity() * sizeof(uint32_t) +
                 reverse_begin.capacity() * sizeof(uint32_t) +
                 reach_order.capacity() * sizeof(uint32_t);
  // Backward from the goal states: `good` marks the states with a fair path
  // to one (bit 3 of flags).
  constexpr uint8_t kGood = 8;
  std::vector<uint32_t> stack;
  for (uint32_t n = 0; n < count; ++n) {
    if (flags[n] & kGoal) {
      flags[n] |= kGood;
      stack.push_back(n);
    }
  }
  while (!stack.empty()) {
    const uint32_t n = stack.back();
    stack.pop_back();
    for (uint32_t r = reverse_begin[n]; r < reverse_begin[n + 1]; ++r) {
      const uint32_t from = reverse[r];
      if (flags[from] & kGood) continue;
      flags[from] |= kGood;
      stack.push_back(from);
    }
  }
  // The first reachable state (BFS order: shortest path) that is not good.
  for (const uint32_t k : reach_order) {
    if (flags[k] & kGood) continue;
    result.holds = false;
    for (uint32_t n = k; parent[n] != kNone; n = parent[n]) {
      const uint16_t a = parent_action[n];
      result.trace.push_back(
          model::MakeAction(a >> 8, {(a >> 4) & 15, a & 15}));
    }
    std::reverse(result.trace.begin(), result.trace.end());
    State at = init;
    result.states_on_trace.push_back(at);
    for (const Action& action : result.trace) {
      model::Outcome outcome;
      at = model::Apply(config, at, action, &outcome);
      result.states_on_trace.push_back(at);
    }
    std::size_t visited = 0;
    std::size_t successors = 0;
    SearchFair(config, at, &visited, &successors);
    result.note = Explain(config, at, successors, visited);
    return result;
  }
  return result;
}

bool FairlyRetires(const model::Config& config, const State& state,
                   std::string* note) {
  std::size_t visited = 0;
  std::size_t successors = 0;
  if (SearchFair(config, state, &visited, &successors)) return true;
  if (note != nullptr) *note = Explain(config, state, successors, visited);
  return false;
}

}  // namespace memwal::checker::engine
