// Commit path; see commit.h.
#include "impl/commit.h"

#include <memory>
#include <optional>

#include "impl/conflicts.h"
#include "impl/feature_flags.h"

namespace memwal::impl {
namespace {

// Classifies every version in (checked, head] against the transaction:
// `*current` where the classification leaves it alone, else `changed()`, its
// own copy (ConflictMayAdjust); nullopt = compatible. Sets `*progress_met` when
// a MemWAL install met a committed UpdateMemWalState (whose progress
// ClassifyConflict merged).
template <typename Changed>
Result<std::optional<CommitResult>> Rebase(
    const CommitInput& input, uint64_t checked, uint64_t head,
    const pb::Transaction* const& current, const Changed& changed,
    bool* progress_met) {
  bool retry = false;
  for (uint64_t version = checked + 1; version <= head; ++version) {
    MEMWAL_ASSIGN_OR_RETURN(
        const Snapshot snapshot,
        LoadVersion(*input.table, input.archive, version, true));
    MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const pb::Transaction> shared,
                            LoadSharedTransaction(*input.table, snapshot));
    const pb::Transaction& committed = *shared;
    MEMWAL_ASSIGN_OR_RETURN(const ConflictClass kind,
                            ConflictMayAdjust(*current)
                                ? ClassifyConflict(changed(), committed)
                                : ClassifyConflict(*current, committed));
    *progress_met |= InstalledMemWalIndex(*current) != nullptr &&
                     committed.has_update_mem_wal_state() &&
                     kind == ConflictClass::kCompatible;
    if (kind == ConflictClass::kIncompatible) {
      return std::optional<CommitResult>(CommitResult{
          Outcome::kRefused, "incompatible with the commit of version " +
                                 std::to_string(version)});
    }
    retry |= kind == ConflictClass::kRetryable;
  }
  if (retry)
    return std::optional<CommitResult>(
        CommitResult{Outcome::kRetry, "retryable"});
  return std::optional<CommitResult>();
}

Result<std::optional<Snapshot>> LoadReadVersion(const CommitInput& input,
                                                uint64_t version) {
  // Most transactions read the head the caller has in hand.
  if (input.head != nullptr && input.head->version() == version)
    return std::optional<Snapshot>(*input.head);
  Result<Snapshot> read =
      LoadVersion(*input.table, input.archive, version, true);
  if (!read.ok() && read.status().code() == StatusCode::kNotFound) {
    return std::optional<Snapshot>();
  }
  if (!read.ok()) return read.status();
  return std::optional<Snapshot>(std::move(read).value());
}

// `*listed`: the caller's listing, for the first attempt (then cleared).
Result<uint64_t> HeadVersion(const Store& table,
                             const std::vector<uint64_t>** listed) {
  const std::vector<uint64_t>* given = *listed;
  *listed = nullptr;
  if (given != nullptr && !given->empty()) return given->back();
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> versions,
                          ListVersions(table));
  if (versions.empty()) return Status::NotFound("table has no versions");
  return versions.back();
}

// The head at `version`: the caller's, when it is that version (it is the
// same decoding LoadVersion gives), or loaded.
Result<Snapshot> HeadAt(const CommitInput& input, uint64_t version) {
  if (input.head != nullptr && input.head->version() == version)
    return *input.head;
  return LoadVersion(*input.table, nullptr, version, true);
}

}  // namespace

std::string NewTransactionUuid(const UuidSource& new_uuid) {
  return UuidHex(new_uuid());
}

Result<Blob> WriteTransactionFile(Store* table, const std::string& name,
                                  const pb::Transaction& transaction) {
  MEMWAL_ASSERT(table != nullptr);
  const std::string path = std::string(kTransactionsDir) + name;
  return table->PutIfAbsentBlob(path, EncodeTransaction(transaction));
}

