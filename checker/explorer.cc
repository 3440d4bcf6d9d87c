// BFS/DFS over the model (checker/explorer.h).
#include "checker/explorer.h"

#include <algorithm>
#include <chrono>

#include "checker/fingerprint_set.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using model::Action;
using model::Config;
using model::State;

// How a discovered state was reached: 8 bytes per state.
struct Node {
  uint32_t parent;  // index into the node list; the root is its own parent
  uint16_t action;  // PackAction
  uint16_t depth;
};

// States waiting to be expanded, stored as their canonical encoding (about half
// the size of a State) in one byte arena, with the node each belongs to.
class Frontier {
 public:
  void Push(const State& state, uint32_t node, std::string* scratch) {
    model::Encode(state, scratch);
    items_.push_back(Item{.offset = bytes_.size(), .node = node});
    bytes_.insert(bytes_.end(), scratch->begin(), scratch->end());
  }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  // The k-th pushed state.
  uint32_t Get(std::size_t k, State* state) const {
    const std::size_t end =
        k + 1 < items_.size() ? items_[k + 1].offset : bytes_.size();
    const std::string_view bytes(bytes_.data() + items_[k].offset,
                                 end - items_[k].offset);
    MEMWAL_ASSERT(model::Decode(bytes, state));
    return items_[k].node;
  }
  // Removes and returns the last pushed state.
  uint32_t Pop(State* state) {
    const uint32_t node = Get(items_.size() - 1, state);
    bytes_.resize(items_.back().offset);
    items_.pop_back();
    return node;
  }
  void Clear() {
    items_.clear();
    bytes_.clear();
  }
  void Swap(Frontier& other) {
    items_.swap(other.items_);
    bytes_.swap(other.bytes_);
  }

 private:
  struct Item {
    std::size_t offset;
    uint32_t node;
  };
  std::vector<Item> items_;
  std::vector<char> bytes_;
};

uint16_t PackAction(const Action& action) {
  const std::array<int, 2> params = model::ActionParams(action);
  MEMWAL_ASSERT(params[0] >= 0 && params[0] < 16 && params[1] >= 0 &&
                params[1] < 16);
  return static_cast<uint16_t>((action.index() << 8) | (params[0] << 4) |
                               params[1]);
}

Action UnpackAction(uint16_t packed) {
  return model::MakeAction(packed >> 8, {(packed >> 4) & 15, packed & 15});
}

class Clock {
 public:
  Clock() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

class Search {
 public:
  Search(const Config& config, const ExploreOptions& options)
      : config_(config), options_(options), seen_(options.max_states + 1) {
    goal_reached_.assign(model::AllGoals().size(), false);
  }

  Exploration Run();

 private:
  // Visits one successor; returns false when the run must stop (violation or
  // budget).
  bool Visit(const State& from, uint32_t from_node, const Action& action,
             Frontier* out);
  bool AddState(const State& state, uint32_t parent, uint16_t action,
                uint16_t depth, Frontier* out);
  // Visits every successor of `state`; false when the run must stop.
  bool Expand(const State& state, uint32_t node, Frontier* out);
  bool OverBudget();
  Violation MakeViolation(std::string_view invariant, uint32_t node) const;
  void FinishGoals(Exploration* result) const;

