// One guard and one effect per spec action (spec/protocol.md sections 4-6),
// which the Action-level IsEnabled/Apply of actions.h dispatch to.
//
// IsEnabled(config, state, x) is the spec's guard, including the parameter
// ranges of the bounds (so that an action read from a trace with out-of-range
// parameters is simply not enabled). Apply(config, x, &state, outcome) is the
// effect, made on the state in place: it REQUIRES the guard, may leave uuids
// non-canonical (the Action-level Apply canonicalizes), and sets *outcome.
//
// wal.cc: R10-R13. begin.cc: the begin half of R20-R29. commit.cc: R30-R32,
// R35. catchup.cc: R33-R34. table.cc: R36-R38. env.cc: R60-R64.
#ifndef MEMWAL_MODEL_RULES_H_
#define MEMWAL_MODEL_RULES_H_

#include "model/actions.h"

namespace memwal::model {

bool IsEnabled(const Config& config, const State& state,
               const FlushMemTable& action);
bool IsEnabled(const Config& config, const State& state,
               const RetireSsTable& action);
bool IsEnabled(const Config& config, const State& state,
               const RetireDecide& action);
bool IsEnabled(const Config& config, const State& state,
               const RetireExecute& action);
bool IsEnabled(const Config& config, const State& state, const Append& action);
bool IsEnabled(const Config& config, const State& state,
               const DeleteFragment& action);
bool IsEnabled(const Config& config, const State& state,
               const CompactSsTable& action);
bool IsEnabled(const Config& config, const State& state,
               const UpdateColumns& action);
bool IsEnabled(const Config& config, const State& state,
               const RewriteFragments& action);
bool IsEnabled(const Config& config, const State& state,
               const CreateIndex& action);
bool IsEnabled(const Config& config, const State& state,
               const OptimizeIndex& action);
bool IsEnabled(const Config& config, const State& state,
               const DropIndex& action);
bool IsEnabled(const Config& config, const State& state,
               const RecordProgress& action);
bool IsEnabled(const Config& config, const State& state,
               const Activate& action);
bool IsEnabled(const Config& config, const State& state, const Commit& action);
bool IsEnabled(const Config& config, const State& state, const Restore& action);
bool IsEnabled(const Config& config, const State& state,
               const ShallowClone& action);
bool IsEnabled(const Config& config, const State& state,
               const CleanupVersions& action);
bool IsEnabled(const Config& config, const State& state,
               const ForeignHalfSet& action);
bool IsEnabled(const Config& config, const State& state,
               const CallerAdvance& action);
bool IsEnabled(const Config& config, const State& state,
               const ResetMemWal& action);
bool IsEnabled(const Config& config, const State& state,
               const DropMemWal& action);
bool IsEnabled(const Config& config, const State& state,
               const ForeignCompaction& action);
bool IsEnabled(const Config& config, const State& state,
               const ReinstallMemWal& action);

void Apply(const Config& config, const FlushMemTable& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const RetireSsTable& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const RetireDecide& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const RetireExecute& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const Append& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const DeleteFragment& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const CompactSsTable& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const UpdateColumns& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const RewriteFragments& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const CreateIndex& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const OptimizeIndex& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const DropIndex& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const RecordProgress& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const Activate& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const Commit& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const Restore& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const ShallowClone& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const CleanupVersions& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const ForeignHalfSet& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const CallerAdvance& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const ResetMemWal& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const DropMemWal& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const ForeignCompaction& action, State* out,
           Outcome* outcome);
void Apply(const Config& config, const ReinstallMemWal& action, State* out,
           Outcome* outcome);

// R35 step 2, the compacted_sstables part, of a RecordProgress or a
// CompactSsTable commit: the stale-generation rule (txn.generation must be
// above head.compacted[txn.shard], else false = refused) and the raise. R63:
// without __lance_mem_wal there is nothing to record progress in (false).
// Exposed for the rule-function properties (tests/conformance).
bool RecordCompacted(const Txn& txn, const Version& head, Version* next);
// Shared by begin.cc and table.cc: a step that commits a version (a transaction
// begin reserves one) needs inflight + committed below the `commits` bound.
bool CommitBudgetLeft(const Config& config, const State& state);

// A uuid used nowhere in `state` (nor in `extra`), for a freshly written
// segment.
uint8_t FreshUuid(const State& state, const Version* extra);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_RULES_H_