Status WriteManifestFile(Store* table, ManifestFile file, BugSet bugs,
                         const Blob& transaction_blob) {
  MEMWAL_ASSERT(table != nullptr);
  MEMWAL_ASSERT(transaction_blob != nullptr && file.transaction.has_value());
  // Lance's write_manifest_file asks for stable row ids when the manifest
  // uses them already (its reader word has bit 2) [P §2.2 (b)].
  const bool stable_row_ids = UsesStableRowIds(file.manifest);
  MEMWAL_RETURN_IF_ERROR(
      ApplyFeatureFlags(&file.manifest, stable_row_ids, false, bugs));
  // Bug bits-one-word: the catch-up bit reaches the writer word only.
  if (bugs.has(Bug::kBitsOneWord) && ReadCatchupBits(file.manifest).both()) {
    file.manifest.set_reader_feature_flags(
        file.manifest.reader_feature_flags() & ~kFlagMemWalIndexCatchup);
  }
  const std::string name = VersionFileName(file.manifest.version());
  std::string bytes = EncodeManifestFileAsDecoded(&file, *transaction_blob);
  MEMWAL_ASSERT(bytes.size() > 16);
  MEMWAL_RETURN_IF_ERROR(table->PutIfAbsent(name, std::move(bytes)));
  // Decode-once: what a load would decode from the new blob is `file` (unless
  // the validation a decode runs refuses it: then loads decode and report),
  // and from the transaction file its transaction section.
  if (!CheckManifestFile(file).ok()) return Status::Ok();
  const Result<Blob> blob = table->Get(name);
  if (!blob.ok()) return Status::Ok();
  const std::shared_ptr<const ManifestFile> decoded =
      ShareManifestFile(std::move(file));
  SeedDecodedManifest(*blob, decoded);
  if (CheckTransaction(*decoded->transaction).ok()) {
    // Shares the manifest's decoding (the aliasing constructor keeps it).
    SeedDecodedTransaction(transaction_blob,
                           std::shared_ptr<const pb::Transaction>(
                               decoded, &*decoded->transaction));
  }
  return Status::Ok();
}

Result<CommitResult> CommitTransaction(const CommitInput& input,
                                       const pb::Transaction& transaction) {
  MEMWAL_ASSERT(input.table != nullptr && input.new_uuid != nullptr);
  MEMWAL_ASSIGN_OR_RETURN(const std::optional<Snapshot> read,
                          LoadReadVersion(input, transaction.read_version()));
  // The transaction as committed: `transaction` until the commit changes it,
  // then `own`, its copy (most commits have nothing to rebase over).
  std::optional<pb::Transaction> own;
  const pb::Transaction* current = &transaction;
  const auto changed = [&]() -> pb::Transaction* {
    if (!own.has_value()) current = &own.emplace(transaction);
    return &*own;
  };
  uint64_t checked = transaction.read_version();
  bool progress_met = false;
  const std::vector<uint64_t>* listed = input.listed;
  for (int attempt = 0; attempt < kCommitAttempts; ++attempt) {
    MEMWAL_ASSIGN_OR_RETURN(const uint64_t head_version,
                            HeadVersion(*input.table, &listed));
    if (head_version > checked) {
      MEMWAL_ASSIGN_OR_RETURN(const auto conflict,
                              Rebase(input, checked, head_version, current,
                                     changed, &progress_met));
      if (conflict.has_value()) return *conflict;
    }
    checked = head_version;
    MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, HeadAt(input, head_version));
    // Lance: can_read_dataset / can_write_dataset on the head it writes over.
    const pb::Manifest& words = head.file->manifest;
    if (!CanReadDataset(words.reader_feature_flags()) ||
        !CanWriteDataset(words.writer_feature_flags())) {
      return CommitResult{Outcome::kRefused,
                          "the head carries a feature bit this implementation "
                          "cannot write"};
    }
    if (InstalledMemWalIndex(*current) != nullptr) {
      // A fresh uuid is drawn only for a re-mint, so that every other commit
      // draws the same uuid stream as before.
      FinishMemWalInstall(head.file->index_section, head_version, progress_met,
                          progress_met ? (*input.new_uuid)() : std::string(),
                          changed());
      progress_met = false;  // Re-minted once per merge.
    }
    // Lance names each attempt's transaction file with a fresh uuid.
    const std::string name = TransactionFileName(
        current->read_version(), NewTransactionUuid(*input.new_uuid));
    Result<ManifestFile> built = BuildManifest(BuildInput{
        .protocol = input.protocol,
        .bugs = input.bugs,
        .head = &head,
        .read = read.has_value() ? &*read : nullptr,
        .transaction = current,
        .shared_transaction = input.shared,
        .transaction_file = name,
        .new_uuid = input.new_uuid,
        .writer = input.writer,
    });
    if (!built.ok() &&
        built.status().code() == StatusCode::kFailedPrecondition) {
      return CommitResult{Outcome::kRefused, built.status().message()};
    }
    if (!built.ok()) return built.status();
    MEMWAL_ASSIGN_OR_RETURN(const Blob transaction_blob,
                            WriteTransactionFile(input.table, name, *current));
    const Status published = WriteManifestFile(
        input.table, std::move(built).value(), input.bugs, transaction_blob);
    if (published.code() == StatusCode::kAlreadyExists)
      continue;  // Lost the race: rebase.
    MEMWAL_RETURN_IF_ERROR(published);
    return CommitResult{Outcome::kPublished, "", head_version + 1};
  }
  return CommitResult{Outcome::kRetry, "lost the publication race too often"};
}

}  // namespace memwal::impl
