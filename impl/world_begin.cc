// World: the table-side transactions of spec section 5. Each Begin* reads the
// head (the transaction's read version) and prepares the Lance transaction a
// real writer would prepare before committing (R20-R29); Commit rebases and
// publishes it (R30, commit.h).
#include <algorithm>

#include "impl/feature_flags.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

using CreateIndexOp = pb::Transaction::CreateIndex;

// Spec R65: with `fence data-pass` a compaction data pass without the marker
// names the generation it merges (kDataPassProperty) and the build refuses it
// once that generation is compacted (CheckDataPassFence, impl/build.cc).
const SwitchOption kFence("fence", 2);

std::string IndexName(uint32_t index) { return "idx_" + std::to_string(index); }

Status NotEnabled(const std::string& why) {
  return Status::FailedPrecondition(why);
}

const pb::DataFragment* FindFragment(const pb::Manifest& manifest,
                                     uint64_t id) {
  for (const auto& fragment : manifest.fragments()) {
    if (fragment.id() == id) return &fragment;
  }
  return nullptr;
}

// Whether `fragment` is in LiveFragments(manifest), without building the set.
bool IsLive(const pb::Manifest& manifest, uint64_t fragment) {
  return FindFragment(manifest, fragment) != nullptr;
}

// Every user segment of `name` in the read version, in index-section order.
std::vector<pb::IndexMetadata> SegmentsNamed(const Snapshot& read,
                                             const std::string& name) {
  std::vector<pb::IndexMetadata> out;
  for (const auto& index : read.file->index_section.indices()) {
    if (index.name() == name) out.push_back(index);
  }
  return out;
}

// The shard's compacted generation at `read`, from the cached view (read.h).
// The view fails only on an index section that does not decode, which no
// World writes (its former fallback to the details alone ran in no
// configuration): that error is the begin's.
Result<uint64_t> CompactedAt(const Snapshot& read, const std::string& shard) {
  MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const VersionView> view,
                          SharedViewOf(read));
  return GenerationFor(view->compacted, shard);
}

}  // namespace

Status World::Begin(pb::Transaction transaction) {
  transaction.set_uuid(NewTransactionUuid(UuidFn()));
  MEMWAL_ASSERT(transaction.operation_case() !=
                pb::Transaction::OPERATION_NOT_SET);
  inflight_.push_back(
      std::make_shared<const pb::Transaction>(std::move(transaction)));
  return Status::Ok();
}

pb::Transaction* World::mutable_inflight_for_testing(size_t slot) {
  MEMWAL_ASSERT(slot < inflight_.size());
  auto own = std::make_shared<pb::Transaction>(*inflight_[slot]);
  inflight_[slot] = own;
  return own.get();
}

Status World::BeginAppend() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  pb::Transaction t;
  t.set_read_version(read.version());
  // One base row; the commit gives it its stable row id.
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(*t.mutable_append()->add_fragments(),
                          WriteDataFragment(&table, UuidHex(NewUuid()),
                                            options_.indexes, {RowKey{}}, {}));
  return Begin(std::move(t));
}

Status World::BeginDeleteFragment(uint64_t fragment) {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  if (!IsLive(read.file->manifest, fragment))
    return NotEnabled("fragment is not live");
  pb::Transaction t;
  t.set_read_version(read.version());
  t.mutable_delete_()->add_deleted_fragment_ids(fragment);
  t.mutable_delete_()->set_predicate("_fragment_id = " +
                                     std::to_string(fragment));
  return Begin(std::move(t));
}

Status World::BeginCompactSsTable(uint32_t shard, bool marker) {
  if (shard >= shard_uuids_.size())
    return Status::InvalidArgument("no such shard");
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  // R63: lancedb drains the compactors too before it drops __lance_mem_wal.
  if (FindMemWalIndex(read.file->index_section) == nullptr)
    return NotEnabled("the table has no __lance_mem_wal (R63)");
  MEMWAL_ASSIGN_OR_RETURN(const uint64_t compacted,
                          CompactedAt(read, shard_uuids_[shard]));
  const uint64_t generation = compacted + 1;
  // Read in place (the shared decoding), not copied: most tries are refused.
  MEMWAL_ASSIGN_OR_RETURN(const auto wal, SharedShardManifest(shard));
  const auto sstable =
      std::find_if(wal->sstables().begin(), wal->sstables().end(),
                   [&](const auto& s) { return s.generation() == generation; });
  if (sstable == wal->sstables().end())
    return NotEnabled("SSTable is not flushed or was retired");
  // The merge-insert copies the SSTable's rows into the fragment it adds.
  PrefixedStore wal_store = Wal();
  MEMWAL_ASSIGN_OR_RETURN(const Blob sstable_data,
                          wal_store.Get(ShardManifestDir(shard_uuids_[shard]) +
                                        sstable->path() + "data.lance"));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<RowKey> rows,
                          DecodeRowFile(*sstable_data));
  pb::Transaction t;
  t.set_read_version(read.version());
  pb::Transaction::Update* update = t.mutable_update();
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(*update->add_new_fragments(),
                          WriteDataFragment(&table, UuidHex(NewUuid()),
                                            options_.indexes, rows, {}));
  update->set_update_mode(pb::Transaction::Update::REWRITE_ROWS);
  if (marker) {
    pb::CompactedSsTable* entry = update->add_compacted_sstables();
    entry->mutable_shard_id()->set_uuid(shard_uuids_[shard]);
    entry->set_generation(generation);
  } else if (options_.On(kFence)) {
    (*t.mutable_transaction_properties())[std::string(kDataPassProperty)] =
        UuidHex(shard_uuids_[shard]) + ":" + std::to_string(generation);
  }
  return Begin(std::move(t));
}

