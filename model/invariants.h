// The safety invariants (spec/protocol.md section 9) and the reachability
// goals, as registries the checker walks.
//
// An invariant is a pure predicate of one state; the checker reports the first
// broken one as a Violation with a trace (the model never asserts them). A goal
// is a predicate of one transition; the run fails if an applicable goal is
// never reached, so that "no violation" is never vacuous. Names are the spec's,
// verbatim.
#ifndef MEMWAL_MODEL_INVARIANTS_H_
#define MEMWAL_MODEL_INVARIANTS_H_

#include <optional>
#include <span>
#include <string_view>

#include "model/actions.h"
#include "model/config.h"
#include "model/read.h"
#include "model/state.h"

namespace memwal::model {

struct Invariant {
  std::string_view name;
  bool (*holds)(const Config& config, const State& state);
};

// The 9 invariants in the spec's order.
std::span<const Invariant> AllInvariants();
// The first invariant (in AllInvariants order) that `state` breaks, or nullptr.
const Invariant* FirstBrokenInvariant(const Config& config, const State& state);
// The invariant with this name, or nullptr.
const Invariant* FindInvariant(std::string_view name);

// A row (s,g) that the query shape `shape` misses: flushed, undeleted, not
// served, and held by no fragment visible to the shape.
struct MissedRow {
  QueryShape shape;
  int shard = 0;
  int generation = 0;
};

// ReadsMissNoRows with its "served" clause decided by `watermarks` (a reader's
// answers for the shapes of AllQueryShapes on `state`): the first missed row
// in the order shape, shard, generation, or nothing. The registry's
// ReadsMissNoRows is this with ModelWatermarks; the checker passes the
// implementation's reader's answers on the implementation's state.
std::optional<MissedRow> FirstMissedRow(const Config& config,
                                        const State& state,
                                        const ReaderWatermarks& watermarks);
bool ReadsMissNoRowsGiven(const Config& config, const State& state,
                          const ReaderWatermarks& watermarks);

struct Goal {
  std::string_view name;
  bool (*reached)(const Config& config, const State& before,
                  const Action& action, Outcome outcome, const State& after);
  bool (*applicable)(const Config& config);
};

// The 6 goals in the spec's order.
std::span<const Goal> AllGoals();

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_INVARIANTS_H_
