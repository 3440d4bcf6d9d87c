// The commit path [spec R30-R35; P §4.1]: rebase a transaction over every
// transaction committed since its read version (conflict classes, compatible
// adjustments), build the next manifest, write the transaction file, and
// publish the manifest by put-if-absent of the next version's file. Losing that
// race to another writer of the same store means rebasing again, up to
// kCommitAttempts times (Lance's default retry budget is 20 [P §4.1]).
#ifndef MEMWAL_IMPL_COMMIT_H_
#define MEMWAL_IMPL_COMMIT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "impl/build.h"
#include "impl/store.h"

namespace memwal::impl {

inline constexpr int kCommitAttempts = 20;

// Outcome of a step that may publish, retry or refuse (spec R30).
enum class Outcome { kDone, kPublished, kRetry, kRefused };

struct CommitInput {
  Protocol protocol = Protocol::kDerived;
  BugSet bugs;
  Store* table = nullptr;
  const Store* archive = nullptr;  // Versions removed by CleanupVersions.
  const UuidSource* new_uuid = nullptr;
  // The committing writer's writer_version (impl/format.h).
  std::string_view writer = kWriterVersion;
  // What the caller has read of `table` as it is at the call (World's cached
  // views, impl/world_cache.cc), or null: its version numbers, oldest first,
  // and its head loaded as LoadVersion(*table, nullptr, head, true) loads it.
  // Only the first attempt uses them; one after a lost race lists again.
  const std::vector<uint64_t>* listed = nullptr;
  const Snapshot* head = nullptr;
  // The transaction CommitTransaction is given, shared, when the caller holds
  // it so (World's in-flight list): the new version's file shares it until
  // a rebase changes it (BuildInput::shared_transaction). Null: copied.
  std::shared_ptr<const pb::Transaction> shared = nullptr;
};

struct CommitResult {
  Outcome outcome = Outcome::kRefused;
  std::string
      reason;  // Why it was refused or must retry; empty when published.
  uint64_t version = 0;  // The published version.
};

// Rebasing may adjust the transaction (a CreateIndex over a concurrent
// commit, a MemWAL install): the commit then works on a copy of it.
Result<CommitResult> CommitTransaction(const CommitInput& input,
                                       const pb::Transaction& transaction);

// Writes `transaction` as `_transactions/{name}` (put-if-absent) and returns
// the stored blob. Its bytes are the manifest's transaction section too
// (WriteManifestFile's `transaction_blob`): a transaction is encoded once.
Result<Blob> WriteTransactionFile(Store* table, const std::string& name,
                                  const pb::Transaction& transaction);

// Lance: write_manifest_file: apply_feature_flags once more (R35.5), encode,
// then put-if-absent `_versions/{version}` (AlreadyExists if another writer
// won). `transaction_blob` is what WriteTransactionFile stored for
// file.transaction (every commit writes its transaction file first): its bytes
// become the transaction section, and this thread's loads of it take
// file.transaction (validated by CheckTransaction) instead of decoding it.
Status WriteManifestFile(Store* table, ManifestFile file, BugSet bugs,
                         const Blob& transaction_blob);

// "{hex}" of a fresh uuid.
std::string NewTransactionUuid(const UuidSource& new_uuid);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_COMMIT_H_
