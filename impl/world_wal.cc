// World: creation of the table and its shards (spec R4), and the WAL-side
// actions (R10-R13): flushing a MemTable into an SSTable and retiring SSTables,
// through the shard manifests
// `_mem_wal/{shard}/manifest/*.binpb` [P §3]. A shard manifest version is
// published by put-if-absent, like a table version.
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <map>
#include <string>

#include "impl/blob_cache.h"
#include "impl/feature_flags.h"
#include "impl/lance_export.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

std::string IndexName(uint32_t index) { return "idx_" + std::to_string(index); }

// This thread's decoded shard manifests, by blob (impl/blob_cache.h): most
// steps leave a shard's latest manifest alone.
BlobCache<pb::ShardManifest>& ThreadShardManifests() {
  thread_local BlobCache<pb::ShardManifest> cache;
  return cache;
}

// The schema: field i is the int64 column "f<i>" (Lance's Field: LEAF, parent
// -1).
void AddSchema(uint32_t fields, pb::Manifest* manifest) {
  for (uint32_t i = 0; i < fields; ++i) {
    lance::file::Field* field = manifest->add_fields();
    field->set_type(lance::file::Field::LEAF);
    std::string name = std::to_string(i);
    name.insert(name.begin(),
                'f');  // Not "f" + ...: GCC 12 -Wrestrict false positive.
    field->set_name(name);
    field->set_id(static_cast<int32_t>(i));
    field->set_parent_id(-1);
    field->set_logical_type("int64");
  }
  // The row's identity, as a table written for Lance holds it (lance_export.h).
  uint32_t id = fields;
  for (std::string_view name : {kShardColumn, kGenerationColumn, kKeyColumn}) {
    lance::file::Field* field = manifest->add_fields();
    field->set_type(lance::file::Field::LEAF);
    field->set_name(std::string(name));
    field->set_id(static_cast<int32_t>(id++));
    field->set_parent_id(-1);
    field->set_logical_type("int64");
    if (name == kKeyColumn) {
      // The primary key LanceDB's MemWAL scanner merges on (lance_export.h),
      // as on `id` in the Lance 12 fixture after setUnenforcedPrimaryKey:
      // metadata (10) {"lance-schema:unenforced-primary-key:position": "1"},
      // then 12 and 13 both 1. Kept as unknown fields, in that order, so the
      // manifest re-encodes byte for byte (their other names are not in any
      // proto read here).
      static const std::string kKey =
          "lance-schema:unenforced-primary-key:position";
      std::string entry;
      entry.push_back(0x0a);
      entry.push_back(static_cast<char>(kKey.size()));
      entry.append(kKey);
      entry.append(
          "\x12\x01"
          "1",
          3);
      google::protobuf::UnknownFieldSet* unknown =
          field->GetReflection()->MutableUnknownFields(field);
      unknown->AddLengthDelimited(10, entry);
      unknown->AddVarint(12, 1);
      unknown->AddVarint(13, 1);
    }
  }
  // The protocol version this implementation speaks (beta.16), so that Lance's
  // migrate_indices does not distrust our fragment bitmaps as an unknown
  // writer's.
  manifest->mutable_writer_version()->set_library("lance");
  manifest->mutable_writer_version()->set_version("11.0.0");
  manifest->mutable_writer_version()->set_prerelease("beta.16");
  manifest->mutable_data_format()->set_file_format("lance");
  manifest->mutable_data_format()->set_version("2.1");
}

}  // namespace

Status World::InitTable() {
  if (!options_.memwal && options_.shards != 0)
    return Status::InvalidArgument("a table without the MemWAL has no shards");
  ManifestFile file;
  file.manifest.set_version(1);
  file.manifest.set_max_fragment_id(0);
  AddSchema(options_.indexes, &file.manifest);
  // Fragment 0 holds one base row, stable row id 0 [P §10.1].
  PrefixedStore table = Table();
  MEMWAL_ASSIGN_OR_RETURN(pb::DataFragment first,
                          WriteDataFragment(&table, UuidHex(NewUuid()),
                                            options_.indexes, {RowKey{}}, {0}));
  file.manifest.set_next_row_id(1);
  pb::DataFragment* fragment = file.manifest.add_fragments();
  *fragment = std::move(first);
  fragment->set_id(0);
  pb::MemWalIndexDetails details;
  details.set_num_shards(options_.shards);
  for (uint32_t i = 0; i < options_.indexes; ++i) {
    pb::IndexMetadata* index = file.index_section.add_indices();
    index->mutable_uuid()->set_uuid(NewUuid());
    index->add_fields(static_cast<int32_t>(i));
    index->set_name(IndexName(i));
    index->set_dataset_version(1);
    index->set_fragment_bitmap(EncodeFragmentBitmap(FragmentSet{0}));
    index->set_index_version(0);
    index->mutable_index_details()->set_type_url(
        std::string(kBTreeIndexDetailsUrl));
    details.add_maintained_indexes(
        IndexName(i));  // Every user index is maintained.
  }
  if (options_.memwal) {
    // Lance: the system index has no fields, no bitmap, index_version 0 [P §3].
    pb::IndexMetadata* system = file.index_section.add_indices();
    system->mutable_uuid()->set_uuid(NewUuid());
    system->set_name(std::string(kMemWalIndexName));
    system->set_dataset_version(1);
    system->set_index_version(0);
    PackMemWalDetails(details, system);
  }
  pb::Transaction transaction;
  transaction.set_read_version(0);
  transaction.set_uuid(UuidHex(NewUuid()));
  *transaction.mutable_overwrite()->add_fragments() = *fragment;
  const std::string name = TransactionFileName(0, UuidHex(NewUuid()));
  file.manifest.set_transaction_file(name);
  file.transaction = std::move(transaction);
  MEMWAL_ASSIGN_OR_RETURN(
      const Blob transaction_blob,
      WriteTransactionFile(&table, name, *file.transaction));
  return WriteManifestFile(&table, std::move(file), bugs_, transaction_blob);
}

