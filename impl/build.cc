// build_manifest; see build.h. The operation arms follow Lance's [P §5]
// restricted to the operations of spec R20-R29; catch-up and flags follow spec
// R35 step by step.
#include "impl/build.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "impl/feature_flags.h"
#include "impl/rows.h"

namespace memwal::impl {
namespace {

Status Refuse(const std::string& why) {
  return Status::FailedPrecondition(why);
}

uint64_t NextFragmentId(const pb::Manifest& manifest) {
  if (manifest.has_max_fragment_id())
    return uint64_t{manifest.max_fragment_id()} + 1;
  uint64_t next = 0;
  for (const auto& fragment : manifest.fragments())
    next = std::max(next, fragment.id() + 1);
  return next;
}

void SortFragments(pb::Manifest* manifest) {
  auto* fragments = manifest->mutable_fragments();
  std::sort(fragments->begin(), fragments->end(),
            [](const auto& a, const auto& b) { return a.id() < b.id(); });
}

Status RemoveFragment(pb::Manifest* manifest, uint64_t id) {
  auto* fragments = manifest->mutable_fragments();
  for (int k = 0; k < fragments->size(); ++k) {
    if (fragments->Get(k).id() != id) continue;
    fragments->DeleteSubrange(k, 1);
    return Status::Ok();
  }
  return Refuse("fragment " + std::to_string(id) + " is no longer live");
}

Status ReplaceFragment(pb::Manifest* manifest,
                       const pb::DataFragment& updated) {
  for (pb::DataFragment& fragment : *manifest->mutable_fragments()) {
    if (fragment.id() != updated.id()) continue;
    fragment = updated;
    return Status::Ok();
  }
  return Refuse("fragment " + std::to_string(updated.id()) +
                " is no longer live");
}

// Lance: new fragments take ids from the max_fragment_id high-water mark [P
// §4.2].
std::vector<uint64_t> AddFragments(
    pb::Manifest* manifest,
    const google::protobuf::RepeatedPtrField<pb::DataFragment>& added) {
  std::vector<uint64_t> ids;
  for (const pb::DataFragment& fragment : added) {
    const uint64_t id = NextFragmentId(*manifest);
    MEMWAL_ASSERT(id <= UINT32_MAX);
    pb::DataFragment* copy = manifest->add_fragments();
    *copy = fragment;
    copy->set_id(id);
    manifest->set_max_fragment_id(static_cast<uint32_t>(id));
    // Lance: rows new to the table get fresh stable row ids from next_row_id;
    // a rewrite's fragment arrives with the ids it keeps [P §10.1].
    if (copy->row_id_sequence_case() ==
        pb::DataFragment::ROW_ID_SEQUENCE_NOT_SET) {
      std::vector<uint64_t> row_ids;
      for (uint64_t k = 0; k < copy->physical_rows(); ++k)
        row_ids.push_back(manifest->next_row_id() + k);
      manifest->set_next_row_id(manifest->next_row_id() +
                                copy->physical_rows());
      copy->set_inline_row_ids(EncodeRowIdSequence(row_ids));
    }
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

// Lance: update_mem_wal_index_compacted_sstables (#8262 semantics) [P §3].
Status UpdateCompacted(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& proposed,
    const BuildInput& input, uint64_t version, pb::IndexSection* section) {
  if (proposed.empty()) return Status::Ok();
  const pb::IndexMetadata* index = FindMemWalIndex(*section);
  if (index == nullptr)
    return Refuse("no __lance_mem_wal index to record progress in");
  MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(*index));
  ShardGenerations compacted = Generations(details.compacted_sstables());
  // Bug progress-regresses: the update starts from the read version's
  // compacted_sstables, not the head's, so a shard another compaction
  // advanced since the read goes back.
  if (input.bugs.has(Bug::kProgressRegresses) && input.read != nullptr) {
    const pb::IndexMetadata* read_index =
        FindMemWalIndex(input.read->file->index_section);
    if (read_index != nullptr) {
      MEMWAL_ASSIGN_OR_RETURN(const pb::MemWalIndexDetails read_details,
                              UnpackMemWalDetails(*read_index));
      // The shards this update names keep the head's entry (so a stale
      // generation is still refused); every other shard takes the read's.
      ShardGenerations from_read =
          Generations(read_details.compacted_sstables());
      std::erase_if(from_read, [&](const auto& e) {
        return std::any_of(
            proposed.begin(), proposed.end(),
            [&](const auto& p) { return p.shard_id().uuid() == e.first; });
      });
      for (const auto& e : compacted) {
        const bool named = std::any_of(
            proposed.begin(), proposed.end(),
            [&](const auto& p) { return p.shard_id().uuid() == e.first; });
        if (named) from_read.push_back(e);
      }
      compacted = std::move(from_read);
    }
  }
  std::set<std::string> seen;
  for (const pb::CompactedSsTable& entry : proposed) {
    const std::string& shard = entry.shard_id().uuid();
    if (!seen.insert(shard).second)
      return Refuse("duplicate shard in one progress update");
    auto it = std::find_if(compacted.begin(), compacted.end(),
                           [&](const auto& e) { return e.first == shard; });
    if (it == compacted.end()) {
      compacted.emplace_back(shard, entry.generation());
    } else if (entry.generation() <= it->second) {
      return Refuse("Stale SSTable compaction for shard " + UuidHex(shard));
    } else {
      it->second = entry.generation();
    }
  }
  SetGenerations(compacted, details.mutable_compacted_sstables());
  ReplaceMemWalIndex(details, version, *input.new_uuid, section);
  return Status::Ok();
}

namespace {

// Lance: prune_updated_fields_from_indices, in place, keeping the uuid [P §5].
Status PruneUpdatedFields(const pb::Transaction::Update& update,
                          pb::IndexSection* section) {
  const std::set<int64_t> fields(update.fields_modified().begin(),
                                 update.fields_modified().end());
  for (pb::IndexMetadata& index : *section->mutable_indices()) {
    if (IsMemWalIndex(index)) continue;
    bool hit = false;
    for (const int32_t field : index.fields()) hit |= fields.count(field) != 0;
    if (!hit) continue;
    MEMWAL_ASSIGN_OR_RETURN(Coverage covers,
                            DecodeFragmentBitmap(index.fragment_bitmap()));
    // A segment without a bitmap (Lance allows one) stays without one.
    if (covers.has_value()) {
      for (const auto& fragment : update.updated_fragments())
        covers->erase(fragment.id());
      index.set_fragment_bitmap(EncodeFragmentBitmap(covers));
    }
  }
  return Status::Ok();
}

// Spec R65 (`fence data-pass`): a data pass that names the generation it
// merges is refused once the head has compacted that generation.
Status CheckDataPassFence(const pb::Transaction& t,
                          const pb::IndexSection& head_section) {
  const auto it =
      t.transaction_properties().find(std::string(kDataPassProperty));
  if (it == t.transaction_properties().end()) return Status::Ok();
  const std::string& value = it->second;
  const std::size_t colon = value.find(':');
  if (colon == std::string::npos)
    return Refuse("malformed data-pass fence '" + value + "'");
  // The whole text after the colon is the generation: an empty one is
  // malformed too (from_chars then fails without moving past the end).
  uint64_t generation = 0;
  const char* end = value.data() + value.size();
  const std::from_chars_result parsed =
      std::from_chars(value.data() + colon + 1, end, generation);
  if (parsed.ec != std::errc() || parsed.ptr != end)
    return Refuse("malformed data-pass fence '" + value + "'");
  MEMWAL_ASSIGN_OR_RETURN(const std::optional<pb::MemWalIndexDetails> details,
                          MemWalDetails(head_section));
  if (!details.has_value()) return Status::Ok();
  for (const auto& [shard, compacted] :
       Generations(details->compacted_sstables())) {
    if (UuidHex(shard) == value.substr(0, colon) && generation <= compacted) {
      return Refuse("data pass of an already compacted generation " +
                    std::to_string(generation) + " of shard " +
                    value.substr(0, colon));
    }
  }
  return Status::Ok();
}

Status ApplyUpdate(const pb::Transaction::Update& update,
                   const BuildInput& input, ManifestFile* file) {
  MEMWAL_RETURN_IF_ERROR(
      CheckDataPassFence(*input.transaction, file->index_section));
  pb::Manifest* manifest = &file->manifest;
  for (const uint64_t id : update.removed_fragment_ids()) {
    MEMWAL_RETURN_IF_ERROR(RemoveFragment(manifest, id));
  }
  for (const auto& fragment : update.updated_fragments()) {
    MEMWAL_RETURN_IF_ERROR(ReplaceFragment(manifest, fragment));
  }
  AddFragments(manifest, update.new_fragments());
  MEMWAL_RETURN_IF_ERROR(PruneUpdatedFields(update, &file->index_section));
  return UpdateCompacted(update.compacted_sstables(), input,
                         manifest->version(), &file->index_section);
}

// R24 remap of one rewritten segment: covers - old, plus the new fragment if it
// covered all.
Status RemapSegment(
    const std::vector<std::pair<FragmentSet, std::vector<uint64_t>>>& groups,
    const pb::Transaction::RewrittenIndex& rewritten,
    pb::IndexSection* section) {
  for (pb::IndexMetadata& index : *section->mutable_indices()) {
    if (index.uuid().uuid() != rewritten.old_id().uuid()) continue;
    MEMWAL_ASSIGN_OR_RETURN(Coverage covers,
                            DecodeFragmentBitmap(index.fragment_bitmap()));
    if (!covers.has_value())
      return Refuse("a rewritten index has no fragment bitmap");
    for (const auto& [old_ids, new_ids] : groups) {
      const bool all = std::includes(covers->begin(), covers->end(),
                                     old_ids.begin(), old_ids.end());
      for (const uint64_t id : old_ids) covers->erase(id);
      if (all) covers->insert(new_ids.begin(), new_ids.end());
    }
    index.set_fragment_bitmap(EncodeFragmentBitmap(covers));
    *index.mutable_uuid() = rewritten.new_id();
    // The remapped segment's files are written by this table (Lance: no
    // base_id), even where the old one was a clone source's.
    index.clear_base_id();
    return Status::Ok();
  }
  return Status::Ok();  // Lance: a missing old id is skipped.
}

Status ApplyRewrite(const pb::Transaction::Rewrite& rewrite,
                    ManifestFile* file) {
  std::vector<std::pair<FragmentSet, std::vector<uint64_t>>> groups;
  for (const auto& group : rewrite.groups()) {
    FragmentSet old_ids;
    for (const auto& fragment : group.old_fragments()) {
      old_ids.insert(fragment.id());
      MEMWAL_RETURN_IF_ERROR(RemoveFragment(&file->manifest, fragment.id()));
    }
    groups.emplace_back(std::move(old_ids),
                        AddFragments(&file->manifest, group.new_fragments()));
  }
  for (const auto& rewritten : rewrite.rewritten_indices()) {
    MEMWAL_RETURN_IF_ERROR(
        RemapSegment(groups, rewritten, &file->index_section));
  }
  return Status::Ok();
}

// Lance: an UpdateMap applied to a string map; `replace` starts from empty, an
// entry without a value deletes its key.
void ApplyUpdateMap(const pb::Transaction::UpdateMap& update,
                    google::protobuf::Map<std::string, std::string>* map) {
  if (update.replace()) map->clear();
  for (const auto& entry : update.update_entries()) {
    if (entry.has_value()) {
      (*map)[entry.key()] = entry.value();
    } else {
      map->erase(entry.key());
    }
  }
}

// Lance: UpdateConfig edits the table config and leaves fragments and indices
// alone [P §5.1]; the catch-up rule then finds every index unchanged, so the
// system index (with its writer config) is not rewritten. Field metadata
// updates are parsed but not applied: our schema fields carry no metadata.
void ApplyUpdateConfig(const pb::Transaction::UpdateConfig& op,
                       pb::Manifest* manifest) {
  if (op.has_config_updates())
    ApplyUpdateMap(op.config_updates(), manifest->mutable_config());
}

// The data file paths of `fragment` that hold one of `fields`.
std::set<std::string> FilesOfFields(const pb::DataFragment& fragment,
                                    const std::set<int32_t>& fields) {
  std::set<std::string> paths;
  for (const pb::DataFile& file : fragment.files()) {
    for (const int32_t field : file.fields()) {
      if (fields.count(field) != 0) paths.insert(file.path());
    }
  }
  return paths;
}

// Lance: Merge (add columns) replaces the fragment list and the schema, then
// prune_merge_rewritten_fields_from_indices (in place, same uuid) and
// retain_relevant_indices [P §5.1]. Our reading of the prune: a fragment whose
// data files holding an index's fields differ from the head's leaves that
// index's bitmap; adding columns in new data files prunes nothing.
Status ApplyMerge(const pb::Transaction::Merge& op, ManifestFile* file) {
  std::map<uint64_t, pb::DataFragment> old_fragments;
  for (const auto& fragment : file->manifest.fragments())
    old_fragments.emplace(fragment.id(), fragment);
  file->manifest.mutable_fragments()->CopyFrom(op.fragments());
  for (const auto& fragment : op.fragments()) {
    if (fragment.id() > UINT32_MAX)
      return Status::InvalidArgument("merge fragment id above 2^32");
    if (!file->manifest.has_max_fragment_id() ||
        fragment.id() > file->manifest.max_fragment_id()) {
      file->manifest.set_max_fragment_id(static_cast<uint32_t>(fragment.id()));
    }
  }
  if (op.schema_size() > 0)
    file->manifest.mutable_fields()->CopyFrom(op.schema());
  std::set<int32_t> schema_ids;
  for (const auto& field : file->manifest.fields())
    schema_ids.insert(field.id());
  auto* indices = file->index_section.mutable_indices();
  for (int k = indices->size() - 1; k >= 0; --k) {
    pb::IndexMetadata& index = *indices->Mutable(k);
    if (IsMemWalIndex(index)) continue;
    const std::set<int32_t> fields(index.fields().begin(),
                                   index.fields().end());
    bool relevant = true;
    for (const int32_t field : fields) relevant &= schema_ids.count(field) != 0;
    if (!relevant && !schema_ids.empty()) {
      indices->DeleteSubrange(k, 1);  // Lance: retain_relevant_indices.
      continue;
    }
    MEMWAL_ASSIGN_OR_RETURN(Coverage covers,
                            DecodeFragmentBitmap(index.fragment_bitmap()));
    // A segment without a bitmap (Lance allows one) stays without one.
    if (covers.has_value()) {
      bool pruned = false;
      for (const auto& fragment : op.fragments()) {
        const auto old = old_fragments.find(fragment.id());
        if (old == old_fragments.end() || covers->count(fragment.id()) == 0)
          continue;
        if (FilesOfFields(old->second, fields) !=
            FilesOfFields(fragment, fields)) {
          covers->erase(fragment.id());
          pruned = true;
        }
      }
      if (pruned) index.set_fragment_bitmap(EncodeFragmentBitmap(covers));
    }
  }
  return Status::Ok();
}

// Lance: CreateIndex removes entries whose uuid is removed or re-added, then
// appends [P §5].
void ApplyCreateIndex(const pb::Transaction::CreateIndex& op,
                      pb::IndexSection* section) {
  std::set<std::string> gone;
  for (const auto& index : op.removed_indices())
    gone.insert(index.uuid().uuid());
  for (const auto& index : op.new_indices()) gone.insert(index.uuid().uuid());
  auto* indices = section->mutable_indices();
  for (int k = indices->size() - 1; k >= 0; --k) {
    if (gone.count(indices->Get(k).uuid().uuid()) != 0)
      indices->DeleteSubrange(k, 1);
  }
  for (const auto& index : op.new_indices()) *section->add_indices() = index;
}

Status ApplyOperation(const BuildInput& input, ManifestFile* file) {
  const pb::Transaction& t = *input.transaction;
  const uint64_t version = file->manifest.version();
  switch (t.operation_case()) {
    case pb::Transaction::kAppend:
      AddFragments(&file->manifest, t.append().fragments());
      return Status::Ok();
    case pb::Transaction::kDelete:
      for (const uint64_t id : t.delete_().deleted_fragment_ids()) {
        MEMWAL_RETURN_IF_ERROR(RemoveFragment(&file->manifest, id));
      }
      return Status::Ok();
    case pb::Transaction::kUpdate:
      return ApplyUpdate(t.update(), input, file);
    case pb::Transaction::kRewrite:
      return ApplyRewrite(t.rewrite(), file);
    case pb::Transaction::kCreateIndex:
      ApplyCreateIndex(t.create_index(), &file->index_section);
      return Status::Ok();
    case pb::Transaction::kUpdateConfig:
      ApplyUpdateConfig(t.update_config(), &file->manifest);
      return Status::Ok();
    case pb::Transaction::kMerge:
      return ApplyMerge(t.merge(), file);
    case pb::Transaction::kUpdateMemWalState:
      // Lance #8438: the fragments are carried forward. Bug
      // progress-commit-drops-fragments: the arm never fills the fragment list.
      if (input.bugs.has(Bug::kProgressCommitDropsFragments))
        file->manifest.clear_fragments();
      return UpdateCompacted(t.update_mem_wal_state().compacted_sstables(),
                             input, version, &file->index_section);
    default:
      return Status::InvalidArgument("operation has no build_manifest arm");
  }
}

}  // namespace

bool RequiresCatchup(Protocol protocol, const pb::Manifest& manifest) {
  switch (protocol) {
    case Protocol::kUnconditional:
      return true;
    case Protocol::kLegacy:
      return false;
    default:
      return ReadCatchupBits(manifest).both();
  }
}

void ReplaceMemWalIndex(const pb::MemWalIndexDetails& details, uint64_t version,
                        const UuidSource& new_uuid, pb::IndexSection* section) {
  pb::IndexMetadata* index = FindMemWalIndex(section);
  MEMWAL_ASSERT(index != nullptr);
  PackMemWalDetails(details, index);
  index->mutable_uuid()->set_uuid(new_uuid());
  index->set_dataset_version(version);
  MEMWAL_ASSERT(index->uuid().uuid().size() == 16);
}

Result<std::optional<ReadVersionState>> ReadStateFor(Protocol protocol,
                                                     const Snapshot* read) {
  if (read == nullptr) return std::optional<ReadVersionState>();
  // Lance: commit_transaction loads the read version's indices only if its
  // reader word has bit 128 [P §4.1 step 2]; after PR 8680 always.
  const bool load = protocol == Protocol::kUnconditional ||
                    ReadCatchupBits(read->file->manifest).reader;
  if (!load) return std::optional<ReadVersionState>();
  ReadVersionState state{LiveFragments(read->file->manifest), {}};
  MEMWAL_ASSIGN_OR_RETURN(const auto details,
                          MemWalDetails(read->file->index_section));
  if (details.has_value())
    state.compacted = Generations(details->compacted_sstables());
  return std::optional<ReadVersionState>(std::move(state));
}

Status ApplyCatchupRule(const BuildInput& input, ManifestFile* file);
Status ApplyActivation(const BuildInput& input, ManifestFile* file);

namespace {

// The head's file with the input's transaction in place of its own: shared
// when the caller holds that very message shared, else copied.
ManifestFile StartFromHead(const BuildInput& input) {
  if (input.shared_transaction.get() == input.transaction) {
    return CopyWithSharedTransaction(*input.head->file,
                                     input.shared_transaction);
  }
  return CopyWithTransaction(*input.head->file, input.transaction);
}

}  // namespace

Result<ManifestFile> BuildManifest(const BuildInput& input) {
  MEMWAL_ASSERT(input.head != nullptr && input.transaction != nullptr);
  MEMWAL_ASSERT(input.new_uuid != nullptr);
  const pb::Manifest& current = input.head->file->manifest;
  ManifestFile file = StartFromHead(input);
  file.manifest.set_version(current.version() + 1);
  // Lance: new_from_previous stamps the running library's writer_version.
  const std::size_t dash = input.writer.find('-');
  pb::WriterVersion* writer = file.manifest.mutable_writer_version();
  writer->set_library("lance");
  writer->set_version(std::string(input.writer.substr(0, dash)));
  writer->set_prerelease(dash == std::string_view::npos
                             ? std::string()
                             : std::string(input.writer.substr(dash + 1)));
  MEMWAL_RETURN_IF_ERROR(ApplyOperation(input, &file));
  SortFragments(&file.manifest);
  MEMWAL_RETURN_IF_ERROR(ApplyCatchupRule(input, &file));
  // Lance: Manifest::new_from_previous zeroes both words; apply_feature_flags
  // re-derives them.
  file.manifest.set_reader_feature_flags(0);
  file.manifest.set_writer_feature_flags(0);
  file.manifest.clear_index_section();
  file.manifest.set_transaction_file(input.transaction_file);
  // Lance: build_manifest asks for stable row ids when the head uses them
  // (its reader word has bit 2), so a table emptied of fragments keeps them
  // [P §2.2 (a)].
  const bool stable_row_ids = UsesStableRowIds(current);
  MEMWAL_RETURN_IF_ERROR(
      ApplyFeatureFlags(&file.manifest, stable_row_ids, false, input.bugs));
  // Bug bit-dropped-by-new-from-previous: the bit is not inherited from the
  // head.
  if (!input.bugs.has(Bug::kBitDroppedByNewFromPrevious)) {
    MEMWAL_RETURN_IF_ERROR(
        InheritMemWalIndexCatchup(&file.manifest, current, input.bugs));
  } else if (ReadCatchupBits(current).half()) {
    return Refuse("the head has only one MemWAL catch-up bit");
  }
  MEMWAL_RETURN_IF_ERROR(ApplyActivation(input, &file));
  MEMWAL_ASSERT(file.manifest.version() == current.version() + 1);
  return file;
}

}  // namespace memwal::impl
