// What both breadth-first loops share (review finding D1): the threaded
// search (checker/engine/search.cc) and the level engine over ranks
// (checker/engine/distributed.cc) count with one Counters, take one successor
// step and pack actions one way, so that their counts agree by construction.
//
// The successor step: the model's successor of `from` under `action`, counted
// (one transition, its action kind's coverage, the goals it reaches), and with
// a World, the lockstep step on a copy of it and its checks
// (checker/lockstep/lockstep.h).
#ifndef MEMWAL_CHECKER_ENGINE_STEP_H_
#define MEMWAL_CHECKER_ENGINE_STEP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "checker/engine/workers.h"
#include "checker/lockstep/lockstep.h"
#include "impl/world.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::engine {

using WorldPtr = std::unique_ptr<impl::World>;

// An action in 16 bits: kind << 8 | first parameter << 4 | second.
uint16_t PackAction(const model::Action& action);
model::Action UnpackAction(uint16_t packed);

// Per-worker counters, summed in a fixed order.
struct Counters {
  uint64_t transitions = 0;
  std::array<uint64_t, model::kActionKinds> coverage{};
  uint64_t goals = 0;  // bit g: goal g (model::AllGoals) reached
  std::vector<uint64_t> states_per_depth{};
  void CountState(std::size_t depth);
  void Add(const Counters& other);
};

// Why a search stopped before its end (kRunning: it has not), in a word
// that ranks can reduce by maximum; StopName is its name in reports.
enum StopReason : uint64_t {
  kRunning = 0,
  kMaxStates,
  kTimeLimit,
  kMemoryLimit,
  kInterrupted
};
std::string_view StopName(uint64_t reason);

// The goals of model::AllGoals that apply to `config`, bit g for goal g.
uint64_t ApplicableGoals(const model::Config& config);

// The first invariant `state` breaks, as a finding ("broken on the model").
std::optional<lockstep::Finding> CheckModel(const model::Config& config,
                                            const model::State& state);

struct Step {
  model::State state;
  WorldPtr world{};  // the World after the step (lockstep)
  std::optional<lockstep::Finding> finding{};
};

// The successor step (file comment). `world` null: model-only, nothing is
// checked (the callers check a state once, when it is new). With a World, the
// transition's checks always, and the reached state's
// (lockstep::CheckReachedState) when `check_state`: the searches that
// deduplicate pass false and run CheckStates on the states they keep.
// `applicable`: ApplicableGoals of the setup's config.
Step TakeStep(const lockstep::LockstepSetup& setup, uint64_t applicable,
              const model::State& from, const impl::World* world,
              const model::Action& action, bool check_state,
              Counters* counters);
// The same into `next`, whose state is overwritten with `from` and stepped
// in place (the hot loop's form: one copy of the state per transition).
// `model_on_edge` false: the model's invariants on the reached state
// (lockstep::CheckModelState) are left to the caller, which runs them once
// per new state (the depth-first search, which stops at its first finding).
void TakeStep(const lockstep::LockstepSetup& setup, uint64_t applicable,
              const model::State& from, const impl::World* world,
              const model::Action& action, bool check_state, Counters* counters,
              Step* next, bool model_on_edge = true);

// A reached state's finding, at its position in a list of new states.
struct StateFinding {
  std::size_t position = 0;
  lockstep::Finding finding;
};

// lockstep::CheckReachedState on the states [0, count) (`at` gives the state
// and its World), on `workers`, a block of states going first to the worker
// owner(its first position) names (the one that took their steps, whose
// caches hold their Worlds' decodings; checker/engine/workers.h; no owner:
// any worker). `all`: every finding, in position order; otherwise the one at
// the lowest position (every position below it is checked). The result is the
// same for any thread count.
std::vector<StateFinding> CheckStates(
    const lockstep::LockstepSetup& setup, std::size_t count, Workers* workers,
    const std::function<int(std::size_t)>& owner, bool all,
    const std::function<const impl::World*(std::size_t, model::State*)>& at);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_STEP_H_