Status World::InitShards() {
  for (uint32_t s = 0; s < shard_uuids_.size(); ++s) {
    pb::ShardManifest manifest;
    manifest.set_version(1);
    manifest.set_writer_epoch(1);
    manifest.set_current_generation(1);
    manifest.mutable_shard_id()->set_uuid(shard_uuids_[s]);
    manifest.set_status(pb::ACTIVE);
    PrefixedStore wal = Wal();
    MEMWAL_RETURN_IF_ERROR(wal.PutIfAbsent(
        ShardManifestPath(shard_uuids_[s], 1), EncodeShardManifest(manifest)));
  }
  return Status::Ok();
}

Result<pb::ShardManifest> World::LatestShardManifest(uint32_t shard) const {
  MEMWAL_ASSIGN_OR_RETURN(const auto manifest, SharedShardManifest(shard));
  return *manifest;
}

Result<std::shared_ptr<const pb::ShardManifest>>
World::DecodeLatestShardManifest(uint32_t shard) const {
  if (shard >= shard_uuids_.size())
    return Status::InvalidArgument("no such shard");
  // The listing of the shard's manifest directory, read off the store's
  // ordered objects in place: the latest name and its blob in one pass.
  thread_local std::string dir;
  dir.assign(wal_root_);
  dir.append(ShardManifestDir(shard_uuids_[shard])).append("manifest/");
  const ObjectMap& objects = store_.objects();
  uint64_t latest = 0;
  Blob blob;
  for (auto it = objects.lower_bound(dir);
       it != objects.end() && it->first.compare(0, dir.size(), dir) == 0;
       ++it) {
    // Only the directory's own files are manifests (a nested file would
    // parse to the version of its last name, a second file of one version).
    const std::optional<uint64_t> version =
        it->first.find('/', dir.size()) == std::string::npos
            ? ParseShardManifestName(it->first)
            : std::nullopt;
    if (!version.has_value()) {
      return Status::Corruption("unexpected shard file " +
                                it->first.substr(wal_root_.size()));
    }
    if (*version > latest) {
      latest = *version;
      blob = it->second;
    }
  }
  if (latest == 0) return Status::NotFound("shard has no manifest");
  // Decoded once per blob, or seeded by WriteShardManifest.
  MEMWAL_ASSIGN_OR_RETURN(
      std::shared_ptr<const pb::ShardManifest> manifest,
      ThreadShardManifests().Get(blob, [](const std::string& bytes) {
        return DecodeShardManifest(bytes);
      }));
  if (manifest->version() != latest ||
      manifest->shard_id().uuid() != shard_uuids_[shard]) {
    return Status::Corruption("shard manifest does not match its name");
  }
  return manifest;
}

Status World::WriteShardManifest(uint32_t shard, pb::ShardManifest manifest) {
  PrefixedStore wal = Wal();
  manifest.set_version(manifest.version() + 1);
  const std::string path =
      ShardManifestPath(shard_uuids_[shard], manifest.version());
  MEMWAL_ASSIGN_OR_RETURN(
      const Blob blob,
      wal.PutIfAbsentBlob(path, EncodeShardManifest(manifest)));
  // Decode-once, as WriteManifestFile (impl/commit.cc): the blob holds
  // protobuf's serialization of `manifest`, so decoding it gives `manifest`
  // (unless the validation a decode runs refuses it: then loads decode and
  // report).
  if (CheckShardManifest(manifest).ok()) {
    ThreadShardManifests().Add(
        blob, std::make_shared<const pb::ShardManifest>(std::move(manifest)));
  }
  return Status::Ok();
}

