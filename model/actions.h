// The spec's actions (spec/protocol.md sections 4-6) as C++ values, with their
// guards (IsEnabled) and effects (Apply), enumerated in the spec's fixed order.
//
// Every action is a small struct named as in the spec. Table-side transactions
// are split the way the spec splits them: the action named after the
// transaction (Append, CompactSsTable,
// ...) begins it (reads the head and prepares), and Commit later rebases and
// publishes, retries or refuses it (R30). Atomic actions (WAL side, Restore,
// ShallowClone, CleanupVersions) take effect in one step. `Action` lists the
// structs in enumeration order.
#ifndef MEMWAL_MODEL_ACTIONS_H_
#define MEMWAL_MODEL_ACTIONS_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::model {

// R10. The shard's writer seals its MemTable into SSTable generation
// flushed[s]+1. Abstracts one put-if-absent of the shard manifest; atomic
// because that write is.
struct FlushMemTable {
  int shard = 0;
  friend bool operator==(const FlushMemTable&, const FlushMemTable&) = default;
};

// R11 (gc atomic). Garbage collection deletes SSTable (s,g) after deciding on
// the head. Abstracts the retention check and the delete as one step: the
// decision and the deletion see one head version, which is exactly what `gc
// atomic` assumes.
struct RetireSsTable {
  int shard = 0;
  int generation = 0;
  friend bool operator==(const RetireSsTable&, const RetireSsTable&) = default;
};

// R13 (gc stale-read, recheck). GC decides to retire (s,g) on the head it read.
// Abstracts the retention check alone; atomic because it reads one manifest.
struct RetireDecide {
  int shard = 0;
  int generation = 0;
  friend bool operator==(const RetireDecide&, const RetireDecide&) = default;
};

// R13. GC deletes a decided SSTable: blindly (stale-read) or after re-checking
// the head (recheck). Abstracts the delete of the SSTable directory; atomic as
// one object delete.
struct RetireExecute {
  int shard = 0;
  int generation = 0;
  friend bool operator==(const RetireExecute&, const RetireExecute&) = default;
};

// R20. Begins a plain append of base rows into one new fragment. Abstracts
// writing data files; the begin is atomic because it only reads the head.
struct Append {
  friend bool operator==(const Append&, const Append&) = default;
};

// R21. Begins deleting every row of live fragment f. Abstracts a Delete with a
// predicate matching one whole fragment; the begin only reads the head.
struct DeleteFragment {
  int fragment = 0;
  friend bool operator==(const DeleteFragment&,
                         const DeleteFragment&) = default;
};

// R22. Begins the merge-insert of generation read.compacted[s]+1 of shard s
// into one new fragment, with (marker) or without the compaction progress.
// Abstracts the compactor's data pass; the begin reads the head and the SSTable
// once.
struct CompactSsTable {
  int shard = 0;
  bool marker = false;
  friend bool operator==(const CompactSsTable&,
                         const CompactSsTable&) = default;
};

// R23. Begins a partial-schema merge-insert rewriting field i of live fragment
// f. Abstracts a REWRITE_COLUMNS update; the begin only reads the head.
struct UpdateColumns {
  int fragment = 0;
  int index = 0;
  friend bool operator==(const UpdateColumns&, const UpdateColumns&) = default;
};

// R24. Begins data compaction of live fragments first < second into one new
// fragment, with index remap. Abstracts compact_files on one group; the begin
// only reads the head.
struct RewriteFragments {
  int first = 0;
  int second = 0;
  friend bool operator==(const RewriteFragments&,
                         const RewriteFragments&) = default;
};

// R25. Begins building (or replacing) index i over the read version. Abstracts
// training and writing one segment; the begin reads the head once.
struct CreateIndex {
  int index = 0;
  friend bool operator==(const CreateIndex&, const CreateIndex&) = default;
};

