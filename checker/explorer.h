// Exhaustive exploration of the model (model/): breadth-first by default, so
// that the first violation found has a shortest trace; depth-first on request.
//
// Every distinct state is checked against every invariant, every transition
// against every goal. The explorer keeps the fingerprints of visited states
// (checker/fingerprint_set.h), the states of the frontier only, and per
// discovered state its parent and the action that reached it (8 bytes), from
// which a violation's trace is rebuilt by re-executing from Init. Budgets
// (max_states, time_limit_s) only decide when the run stops; which states are
// explored, and in which order, depends on the config alone.
#ifndef MEMWAL_CHECKER_EXPLORER_H_
#define MEMWAL_CHECKER_EXPLORER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker {

enum class SearchMode { kBfs, kDfs };

struct ExploreOptions {
  SearchMode mode = SearchMode::kBfs;
  uint64_t max_states =
      50'000'000;  // distinct states; reaching it ends the run incomplete
  double time_limit_s = 0;  // 0: none
};

enum class Verdict { kOk, kViolation, kIncomplete };
std::string_view Name(Verdict verdict);

struct Stats {
  uint64_t states_distinct = 0;
  uint64_t transitions = 0;
  int depth_max = 0;
  double seconds = 0;
  std::array<uint64_t, model::kActionKinds>
      coverage{};  // transitions per action kind
  std::vector<std::string>
      goals_reached;  // applicable goals reached, in registry order
  std::vector<std::string> goals_missed;  // applicable goals never reached
  // Distinct states first reached at each depth (Init is depth 0); filled by
  // Explore (for DFS: the depth of the path that first reached the state).
  std::vector<uint64_t> states_per_depth{};
};

// A broken invariant, or a missed goal (then `invariant` is the goal's name and
// the trace is empty). states[k] is the state after trace[k-1]; states[0] is
// Init.
struct Violation {
  std::string invariant{};
  std::vector<model::Action> trace{};
  std::vector<model::State> states{};
};

struct Exploration {
  Verdict verdict = Verdict::kOk;
  Stats stats;
  std::optional<Violation> violation;
};

// Explores every state reachable from Init under `config`. REQUIRES:
// CheckConfig(config) ok.
Exploration Explore(const model::Config& config, const ExploreOptions& options);

// Re-executes `trace` from Init. On success fills states (Init first). Fails
// with InvalidArgument naming the first step whose action is not enabled.
Status Replay(const model::Config& config,
              const std::vector<model::Action>& trace,
              std::vector<model::State>* states);

}  // namespace memwal::checker

#endif  // MEMWAL_CHECKER_EXPLORER_H_
