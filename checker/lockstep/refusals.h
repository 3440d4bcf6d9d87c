// Refusals compared (issue 18 item 5): in lockstep, the actions the model
// disables in a state are tried on a copy of the implementation, which must
// refuse them; the actions it enables are applied by the step itself
// (StepLockstep), where a refusal is already an ImplementationMatchesModel
// finding, so both directions are compared.
//
// What is tried (decisions):
// - Only guards, not bounds. An action is tried when the model disables it
//   under a relaxed copy of the config (commit budget, in-flight count,
//   fragment count and generations at their compile-time maxima): an action
//   that only the preset's bounds disable is the model's exploration limit,
//   not a refusal of the protocol, and the implementation has no such limit.
//   FlushMemTable is tried only below the generation bound, for the same
//   reason (its only guard is R63's dropped system index).
// - Kinds tried: RetireSsTable, RetireDecide, RetireExecute (under the gc
//   mode that has them), FlushMemTable, the ten begin kinds (R20-R29),
//   Restore (every version number of the history), CleanupVersions and
//   CallerAdvance. Not tried: Commit (every in-flight slot is enabled, the
//   others name no transaction), ShallowClone (bounded only by the commit
//   budget), and the environment's writers ForeignHalfSet, ResetMemWal,
//   DropMemWal, ForeignCompaction (their guards say where the model lets a
//   foreign writer act, not what this protocol's code refuses).
// - Cost: one World copy per state checked; a refused attempt leaves the
//   World as it was (Begin* and the WAL methods fail before writing), so the
//   copy is reused, and an accepted attempt is confirmed on a fresh copy
//   before it is reported.
#ifndef MEMWAL_CHECKER_LOCKSTEP_REFUSALS_H_
#define MEMWAL_CHECKER_LOCKSTEP_REFUSALS_H_

#include <optional>
#include <vector>

#include "checker/lockstep/refinement.h"
#include "impl/world.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::lockstep {

// The actions of the kinds above that `state`'s guards disable, in the
// model's enumeration order.
std::vector<model::Action> GuardDisabledActions(const model::Config& config,
                                                const model::State& state);
// The same into `out` (cleared first; its capacity stays).
void GuardDisabledActions(const model::Config& config,
                          const model::State& state,
                          std::vector<model::Action>* out);

// An ImplementationMatchesModel finding naming the first disabled action the
// implementation (`world`, left untouched) accepts; nothing if it refuses
// every one.
std::optional<Finding> CheckRefusals(const model::Config& config,
                                     const model::State& state,
                                     const impl::World& world);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_REFUSALS_H_