Status World::FlushMemTable(uint32_t shard) {
  // R63: lancedb drains the shard writers before it drops __lance_mem_wal, so
  // no writer flushes into a table whose head has no system index. A writer
  // reads the head as a reader does, so a half-set head (R60) does not stop it.
  {
    MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, HeadAs(true));
    if (FindMemWalIndex(head.file->index_section) == nullptr) {
      return Status::FailedPrecondition(
          "the table has no __lance_mem_wal: its shard writers were drained "
          "(R63)");
    }
  }
  MEMWAL_ASSIGN_OR_RETURN(pb::ShardManifest manifest,
                          LatestShardManifest(shard));
  const uint64_t generation = manifest.current_generation();
  // Lance: the SSTable is a dataset at `{random8}_gen_{generation}/` in the
  // shard directory.
  const std::string dir = UuidHex(NewUuid()).substr(0, 8) + "_gen_" +
                          std::to_string(generation) + "/";
  PrefixedStore wal = Wal();
  MEMWAL_RETURN_IF_ERROR(wal.PutIfAbsent(
      ShardManifestDir(shard_uuids_[shard]) + dir + "data.lance",
      EncodeRowFile({RowKey{shard_uuids_[shard], generation}})));
  pb::SsTable* sstable = manifest.add_sstables();
  sstable->set_generation(generation);
  sstable->set_path(dir);
  manifest.set_current_generation(generation + 1);
  return WriteShardManifest(shard, std::move(manifest));
}

Status World::RetireGuard(uint32_t shard, uint64_t generation) const {
  // Three conditions, each refusing alone and none writing; the cheapest is
  // asked first (most tries name an SSTable that is not there).
  MEMWAL_ASSIGN_OR_RETURN(const auto manifest, SharedShardManifest(shard));
  const bool present = std::any_of(
      manifest->sstables().begin(), manifest->sstables().end(),
      [&](const auto& sstable) { return sstable.generation() == generation; });
  if (!present)
    return Status::FailedPrecondition("SSTable not flushed or already retired");
  // R12 before the head: the checker's refusal tries mostly name an SSTable
  // that is flushed but not retirable (Retirable reads the retained versions
  // as a reader does, so it does not fail where the head does not load).
  MEMWAL_ASSIGN_OR_RETURN(const bool retirable, Retirable(shard, generation));
  if (!retirable)
    return Status::FailedPrecondition("SSTable is not retirable (R12)");
  // Lance's GC runs through an opened dataset, so a head that does not load
  // (a half-set manifest, R60) refuses the decision, as CleanupVersions does.
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  static_cast<void>(head);
  return Status::Ok();
}

Status World::Retire(uint32_t shard, uint64_t generation) {
  MEMWAL_ASSIGN_OR_RETURN(pb::ShardManifest manifest,
                          LatestShardManifest(shard));
  auto* sstables = manifest.mutable_sstables();
  for (int k = 0; k < sstables->size(); ++k) {
    if (sstables->Get(k).generation() != generation) continue;
    const std::string data = ShardManifestDir(shard_uuids_[shard]) +
                             sstables->Get(k).path() + "data.lance";
    sstables->DeleteSubrange(k, 1);
    MEMWAL_RETURN_IF_ERROR(WriteShardManifest(shard, std::move(manifest)));
    PrefixedStore wal = Wal();
    return wal.Delete(data);
  }
  return Status::Ok();  // Already retired.
}

Status World::RetireSsTable(uint32_t shard, uint64_t generation) {
  MEMWAL_RETURN_IF_ERROR(RetireGuard(shard, generation));
  return Retire(shard, generation);
}

Status World::RetireDecide(uint32_t shard, uint64_t generation) {
  // R13: a decision already pending is not taken twice (the Quint module's
  // `not(pending.contains((s, g)))`); GC's queue holds one per SSTable.
  if (pending_.count({shard, generation}) != 0) {
    return Status::FailedPrecondition(
        "a retirement of this SSTable is already pending");
  }
  MEMWAL_RETURN_IF_ERROR(RetireGuard(shard, generation));
  pending_.insert({shard, generation});
  return Status::Ok();
}

Result<Outcome> World::RetireExecute(uint32_t shard, uint64_t generation) {
  if (pending_.count({shard, generation}) == 0) {
    return Status::FailedPrecondition("no pending retirement of this SSTable");
  }
  // The deleting GC runs through an opened dataset too (R60: a half-set head
  // stops it; the decision stays pending). stale-read does not look at the
  // head's progress again; opening the table is not looking again.
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, Head());
  static_cast<void>(head);
  pending_.erase({shard, generation});
  // gc recheck (our proposed guard): look again at the head; stale-read deletes
  // blindly.
  if (options_.gc == GcMode::kRecheck) {
    MEMWAL_ASSIGN_OR_RETURN(const bool retirable, Retirable(shard, generation));
    if (!retirable) return Outcome::kRefused;
  }
  MEMWAL_RETURN_IF_ERROR(Retire(shard, generation));
  return Outcome::kDone;
}

Result<WalState> World::ReadWal() const {
  WalState state;
  for (uint32_t s = 0; s < shard_uuids_.size(); ++s) {
    MEMWAL_ASSIGN_OR_RETURN(const auto manifest, SharedShardManifest(s));
    const uint64_t flushed = manifest->current_generation() - 1;
    std::set<uint64_t> retired;
    for (uint64_t g = 1; g <= flushed; ++g) retired.insert(g);
    for (const auto& sstable : manifest->sstables())
      retired.erase(sstable.generation());
    state.flushed.push_back(flushed);
    state.retired.push_back(std::move(retired));
  }
  return state;
}

}  // namespace memwal::impl
