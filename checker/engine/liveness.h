// Liveness on the model graph: CompactedGenerationsEventuallyRetire
// (spec/protocol.md R70-R72) under weak fairness of the protocol's own
// actions.
//
// Weakly fair (R71), one obligation per action instance: OptimizeIndex(i)
// begins (the repairs), Commit(slot) of in-flight transactions,
// CleanupVersions and the retirement actions RetireSsTable(s,g),
// RetireDecide(s,g), RetireExecute(s,g). The environment (appends, flushes,
// deletes, compactions, index builds and drops, restores, clones) is not
// obliged to act or to stop. A begin counts as enabled when only the model's
// bounds on in-flight transactions and history disable it (in Lance nothing
// caps concurrent writers): an environment that keeps every slot busy does
// not excuse a repair never begun.
//
// The graph (R70) has two parts: the bounded graph (every action, the run's
// bounds: the safety search's states) and the continuation, entered from any
// bounded state by folding it (model::Fold): there only the fair actions and
// the MemWAL write path (Append, FlushMemTable, CompactSsTable,
// RecordProgress) run, on folded states, so commits and appends go on
// forever within the run's bounds on history plus in-flight transactions,
// distinguishable fragments, generations and in-flight transactions. The
// rest of the environment (deletes, rewrites, index builds and drops,
// restores, clones, ...) acts finitely often: in the stem. The goal: every
// compacted generation of every shard is retired or Retirable (R12), or the
// head has no live fragment. A violation is a fair cycle without a goal state
// (checker/engine/fair_cycles.h), reported as a lasso: a shortest stem from
// Init, then the cycle, which returns to the state at `loop`. The verdict is
// decided one layer of MemWAL progress at a time (R74: no edge goes back to an
// earlier layer, so every SCC lies in one), keeping one layer in memory.
#ifndef MEMWAL_CHECKER_ENGINE_LIVENESS_H_
#define MEMWAL_CHECKER_ENGINE_LIVENESS_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "checker/lockstep/lockstep.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::engine {

inline constexpr std::string_view kLivenessName =
    "CompactedGenerationsEventuallyRetire";

struct LivenessOptions {
  uint64_t max_states = 50'000'000;  // graph states
  uint64_t memory_limit_mb = 0;      // resident set size; 0: none
  // Store one node per orbit of shard and index permutations where the
  // configuration allows them (model::SymmetryOf); verdicts and lassos are
  // those of the concrete graph (liveness.cc).
  bool symmetry = true;
  // Decide the verdict one layer at a time (R74, liveness.cc); the whole
  // graph is built only to rebuild a lasso, or where the layers do not apply.
  bool layered = true;
  // R75: in the continuation a state with a flush enabled steps only by its
  // flushes (the verdict is the unreduced graph's; states and edges fewer).
  bool reduction = true;
  // Threads expanding each chunk of a layer (the result does not depend on
  // it).
  int threads = 1;
  // Where set, read before each chunk instead of `threads` (LivenessBeside
  // raises it when the search beside the pass ends).
  const std::atomic<int>* threads_now = nullptr;
  // Set by another thread: stop soon, stopped_by "cancelled" (the caller
  // that runs the pass beside a search discards it when the search fails).
  const std::atomic<bool>* cancel = nullptr;
};

struct LivenessResult {
  bool holds = true;
  bool complete = true;        // false: a budget ran out
  std::string stopped_by{};    // "max-states", "memory-limit"
  uint64_t bytes = 0;          // graph and search, measured at the end
  uint64_t states = 0;         // states of the windowed graph
  uint64_t edges = 0;          // its transitions
  uint64_t layers = 0;         // parts the layered pass expanded (0: whole)
  uint64_t largest_layer = 0;  // states of the largest of them
  // The estimated probability that two states of one part share a 64-bit
  // fingerprint (a collision could hide a state).
  double collision_probability = 0;
  std::vector<model::Action> trace{};  // the lasso: stem, then cycle
  std::size_t loop = 0;                // the cycle is trace[loop, end)
  // Steps from *window on are the continuation's, on windowed states (R70);
  // nullopt: the whole lasso lies in the bounded graph.
  std::optional<std::size_t> window{};
  std::vector<model::State> states_on_trace{};  // folded, trace.size() + 1
  std::string note{};
};

// Every compacted generation is retired or retirable in `state`.
bool AllCompactedRetirable(const model::Config& config,
                           const model::State& state);

// The goal of R72: AllCompactedRetirable, or no live fragment at the head (an
// empty table earns no catch-up until rows are appended, R33).
bool Discharged(const model::Config& config, const model::State& state);

