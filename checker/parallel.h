// The lockstep search: BFS (level-synchronous, multi-threaded), DFS and seeded
// random walks over the model, each model transition applied to the
// implementation too (checker/lockstep.h) unless the run is model-only.
//
// Nodes carry (model::State, impl::World); a World copy shares every stored
// blob, so successors are made by copying the parent's World and applying one
// action, never by replaying from Init. States are deduplicated by the model's
// fingerprint: the World kept for a state is the one of its first discovery
// (every transition into an already seen state is still applied and checked on
// the implementation, but not expanded further).
//
// Determinism (same counts and same first counterexample for any thread
// count): a BFS level is expanded in parallel, chunk by chunk, with the
// fingerprint set only read; then, single-threaded, the successors are
// inserted in the order (parent position, action index), so the first
// discoverer of a state is the same for any schedule, and the next frontier is
// in that order. A finding ends the run at the smallest (parent position,
// action index) of its level; the counters cover exactly the transitions up to
// it. DFS runs on one thread. Random walk k draws from SplitMix64(seed, k);
// walks run in parallel and the violation reported is the one of the smallest
// walk index (with a violation, the distinct-state count covers the walks that
// ran, which may vary with the thread count).
//
// Budgets (max_states, time_limit_s, memory_limit_mb) only decide when the run
// stops (verdict incomplete, exit 3); which states are explored, and in which
// order, depends on the configuration and seed alone.
#ifndef MEMWAL_CHECKER_PARALLEL_H_
#define MEMWAL_CHECKER_PARALLEL_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "checker/explorer.h"
#include "checker/lockstep.h"

namespace memwal::checker {

enum class Order { kBfs, kDfs, kRandom };
std::string_view Name(Order order);

struct SearchOptions {
  Order order = Order::kBfs;
  int threads = 1;
  bool lockstep = true;
  uint64_t max_states = 50'000'000;
  double time_limit_s = 0;         // 0: none
  uint64_t memory_limit_mb = 0;    // resident set size; 0: none
  uint64_t walks = 1000;           // random
  int depth = 30;                  // random: steps per walk
  std::ostream* status = nullptr;  // live status line (a terminal), or null
};

struct SearchViolation {
  std::string invariant{};
  std::string detail{};  // why, with both sides' states where they differ
  std::vector<model::Action> trace{};
  std::vector<model::State> states{};  // Init first
  std::string impl_state{};  // the implementation's abstraction at the step
};

struct SearchResult {
  Verdict verdict = Verdict::kOk;
  Stats stats;
  std::optional<SearchViolation> violation;
  std::string stopped_by;  // "max-states", "time-limit", "memory-limit",
                           // "interrupted" (checker/interrupt.h)
  uint64_t frontier_max = 0;
};

// REQUIRES: model::CheckConfig(setup.config) ok, options.threads >= 1.
SearchResult Search(const LockstepSetup& setup, const SearchOptions& options);

// Resident set size of this process in MB (0 where unknown).
uint64_t ResidentMegabytes();

}  // namespace memwal::checker

#endif  // MEMWAL_CHECKER_PARALLEL_H_