// R26. Begins incremental maintenance of index i (delta segment, merge of
// deltas, or the no-work repair; under advance with an advance). Abstracts
// optimize_indices for one index.
struct OptimizeIndex {
  int index = 0;
  friend bool operator==(const OptimizeIndex&, const OptimizeIndex&) = default;
};

// R27. Begins dropping index i. Abstracts drop_index; the begin only reads the
// head.
struct DropIndex {
  int index = 0;
  friend bool operator==(const DropIndex&, const DropIndex&) = default;
};

// R28. Begins the standalone progress commit of a multi-pass compaction of
// shard s. Abstracts UpdateMemWalState{compacted_sstables}; the begin only
// reads the head.
struct RecordProgress {
  int shard = 0;
  friend bool operator==(const RecordProgress&,
                         const RecordProgress&) = default;
};

// R29 (bit protocols). Begins the one-way activation. Abstracts
// require_mem_wal_index_catchup; the begin only reads the head.
struct Activate {
  friend bool operator==(const Activate&, const Activate&) = default;
};

// R30. Rebases, builds and publishes (or retries, or refuses) the in-flight
// transaction in position `slot` (begin order). Abstracts one attempt of
// commit_transaction; atomic because the put-if-absent of the manifest decides
// it.
struct Commit {
  int slot = 0;
  friend bool operator==(const Commit&, const Commit&) = default;
};

// R36. Commits a copy of retained version `version` (a number, not the head) as
// the new head, or is refused. Abstracts restore_old_manifest plus its manifest
// write.
struct Restore {
  int version = 0;
  friend bool operator==(const Restore&, const Restore&) = default;
};

// R37. Clones the head into a new table that all later steps act on. Abstracts
// Manifest::shallow_clone and the new table's first commit; atomic as one
// manifest write.
struct ShallowClone {
  friend bool operator==(const ShallowClone&, const ShallowClone&) = default;
};

// R38. Every version but the head stops being retained. Abstracts
// cleanup_old_versions; atomic because retention is decided against one head.
struct CleanupVersions {
  friend bool operator==(const CleanupVersions&,
                         const CleanupVersions&) = default;
};

// Section 10, env foreign only.

// R60 (bit protocols). A writer outside this protocol version commits a copy
// of a head without the bit that carries bit 128 in the reader word only.
// Abstracts one foreign commit (a CreateIndex naming no user index); atomic as
// one manifest write.
struct ForeignHalfSet {
  friend bool operator==(const ForeignHalfSet&,
                         const ForeignHalfSet&) = default;
};

// R61 (advance). Begins OptimizeIndex(i) whose IndexCatchupAdvance the caller
// supplied (OptimizeOptions::mem_wal_index_catchup) instead of the one R26
// builds; `offer` picks it from AdvanceOffer. Abstracts optimize_indices with
// a caller's advance; the begin reads the head once.
struct CallerAdvance {
  int index = 0;
  int offer = 0;
  friend bool operator==(const CallerAdvance&, const CallerAdvance&) = default;
};

// R61's menu of caller-supplied advances.
enum class AdvanceOffer : uint8_t {
  kOtherIndex,  // R26's advance for i plus one for the next index, which the
                // transaction does no index work on
  kOldest,      // claims generation 1 on every shard with progress
  kFirstShard,  // claims shard 0 only
};
inline constexpr int kAdvanceOffers = 3;
std::string_view Name(AdvanceOffer offer);

// R62 (derived, unconditional). A MemWAL reset: an operator's CreateIndex
// replaces __lance_mem_wal with fresh details (no compaction progress, no
// positions). Abstracts that commit; atomic as one manifest write.
struct ResetMemWal {
  friend bool operator==(const ResetMemWal&, const ResetMemWal&) = default;
};

// R63 (advance). lancedb's unset_lsm_write_spec: the writers drained (every
// flushed generation compacted), an operator's CreateIndex drops
// __lance_mem_wal. Abstracts that commit; atomic as one manifest write.
struct DropMemWal {
  friend bool operator==(const DropMemWal&, const DropMemWal&) = default;
};

