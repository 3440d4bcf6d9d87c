// World: the environment actions of env foreign [spec section 10, R60-R62]:
// a foreign writer's half-set manifest, a caller-supplied catch-up advance, and
// a MemWAL reset. Each is written the way Lance would write it, so that the
// rest of the implementation meets it through its own load, rebase and build
// paths.
#include "impl/build.h"
#include "impl/feature_flags.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

using CreateIndexOp = pb::Transaction::CreateIndex;

std::string IndexName(uint32_t index) { return "idx_" + std::to_string(index); }

}  // namespace

Status World::ForeignHalfSet() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  if (!ReadCatchupBits(head.file->manifest).neither())
    return Status::FailedPrecondition("the head carries the bit");
  ManifestFile file = CopyWithoutTransaction(*head.file);
  file.manifest.set_version(head.version() + 1);
  file.manifest.set_reader_feature_flags(file.manifest.reader_feature_flags() |
                                         kFlagMemWalIndexCatchup);
  pb::Transaction transaction;
  transaction.set_read_version(head.version());
  transaction.set_uuid(NewTransactionUuid(UuidFn()));
  transaction.mutable_create_index();  // names no index of ours
  const std::string name =
      TransactionFileName(head.version(), NewTransactionUuid(UuidFn()));
  file.manifest.set_transaction_file(name);
  file.transaction = std::move(transaction);
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(
      const Blob transaction_blob,
      WriteTransactionFile(&table, name, *file.transaction));
  // Written without apply_feature_flags: the foreign writer's own flag rules
  // put bit 128 in one word.
  MEMWAL_RETURN_IF_ERROR(
      table.PutIfAbsent(VersionFileName(file.manifest.version()),
                        EncodeManifestFileAsDecoded(&file, *transaction_blob)));
  last_reason_.clear();
  return Status::Ok();
}

Status World::BeginCallerAdvance(uint32_t index, uint32_t offer) {
  if (options_.protocol != Protocol::kAdvance)
    return Status::FailedPrecondition("advances exist only under advance");
  if (index >= options_.indexes || offer > 2)
    return Status::InvalidArgument("no such index or offer");
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  MEMWAL_ASSIGN_OR_RETURN(pb::Transaction t, OptimizeTransaction(read, index));
  CreateIndexOp* op = t.mutable_create_index();
  if (op->mem_wal_index_catchup_advances_size() != 1)
    return Status::FailedPrecondition("the repair carries no advance");
  auto* own = op->mutable_mem_wal_index_catchup_advances(0);
  switch (offer) {
    case 0: {  // other-index: an advance for an index without index work here
      if (options_.indexes < 2)
        return Status::FailedPrecondition("no other index");
      const CreateIndexOp no_work;
      MEMWAL_ASSIGN_OR_RETURN(
          auto other,
          BuildAdvance(read, IndexName((index + 1) % options_.indexes),
                       no_work));
      if (!other.has_value())
        return Status::FailedPrecondition("no advance for the other index");
      *op->add_mem_wal_index_catchup_advances() = *other;
      break;
    }
    case 1:  // oldest: generation 1 on every shard with progress
      for (auto& claim : *own->mutable_caught_up_generations())
        claim.set_generation(1);
      break;
    case 2: {  // first-shard: shard 0's claim only
      auto* claims = own->mutable_caught_up_generations();
      for (int k = claims->size() - 1; k >= 0; --k) {
        if (claims->Get(k).shard_id().uuid() != shard_uuid(0))
          claims->DeleteSubrange(k, 1);
      }
      break;
    }
  }
  return Begin(std::move(t));
}

Status World::ResetMemWal() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  const pb::IndexMetadata* system = FindMemWalIndex(head.file->index_section);
  if (system == nullptr)
    return Status::FailedPrecondition("the table has no __lance_mem_wal");
  MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(*system));
  details.clear_compacted_sstables();
  details.clear_index_catchup();
  pb::IndexMetadata fresh = *system;
  PackMemWalDetails(details, &fresh);
  fresh.mutable_uuid()->set_uuid(NewUuid());
  fresh.set_dataset_version(head.version());
  pb::Transaction t;
  t.set_read_version(head.version());
  t.set_uuid(NewTransactionUuid(UuidFn()));
  *t.mutable_create_index()->add_new_indices() = fresh;
  *t.mutable_create_index()->add_removed_indices() = *system;
  // Another writer's code (R62): it stamps its own writer_version.
  return CommitForeign(std::move(t), options_.protocol, bugs_,
                       kUnconditionalWriterVersion);
}

Status World::BeginReinstallMemWal() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  const pb::IndexMetadata* system = FindMemWalIndex(read.file->index_section);
  if (system == nullptr)
    return Status::FailedPrecondition("the table has no __lance_mem_wal");
  pb::IndexMetadata fresh = *system;
  fresh.mutable_uuid()->set_uuid(NewUuid());
  fresh.set_dataset_version(read.version());
  pb::Transaction t;
  t.set_read_version(read.version());
  *t.mutable_create_index()->add_new_indices() = fresh;
  return Begin(std::move(t));
}

Status World::CommitForeign(pb::Transaction t, Protocol protocol, BugSet bugs,
                            std::string_view writer) {
  PrefixedStore table = Table();
  PrefixedStore archive = Archive();
  const UuidSource uuids = UuidFn();
  if (protocol != options_.protocol) writer = kUnconditionalWriterVersion;
  MEMWAL_ASSIGN_OR_RETURN(const CommitResult result,
                          CommitTransaction(CommitInput{.protocol = protocol,
                                                        .bugs = bugs,
                                                        .table = &table,
                                                        .archive = &archive,
                                                        .new_uuid = &uuids,
                                                        .writer = writer},
                                            std::move(t)));
  last_reason_ = result.reason;
  if (result.outcome != Outcome::kPublished)
    return Status::FailedPrecondition("the env commit was not published: " +
                                      result.reason);
  return Status::Ok();
}

Status World::DropMemWal() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  const pb::IndexMetadata* system = FindMemWalIndex(head.file->index_section);
  if (system == nullptr)
    return Status::FailedPrecondition("the table has no __lance_mem_wal");
  pb::Transaction t;
  t.set_read_version(head.version());
  t.set_uuid(NewTransactionUuid(UuidFn()));
  *t.mutable_create_index()->add_removed_indices() = *system;
  return CommitForeign(std::move(t), options_.protocol, bugs_);
}

Status World::ForeignCompaction(uint32_t shard) {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  if (!ReadCatchupBits(head.file->manifest).neither())
    return Status::FailedPrecondition("the head carries the bit");
  // The same merge-insert this version's compactor prepares (R22), then
  // committed by the foreign writer at once.
  MEMWAL_RETURN_IF_ERROR(BeginCompactSsTable(shard, true));
  pb::Transaction t = *inflight_.back();
  inflight_.pop_back();
  // Another Lance version's code: none of this run's implementation bugs.
  return CommitForeign(std::move(t), Protocol::kUnconditional, BugSet());
}

}  // namespace memwal::impl