Status World::BeginUpdateColumns(uint64_t fragment, uint32_t index) {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  const pb::DataFragment* original =
      FindFragment(read.file->manifest, fragment);
  if (original == nullptr) return NotEnabled("fragment is not live");
  if (index >= options_.indexes)
    return Status::InvalidArgument("no such field");
  pb::DataFragment updated = *original;
  // Lance's partial-schema merge-insert: the old column is tombstoned (-2), a
  // new data file holds the rewritten field.
  for (pb::DataFile& file : *updated.mutable_files()) {
    for (int k = 0; k < file.fields_size(); ++k) {
      if (file.fields(k) == static_cast<int32_t>(index)) file.set_fields(k, -2);
    }
  }
  pb::DataFile* file = updated.add_files();
  file->set_path(UuidHex(NewUuid()) + ".lance");
  // The new column's file holds the fragment's rows, as the first one does.
  {
    PrefixedStore table = Table();
    MEMWAL_ASSIGN_OR_RETURN(
        const FragmentRows rows,
        ReadFragmentRows(store_, table_root_, read.file->manifest, *original));
    MEMWAL_RETURN_IF_ERROR(
        table.PutIfAbsent("data/" + file->path(), EncodeRowFile(*rows.rows)));
  }
  file->add_fields(static_cast<int32_t>(index));
  file->add_column_indices(0);
  file->set_file_major_version(2);
  file->set_file_minor_version(1);
  pb::Transaction t;
  t.set_read_version(read.version());
  *t.mutable_update()->add_updated_fragments() = updated;
  t.mutable_update()->add_fields_modified(index);
  t.mutable_update()->set_update_mode(pb::Transaction::Update::REWRITE_COLUMNS);
  return Begin(std::move(t));
}

Status World::BeginRewriteFragments(uint64_t first, uint64_t second) {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  const pb::DataFragment* a = FindFragment(read.file->manifest, first);
  const pb::DataFragment* b = FindFragment(read.file->manifest, second);
  if (first >= second || a == nullptr || b == nullptr)
    return NotEnabled("fragments not live");
  pb::Transaction t;
  t.set_read_version(read.version());
  auto* group = t.mutable_rewrite()->add_groups();
  *group->add_old_fragments() = *a;
  *group->add_old_fragments() = *b;
  // The rewrite copies the rows it keeps (deleted ones are dropped) with their
  // stable row ids [P §10.1].
  // A World's table uses stable row ids from its first version on (InitTable,
  // AddFragments: every fragment carries its sequence) and deletes whole
  // fragments only (no deletion file), so every row is kept, with its id; the
  // former branches for a fragment without ids or with deleted rows ran in no
  // configuration.
  std::vector<RowKey> rows;
  std::vector<uint64_t> row_ids;
  for (const pb::DataFragment* old : {a, b}) {
    MEMWAL_ASSIGN_OR_RETURN(
        const FragmentRows kept,
        ReadFragmentRows(store_, table_root_, read.file->manifest, *old));
    MEMWAL_ASSERT(kept.row_ids.size() == kept.rows->size());
    MEMWAL_ASSERT(kept.deleted.empty());
    rows.insert(rows.end(), kept.rows->begin(), kept.rows->end());
    row_ids.insert(row_ids.end(), kept.row_ids.begin(), kept.row_ids.end());
  }
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(*group->add_new_fragments(),
                          WriteDataFragment(&table, UuidHex(NewUuid()),
                                            options_.indexes, rows, row_ids));
  MEMWAL_ASSIGN_OR_RETURN(const Segments segments,
                          UserSegments(read.file->index_section));
  for (const auto& [name, list] : segments) {
    for (const Segment& segment : list) {
      // Every user segment a World writes has a fragment bitmap.
      MEMWAL_ASSERT(segment.covers.has_value());
      if (segment.covers->count(first) == 0 &&
          segment.covers->count(second) == 0)
        continue;
      auto* rewritten = t.mutable_rewrite()->add_rewritten_indices();
      rewritten->mutable_old_id()->set_uuid(segment.uuid);
      rewritten->mutable_new_id()->set_uuid(NewUuid());
    }
  }
  return Begin(std::move(t));
}

static pb::IndexMetadata MakeSegment(const std::string& uuid, uint32_t index,
                                     uint64_t version,
                                     const FragmentSet& covers) {
  pb::IndexMetadata segment;
  segment.mutable_uuid()->set_uuid(uuid);
  segment.add_fields(static_cast<int32_t>(index));
  segment.set_name(IndexName(index));
  segment.set_dataset_version(version);
  segment.set_fragment_bitmap(EncodeFragmentBitmap(covers));
  segment.set_index_version(0);
  segment.mutable_index_details()->set_type_url(
      std::string(kBTreeIndexDetailsUrl));
  return segment;
}

