// Conflict classes, one function per row of the table in spec R31. The rows for
// operations Lance lists in its resolver follow it [P §4.3]; the others follow
// its general rule
// ("touching the same fragment is retryable, a committed Restore is
// incompatible").
#include "impl/conflicts.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "impl/bitmap.h"
#include "impl/table.h"

namespace memwal::impl {
namespace {

using Op = pb::Transaction::OperationCase;
using FragmentIds = std::set<uint64_t>;

constexpr ConflictClass kOk = ConflictClass::kCompatible;
constexpr ConflictClass kRetry = ConflictClass::kRetryable;
constexpr ConflictClass kNever = ConflictClass::kIncompatible;

bool Meets(const FragmentIds& a, const FragmentIds& b) {
  for (const uint64_t id : a) {
    if (b.count(id) != 0) return true;
  }
  return false;
}

// Fragments an operation deletes, updates or rewrites (the "same fragment" of
// R31).
FragmentIds DeletedBy(const pb::Transaction& t) {
  if (!t.has_delete_()) return {};
  return FragmentIds(t.delete_().deleted_fragment_ids().begin(),
                     t.delete_().deleted_fragment_ids().end());
}

FragmentIds UpdatedBy(const pb::Transaction& t) {
  FragmentIds ids;
  if (t.has_update()) {
    for (const auto& fragment : t.update().updated_fragments())
      ids.insert(fragment.id());
    ids.insert(t.update().removed_fragment_ids().begin(),
               t.update().removed_fragment_ids().end());
  }
  if (t.has_delete_()) {
    for (const auto& fragment : t.delete_().updated_fragments())
      ids.insert(fragment.id());
  }
  return ids;
}

FragmentIds RewrittenBy(const pb::Transaction& t) {
  FragmentIds ids;
  if (!t.has_rewrite()) return ids;
  for (const auto& group : t.rewrite().groups()) {
    for (const auto& fragment : group.old_fragments())
      ids.insert(fragment.id());
  }
  return ids;
}

// True if a new user segment of the CreateIndex `t` covers one of `fragments`;
// a segment without a bitmap counts as covering (Lance: retryable if any new
// index lacks a bitmap).
Result<bool> NewSegmentCovers(const pb::Transaction& t,
                              const FragmentIds& fragments) {
  for (const pb::IndexMetadata& index : t.create_index().new_indices()) {
    if (IsMemWalIndex(index)) continue;
    MEMWAL_ASSIGN_OR_RETURN(const Coverage covers,
                            DecodeFragmentBitmap(index.fragment_bitmap()));
    if (!covers.has_value() || Meets(*covers, fragments)) return true;
  }
  return false;
}

// Index names a user CreateIndex works on (new, removed, advanced, or the
// repair property).
std::set<std::string> IndexNames(const pb::Transaction& t) {
  std::set<std::string> names;
  const auto& op = t.create_index();
  for (const auto& index : op.new_indices()) names.insert(index.name());
  for (const auto& index : op.removed_indices()) names.insert(index.name());
  for (const auto& advance : op.mem_wal_index_catchup_advances()) {
    names.insert(advance.index_name());
  }
  const auto it =
      t.transaction_properties().find(std::string(kRepairIndexProperty));
  if (it != t.transaction_properties().end()) names.insert(it->second);
  names.erase(std::string(kMemWalIndexName));
  return names;
}

// General rule for operations Lance's resolver rows do not name: UpdateConfig
// touches no fragment (compatible); Merge rewrites the whole fragment list and
// DataOverlay's fragments are not carried here, so both count as touching
// every fragment (retryable). nullopt for any other operation.
std::optional<ConflictClass> TableWideRow(Op committed) {
  switch (committed) {
    case Op::kUpdateConfig:
      return kOk;
    case Op::kMerge:
    case Op::kDataOverlay:
      return kRetry;
    default:
      return std::nullopt;
  }
}

ConflictClass AppendRow(Op committed) {
  if (committed == Op::kUpdateMemWalState) return kNever;
  return kOk;
}

ConflictClass DeleteRow(const pb::Transaction& self,
                        const pb::Transaction& committed) {
  if (const auto row = TableWideRow(committed.operation_case())) return *row;
  const FragmentIds mine = DeletedBy(self);
  switch (committed.operation_case()) {
    case Op::kAppend:
    case Op::kCreateIndex:
      return kOk;
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kRetry : kOk;
    case Op::kUpdate:
      return Meets(mine, UpdatedBy(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    default:
      return kNever;
  }
}

ConflictClass UpdateRow(const pb::Transaction& self,
                        const pb::Transaction& committed) {
  if (const auto row = TableWideRow(committed.operation_case())) return *row;
  const FragmentIds mine = UpdatedBy(self);
  switch (committed.operation_case()) {
    case Op::kAppend:
    case Op::kCreateIndex:
      return kOk;
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kRetry : kOk;
    case Op::kUpdate:
      return Meets(mine, UpdatedBy(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kUpdateMemWalState:
      return CheckCompactedSsTablesConflict(
          committed.update_mem_wal_state().compacted_sstables(),
          self.update().compacted_sstables());
    default:
      return kNever;
  }
}

Result<ConflictClass> RewriteRow(const pb::Transaction& self,
                                 const pb::Transaction& committed) {
  if (const auto row = TableWideRow(committed.operation_case())) return *row;
  const FragmentIds mine = RewrittenBy(self);
  switch (committed.operation_case()) {
    case Op::kAppend:
    case Op::kUpdateMemWalState:
      return kOk;
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kRetry : kOk;
    case Op::kUpdate:
      return Meets(mine, UpdatedBy(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kCreateIndex: {
      MEMWAL_ASSIGN_OR_RETURN(const bool covers,
                              NewSegmentCovers(committed, mine));
      return covers ? kRetry : kOk;
    }
    default:
      return kNever;
  }
}

// Lance: prune_updated_fields_from_indices on our new segments [P §4.3, spec
// R31 note a].
Status PruneNewSegments(pb::Transaction* self,
                        const pb::Transaction::Update& update) {
  FragmentIds updated;
  for (const auto& fragment : update.updated_fragments())
    updated.insert(fragment.id());
  const std::set<int64_t> fields(update.fields_modified().begin(),
                                 update.fields_modified().end());
  for (pb::IndexMetadata& index :
       *self->mutable_create_index()->mutable_new_indices()) {
    bool on_modified_field = false;
    for (const int32_t field : index.fields())
      on_modified_field |= fields.count(field) != 0;
    if (!on_modified_field) continue;
    MEMWAL_ASSIGN_OR_RETURN(Coverage covers,
                            DecodeFragmentBitmap(index.fragment_bitmap()));
    if (!covers.has_value()) continue;
    for (const uint64_t id : updated) covers->erase(id);
    index.set_fragment_bitmap(EncodeFragmentBitmap(covers));
  }
  return Status::Ok();
}

// Lance: a MemWAL install rebased over a committed UpdateMemWalState keeps,
// per shard, the higher of its own and the committed generation [P §4.3
// finish_create_index].
Status MergeCommittedProgress(pb::Transaction* self,
                              const pb::Transaction& committed) {
  pb::IndexMetadata* installed = nullptr;
  for (pb::IndexMetadata& index :
       *self->mutable_create_index()->mutable_new_indices()) {
    if (IsMemWalIndex(index)) installed = &index;
  }
  MEMWAL_ASSERT(installed != nullptr);
  MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(*installed));
  ShardGenerations merged = Generations(details.compacted_sstables());
  for (const pb::CompactedSsTable& theirs :
       committed.update_mem_wal_state().compacted_sstables()) {
    const std::string& shard = theirs.shard_id().uuid();
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const auto& e) { return e.first == shard; });
    if (it == merged.end()) {
      merged.emplace_back(shard, theirs.generation());
    } else {
      it->second = std::max(it->second, theirs.generation());
    }
  }
  SetGenerations(merged, details.mutable_compacted_sstables());
  PackMemWalDetails(details, installed);
  MEMWAL_ASSERT(IsMemWalIndex(*installed));
  return Status::Ok();
}

Result<ConflictClass> CreateIndexRow(pb::Transaction* self,
                                     const pb::Transaction& committed) {
  const bool installs = InstalledMemWalIndex(*self) != nullptr;
  switch (committed.operation_case()) {
    case Op::kAppend:
    case Op::kDelete:
    case Op::kUpdateConfig:
    case Op::kDataOverlay:
      return kOk;
    case Op::kMerge:
      // Lance #8539: a MemWAL install meets a committed Merge as retryable.
      return installs ? kRetry : kOk;
    case Op::kUpdate:
      MEMWAL_RETURN_IF_ERROR(PruneNewSegments(self, committed.update()));
      return kOk;
    case Op::kRewrite: {
      MEMWAL_ASSIGN_OR_RETURN(const bool covers,
                              NewSegmentCovers(*self, RewrittenBy(committed)));
      return covers ? kRetry : kOk;
    }
    case Op::kCreateIndex: {
      // Lance: two MemWAL installs conflict (retryable), as singletons.
      if (installs && InstalledMemWalIndex(committed) != nullptr) return kRetry;
      const std::set<std::string> mine = IndexNames(*self);
      for (const std::string& name : IndexNames(committed)) {
        if (mine.count(name) != 0) return kRetry;
      }
      return kOk;
    }
    case Op::kUpdateMemWalState:
      // Lance: a MemWAL install rebases over it and keeps its progress; a
      // user index build cannot (incompatible).
      if (!installs) return kNever;
      MEMWAL_RETURN_IF_ERROR(MergeCommittedProgress(self, committed));
      return kOk;
    default:
      return kNever;
  }
}

Result<ConflictClass> UpdateMemWalStateRow(const pb::Transaction& self,
                                           const pb::Transaction& committed) {
  const auto& mine = self.update_mem_wal_state().compacted_sstables();
  switch (committed.operation_case()) {
    case Op::kRewrite:
    case Op::kUpdateConfig:
      return kOk;
    case Op::kCreateIndex: {
      // Lance: a committed MemWAL install is checked like a progress commit,
      // against the progress its details carry.
      const pb::IndexMetadata* installed = InstalledMemWalIndex(committed);
      if (installed == nullptr) return kOk;
      MEMWAL_ASSIGN_OR_RETURN(const pb::MemWalIndexDetails details,
                              UnpackMemWalDetails(*installed));
      return CheckCompactedSsTablesConflict(details.compacted_sstables(), mine);
    }
    case Op::kUpdate:
      return CheckCompactedSsTablesConflict(
          committed.update().compacted_sstables(), mine);
    case Op::kUpdateMemWalState:
      return CheckCompactedSsTablesConflict(
          committed.update_mem_wal_state().compacted_sstables(), mine);
    default:
      return kNever;
  }
}

// Keys an UpdateConfig edits in the table config.
std::set<std::string> ConfigKeys(const pb::Transaction& t) {
  std::set<std::string> keys;
  for (const auto& entry : t.update_config().config_updates().update_entries())
    keys.insert(entry.key());
  return keys;
}

// Lance: UpdateConfig meets a committed UpdateMemWalState compatibly [P §5.1].
// The rest follows the general rule: it touches no fragment, so only a
// committed UpdateConfig that edits one of its keys (or replaces the config)
// makes it retryable.
ConflictClass UpdateConfigRow(const pb::Transaction& self,
                              const pb::Transaction& committed) {
  if (!committed.has_update_config()) return kOk;
  if (self.update_config().config_updates().replace() ||
      committed.update_config().config_updates().replace()) {
    return kRetry;
  }
  const std::set<std::string> mine = ConfigKeys(self);
  for (const std::string& key : ConfigKeys(committed)) {
    if (mine.count(key) != 0) return kRetry;
  }
  return kOk;
}

// Lance: Merge meets a committed UpdateMemWalState as incompatible [P §5.1];
// UpdateConfig and CreateIndex leave its fragment list alone (compatible); any
// other data operation changed fragments it rewrites (retryable).
ConflictClass MergeRow(Op committed) {
  switch (committed) {
    case Op::kUpdateMemWalState:
      return kNever;
    case Op::kUpdateConfig:
    case Op::kCreateIndex:
      return kOk;
    default:
      return kRetry;
  }
}

}  // namespace

const pb::IndexMetadata* InstalledMemWalIndex(const pb::Transaction& t) {
  if (!t.has_create_index()) return nullptr;
  for (const pb::IndexMetadata& index : t.create_index().new_indices()) {
    if (IsMemWalIndex(index)) return &index;
  }
  return nullptr;
}

void FinishMemWalInstall(const pb::IndexSection& head, uint64_t head_version,
                         bool progress_met, const std::string& fresh_uuid,
                         pb::Transaction* self) {
  MEMWAL_ASSERT(self != nullptr && self->has_create_index());
  if (InstalledMemWalIndex(*self) == nullptr) return;
  pb::Transaction::CreateIndex* op = self->mutable_create_index();
  std::set<std::string> removed;
  for (const auto& index : op->removed_indices())
    removed.insert(index.uuid().uuid());
  for (const pb::IndexMetadata& index : head.indices()) {
    if (!IsMemWalIndex(index) || removed.count(index.uuid().uuid()) != 0)
      continue;
    *op->add_removed_indices() = index;
  }
  if (!progress_met) return;
  MEMWAL_ASSERT(fresh_uuid.size() == 16);
  for (pb::IndexMetadata& index : *op->mutable_new_indices()) {
    if (!IsMemWalIndex(index)) continue;
    index.mutable_uuid()->set_uuid(fresh_uuid);
    index.set_dataset_version(head_version);
  }
}

ConflictClass CheckCompactedSsTablesConflict(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& committed,
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& proposed) {
  for (const pb::CompactedSsTable& mine : proposed) {
    for (const pb::CompactedSsTable& theirs : committed) {
      if (theirs.shard_id().uuid() != mine.shard_id().uuid()) continue;
      return theirs.generation() >= mine.generation() ? kNever : kRetry;
    }
  }
  return kOk;
}

Result<ConflictClass> ClassifyConflict(pb::Transaction* self,
                                       const pb::Transaction& committed) {
  MEMWAL_ASSERT(self != nullptr);
  const Op committed_op = committed.operation_case();
  // Every operation meets a committed Restore (or a table re-creation) as
  // incompatible.
  if (committed_op == Op::kRestore || committed_op == Op::kOverwrite ||
      committed_op == Op::kClone) {
    return kNever;
  }
  switch (self->operation_case()) {
    case Op::kAppend:
      return AppendRow(committed_op);
    case Op::kDelete:
      return DeleteRow(*self, committed);
    case Op::kUpdate:
      return UpdateRow(*self, committed);
    case Op::kRewrite:
      return RewriteRow(*self, committed);
    case Op::kCreateIndex:
      return CreateIndexRow(self, committed);
    case Op::kUpdateMemWalState:
      return UpdateMemWalStateRow(*self, committed);
    case Op::kUpdateConfig:
      return UpdateConfigRow(*self, committed);
    case Op::kMerge:
      return MergeRow(committed_op);
    default:
      return Status::InvalidArgument(
          "cannot commit this operation through the rebase path");
  }
}

}  // namespace memwal::impl
