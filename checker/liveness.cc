// CompactedGenerationsEventuallyRetire on the model graph (checker/liveness.h).
#include "checker/liveness.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "model/read.h"

namespace memwal::checker {
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

LivenessResult CheckLiveness(const model::Config& config, uint64_t max_states) {
  LivenessResult result;
  const model::Config fair = FairConfig(config);
  Graph graph;
  std::vector<Parent> parents;
  bool added = false;
  graph.Intern(model::Init(config.bounds), &added);
  parents.push_back(Parent{0, model::Append{}});
  std::vector<Action> actions;
  // 1. The reachable states under the run's bounds, in BFS order.
  for (uint32_t k = 0; k < graph.size(); ++k) {
    if (graph.size() > max_states) {
      result.complete = false;
      return result;
    }
    const State state = graph.at(k);
    model::EnabledActions(config, state, &actions);
    for (const Action& action : actions) {
      model::Outcome outcome;
      graph.Intern(model::Apply(config, state, action, &outcome), &added);
      if (added) parents.push_back(Parent{k, action});
    }
  }
  const uint32_t reachable = static_cast<uint32_t>(graph.size());
  result.states = reachable;
  // 2. Every fair continuation (relaxed commits), with reverse edges.
  std::vector<std::vector<uint32_t>> predecessors(graph.size());
  std::vector<uint32_t> fair_out(graph.size(), 0);
  for (uint32_t k = 0; k < graph.size(); ++k) {
    if (graph.size() > 4 * max_states) {
      result.complete = false;
      return result;
    }
    const State state = graph.at(k);
    FairActions(fair, state, &actions);
    for (const Action& action : actions) {
      model::Outcome outcome;
      const uint32_t to =
          graph.Intern(model::Apply(fair, state, action, &outcome), &added);
      if (added) {
        predecessors.emplace_back();
        fair_out.push_back(0);
      }
      predecessors[to].push_back(k);
      fair_out[k] += 1;
    }
  }
  result.fair_states = graph.size() - reachable;
  // 3. Backward from the goal states.
  std::vector<bool> good(graph.size(), false);
  std::deque<uint32_t> queue;
  for (uint32_t k = 0; k < graph.size(); ++k) {
    if (Discharged(config, graph.at(k))) {
      good[k] = true;
      queue.push_back(k);
    }
  }
  while (!queue.empty()) {
    const uint32_t k = queue.front();
    queue.pop_front();
    for (const uint32_t from : predecessors[k]) {
      if (good[from]) continue;
      good[from] = true;
      queue.push_back(from);
    }
  }
  // 4. The first reachable state (BFS order: shortest path) that is not good.
  for (uint32_t k = 0; k < reachable; ++k) {
    if (good[k]) continue;
    result.holds = false;
    for (uint32_t n = k; n != 0; n = parents[n].node)
      result.trace.push_back(parents[n].action);
    std::reverse(result.trace.begin(), result.trace.end());
    std::size_t visited = 0;
    std::size_t successors = 0;
    SearchFair(config, graph.at(k), &visited, &successors);
    result.note = Explain(config, graph.at(k), successors, visited);
    State state = model::Init(config.bounds);
    result.states_on_trace.push_back(state);
    for (const Action& action : result.trace) {
      model::Outcome outcome;
      state = model::Apply(config, state, action, &outcome);
      result.states_on_trace.push_back(state);
    }
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

}  // namespace memwal::checker
