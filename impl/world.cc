// World: creation, table-level atomic actions (Restore, ShallowClone,
// CleanupVersions) and the decoded views; see world.h. Transactions are in
// world_begin.cc, shards in world_wal.cc.
#include "impl/world.h"

#include <algorithm>

#include "impl/epoch_cache.h"
#include "impl/feature_flags.h"
#include "impl/lance_export.h"

namespace memwal::impl {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string IndexName(uint32_t index) { return "idx_" + std::to_string(index); }

std::optional<uint32_t> IndexNumber(const std::string& name) {
  if (name.rfind("idx_", 0) != 0 || name.size() == 4 || name.size() > 12)
    return std::nullopt;
  uint64_t number = 0;
  for (size_t k = 4; k < name.size(); ++k) {
    if (name[k] < '0' || name[k] > '9') return std::nullopt;
    number = number * 10 + static_cast<uint64_t>(name[k] - '0');
  }
  if (number > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(number);
}

OpKind KindOf(const pb::Transaction& t) {
  switch (t.operation_case()) {
    case pb::Transaction::kAppend:
      return OpKind::kAppend;
    case pb::Transaction::kDelete:
      return OpKind::kDeleteFragment;
    case pb::Transaction::kUpdate:
      return t.update().update_mode() ==
                     pb::Transaction::Update::REWRITE_COLUMNS
                 ? OpKind::kUpdateColumns
                 : OpKind::kCompactSsTable;
    case pb::Transaction::kRewrite:
      return OpKind::kRewriteFragments;
    case pb::Transaction::kCreateIndex:
      return OpKind::kCreateIndex;
    case pb::Transaction::kUpdateMemWalState:
      return t.update_mem_wal_state().require_index_catchup()
                 ? OpKind::kActivate
                 : OpKind::kRecordProgress;
    case pb::Transaction::kRestore:
      return OpKind::kRestore;
    case pb::Transaction::kClone:
      return OpKind::kShallowClone;
    default:
      return OpKind::kInit;
  }
}

}  // namespace

std::string World::NewUuid() {
  const uint64_t base =
      SplitMix64(options_.seed) ^ (uuid_counter_++ * 0x2545f4914f6cdd1dULL);
  const uint64_t high = SplitMix64(base);
  const uint64_t low = SplitMix64(high ^ base);
  std::string raw(16, '\0');
  for (int k = 0; k < 8; ++k) {
    raw[static_cast<size_t>(k)] = static_cast<char>((high >> (8 * k)) & 0xff);
    raw[static_cast<size_t>(8 + k)] =
        static_cast<char>((low >> (8 * k)) & 0xff);
  }
  raw[6] = static_cast<char>((raw[6] & 0x0f) | 0x40);  // RFC 4122 version 4 ...
  raw[8] = static_cast<char>((raw[8] & 0x3f) | 0x80);  // ... variant 1.
  return raw;
}

UuidSource World::UuidFn() {
  return [this] { return NewUuid(); };
}

PrefixedStore World::Table() const {
  return PrefixedStore(const_cast<MemoryStore*>(&store_), table_root_);
}

PrefixedStore World::Archive() const {
  return PrefixedStore(const_cast<MemoryStore*>(&store_),
                       std::string(kArchivePrefix) + table_root_);
}

PrefixedStore World::Wal() const {
  return PrefixedStore(const_cast<MemoryStore*>(&store_), wal_root_);
}

Result<Snapshot> World::Head() const {
  // Lance refuses a half-set manifest on load; bug half-set-folded lets it
  // through (and the commit path then completes it to both bits).
  return HeadAs(bugs_.has(Bug::kHalfSetFolded));
}

const std::string& World::shard_uuid(uint32_t shard) const {
  MEMWAL_ASSERT(shard < shard_uuids_.size());
  return shard_uuids_[shard];
}

std::optional<uint32_t> World::ShardNumber(const std::string& uuid) const {
  return ShardNumberIn(shard_uuids_, uuid);
}

std::optional<uint32_t> World::ShardNumberIn(
    const std::vector<std::string>& shard_uuids, const std::string& uuid) {
  const auto it = std::find(shard_uuids.begin(), shard_uuids.end(), uuid);
  if (it == shard_uuids.end()) return std::nullopt;
  return static_cast<uint32_t>(it - shard_uuids.begin());
}

Result<World> World::Create(const Options& options) {
  World world;
  world.options_ = options;
  world.bugs_ = BugSet(options.bugs);
  world.table_root_ = "t0/";
  world.wal_root_ = "t0/";
  world.tables_created_ = 1;
  for (uint32_t s = 0; s < options.shards; ++s)
    world.shard_uuids_.push_back(world.NewUuid());
  // Sorted, so that a reopened table numbers its shards the same way.
  std::sort(world.shard_uuids_.begin(), world.shard_uuids_.end());
  MEMWAL_RETURN_IF_ERROR(world.InitTable());
  MEMWAL_RETURN_IF_ERROR(world.InitShards());
  return world;
}

Result<World> World::OpenFrom(const Store& directory, const Options& options) {
  World world;
  world.options_ = options;
  world.bugs_ = BugSet(options.bugs);
  world.table_root_ = "t0/";
  world.wal_root_ = "t0/";
  world.tables_created_ = 1;
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                          directory.List(""));
  for (const std::string& path : paths) {
    MEMWAL_ASSIGN_OR_RETURN(const Blob blob, directory.Get(path));
    MEMWAL_RETURN_IF_ERROR(world.store_.Put("t0/" + path, *blob));
  }
  // A fresh uuid stream, distinct from the one that wrote the table.
  world.uuid_counter_ = uint64_t{1} << 40 | paths.size();
  std::set<std::string> shards;
  for (const std::string& path : paths) {
    if (path.rfind(std::string(kMemWalDir), 0) != 0 ||
        path.find("/manifest/") == std::string::npos) {
      continue;
    }
    MEMWAL_ASSIGN_OR_RETURN(const Blob blob, directory.Get(path));
    MEMWAL_ASSIGN_OR_RETURN(const pb::ShardManifest shard,
                            DecodeShardManifest(*blob));
    shards.insert(shard.shard_id().uuid());
  }
  world.shard_uuids_.assign(shards.begin(), shards.end());
  // Opened to read its history: a half-set head (a foreign writer's, R60)
  // opens, and a writer's Head() still refuses it as Lance does.
  MEMWAL_RETURN_IF_ERROR(world.HeadAs(true).status());
  return world;
}

