// Liveness on the model graph: CompactedGenerationsEventuallyRetire
// (spec/protocol.md section 9) under the fairness of design section 3.
//
// Fair actions: OptimizeIndex begins (the repairs), Commit of in-flight
// transactions, CleanupVersions and the retirement actions (RetireSsTable,
// RetireDecide, RetireExecute); no other begin (no more writes, restores or
// clones). The goal: every compacted generation of every shard (g <= head
// compacted[s]) is retired or Retirable (R12).
//
// The check: every state reachable under the run's bounds must have a fair
// path to a goal state (an existential fair continuation: "once writes stop
// and each repair runs alone"). A state without one is a violation: the
// shortest path from Init to it is the counterexample, with a note on why
// (its fair continuation is a dead end, or cycles among non-goal states).
//
// Bound (decision): fair continuations may use kFairExtraCommits commits beyond
// the run's `commits` bound (capped at the model's maximum), so that a
// continuation blocked only by the bound is not reported.
#ifndef MEMWAL_CHECKER_ENGINE_LIVENESS_H_
#define MEMWAL_CHECKER_ENGINE_LIVENESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::engine {

inline constexpr std::string_view kLivenessName =
    "CompactedGenerationsEventuallyRetire";
inline constexpr int kFairExtraCommits = 3;

struct LivenessOptions {
  uint64_t max_states = 50'000'000;  // reachable states; fair ones up to 4x
  uint64_t memory_limit_mb = 0;      // resident set size; 0: none
  bool symmetry = true;              // where the configuration allows it
};

struct LivenessResult {
  bool holds = true;
  bool complete = true;                // false: a budget ran out
  std::string stopped_by{};            // "max-states", "memory-limit"
  uint64_t bytes = 0;                  // the graph, measured at the end
  uint64_t states = 0;                 // reachable states checked
  uint64_t fair_states = 0;            // states of the fair continuations
  std::vector<model::Action> trace{};  // Init to a state that cannot retire
  std::vector<model::State> states_on_trace{};
  std::string note{};
};

// Every compacted generation is retired or retirable in `state`.
bool AllCompactedRetirable(const model::Config& config,
                           const model::State& state);

// The fair actions enabled in `state` under `fair_config`.
void FairActions(const model::Config& fair_config, const model::State& state,
                 std::vector<model::Action>* out);

// The config fair continuations run under (commits relaxed).
model::Config FairConfig(const model::Config& config);

// Explores the reachable graph and every fair continuation: one BFS over
// compact nodes (checker/liveness.cc), one state per orbit where the
// configuration allows symmetry; the counterexample is the shortest path to a
// state without a fair path to the goal.
LivenessResult CheckLiveness(const model::Config& config,
                             const LivenessOptions& options);
LivenessResult CheckLiveness(const model::Config& config, uint64_t max_states);

// From `state` alone: does some fair continuation reach the goal? `note`
// receives a one-line reason when not. (Used by replay.)
bool FairlyRetires(const model::Config& config, const model::State& state,
                   std::string* note);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_LIVENESS_H_
