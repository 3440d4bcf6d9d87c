// Conflict classes of the commit path [spec R31, R32; P §4.3]: how a
// transaction to commit relates to one transaction committed after its read
// version. Compatible conflicts may adjust the transaction (R31 note a: a user
// CreateIndex prunes its new segments for the fragments a committed Update
// rewrote on the index's field).
#ifndef MEMWAL_IMPL_CONFLICTS_H_
#define MEMWAL_IMPL_CONFLICTS_H_

#include "base/status.h"
#include "impl/format.h"

namespace memwal::impl {

enum class ConflictClass { kCompatible, kRetryable, kIncompatible };

// Classifies `committed` against `*self` and applies the compatible adjustment
// to `*self`, for every operation Lance's resolver knows on either side
// (docs/conflicts.md is the whole table; a transaction the implementation
// cannot commit, a DataOverlay say, is classified all the same, and refused
// when its manifest is built). Corruption if a bitmap in either transaction
// does not decode; InvalidArgument for a transaction without an operation.
Result<ConflictClass> ClassifyConflict(pb::Transaction* self,
                                       const pb::Transaction& committed);

// Whether ClassifyConflict may adjust `self` (only a CreateIndex is adjusted).
bool ConflictMayAdjust(const pb::Transaction& self);
// ClassifyConflict of a transaction it does not adjust (!ConflictMayAdjust),
// so a commit classifies it without a copy of its own.
Result<ConflictClass> ClassifyConflict(const pb::Transaction& self,
                                       const pb::Transaction& committed);

// The `__lance_mem_wal` entry a CreateIndex installs (new_indices), or
// nullptr: such a CreateIndex installs or re-installs the MemWAL [spec R39].
const pb::IndexMetadata* InstalledMemWalIndex(const pb::Transaction& t);

// Lance: finish_create_index for a MemWAL install, run on every attempt
// against the head [spec R39]: every `__lance_mem_wal` entry of the head that
// the transaction does not already remove is removed (a manifest holds one
// system index), and when `progress_met` (it rebased over UpdateMemWalState
// commits, whose progress ClassifyConflict merged into its details) its entry
// is re-minted with a fresh uuid at the head's version.
void FinishMemWalInstall(const pb::IndexSection& head, uint64_t head_version,
                         bool progress_met, const std::string& fresh_uuid,
                         pb::Transaction* self);

// Lance: check_compacted_sstables_conflict [spec R32].
ConflictClass CheckCompactedSsTablesConflict(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& committed,
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& proposed);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_CONFLICTS_H_