Status World::WriteTo(DirectoryStore* directory) const {
  MEMWAL_ASSERT(directory != nullptr);
  for (const auto& [path, blob] : store_.objects()) {
    std::string relative;
    if (path.rfind(table_root_, 0) == 0) {
      relative = path.substr(table_root_.size());
    } else if (path.rfind(wal_root_ + std::string(kMemWalDir), 0) == 0) {
      relative = path.substr(wal_root_.size());
    } else {
      continue;
    }
    MEMWAL_RETURN_IF_ERROR(directory->Put(relative, *blob));
  }
  // Lance's own data and index files in place of the row files the store
  // keeps for every transition's cheap reads (lance_export.h).
  return WriteLanceFiles(directory, shard_uuids_);
}

Result<Outcome> World::Restore(uint64_t version) {
  // The listing first: most calls are the checker's refusal tries of a
  // version that is the head or not retained, refused without loading the
  // head (the head is the listing's last version, so the test is the same).
  MEMWAL_ASSIGN_OR_RETURN(const auto retained, ListedVersions(false));
  if (retained->empty() || version == retained->back() ||
      !std::binary_search(retained->begin(), retained->end(), version)) {
    return Status::FailedPrecondition(
        "the version is not a retained non-head version");
  }
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  MEMWAL_ASSERT(head.version() == retained->back());
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot old,
                          LoadVersion(Table(), nullptr, version, true));
  const CatchupBits old_bits = ReadCatchupBits(old.file->manifest);
  const CatchupBits head_bits = ReadCatchupBits(head.file->manifest);
  ManifestFile file = CopyWithoutTransaction(*old.file);
  // Lance: restore_old_manifest validates the version it reads [P §4.2].
  if (old_bits.half()) {
    if (!bugs_.has(Bug::kHalfSetFolded)) {
      last_reason_ = "the restored version has only one MemWAL catch-up bit";
      return Outcome::kRefused;
    }
    MEMWAL_RETURN_IF_ERROR(
        InheritMemWalIndexCatchup(&file.manifest, old.file->manifest, bugs_));
  }
  // Bug restore-walks-back: neither the refusal nor the inheritance below.
  if (!bugs_.has(Bug::kRestoreWalksBack)) {
    if (!head_bits.neither() && old_bits.neither()) {
      last_reason_ =
          "the table requires index catch-up and that version predates it";
      return Outcome::kRefused;
    }
    // Head() refuses a half-set head, or under bug half-set-folded loads it
    // and the inheritance completes it: inheriting from the head cannot fail.
    MEMWAL_RETURN_IF_ERROR(
        InheritMemWalIndexCatchup(&file.manifest, head.file->manifest, bugs_));
  }
  file.manifest.set_version(head.version() + 1);
  file.manifest.set_max_fragment_id(
      std::max(old.file->manifest.max_fragment_id(),
               head.file->manifest.max_fragment_id()));
  // Stable row ids are never reused either [P §10.1].
  file.manifest.set_next_row_id(std::max(old.file->manifest.next_row_id(),
                                         head.file->manifest.next_row_id()));
  pb::Transaction transaction;
  transaction.set_read_version(head.version());
  transaction.set_uuid(NewTransactionUuid(UuidFn()));
  transaction.mutable_restore()->set_version(version);
  const std::string name =
      TransactionFileName(head.version(), NewTransactionUuid(UuidFn()));
  file.manifest.set_transaction_file(name);
  file.transaction = std::move(transaction);
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(
      const Blob transaction_blob,
      WriteTransactionFile(&table, name, *file.transaction));
  MEMWAL_RETURN_IF_ERROR(
      WriteManifestFile(&table, std::move(file), bugs_, transaction_blob));
  last_reason_.clear();
  return Outcome::kPublished;
}

