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
// to `*self`. Corruption if a bitmap in either transaction does not decode.
Result<ConflictClass> ClassifyConflict(pb::Transaction* self,
                                       const pb::Transaction& committed);

// Lance: check_compacted_sstables_conflict [spec R32].
ConflictClass CheckCompactedSsTablesConflict(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& committed,
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& proposed);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_CONFLICTS_H_
