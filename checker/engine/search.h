// The search engine: the one loop every command explores with (check,
// variants, bench, corpus, minimize, liveness). Breadth-first (level-
// synchronous, multi-threaded), depth-first, or seeded random walks over the
// model, each model transition applied to the implementation too
// (checker/lockstep/lockstep.h) unless the run is model-only.
//
// Storage. The seen set (checker/engine/seen_set.h) keeps a 52-bit fingerprint
// per state (about 7 bytes) or, in exact mode, the packed state. The frontier
// holds packed states (checker/engine/packed.h); a lockstep frontier item also
// holds its impl::World, whose copy shares every stored blob. Per discovered
// state the trace store keeps its parent's number and the action (6 bytes),
// from which a counterexample is rebuilt by re-executing from Init; no whole
// state is kept past the frontier.
//
// Depth-first (Order::kDfs) keeps no frontier: its path holds the states from
// Init to the one being expanded, each with its enabled actions, the next one
// to take and (lockstep) its World; a successor's World is stepped when its
// parent takes the action and dropped when it leaves the path. So a lockstep
// DFS holds one path of Worlds, and runs with a small share of the decode
// caches (impl::CachedEntries), where a lockstep BFS holds a World per
// frontier state: at small, to its end, on one thread, 23 MB peak resident
// against 1.37 GB (model-only BFS: 32 MB). A DFS run that breaks an invariant
// at depth d then runs a BFS bounded by depth d (Options::max_depth) and
// reports that BFS's first violation: the one a BFS run reports, with a
// shortest trace (the DFS's counts are kept). Only that bounded BFS holds a
// World per frontier state, and only when something is broken.
//
// Symmetry (model/symmetry.h). With Options::symmetry, a state is looked up by
// the fingerprint of its orbit's canonical representative, where the
// configuration makes shards or indexes interchangeable. The frontier keeps
// the concrete state that first reached the orbit (with its World), so traces
// are concrete and replay on model and implementation alike.
//
// Determinism (same counts and same first counterexample for any thread
// count): a BFS level is expanded in parallel, chunk by chunk, with the seen
// set only read; then, on one thread, successors are inserted in the order
// (parent position, action index), so the first discoverer of a state does not
// depend on the schedule. A finding ends the run at the smallest (parent
// position, action index) of its level, and the counters cover exactly the
// transitions up to it; with Options::keep_going the run goes on, and each
// invariant's first finding in that order is kept. DFS runs on one thread.
// Random walk k draws from SplitMix64(seed, k); walks run in parallel, each
// records its own new states, and the merge walks them in walk order
// (checker/engine/search.cc), so counts do not depend on the thread count
// either.
//
// Budgets (max_states, time_limit_s, memory_limit_mb) only decide when the run
// stops (verdict incomplete, exit 3, with the counts so far); which states are
// explored, and in which order, depends on the configuration and seed alone.
// The memory limit is checked against the resident set as the search goes,
// and an allocation that fails stops the search the same way (a reserve is
// released so that the report can still be written).
#ifndef MEMWAL_CHECKER_ENGINE_SEARCH_H_
#define MEMWAL_CHECKER_ENGINE_SEARCH_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "checker/engine/seen_set.h"
#include "checker/lockstep/lockstep.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"
#include "model/symmetry.h"

