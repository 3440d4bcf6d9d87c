// Conflict classes, one function per row (the operation to commit) of the
// table in spec R31, for every operation Lance's resolver knows. The cells
// follow Lance's resolver (conflict_resolver.rs, check_*_txn) as read at
// lance-format/lance 7c800fd; docs/conflicts.md is the whole table, with the
// cells where this one differs and why (tests/impl/conflict_table_test.cc
// checks every cell and the document).
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

// Fragments a Delete or an Update removes outright, replaces the data of, or
// overlays.
FragmentIds RemovedBy(const pb::Transaction& t) {
  FragmentIds ids = DeletedBy(t);
  if (t.has_update()) {
    ids.insert(t.update().removed_fragment_ids().begin(),
               t.update().removed_fragment_ids().end());
  }
  return ids;
}

FragmentIds ReplacedBy(const pb::Transaction& t) {
  FragmentIds ids;
  if (!t.has_data_replacement()) return ids;
  for (const auto& group : t.data_replacement().replacements())
    ids.insert(group.fragment_id());
  return ids;
}

FragmentIds OverlaidBy(const pb::Transaction& t) {
  FragmentIds ids;
  if (!t.has_data_overlay()) return ids;
  for (const auto& group : t.data_overlay().groups())
    ids.insert(group.fragment_id());
  return ids;
}

// Fields a DataReplacement writes, and the fields the new indices of a
// CreateIndex depend on.
std::set<int64_t> ReplacedFields(const pb::Transaction& t) {
  std::set<int64_t> fields;
  for (const auto& group : t.data_replacement().replacements()) {
    for (const int32_t field : group.new_file().fields()) fields.insert(field);
  }
  return fields;
}

std::set<int64_t> IndexedFields(const pb::Transaction& t) {
  std::set<int64_t> fields;
  for (const auto& index : t.create_index().new_indices()) {
    for (const int32_t field : index.fields()) fields.insert(field);
  }
  return fields;
}

template <typename A, typename B>
bool MeetsAny(const A& a, const B& b) {
  for (const auto& x : a) {
    if (b.count(x) != 0) return true;
  }
  return false;
}

// Lance's two checks before any row: a schema change that may alter
// nullability (a Project or a Merge that does not assert it preserves
// nullability) against an operation that supplies values (Append, Update,
// DataReplacement, DataOverlay), in either order; and a Merge against an
// UpdateConfig that edits schema or field metadata, in either order. Both are
// retryable.
bool MayAlterNullability(const pb::Transaction& t) {
  return (t.has_project() && !t.project().preserves_nullability()) ||
         (t.has_merge() && !t.merge().preserves_nullability());
}

bool SuppliesValues(const pb::Transaction& t) {
  return t.has_append() || t.has_update() || t.has_data_replacement() ||
         t.has_data_overlay();
}

bool EditsMap(const pb::Transaction::UpdateMap& map) {
  return map.replace() || map.update_entries_size() > 0;
}

bool UpdatesSchemaOrFieldMetadata(const pb::Transaction& t) {
  if (!t.has_update_config()) return false;
  const auto& op = t.update_config();
  if (op.has_schema_metadata_updates() &&
      EditsMap(op.schema_metadata_updates()))
    return true;
  for (const auto& field : op.field_metadata_updates()) {
    if (EditsMap(field.update())) return true;
  }
  return false;
}

bool PreCheckRetries(const pb::Transaction& self,
                     const pb::Transaction& committed) {
  if ((MayAlterNullability(self) && SuppliesValues(committed)) ||
      (SuppliesValues(self) && MayAlterNullability(committed)))
    return true;
  return (self.has_merge() && UpdatesSchemaOrFieldMetadata(committed)) ||
         (UpdatesSchemaOrFieldMetadata(self) && committed.has_merge());
}

bool ReplacesTheTable(Op op) {
  return op == Op::kOverwrite || op == Op::kRestore;
}

ConflictClass AppendRow(Op committed) {
  if (ReplacesTheTable(committed) || committed == Op::kUpdateMemWalState)
    return kNever;
  return kOk;
}