namespace {

// Lance: Manifest::shallow_clone and do_commit_new_dataset [P §4.2]: the
// source root is added as a base path, its id the source's largest base id + 1,
// or 0 where the source has none; data and deletion files without a base, and
// every index, name it.
void PointAtSource(const std::string& source, ManifestFile* file) {
  uint32_t id = 0;
  for (const pb::BasePath& base : file->manifest.base_paths())
    id = std::max(id, base.id() + 1);
  pb::BasePath* base = file->manifest.add_base_paths();
  base->set_id(id);
  base->set_is_dataset_root(true);
  base->set_path(source);
  for (pb::DataFragment& fragment : *file->manifest.mutable_fragments()) {
    for (pb::DataFile& data : *fragment.mutable_files()) {
      if (!data.has_base_id()) data.set_base_id(id);
    }
    if (fragment.has_deletion_file() &&
        !fragment.deletion_file().has_base_id()) {
      fragment.mutable_deletion_file()->set_base_id(id);
    }
  }
  for (pb::IndexMetadata& index : *file->index_section.mutable_indices())
    index.set_base_id(id);
  MEMWAL_ASSERT(file->manifest.base_paths_size() > 0);
}

// A deep clone copies every file, so nothing points elsewhere.
void DropBases(ManifestFile* file) {
  file->manifest.clear_base_paths();
  for (pb::DataFragment& fragment : *file->manifest.mutable_fragments()) {
    for (pb::DataFile& data : *fragment.mutable_files()) data.clear_base_id();
    if (fragment.has_deletion_file())
      fragment.mutable_deletion_file()->clear_base_id();
  }
  for (pb::IndexMetadata& index : *file->index_section.mutable_indices())
    index.clear_base_id();
}

}  // namespace

Status World::CopyBasedFiles(const pb::Manifest& manifest,
                             const std::string& root) {
  const auto copy = [&](const std::string& from,
                        const std::string& path) -> Status {
    const auto it = store_.objects().find(from + path);
    if (it == store_.objects().end())
      return Status::Corruption("the clone source has no " + from + path);
    return store_.PutShared(root + path, it->second);
  };
  for (const pb::DataFragment& fragment : manifest.fragments()) {
    for (const pb::DataFile& data : fragment.files()) {
      if (!data.has_base_id()) continue;
      MEMWAL_RETURN_IF_ERROR(copy(RootOf(root, manifest, true, data.base_id()),
                                  "data/" + data.path()));
    }
    // (Without a deletion file, deletion_file() is the default: no base.)
    if (fragment.deletion_file().has_base_id()) {
      MEMWAL_RETURN_IF_ERROR(
          copy(RootOf(root, manifest, true, fragment.deletion_file().base_id()),
               DeletionFilePath(fragment.id(), fragment.deletion_file())));
    }
  }
  return Status::Ok();
}