namespace memwal::checker::engine {

enum class Order { kBfs, kDfs, kRandom };
std::string_view Name(Order order);

enum class Verdict { kOk, kViolation, kIncomplete };
std::string_view Name(Verdict verdict);

// The fingerprint a run looks states up by: in exact storage the hash of the
// packed key (which the lookup needs anyway, and which is shorter than the
// encoding), in fingerprint storage the hash of the encoding (nothing is
// packed per transition there). Either is a function of the canonical
// representative alone.
struct Keying {
  model::Bounds bounds{};
  model::Symmetry symmetry{};
  bool exact = false;
  // The state's fingerprint and, unless `key` is null, the canonical
  // representative's packed encoding (exact storage's key).
  uint64_t Key(const model::State& state, std::string* key) const;
  // True when no permutation applies: a state is its own representative.
  bool Identity() const;
  // Key(state, key) from `encoding` = model::Encode(state) (one encoding for
  // both and, in the caller, for the state's own packing).
  uint64_t KeyOf(const model::State& state, std::string_view encoding,
                 std::string* key) const;
};

struct Options {
  Order order = Order::kBfs;
  int threads = 1;
  bool lockstep = true;
  Storage storage = Storage::kFingerprint;
  bool symmetry = true;  // where the configuration allows it
  uint64_t max_states = 50'000'000;
  double time_limit_s = 0;         // 0: none
  uint64_t memory_limit_mb = 0;    // resident set size; 0: none
  uint64_t walks = 1000;           // random
  int depth = 30;                  // random: steps per walk
  std::ostream* status = nullptr;  // live status line (a terminal), or null
  // BFS only (TLC's -continue): a violation does not end the run. A state that
  // breaks an invariant is not expanded further (every trace reported breaks
  // only at its last step) and the search goes on with the rest of the
  // frontier; SearchResult::violations keeps, per distinct invariant, the
  // first violation in BFS order (a shortest trace for it). Model-only, every
  // invariant a new state breaks is recorded, not only the first.
  bool keep_going = false;
  // BFS only: no state past this depth is reached (0: no bound). A
  // depth-first run's counterexample is shortened with it (Search).
  int max_depth = 0;
};

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
  // Distinct states first reached at each depth (Init is depth 0).
  std::vector<uint64_t> states_per_depth{};
  // Storage, measured at the end of the run.
  std::string storage{};             // "fingerprint" or "exact"
  uint64_t seen_bytes = 0;           // the seen set
  uint64_t trace_bytes = 0;          // parent links
  double collision_probability = 0;  // fingerprint mode's estimate
  int symmetry_permutations = 1;     // 1: no reduction
  // The liveness pass that follows a clean search (checker/engine/liveness.h):
  // the states of its graph (reachable and fair continuations) and its bytes.
  uint64_t liveness_states = 0;
  uint64_t liveness_bytes = 0;
  uint64_t liveness_layers = 0;         // 0: the whole graph at once
  uint64_t liveness_largest_layer = 0;  // states
  double liveness_collision_probability = 0;
};

struct SearchViolation {
  std::string invariant{};
  std::string detail{};  // why, with both sides' states where they differ
  std::vector<model::Action> trace{};
  std::vector<model::State> states{};  // Init first
  std::string impl_state{};  // the implementation's abstraction at the step
  // A lasso (liveness, checker/engine/liveness.h): trace[*loop, end) is the
  // cycle, and `states` are the windowed states along it.
  std::optional<std::size_t> loop{};
  std::optional<std::size_t> window{};  // its first windowed step (R70)
};

struct SearchResult {
  Verdict verdict = Verdict::kOk;
  Stats stats;
  std::optional<SearchViolation> violation;  // the first of `violations`
  // Options::keep_going: one per distinct invariant, in the order first met
  // (BFS level, then parent position, then action index). Otherwise the one
  // violation, if any.
  std::vector<SearchViolation> violations;
  std::string stopped_by;  // "max-states", "time-limit", "memory-limit"
  uint64_t frontier_max = 0;
};

// The keying a run with these options uses.
Keying KeyingOf(const model::Config& config, const Options& options);

// REQUIRES: model::CheckConfig(setup.config) ok, options.threads >= 1.
SearchResult Search(const lockstep::LockstepSetup& setup,
                    const Options& options);

// A model-only search (Options::lockstep is ignored) on `config` with seed 0.
SearchResult SearchModel(const model::Config& config, Options options = {});

// Re-executes `trace` from Init on the model. On success fills states (Init
// first). Fails with InvalidArgument naming the first step whose action is
// not enabled.
Status Replay(const model::Config& config,
              const std::vector<model::Action>& trace,
              std::vector<model::State>* states);

// Resident set size of this process in MB (0 where unknown).
uint64_t ResidentMegabytes();

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_SEARCH_H_
