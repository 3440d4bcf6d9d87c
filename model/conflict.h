// The conflict table of spec R31-R32 as the model's commit rebase judges it
// (model/commit.cc), exposed so that tests can compare it with the
// implementation's (impl/conflicts.h) on inputs the bounded search does not
// produce.
#ifndef MEMWAL_MODEL_CONFLICT_H_
#define MEMWAL_MODEL_CONFLICT_H_

#include <array>
#include <cstdint>

#include "model/state.h"

namespace memwal::model {

enum class Conflict : uint8_t { kOk, kRetryable, kIncompatible };

// What the conflict rules see of the transaction being committed.
struct Proposal {
  LanceOp op;
  FragmentSet fragments = 0;  // Delete {f}; UpdateColumns {f}; Rewrite {f1, f2}
  FragmentSet new_covers =
      0;  // user CreateIndex: its new segment's covers (pruned by R31a)
  uint8_t index = 0;  // user CreateIndex: the name
  uint8_t names = 0;  // user CreateIndex: every name it works on (an
                      // IndexSet; R61's other-index advance adds one)
  uint8_t progress_shard =
      0;  // compacted_sstables carried, if progress_generation > 0
  uint8_t progress_generation = 0;
  // R39: a MemWAL install's details, compacted_sstables: the read version's,
  // raised per shard by every UpdateMemWalState the rebase met (R31 note b).
  bool installs = false;
  std::array<uint8_t, kShardsMax> details{};
};

// R31: classifies the committed version `committed` (its op; for a committed
// MemWAL install also its details) against the transaction `t`. A MemWAL
// install merges the progress it meets into t->details (R31 note b).
// REQUIRES: committed.op.kind != OpKind::kInit; t->op is neither kInit nor
// kRestore.
Conflict Judge(const Version& committed, Proposal* t);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_CONFLICT_H_