ConflictClass DeleteRow(const pb::Transaction& self,
                        const pb::Transaction& committed) {
  const FragmentIds mine = DeletedBy(self);
  switch (committed.operation_case()) {
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kRetry : kOk;
    case Op::kUpdate:
      return Meets(mine, UpdatedBy(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kDataReplacement:
      return Meets(mine, ReplacedBy(committed)) ? kRetry : kOk;
    case Op::kMerge:
      return kRetry;
    case Op::kOverwrite:
    case Op::kRestore:
    case Op::kUpdateMemWalState:
      return kNever;
    default:
      // Append, CreateIndex, ReserveFragments, Project, UpdateConfig, Clone,
      // UpdateBases, and DataOverlay (a deleted row's overlay is inert).
      return kOk;
  }
}

ConflictClass UpdateRow(const pb::Transaction& self,
                        const pb::Transaction& committed) {
  const FragmentIds mine = UpdatedBy(self);
  switch (committed.operation_case()) {
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kRetry : kOk;
    case Op::kUpdate:
      return Meets(mine, UpdatedBy(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kDataReplacement:
      return Meets(mine, ReplacedBy(committed)) ? kRetry : kOk;
    case Op::kDataOverlay: {
      // Lance: an in-place column rewrite retries when the overlay touches a
      // fragment and a field it rewrote (the overlay's fields are not carried
      // here: any overlaid fragment it rewrote); a row-moving update retries
      // when the rows it moved meet the overlay's coverage (the moved rows
      // are not carried: any overlaid fragment it touched, as Lance does
      // without them); an update that moves no row never conflicts.
      const auto& update = self.update();
      const bool moves_rows =
          update.new_fragments_size() > 0 &&
          update.update_mode() == pb::Transaction::Update::REWRITE_ROWS;
      if (update.update_mode() != pb::Transaction::Update::REWRITE_ROWS ||
          moves_rows)
        return Meets(mine, OverlaidBy(committed)) ? kRetry : kOk;
      return kOk;
    }
    case Op::kMerge:
      return kRetry;
    case Op::kOverwrite:
    case Op::kRestore:
      return kNever;
    case Op::kUpdateMemWalState:
      return CheckCompactedSsTablesConflict(
          committed.update_mem_wal_state().compacted_sstables(),
          self.update().compacted_sstables());
    default:
      // Append (no inserted-rows filter is carried), CreateIndex,
      // ReserveFragments, Project, UpdateConfig, Clone, UpdateBases.
      return kOk;
  }
}

Result<ConflictClass> RewriteRow(const pb::Transaction& self,
                                 const pb::Transaction& committed) {
  const FragmentIds mine = RewrittenBy(self);
  switch (committed.operation_case()) {
    case Op::kDelete:
      // Lance: the fragments a Delete removed or wrote a deletion file for
      // (its updated_fragments): a rewrite of either would drop the deletion.
      return Meets(mine, DeletedBy(committed)) ||
                     Meets(mine, UpdatedBy(committed))
                 ? kRetry
                 : kOk;
    case Op::kUpdate:
      return Meets(mine, UpdatedBy(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kDataReplacement:
      return Meets(mine, ReplacedBy(committed)) ? kRetry : kOk;
    case Op::kDataOverlay:
      return Meets(mine, OverlaidBy(committed)) ? kRetry : kOk;
    case Op::kCreateIndex: {
      MEMWAL_ASSIGN_OR_RETURN(const bool covers,
                              NewSegmentCovers(committed, mine));
      return covers ? kRetry : kOk;
    }
    case Op::kMerge:
      return kRetry;
    case Op::kOverwrite:
    case Op::kRestore:
      return kNever;
    default:
      // Append, ReserveFragments, Project, UpdateConfig, UpdateMemWalState,
      // Clone, UpdateBases.
      return kOk;
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
    case Op::kDataReplacement:
      // A replaced field an index depends on.
      return MeetsAny(ReplacedFields(committed), IndexedFields(*self)) ? kRetry
                                                                       : kOk;
    case Op::kUpdateMemWalState:
      // Lance: a MemWAL install rebases over it and keeps its progress; a
      // user index build cannot (incompatible).
      if (!installs) return kNever;
      MEMWAL_RETURN_IF_ERROR(MergeCommittedProgress(self, committed));
      return kOk;
    case Op::kOverwrite:
    case Op::kRestore:
      return kNever;
    default:
      // Append, Delete (row ids stay valid), ReserveFragments, Project,
      // UpdateConfig, Clone, UpdateBases, DataOverlay (newer than the index:
      // the query path's version gate excludes its cells).
      return kOk;
  }
}

Result<ConflictClass> UpdateMemWalStateRow(const pb::Transaction& self,
                                           const pb::Transaction& committed) {
  const auto& mine = self.update_mem_wal_state().compacted_sstables();
  switch (committed.operation_case()) {
    case Op::kRewrite:
    case Op::kUpdateConfig:
    case Op::kReserveFragments:
    case Op::kUpdateBases:
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
      // Append, Overwrite, Delete, DataReplacement, DataOverlay, Merge,
      // Restore, Clone, Project: a progress commit does not rebase over data.
      return kNever;
  }
}

// Config keys an operation upserts (an UpdateConfig entry with a value, an
// Overwrite's config_upsert_values) and deletes (an entry without one).
std::set<std::string> UpsertKeys(const pb::Transaction& t) {
  std::set<std::string> keys;
  if (t.has_update_config()) {
    for (const auto& entry :
         t.update_config().config_updates().update_entries()) {
      if (entry.has_value()) keys.insert(entry.key());
    }
  }
  if (t.has_overwrite()) {
    for (const auto& [key, value] : t.overwrite().config_upsert_values())
      keys.insert(key);
  }
  return keys;
}

std::set<std::string> DeleteKeys(const pb::Transaction& t) {
  std::set<std::string> keys;
  if (!t.has_update_config()) return keys;
  for (const auto& entry :
       t.update_config().config_updates().update_entries()) {
    if (!entry.has_value()) keys.insert(entry.key());
  }
  return keys;
}

// Lance: a key one side upserts that the other upserts or deletes. A config
// replaced wholesale meets every key.
bool UpsertKeyConflict(const pb::Transaction& a, const pb::Transaction& b) {
  const auto replaces = [](const pb::Transaction& t) {
    return t.has_update_config() &&
           t.update_config().config_updates().replace();
  };
  if ((replaces(a) && !UpsertKeys(b).empty()) ||
      (replaces(b) && !UpsertKeys(a).empty()))
    return true;
  const std::set<std::string> a_upserts = UpsertKeys(a);
  const std::set<std::string> b_upserts = UpsertKeys(b);
  return MeetsAny(a_upserts, b_upserts) || MeetsAny(a_upserts, DeleteKeys(b)) ||
         MeetsAny(b_upserts, DeleteKeys(a));
}

// Lance: both edit the schema metadata, or the metadata of one field.
bool ModifiesSameMetadata(const pb::Transaction::UpdateConfig& a,
                          const pb::Transaction::UpdateConfig& b) {
  if (a.has_schema_metadata_updates() && b.has_schema_metadata_updates())
    return true;
  std::set<uint32_t> fields;
  for (const auto& field : a.field_metadata_updates())
    fields.insert(field.field_id());
  for (const auto& field : b.field_metadata_updates()) {
    if (fields.count(field.field_id()) != 0) return true;
  }
  return false;
}

// Lance: an UpdateConfig meets a committed Overwrite incompatibly when it
// edits schema or field metadata or a key the Overwrite upserts, and a
// committed UpdateConfig when a key or the same metadata meets; anything else
// compatibly (it touches no fragment).
ConflictClass UpdateConfigRow(const pb::Transaction& self,
                              const pb::Transaction& committed) {
  const auto& mine = self.update_config();
  if (committed.has_overwrite()) {
    return mine.has_schema_metadata_updates() ||
                   mine.field_metadata_updates_size() > 0 ||
                   UpsertKeyConflict(self, committed)
               ? kNever
               : kOk;
  }
  if (committed.has_update_config()) {
    return UpsertKeyConflict(self, committed) ||
                   ModifiesSameMetadata(mine, committed.update_config())
               ? kNever
               : kOk;
  }
  return kOk;
}

// Lance: Merge rewrites the whole fragment list, so any data operation
// retries it; a MemWAL install (#8539) too; a table replacement, a Project or
// a progress commit makes it incompatible.
ConflictClass MergeRow(const pb::Transaction& committed) {
  switch (committed.operation_case()) {
    case Op::kCreateIndex:
      return InstalledMemWalIndex(committed) != nullptr ? kRetry : kOk;
    case Op::kReserveFragments:
    case Op::kClone:
    case Op::kUpdateConfig:
    case Op::kUpdateBases:
      return kOk;
    case Op::kOverwrite:
    case Op::kRestore:
    case Op::kProject:
    case Op::kUpdateMemWalState:
      return kNever;
    default:
      // Append, Delete, Update, Rewrite, Merge, DataReplacement, DataOverlay.
      return kRetry;
  }
}

// Lance: a concurrent Overwrite retries (the user decides whether theirs
// still stands; a key both upsert makes it incompatible), an UpdateConfig of
// a key it upserts and a progress commit are incompatible, the rest
// compatible: it replaces the table anyway.
ConflictClass OverwriteRow(const pb::Transaction& self,
                           const pb::Transaction& committed) {
  switch (committed.operation_case()) {
    case Op::kOverwrite:
      return UpsertKeyConflict(self, committed) ? kNever : kRetry;
    case Op::kUpdateConfig:
      return UpsertKeyConflict(self, committed) ? kNever : kOk;
    case Op::kUpdateMemWalState:
      return kNever;
    default:
      return kOk;
  }
}

// Lance: a Restore rebases over anything but a progress commit.
ConflictClass RestoreRow(Op committed) {
  return committed == Op::kUpdateMemWalState ? kNever : kOk;
}

// Lance: reserving fragment ids only bumps a counter; only a table
// replacement makes it incompatible.
ConflictClass ReserveRow(Op committed) {
  return ReplacesTheTable(committed) ? kNever : kOk;
}

// Lance: Project is compatible with anything that keeps the schema; another
// schema change retries it; a table replacement or a progress commit makes
// it incompatible.
ConflictClass ProjectRow(Op committed) {
  switch (committed) {
    case Op::kMerge:
    case Op::kProject:
      return kRetry;
    case Op::kOverwrite:
    case Op::kRestore:
    case Op::kUpdateMemWalState:
      return kNever;
    default:
      return kOk;
  }
}

// Lance: a DataReplacement whose target fragment a Delete or an Update
// removed outright is incompatible; one a row-moving Update touched, or one
// whose field an Update rewrote, a Rewrite compacted, another replacement of
// the same fragment and field, or an index build over a replaced field
// retries it; a Project that dropped a replaced field is incompatible.
ConflictClass DataReplacementRow(const pb::Transaction& self,
                                 const pb::Transaction& committed) {
  const FragmentIds mine = ReplacedBy(self);
  const std::set<int64_t> fields = ReplacedFields(self);
  switch (committed.operation_case()) {
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kNever : kOk;
    case Op::kUpdate: {
      const auto& update = committed.update();
      if (Meets(mine, RemovedBy(committed))) return kNever;
      FragmentIds touched;
      for (const auto& fragment : update.updated_fragments())
        touched.insert(fragment.id());
      const bool moves_rows =
          update.new_fragments_size() > 0 &&
          update.update_mode() == pb::Transaction::Update::REWRITE_ROWS;
      const std::set<int64_t> rewritten(update.fields_modified().begin(),
                                        update.fields_modified().end());
      return Meets(mine, touched) && (moves_rows || MeetsAny(fields, rewritten))
                 ? kRetry
                 : kOk;
    }
    case Op::kCreateIndex:
      return MeetsAny(fields, IndexedFields(committed)) ? kRetry : kOk;
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kDataReplacement: {
      for (const auto& a : self.data_replacement().replacements()) {
        for (const auto& b : committed.data_replacement().replacements()) {
          if (a.fragment_id() != b.fragment_id()) continue;
          for (const int32_t field : a.new_file().fields()) {
            for (const int32_t other : b.new_file().fields()) {
              if (field == other) return kRetry;
            }
          }
        }
      }
      return kOk;
    }
    case Op::kProject: {
      std::set<int64_t> kept;
      for (const auto& field : committed.project().schema())
        kept.insert(field.id());
      for (const int64_t field : fields) {
        if (field >= 0 && kept.count(field) == 0) return kNever;
      }
      return kOk;
    }
    case Op::kMerge:
      return kRetry;
    case Op::kOverwrite:
    case Op::kRestore:
    case Op::kUpdateMemWalState:
      return kNever;
    default:
      // Append, Clone, UpdateConfig, ReserveFragments, UpdateBases,
      // DataOverlay (newer, it wins the cells it covers).
      return kOk;
  }
}

// Lance: overlays stack and tolerate appends, index builds, replacements and
// in-place column rewrites; a Delete or an Update that removed an overlaid
// fragment, a row-moving Update over one (Lance checks the moved rows
// against the coverage; neither is carried here: any overlaid fragment it
// touched), or a Rewrite of one retries it; a Merge retries it; a table
// replacement or a progress commit makes it incompatible.
ConflictClass DataOverlayRow(const pb::Transaction& self,
                             const pb::Transaction& committed) {
  const FragmentIds mine = OverlaidBy(self);
  switch (committed.operation_case()) {
    case Op::kDelete:
      return Meets(mine, DeletedBy(committed)) ? kRetry : kOk;
    case Op::kUpdate: {
      const auto& update = committed.update();
      if (Meets(mine, RemovedBy(committed))) return kRetry;
      FragmentIds touched;
      for (const auto& fragment : update.updated_fragments())
        touched.insert(fragment.id());
      const bool moves_rows =
          update.new_fragments_size() > 0 &&
          update.update_mode() == pb::Transaction::Update::REWRITE_ROWS;
      return moves_rows && Meets(mine, touched) ? kRetry : kOk;
    }
    case Op::kRewrite:
      return Meets(mine, RewrittenBy(committed)) ? kRetry : kOk;
    case Op::kMerge:
      return kRetry;
    case Op::kOverwrite:
    case Op::kRestore:
    case Op::kUpdateMemWalState:
      return kNever;
    default:
      return kOk;
  }
}

// Lance: a base path, name or id both add is incompatible; nothing else
// meets it.
ConflictClass UpdateBasesRow(const pb::Transaction& self,
                             const pb::Transaction& committed) {
  if (!committed.has_update_bases()) return kOk;
  for (const auto& mine : self.update_bases().new_bases()) {
    for (const auto& theirs : committed.update_bases().new_bases()) {
      if ((mine.id() != 0 && mine.id() == theirs.id()) ||
          (mine.has_name() && theirs.has_name() &&
           mine.name() == theirs.name()) ||
          mine.path() == theirs.path())
        return kNever;
    }
  }
  return kOk;
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

namespace {

// Every row but CreateIndex's, which alone adjusts the transaction (the
// caller runs PreCheckRetries first).
Result<ConflictClass> ReadOnlyRow(const pb::Transaction& self,
                                  const pb::Transaction& committed) {
  const Op committed_op = committed.operation_case();
  switch (self.operation_case()) {
    case Op::kAppend:
      return AppendRow(committed_op);
    case Op::kDelete:
      return DeleteRow(self, committed);
    case Op::kOverwrite:
      return OverwriteRow(self, committed);
    case Op::kCreateIndex:
      MEMWAL_ASSERT(false);  // ClassifyConflict(pb::Transaction*, ...)
      break;
    case Op::kRewrite:
      return RewriteRow(self, committed);
    case Op::kMerge:
      return MergeRow(committed);
    case Op::kRestore:
      return RestoreRow(committed_op);
    case Op::kReserveFragments:
      return ReserveRow(committed_op);
    case Op::kUpdate:
      return UpdateRow(self, committed);
    case Op::kProject:
      return ProjectRow(committed_op);
    case Op::kUpdateConfig:
      return UpdateConfigRow(self, committed);
    case Op::kDataReplacement:
      return DataReplacementRow(self, committed);
    case Op::kUpdateMemWalState:
      return UpdateMemWalStateRow(self, committed);
    case Op::kClone:
      return kOk;  // Lance: a clone makes a new table; nothing meets it
    case Op::kUpdateBases:
      return UpdateBasesRow(self, committed);
    case Op::kDataOverlay:
      return DataOverlayRow(self, committed);
    case Op::OPERATION_NOT_SET:
      break;
  }
  return Status::InvalidArgument("a transaction without an operation");
}

}  // namespace

bool ConflictMayAdjust(const pb::Transaction& self) {
  return self.has_create_index();
}

Result<ConflictClass> ClassifyConflict(pb::Transaction* self,
                                       const pb::Transaction& committed) {
  MEMWAL_ASSERT(self != nullptr);
  MEMWAL_ASSERT(committed.operation_case() != Op::OPERATION_NOT_SET);
  if (PreCheckRetries(*self, committed)) return kRetry;
  if (ConflictMayAdjust(*self)) return CreateIndexRow(self, committed);
  return ReadOnlyRow(*self, committed);
}

Result<ConflictClass> ClassifyConflict(const pb::Transaction& self,
                                       const pb::Transaction& committed) {
  MEMWAL_ASSERT(!ConflictMayAdjust(self));
  MEMWAL_ASSERT(committed.operation_case() != Op::OPERATION_NOT_SET);
  if (PreCheckRetries(self, committed)) return kRetry;
  return ReadOnlyRow(self, committed);
}

}  // namespace memwal::impl