Status World::BeginCreateIndex(uint32_t index) {
  if (index >= options_.indexes)
    return Status::InvalidArgument("no such index");
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  pb::Transaction t;
  t.set_read_version(read.version());
  CreateIndexOp* op = t.mutable_create_index();
  *op->add_new_indices() = MakeSegment(NewUuid(), index, read.version(),
                                       LiveFragments(read.file->manifest));
  for (const auto& old : SegmentsNamed(read, IndexName(index)))
    *op->add_removed_indices() = old;
  return Begin(std::move(t));
}

Status World::BeginOptimizeIndex(uint32_t index) {
  if (index >= options_.indexes)
    return Status::InvalidArgument("no such index");
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  MEMWAL_ASSIGN_OR_RETURN(pb::Transaction t, OptimizeTransaction(read, index));
  return Begin(std::move(t));
}

Status World::BeginDropIndex(uint32_t index) {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  const std::vector<pb::IndexMetadata> segments =
      SegmentsNamed(read, IndexName(index));
  if (segments.empty()) return NotEnabled("index is not present");
  pb::Transaction t;
  t.set_read_version(read.version());
  for (const auto& old : segments)
    *t.mutable_create_index()->add_removed_indices() = old;
  return Begin(std::move(t));
}

Status World::BeginRecordProgress(uint32_t shard) {
  if (shard >= shard_uuids_.size())
    return Status::InvalidArgument("no such shard");
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  // R63, as BeginCompactSsTable.
  if (FindMemWalIndex(read.file->index_section) == nullptr)
    return NotEnabled("the table has no __lance_mem_wal (R63)");
  // The progress pass of a two-step compaction follows its data pass: it
  // records generation g only once a live fragment of the head holds a row of
  // (shard, g), as the fragments' data files say (spec R28).
  MEMWAL_ASSIGN_OR_RETURN(const uint64_t compacted,
                          CompactedAt(read, shard_uuids_[shard]));
  const uint64_t generation = compacted + 1;
  bool landed = false;
  for (const pb::DataFragment& fragment : read.file->manifest.fragments()) {
    MEMWAL_ASSIGN_OR_RETURN(
        const FragmentRows rows,
        ReadFragmentRows(store_, table_root_, read.file->manifest, fragment));
    for (size_t offset = 0; offset < rows.rows->size() && !landed; ++offset) {
      landed =
          (*rows.rows)[offset] == RowKey{shard_uuids_[shard], generation} &&
          rows.deleted.count(offset) == 0;
    }
    if (landed) break;
  }
  if (!landed)
    return NotEnabled("no live fragment holds the generation's rows (R28)");
  pb::Transaction t;
  t.set_read_version(read.version());
  pb::CompactedSsTable* entry =
      t.mutable_update_mem_wal_state()->add_compacted_sstables();
  entry->mutable_shard_id()->set_uuid(shard_uuids_[shard]);
  entry->set_generation(generation);
  return Begin(std::move(t));
}

Status World::BeginActivate() {
  if (options_.protocol != Protocol::kDerived &&
      options_.protocol != Protocol::kAdvance) {
    return NotEnabled("activation exists only in the bit protocols");
  }
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot read, Head());
  if (!ReadCatchupBits(read.file->manifest).neither())
    return NotEnabled("already activated");
  pb::Transaction t;
  t.set_read_version(read.version());
  t.mutable_update_mem_wal_state()->set_require_index_catchup(true);
  return Begin(std::move(t));
}

Result<Outcome> World::Commit(size_t slot) {
  if (slot >= inflight_.size())
    return Status::InvalidArgument("no such in-flight transaction");
  // Shared with the World's copies, and committed without a copy.
  const std::shared_ptr<const pb::Transaction> transaction = inflight_[slot];
  inflight_.erase(inflight_.begin() + static_cast<std::ptrdiff_t>(slot));
  PrefixedStore table = Table();
  PrefixedStore archive = Archive();
  const UuidSource uuids = UuidFn();
  // The table as this World's caches read it (world_cache.cc): the commit
  // path's first attempt starts from them instead of listing and loading.
  MEMWAL_ASSIGN_OR_RETURN(const auto listed, ListedVersions(false));
  std::optional<Snapshot> head;
  if (!listed->empty()) {
    Result<Snapshot> loaded = HeadAs(true);
    if (loaded.ok()) head = std::move(loaded).value();
  }
  MEMWAL_ASSIGN_OR_RETURN(
      const CommitResult result,
      CommitTransaction(CommitInput{.protocol = options_.protocol,
                                    .bugs = bugs_,
                                    .table = &table,
                                    .archive = &archive,
                                    .new_uuid = &uuids,
                                    .listed = listed.get(),
                                    .head = head ? &*head : nullptr,
                                    .shared = transaction},
                        *transaction));
  last_reason_ = result.reason;
  return result.outcome;
}

}  // namespace memwal::impl