Status World::DeepClone() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  const std::string source = table_root_;
  ManifestFile file = CopyWithoutTransaction(*head.file);
  DropBases(&file);
  pb::Transaction transaction;
  transaction.set_read_version(head.version());
  transaction.set_uuid(NewTransactionUuid(UuidFn()));
  transaction.mutable_clone()->set_is_shallow(false);
  transaction.mutable_clone()->set_ref_path(source);
  transaction.mutable_clone()->set_ref_version(head.version());
  const std::string name =
      TransactionFileName(head.version(), NewTransactionUuid(UuidFn()));
  file.manifest.set_transaction_file(name);
  file.transaction = std::move(transaction);
  table_root_ = "t" + std::to_string(tables_created_++) + "/";
  PrefixedStore table = Table();
  // The data and deletion files are copied (the blobs are shared).
  for (const char* dir : {"data/", "_deletions/"}) {
    std::vector<std::pair<std::string, Blob>> copies;
    for (auto it = store_.objects().lower_bound(source + dir);
         it != store_.objects().end() && it->first.rfind(source + dir, 0) == 0;
         ++it) {
      copies.emplace_back(it->first.substr(source.size()), it->second);
    }
    for (const auto& [path, blob] : copies)
      MEMWAL_RETURN_IF_ERROR(store_.PutShared(table_root_ + path, blob));
  }
  // ... and so are the files a shallow-cloned source keeps under its base
  // paths: the clone owns a copy of every file its version names.
  MEMWAL_RETURN_IF_ERROR(CopyBasedFiles(head.file->manifest, table_root_));
  MEMWAL_ASSIGN_OR_RETURN(
      const Blob transaction_blob,
      WriteTransactionFile(&table, name, *file.transaction));
  MEMWAL_RETURN_IF_ERROR(
      WriteManifestFile(&table, std::move(file), bugs_, transaction_blob));
  inflight_.clear();  // They belong to the source table.
  return Status::Ok();
}

Status World::ShallowClone() {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  const std::string source = table_root_;
  ManifestFile file = CopyWithoutTransaction(*head.file);
  MaskFlagsForShallowClone(&file.manifest, bugs_);
  PointAtSource(source, &file);
  pb::Transaction transaction;
  transaction.set_read_version(head.version());
  transaction.set_uuid(NewTransactionUuid(UuidFn()));
  transaction.mutable_clone()->set_is_shallow(true);
  transaction.mutable_clone()->set_ref_path(source);
  transaction.mutable_clone()->set_ref_version(head.version());
  const std::string name =
      TransactionFileName(head.version(), NewTransactionUuid(UuidFn()));
  file.manifest.set_transaction_file(name);
  file.transaction = std::move(transaction);
  table_root_ = "t" + std::to_string(tables_created_++) + "/";
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(
      const Blob transaction_blob,
      WriteTransactionFile(&table, name, *file.transaction));
  MEMWAL_RETURN_IF_ERROR(
      WriteManifestFile(&table, std::move(file), bugs_, transaction_blob));
  inflight_.clear();  // They belong to the source table.
  return Status::Ok();
}

Status World::CleanupVersions() {
  // Lance cleans up through an opened dataset, so a head that does not load
  // (a half-set manifest, R60) refuses the cleanup too.
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  static_cast<void>(head);
  // The cached list (world_cache.cc); `listed` keeps it while the loop below
  // changes the store.
  MEMWAL_ASSIGN_OR_RETURN(const auto listed, ListedVersions(false));
  const std::vector<uint64_t>& versions = *listed;
  if (versions.size() < 2)
    return Status::FailedPrecondition("only the head is retained");
  // `to` is kArchivePrefix + `from`, built in one buffer kept across the
  // versions.
  std::string to(kArchivePrefix);
  to.append(table_root_);
  const std::size_t root_end = to.size();
  std::string scratch;
  for (size_t k = 0; k + 1 < versions.size(); ++k) {
    to.resize(root_end);
    to.append(VersionFileNameIn(versions[k], &scratch));
    const std::string from = to.substr(kArchivePrefix.size());
    // Lance deletes the file; we keep it outside the table so that history
    // stays reportable and a lagging writer can still rebase (see table.h
    // LoadVersion). The archived copy is the same blob (its decoding is
    // cached by address).
    MEMWAL_RETURN_IF_ERROR(store_.Move(from, to));
  }
  return Status::Ok();
}

Result<std::vector<uint64_t>> World::Versions() const {
  MEMWAL_ASSIGN_OR_RETURN(const auto retained, ListedVersions(false));
  MEMWAL_ASSIGN_OR_RETURN(const auto archived, ListedVersions(true));
  std::vector<uint64_t> versions = *retained;
  versions.insert(versions.end(), archived->begin(), archived->end());
  std::sort(versions.begin(), versions.end());
  return versions;
}

Status World::HeadLoads() const { return HeadAs(false).status(); }

Result<TableVersion> World::ReadVersion(uint64_t version) const {
  PrefixedStore table = Table();
  PrefixedStore archive = Archive();
  std::string scratch;
  const bool retained = table.Get(VersionFileNameIn(version, &scratch)).ok();
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot snapshot,
                          LoadVersion(table, &archive, version, true));
  return ToTableVersion(table, snapshot, retained);
}