// R64 (bit protocols). A compactor of the `unconditional` era (PR 8680: no
// bit, derivation on every commit) merge-inserts generation
// head.compacted[s]+1 of shard s, with the marker, into a table without the
// bit, and its derivation records positions. Abstracts that writer's whole
// commit; atomic as one manifest write.
struct ForeignCompaction {
  int shard = 0;
  friend bool operator==(const ForeignCompaction&,
                         const ForeignCompaction&) = default;
};

// R39. Begins re-installing __lance_mem_wal: a CreateIndex whose new system
// index carries the details it read (lance #9335 replaces the maintained-index
// set and keeps the progress). Abstracts initialize_mem_wal on a table that
// has one; the begin only reads the head. Last in `Action` so that the older
// kinds keep their numbers; enabled while fewer than Bounds::reinstalls are in
// flight or published.
struct ReinstallMemWal {
  friend bool operator==(const ReinstallMemWal&,
                         const ReinstallMemWal&) = default;
};

using Action =
    std::variant<FlushMemTable, RetireSsTable, RetireDecide, RetireExecute,
                 Append, DeleteFragment, CompactSsTable, UpdateColumns,
                 RewriteFragments, CreateIndex, OptimizeIndex, DropIndex,
                 RecordProgress, Activate, Commit, Restore, ShallowClone,
                 CleanupVersions, ForeignHalfSet, CallerAdvance, ResetMemWal,
                 DropMemWal, ForeignCompaction, ReinstallMemWal>;
inline constexpr int kActionKinds =
    static_cast<int>(std::variant_size_v<Action>);

// What a step did. Commit: kPublished, kRetry or kRefused; Restore: kPublished
// or kRefused; every other action kDone.
enum class Outcome : uint8_t { kDone, kPublished, kRetry, kRefused };
std::string_view Name(Outcome outcome);

// The kind can fire under `config` at all: every kind of section 4-6 under
// env none; the env actions (section 10) only under env foreign. Coverage
// reports and corpus completeness list only these kinds.
bool KindApplies(const Config& config, int kind);

// The action's guard.
bool IsEnabled(const Config& config, const State& state, const Action& action);

// The action's effect. REQUIRES: IsEnabled(config, state, action). The result
// is canonical.
State Apply(const Config& config, State state, const Action& action,
            Outcome* outcome);
// The same on `state` itself, without a copy (the searches' successor step).
void Apply(const Config& config, const Action& action, State* state,
           Outcome* outcome);

// Appends every enabled action in the fixed order: by kind as in `Action`, then
// by parameters ascending (shard, then generation; marker false before true).
// Clears `out` first.
void EnabledActions(const Config& config, const State& state,
                    std::vector<Action>* out);
// Only those of the kinds in `kinds` (bit k: Action's alternative k), in the
// same order: the liveness continuation asks for its own kinds only.
void EnabledActions(const Config& config, const State& state, uint32_t kinds,
                    std::vector<Action>* out);

// The action's parameters in field order (e.g. {shard, marker}; marker as 0/1;
// unused parameters 0), and the inverse. MakeAction REQUIRES 0 <= kind <
// kActionKinds.
std::array<int, 2> ActionParams(const Action& action);
Action MakeAction(int kind, const std::array<int, 2>& params);

// "CompactSsTable", ...; kKindNames[action.index()].
std::string_view KindName(const Action& action);
std::string_view KindName(int kind);
// "CompactSsTable{shard=0, marker=true}".
std::string ToString(const Action& action);

// Our trace format: {"kind":"CompactSsTable","shard":0,"marker":true}.
nlohmann::json ToJson(const Action& action);
// Strict inverse of ToJson: an unknown kind, a missing, extra or mistyped
// field, or a number above 255 is InvalidArgument. Never throws.
Result<Action> ActionFromJson(const nlohmann::json& json);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_ACTIONS_H_