// The weak-fairness class of `action` (0..30), or kNoClass (31) for an action
// of the environment.
uint32_t FairClass(const model::Action& action);

// The fair classes enabled in `state` (a begin disabled only by the bounds on
// in-flight transactions and history counts as enabled), as a bit mask.
uint32_t FairEnabled(const model::Config& config, const model::State& state);

// The windowed successor (model::Apply, then model::Fold).
model::State Step(const model::Config& config, const model::State& state,
                  const model::Action& action);

// Builds the windowed graph from Init and searches it for a fair cycle
// without a goal state.
LivenessResult CheckLiveness(const model::Config& config,
                             const LivenessOptions& options);
LivenessResult CheckLiveness(const model::Config& config, uint64_t max_states);

// The liveness pass on its own thread, beside a safety search of the same
// configuration (check and bench, depth first in lockstep, one thread): the
// pass judges the model's graph, which the search cannot change, so its result
// is the one a pass run after a clean search would give. While the search runs
// the pass expands its chunks on options.threads - 1 threads (at least one),
// leaving a core to the search; Finish gives it all options.threads, then
// joins it, cancelling it first when the search did not end ok (the result is
// then discarded). The result does not depend on the thread count.
class LivenessBeside {
 public:
  LivenessBeside(const model::Config& config, LivenessOptions options);
  ~LivenessBeside();
  LivenessBeside(const LivenessBeside&) = delete;
  LivenessBeside& operator=(const LivenessBeside&) = delete;

  // Waits for the pass; `search_ok`: the search ended ok, else the pass is
  // cancelled. Called once.
  const LivenessResult& Finish(bool search_ok);
  // The pass's own wall time, valid after Finish.
  double seconds() const { return seconds_; }

 private:
  std::atomic<bool> cancel_{false};
  std::atomic<int> threads_now_{1};
  int threads_ = 1;  // once the search is done
  LivenessResult result_{};
  double seconds_ = 0;
  std::thread thread_;
};

// Replays a recorded lasso on the model: every step enabled, the state after
// the last step equal to the state after `loop` steps (with loop < size), no
// goal state on the cycle, every fair class enabled throughout the cycle taken
// in it. OK with *note naming the stuck generations; else the reason it is
// not a fair counterexample (FailedPrecondition) or not replayable
// (InvalidArgument).
Status CheckLasso(const model::Config& config,
                  const std::vector<model::Action>& trace, std::size_t loop,
                  std::optional<std::size_t> window, std::string* note);

// The states along a recorded lasso (Init first; folded from *window on), if
// CheckLasso accepts it.
Status LassoStates(const model::Config& config,
                   const std::vector<model::Action>& trace, std::size_t loop,
                   std::optional<std::size_t> window,
                   std::vector<model::State>* states);

// A lasso replayed on the implementation (R72): the windowed trace is
// translated step by step into the unwindowed model (each step the first
// enabled action of the same kind whose windowed successor is the recorded
// one), under the run's bounds with commits and fragments raised to the
// model's maximum, and the stem plus as many whole turns of the cycle as
// those fit are driven in lockstep. After every step of a turn the
// implementation's persisted state is asked whether each generation stuck at
// the loop state is retirable (impl::World::Retirable), and every weakly
// fair action the model enables there is tried on a copy of the World, which
// must accept it (the refusals check the other direction): the same fair
// actions enabled and not taken.
struct LassoReplay {
  std::vector<model::Action> unrolled{};  // stem, then `turns` cycles
  std::size_t turns = 0;
  std::optional<lockstep::Finding> finding{};  // a disagreement, if any
  std::size_t step = 0;                        // its step (1-based)
  std::string stuck{};                         // "(s,g), ..." at the loop state
  std::size_t checked = 0;               // cycle steps whose state was asked
  std::size_t retirable_on_impl = 0;     // of those, states where one was
  std::size_t first_retirable_step = 0;  // the first such state's step

  // The implementation reproduces the lasso: stem and at least one turn in
  // lockstep, no disagreement, the same fair actions enabled, and no stuck
  // generation retirable on its persisted state along the cycle.
  bool Reproduced() const {
    return !finding && turns > 0 && retirable_on_impl == 0;
  }
  // Where the implementation and the model part (empty if reproduced).
  std::string Parting() const;
};
Result<LassoReplay> ReplayLassoOnImplementation(
    const lockstep::LockstepSetup& setup,
    const std::vector<model::Action>& trace, std::size_t loop,
    std::optional<std::size_t> window);

// The compacted generations of `state` that are neither retired nor
// retirable, as "(s,g), ...".
std::string StuckGenerations(const model::Config& config,
                             const model::State& state);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_LIVENESS_H_