Result<TableVersion> World::ToTableVersion(const Store& table,
                                           const Snapshot& snapshot,
                                           bool retained) const {
  TableVersion out;
  out.number = snapshot.version();
  out.live = LiveFragments(snapshot.file->manifest);
  out.retained = retained;
  const CatchupBits bits = ReadCatchupBits(snapshot.file->manifest);
  out.reader_bit = bits.reader;
  out.writer_bit = bits.writer;
  MEMWAL_ASSIGN_OR_RETURN(Segments segments,
                          UserSegments(snapshot.file->index_section));
  for (auto& [name, list] : segments) {
    const std::optional<uint32_t> number = IndexNumber(name);
    if (!number.has_value())
      return Status::Corruption("unexpected index name " + name);
    for (Segment& segment : list) {
      out.segments[*number].push_back(
          SegmentView{std::move(segment.uuid), std::move(segment.covers)});
    }
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const VersionView> shared,
                          SharedViewOf(snapshot));
  const VersionView& view = *shared;
  for (const auto& [uuid, generation] : view.compacted) {
    const std::optional<uint32_t> shard = ShardNumber(uuid);
    if (!shard.has_value())
      return Status::Corruption("unknown shard " + UuidHex(uuid));
    // The first entry per shard, as Lance's compacted_generation_for_shard
    // reads it; a zero-valued entry survives (the checker compares it).
    out.compacted.emplace(*shard, generation);
  }
  for (const auto& [name, positions] : view.catchup) {
    const std::optional<uint32_t> number = IndexNumber(name);
    if (!number.has_value())
      return Status::Corruption("unexpected catch-up name " + name);
    for (const auto& [uuid, generation] : positions) {
      const std::optional<uint32_t> shard = ShardNumber(uuid);
      if (!shard.has_value())
        return Status::Corruption("unknown shard " + UuidHex(uuid));
      out.catchup[*number].emplace(*shard, generation);
    }
  }
  if (const pb::IndexMetadata* system =
          FindMemWalIndex(snapshot.file->index_section)) {
    out.mem_wal_index_uuid = system->uuid().uuid();
  }
  MEMWAL_ASSIGN_OR_RETURN(
      const std::shared_ptr<const pb::Transaction> transaction,
      LoadSharedTransaction(table, snapshot));
  out.op = KindOf(*transaction);
  out.transaction = transaction;
  out.max_fragment_id = snapshot.file->manifest.max_fragment_id();
  const pb::WriterVersion& writer = snapshot.file->manifest.writer_version();
  out.writer = writer.version();
  if (!writer.prerelease().empty()) out.writer += "-" + writer.prerelease();
  return out;
}

Result<std::vector<uint64_t>> World::Watermarks(
    const std::vector<uint32_t>& query_indexes) const {
  // A reader opens a half-set head (R60) as a table without the bit, as
  // lancedb 3911 does; only writers refuse it.
  MEMWAL_ASSIGN_OR_RETURN(const auto head_view, HeadView());
  const VersionView& view = *head_view;
  std::vector<uint32_t> numbers = query_indexes;
  std::sort(numbers.begin(), numbers.end());  // single-index uses the smallest.
  std::vector<std::string> query;
  for (const uint32_t index : numbers) query.push_back(IndexName(index));
  std::vector<uint64_t> watermarks;
  for (const std::string& shard : shard_uuids_) {
    watermarks.push_back(ExclusionWatermark(
        view, shard, query, options_.protocol, options_.read, bugs_));
  }
  return watermarks;
}

Result<bool> World::Retirable(uint32_t shard, uint64_t generation) const {
  if (shard >= shard_uuids_.size() || generation == 0) {
    return Status::InvalidArgument("no such shard or generation");
  }
  const auto answer = [&]() -> Result<bool> {
    MEMWAL_ASSIGN_OR_RETURN(const auto views, RetainedViews());
    if (views->pointers.empty())
      return Status::NotFound("table has no versions");
    return impl::Retirable(views->pointers, shard_uuids_[shard], generation,
                           options_.protocol);
  };
  // A function of the retained versions (the versions epoch names them and,
  // along the lineage, the shard uuids), the SSTable and the protocol: kept
  // per thread (impl/epoch_cache.h), as the checker asks it for every SSTable
  // after each step and again in the refusal tries.
  if (shard >= 256 || generation >= (uint64_t{1} << 20)) return answer();
  thread_local EpochCache<Result<bool>> cache;
  const uint32_t tag = (static_cast<uint32_t>(options_.protocol) << 28) |
                       (shard << 20) | static_cast<uint32_t>(generation);
  return cache.Get(store_.versions_epoch(), table_root_, tag, answer);
}

}  // namespace memwal::impl
