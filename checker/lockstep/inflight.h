// In-flight transactions compared by content (issue 18 item 4): each begun,
// uncommitted transaction of impl::World (a Lance Transaction, kept in begin
// order) against the model's Txn in the same slot.
//
// Compared: the read version; the operation as Lance classifies it (Append,
// Delete, Update, Rewrite, CreateIndex, UpdateMemWalState, Restore; R31's
// classes, since the implementation's CreateIndex stands for the model's
// create, optimize and drop alike); and the payload the transaction carries:
// the deleted, updated or rewritten fragment ids, the modified field, the
// index name, the compacted_sstables entry (shard and generation) of a marked
// compaction or a progress commit, the generation a variant's data pass names
// (impl::kMergesPropertyPrefix: R65's fence), activation, the new segment's
// fragment bitmap and whether a segment is removed. Not compared
// (docs/lockstep.md, ghost fields): the generation an unmarked, unfenced
// compaction merges (the transaction names no generation; its rows would), new
// segment uuids by number (fresh uuids, compared by the versions once
// published), and the caller's advance offer (R61).
#ifndef MEMWAL_CHECKER_LOCKSTEP_INFLIGHT_H_
#define MEMWAL_CHECKER_LOCKSTEP_INFLIGHT_H_

#include <string>
#include <vector>

#include "impl/world.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::lockstep {

// One line per difference ("in-flight 0: read version 3 (impl) vs 2
// (model)"); empty when they agree.
std::vector<std::string> InflightDiff(const model::Config& config,
                                      const impl::World& world,
                                      const model::State& model);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_INFLIGHT_H_