  const Config& config_;
  const ExploreOptions& options_;
  FingerprintSet seen_;
  std::vector<Node> nodes_;
  std::vector<bool> goal_reached_;
  std::vector<Action> actions_;
  std::string scratch_;
  Clock clock_;
  Exploration result_;
};

bool Search::OverBudget() {
  if (seen_.size() >= options_.max_states) return true;
  if (options_.time_limit_s <= 0 || (seen_.size() & 1023) != 0) return false;
  return clock_.Seconds() > options_.time_limit_s;
}

Violation Search::MakeViolation(std::string_view invariant,
                                uint32_t node) const {
  Violation violation{.invariant = std::string(invariant)};
  while (nodes_[node].parent != node) {
    violation.trace.push_back(UnpackAction(nodes_[node].action));
    node = nodes_[node].parent;
  }
  std::reverse(violation.trace.begin(), violation.trace.end());
  const Status replayed = Replay(config_, violation.trace, &violation.states);
  MEMWAL_ASSERT(replayed.ok());
  return violation;
}

bool Search::AddState(const State& state, uint32_t parent, uint16_t action,
                      uint16_t depth, Frontier* out) {
  if (!seen_.Insert(model::Fingerprint(state))) return true;
  const uint32_t node = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(
      Node{.parent = node == 0 ? 0 : parent, .action = action, .depth = depth});
  result_.stats.depth_max = std::max<int>(result_.stats.depth_max, depth);
  std::vector<uint64_t>& per_depth = result_.stats.states_per_depth;
  if (per_depth.size() <= depth) per_depth.resize(depth + 1u, 0);
  ++per_depth[depth];
  if (const model::Invariant* broken =
          model::FirstBrokenInvariant(config_, state)) {
    result_.verdict = Verdict::kViolation;
    result_.violation = MakeViolation(broken->name, node);
    return false;
  }
  if (OverBudget()) {
    result_.verdict = Verdict::kIncomplete;
    return false;
  }
  out->Push(state, node, &scratch_);
  return true;
}

bool Search::Visit(const State& from, uint32_t from_node, const Action& action,
                   Frontier* out) {
  model::Outcome outcome;
  const State next = model::Apply(config_, from, action, &outcome);
  result_.stats.transitions += 1;
  result_.stats.coverage[action.index()] += 1;
  const auto goals = model::AllGoals();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    if (goal_reached_[g] || !goals[g].applicable(config_)) continue;
    goal_reached_[g] = goals[g].reached(config_, from, action, outcome, next);
  }
  const uint16_t depth = static_cast<uint16_t>(nodes_[from_node].depth + 1);
  return AddState(next, from_node, PackAction(action), depth, out);
}

void Search::FinishGoals(Exploration* result) const {
  const auto goals = model::AllGoals();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    if (!goals[g].applicable(config_)) continue;
    auto& list = goal_reached_[g] ? result->stats.goals_reached
                                  : result->stats.goals_missed;
    list.emplace_back(goals[g].name);
  }
}

bool Search::Expand(const State& state, uint32_t node, Frontier* out) {
  model::EnabledActions(config_, state, &actions_);
  for (const Action& action : actions_) {
    if (!Visit(state, node, action, out)) return false;
  }
  return true;
}

// BFS expands the current level in discovery order into the next one; DFS pops
// the newest state and pushes its successors onto the same stack.
Exploration Search::Run() {
  Frontier current;
  Frontier next;
  bool going = AddState(model::Init(config_.bounds), 0, 0, 0, &current);
  State state;
  while (going && !current.empty()) {
    if (options_.mode == SearchMode::kDfs) {
      const uint32_t node = current.Pop(&state);
      going = Expand(state, node, &current);
      continue;
    }
    for (std::size_t k = 0; going && k < current.size(); ++k) {
      const uint32_t node = current.Get(k, &state);
      going = Expand(state, node, &next);
    }
    current.Swap(next);
    next.Clear();
  }
  result_.stats.states_distinct = seen_.size();
  result_.stats.seconds = clock_.Seconds();
  FinishGoals(&result_);
  const bool complete = result_.verdict == Verdict::kOk;
  if (complete && !result_.stats.goals_missed.empty()) {
    result_.verdict = Verdict::kViolation;
    result_.violation =
        Violation{.invariant = result_.stats.goals_missed.front()};
    result_.violation->states.push_back(model::Init(config_.bounds));
  }
  return std::move(result_);
}

}  // namespace

std::string_view Name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kViolation:
      return "violation";
    case Verdict::kIncomplete:
      return "incomplete";
  }
  MEMWAL_ASSERT(false && "verdict out of range");
  return "";
}

Exploration Explore(const Config& config, const ExploreOptions& options) {
  MEMWAL_ASSERT(model::CheckConfig(config).ok());
  MEMWAL_ASSERT(options.max_states >= 1);
  Search search(config, options);
  return search.Run();
}

Status Replay(const Config& config, const std::vector<Action>& trace,
              std::vector<State>* states) {
  states->clear();
  states->push_back(model::Init(config.bounds));
  for (std::size_t k = 0; k < trace.size(); ++k) {
    if (!model::IsEnabled(config, states->back(), trace[k])) {
      return Status::InvalidArgument("step " + std::to_string(k + 1) + " (" +
                                     model::ToString(trace[k]) +
                                     ") is not enabled");
    }
    model::Outcome outcome;
    states->push_back(model::Apply(config, states->back(), trace[k], &outcome));
  }
  return Status::Ok();
}

}  // namespace memwal::checker
