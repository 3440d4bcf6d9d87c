// Lockstep: every model transition applied to the implementation too.
//
// A lockstep step applies one model action to the model (model::Apply) and the
// same action, with the same parameters, to an impl::World through the
// World's own method (Begin*, Commit(slot) with its rebase and conflict rules,
// Restore, ...). Then it checks, in this order:
//   1. the World accepted the action (a Status error for an action the model
//      enabled is an ImplementationMatchesModel finding with the message);
//   2. both sides reached the same outcome for Commit and Restore (published,
//      retry or refused; the finding names both and World::last_reason());
//   3. PublishedVersionsLoad after a step that published (below);
//   4. every model invariant on the implementation's persisted state
//      (ReadsMissNoRows served by the implementation's own reader), then the
//      refinement comparison (checker/lockstep/refinement.h);
//   5. every model invariant on the model's successor (the model-only check);
//   6. the refusals (checker/lockstep/refusals.h): every action the model
//      disables in the reached state is refused by a copy of the World.
// Checks 1-5 judge the transition and run on every edge, but check 5 depends
// on the reached state alone: the depth-first search, which stops at its
// first finding, runs it once per new state (StepLockstepEdge, then
// CheckModelState); breadth-first keeps it on the edge, where a level's first
// finding is decided in edge order. Check 6 judges the reached state
// (CheckReachedState): a search runs it once per distinct state, on the World
// it keeps for that state and expands (the first discoverer's, in BFS order),
// as the model's invariants are checked once per state; replay runs it after
// every step. Every other World that reaches the same state has passed checks
// 1-5, so it abstracts to the same model state.
// RetireExecute's outcome is not compared: under `gc recheck` the impl reports
// a dropped decision as kRefused where the model says kDone; the WAL state
// comparison covers it.
//
// `--bug NAME` switches a bug on in both (Config::bugs); `--impl-bug NAME` in
// the implementation only (ImplOptions's impl_only_bugs).
#ifndef MEMWAL_CHECKER_LOCKSTEP_LOCKSTEP_H_
#define MEMWAL_CHECKER_LOCKSTEP_LOCKSTEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "checker/lockstep/refinement.h"
#include "impl/world.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::lockstep {

// What a run drives: the model's config plus the bugs switched on in the
// implementation only, and the seed of the implementation's uuid stream.
struct LockstepSetup {
  model::Config config{};
  uint32_t impl_only_bugs = 0;  // model::BugBit values
  uint64_t seed = 0;
  // After each step (and at Init): the actions the model disables in the
  // reached state must be refused by the implementation
  // (checker/lockstep/refusals.h).
  bool refusals = true;
};

impl::Options ImplOptions(const LockstepSetup& setup);

// The World at Init (R4). A failure here is a broken implementation.
Result<impl::World> InitWorld(const LockstepSetup& setup);

// Applies `action` through the World's method for it; the outcome in model
// terms (kDone for actions without one).
Result<model::Outcome> ApplyToWorld(const model::Action& action,
                                    impl::World* world);

// PublishedVersionsLoad: after `action` published a version of the
// implementation's own (a published Commit or Restore, ShallowClone, the env
// commits R62-R64; not ForeignHalfSet, whose version is the environment's),
// the head loads as Lance loads it (impl::World::HeadLoads).
std::optional<Finding> CheckPublishedVersionLoads(const model::Action& action,
                                                  model::Outcome outcome,
                                                  const impl::World& world);

// One lockstep step from (before, world): `after`/`model_outcome` are the
// model's result of `action`; `world` is advanced in place. Returns the first
// finding of checks 1-5 of the file comment, or nothing. `impl_dump`, when not
// null, receives the implementation's abstraction (empty if unreadable).
std::optional<Finding> StepLockstep(const LockstepSetup& setup,
                                    const model::Action& action,
                                    model::Outcome model_outcome,
                                    const model::State& after,
                                    impl::World* world,
                                    std::string* impl_dump = nullptr);

// Checks 1-4 of StepLockstep alone: the transition's. Check 5 depends on the
// reached state only, not on the edge, so a search that stops at its first
// finding (depth first) runs it once per new state (CheckModelState) instead
// of on every edge; StepLockstep is this, then CheckModelState.
std::optional<Finding> StepLockstepEdge(const LockstepSetup& setup,
                                        const model::Action& action,
                                        model::Outcome model_outcome,
                                        const model::State& after,
                                        impl::World* world,
                                        std::string* impl_dump = nullptr);

// Check 5 of the file comment: the first model invariant `after` breaks
// ("broken on the model's state").
std::optional<Finding> CheckModelState(const LockstepSetup& setup,
                                       const model::State& after);

// Check 6 of the file comment on a reached state and its World (nothing when
// setup.refusals is off).
std::optional<Finding> CheckReachedState(const LockstepSetup& setup,
                                         const model::State& state,
                                         const impl::World& world);

// The finding at Init (an implementation whose first version already differs).
std::optional<Finding> CheckInit(const LockstepSetup& setup,
                                 const impl::World& world);

// Re-executes `trace` from Init on the model and (unless model_only) the
// implementation. Stops at the first finding and reports it with the step
// (1-based; 0 = Init). InvalidArgument if a step is not enabled in the model.
struct ReplayResult {
  std::optional<Finding> finding;
  std::size_t step = 0;
  std::vector<model::State> states;  // Init first, up to the finding
  std::string impl_dump;             // the implementation at that step
};
Result<ReplayResult> ReplayLockstep(const LockstepSetup& setup,
                                    const std::vector<model::Action>& trace,
                                    bool model_only);

// The implementation's name for a model protocol (one to one).
impl::Protocol ImplProtocol(model::Protocol protocol);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_LOCKSTEP_H_
