// Lance transactions in the model's terms, decided from the bytes alone: the
// model::Op a committed version's transaction file stands for (kind and
// details), and the model::Txn a staged (begun, uncommitted) transaction
// stands for. No model state is read: this is the op half of the abstraction
// function (checker/lockstep/refinement.h AbstractPersisted).
//
// The kind, as spec/protocol.md defines each action's transaction:
// - Append, Delete (DeleteFragment), Rewrite (RewriteFragments), Restore,
//   UpdateMemWalState (Activate when it sets require_index_catchup, else
//   RecordProgress), Update (UpdateColumns when REWRITE_COLUMNS, else a
//   merge-insert: CompactSsTable, or ForeignCompaction (R64) when the
//   manifest's writer_version is not this implementation's).
// - CreateIndex: installing __lance_mem_wal is ResetMemWal (R62) when another
//   writer's writer_version stamps it, else ReinstallMemWal (R39); removing it
//   alone is DropMemWal (R63); naming nothing (no segment, no advance, no
//   repair property) is ForeignHalfSet (R60); otherwise a user index op: with a
//   new segment it is CreateIndex when it removes every segment the read
//   version had for that index (R25), else OptimizeIndex (R26: a delta, or a
//   merge removing the newest); without one, DropIndex when it removes segments
//   (R27), else OptimizeIndex (a no-work repair or an advance).
// - A shallow clone's first version (Clone) stands for the op of the version
//   it copied (R37: the model keeps the source head's op).
// Details: the fragments a Delete/Update/Rewrite names, the modified field,
// the index name (and an R61 other-index advance's second name), the new
// segment's covers as the version published them, the progress entry, and
// whether a re-install published rebased (read version below the previous
// version).
#ifndef MEMWAL_CHECKER_LOCKSTEP_TRANSACTIONS_H_
#define MEMWAL_CHECKER_LOCKSTEP_TRANSACTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "impl/world.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::lockstep {

// Shard uuid -> the model's shard number (the run's shard order).
struct ShardNumbers {
  std::vector<std::string> uuids;
  // -1 when unknown.
  int Of(const std::string& uuid) const;
};

// The op of every version of `lineage`: the versions of the tables the table
// was shallow-cloned from (impl::RowsView::sources, oldest first) followed by
// its own, oldest first. Fails (Corruption) on a transaction no action
// writes.
Result<std::vector<model::Op>> OpsOf(
    const model::Config& config,
    const std::vector<const impl::TableVersion*>& lineage,
    const ShardNumbers& shards);

// The op of lineage[at] alone; `previous` is the op of lineage[at - 1] (a
// clone's version takes it), null when at is 0. OpsOf is this in a loop.
Result<model::Op> OpOfVersion(
    const model::Config& config,
    const std::vector<const impl::TableVersion*>& lineage, std::size_t at,
    const ShardNumbers& shards, const model::Op* previous);

// Numbers a raw segment uuid (model::Canonicalize's order: the caller numbers
// the versions' uuids first, then calls this for each in-flight transaction's
// removed segment, then its new one).
using UuidNumberer = std::function<Result<uint8_t>(const std::string& raw)>;

// The model::Txn a staged transaction stands for. `versions`: the table's
// own versions, oldest first (the read version's segments decide CreateIndex
// against OptimizeIndex, and its progress the caller's advance offer).
// `world` reads the rows of a merge-insert's new fragment (the generation an
// unmarked compaction merges).
Result<model::Txn> TxnOf(const model::Config& config, const impl::World& world,
                         const impl::pb::Transaction& transaction,
                         const std::vector<const impl::TableVersion*>& versions,
                         const ShardNumbers& shards,
                         const UuidNumberer& number);

// The caller's advance offer (Txn::advance) as the bytes can tell it: 0 when
// the offer's claim equals the protocol's own on `read` (then no byte
// differs). Applied to the model's Txn before comparison.
uint8_t VisibleAdvance(const model::Config& config, const model::Version& read,
                       const model::Txn& txn);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_TRANSACTIONS_H_
