// build_manifest [spec R35; P §4.2]: the next version of a table from its head
// and one (already rebased) transaction, in Lance's order of steps: the
// operation arm, the catch-up rule of the protocol, new_from_previous +
// apply_feature_flags + inherit, then activation. write_manifest_file's second
// apply_feature_flags (R35.5) runs in commit.cc.
//
// Refusals (stale generation, a fragment no longer live, advance validation,
// activation refusal, a half-set head) are Status::FailedPrecondition; any
// other error is real.
#ifndef MEMWAL_IMPL_BUILD_H_
#define MEMWAL_IMPL_BUILD_H_

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/status.h"
#include "impl/bugs.h"
#include "impl/catchup.h"
#include "impl/table.h"

namespace memwal::impl {

using UuidSource =
    std::function<std::string()>;  // Fresh 16 raw bytes per call.

struct BuildInput {
  Protocol protocol = Protocol::kDerived;
  BugSet bugs;
  const Snapshot* head = nullptr;
  // The transaction's read version, or nullptr if it cannot be loaded.
  const Snapshot* read = nullptr;
  const pb::Transaction* transaction = nullptr;
  // `transaction` shared, when the caller holds it so: the new version's
  // file then shares it instead of copying it (ignored unless it is
  // `transaction` itself).
  std::shared_ptr<const pb::Transaction> shared_transaction = nullptr;
  std::string transaction_file;
  const UuidSource* new_uuid = nullptr;
  // The writer_version stamped into the new manifest (impl/format.h).
  std::string_view writer = kWriterVersion;
};

Result<ManifestFile> BuildManifest(const BuildInput& input);

// Lance: update_mem_wal_index_compacted_sstables [P §3]: merges `proposed`
// into the compacted_sstables of `section`'s __lance_mem_wal (a shard not yet
// recorded is added; a generation not above the recorded one is refused as
// stale) and rewrites the system index (a fresh uuid from input.new_uuid,
// stamped `version`). Refused without a system index or when one update names a
// shard twice. Reads input.bugs (progress-regresses) and input.read.
Status UpdateCompacted(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& proposed,
    const BuildInput& input, uint64_t version, pb::IndexSection* section);

// True if the head requires catch-up under `protocol` (R1: both bits for bit
// protocols, always for unconditional, never for legacy).
bool RequiresCatchup(Protocol protocol, const pb::Manifest& manifest);

// Replaces the MemWAL system index's details, minting a fresh uuid (Lance:
// new_mem_wal_index_meta) and stamping `version`.
void ReplaceMemWalIndex(const pb::MemWalIndexDetails& details, uint64_t version,
                        const UuidSource& new_uuid, pb::IndexSection* section);

// ReadVersionState for a derivation, or nullopt when Lance would not load it
// (R33).
Result<std::optional<ReadVersionState>> ReadStateFor(Protocol protocol,
                                                     const Snapshot* read);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_BUILD_H_
