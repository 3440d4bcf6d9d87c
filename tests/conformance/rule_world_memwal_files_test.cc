// The MemWAL's own files, read back as Lance's reader reads them, after every
// step of a random walk of World actions (issue 36: no check decoded them; the
// lockstep abstraction reads only the generations and positions it needs).
// Each message is decoded at the wire level, by the field numbers of Lance's
// protos ([P §1.2], [P §1.4]), not through impl/proto, so a field written
// under a wrong number or left out is seen:
//
// - shard manifests `_mem_wal/{shard}/manifest/{bit-reversed version}.binpb`:
//   versions 1, 2, ... without a gap, each holding its own version (1), the
//   shard's uuid (11), status ACTIVE (15) and only fields Lance knows; the
//   writer epoch (2) is the fencing token a claim bumps: version 1 is written
//   by the shard's first claim (epoch 1), and it never goes down;
//   current_generation (6) starts at 1; each version differs from the one
//   before by one flush (an SSTable of the previous current_generation at
//   `{random8}_gen_{generation}/`, and current_generation one higher) or one
//   retirement (one SSTable gone); the latest manifest's SSTables hold their
//   rows in `data.lance`, and no other SSTable file is left in the shard;
// - the MemWAL index details (`__lance_mem_wal`'s index_details, an Any whose
//   type_url ends in MemWalIndexDetails): num_shards (2), the maintained
//   indexes (8), compacted_sstables (9) at most once per shard and never past
//   a flushed generation, index_catchup (10) per index name never past its
//   shard's compacted generation (Lance clamps credit to the committed
//   progress); the system index has no fields and no bitmap, and like every
//   BTree segment carries index_version 0 (Lance's BTREE_INDEX_VERSION);
// - the table manifest's writer_version (13) names the library lance and the
//   version (and prerelease) of a writer that exists here (impl/format.h),
//   data_format (15) is lance 2.1, and the schema has one unenforced primary
//   key, the key column LanceDB's MemWAL merges on: Field 12 true, position
//   (13) 1, and its metadata (10) says the same position (Lance keeps the two
//   in sync).
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "impl/build.h"
#include "impl/directory_store.h"
#include "impl/format.h"
#include "impl/lance_export.h"
#include "impl/rows.h"
#include "impl/table.h"
#include "impl/world.h"

namespace memwal {
namespace {

using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;
using impl::World;

// A message's fields by number, as a reader without the schema sees them.
struct Wire {
  std::multimap<int, const UnknownField*> fields;
  UnknownFieldSet set;
};

bool Parse(const std::string& bytes, Wire* wire) {
  if (!wire->set.ParseFromString(bytes)) return false;
  for (int k = 0; k < wire->set.field_count(); ++k)
    wire->fields.emplace(wire->set.field(k).number(), &wire->set.field(k));
  return true;
}

// The fields a message holds outside `known`; "" if none.
std::string Unknown(const Wire& wire, std::set<int> known) {
  for (const auto& [number, field] : wire.fields) {
    if (known.count(number) == 0) return "field " + std::to_string(number);
  }
  return "";
}

// A varint field's value (0 when absent, as proto3 reads it); nullopt when
// it is there twice or not as a varint.
std::optional<uint64_t> Varint(const Wire& wire, int number) {
  const auto [first, last] = wire.fields.equal_range(number);
  if (first == last) return 0;
  if (std::next(first) != last ||
      first->second->type() != UnknownField::TYPE_VARINT)
    return std::nullopt;
  return first->second->varint();
}

std::optional<std::string> Bytes(const Wire& wire, int number) {
  const auto [first, last] = wire.fields.equal_range(number);
  if (first == last) return std::string();
  if (std::next(first) != last ||
      first->second->type() != UnknownField::TYPE_LENGTH_DELIMITED)
    return std::nullopt;
  return first->second->length_delimited();
}

std::vector<std::string> Repeated(const Wire& wire, int number) {
  std::vector<std::string> out;
  const auto [first, last] = wire.fields.equal_range(number);
  for (auto it = first; it != last; ++it) {
    if (it->second->type() == UnknownField::TYPE_LENGTH_DELIMITED)
      out.push_back(it->second->length_delimited());
  }
  return out;
}

// Lance's UUID message: bytes uuid = 1, 16 bytes.
std::optional<std::string> Uuid(const std::string& bytes) {
  Wire wire;
  if (!Parse(bytes, &wire) || !Unknown(wire, {1}).empty()) return std::nullopt;
  const std::optional<std::string> raw = Bytes(wire, 1);
  if (!raw.has_value() || raw->size() != 16) return std::nullopt;
  return raw;
}

// CompactedSsTable: shard_id = 1 (UUID), generation = 2.
std::optional<std::pair<std::string, uint64_t>> Compacted(
    const std::string& bytes) {
  Wire wire;
  if (!Parse(bytes, &wire) || !Unknown(wire, {1, 2}).empty())
    return std::nullopt;
  const std::optional<std::string> shard = Bytes(wire, 1);
  const std::optional<uint64_t> generation = Varint(wire, 2);
  if (!shard.has_value() || !generation.has_value()) return std::nullopt;
  const std::optional<std::string> raw = Uuid(*shard);
  if (!raw.has_value()) return std::nullopt;
  return std::make_pair(*raw, *generation);
}

bool IsHex8(const std::string& text) {
  return text.size() == 8 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// One decoded shard manifest version.
struct ShardVersion {
  uint64_t epoch = 0;
  uint64_t current_generation = 0;
  std::map<uint64_t, std::string> sstables;  // generation -> path
};

std::string DecodeShardVersion(const std::string& bytes, uint64_t version,
                               const std::string& shard, ShardVersion* out) {
  const std::string at = "version " + std::to_string(version) + ": ";
  Wire wire;
  if (!Parse(bytes, &wire)) return at + "not a protobuf message";
  const std::string unknown = Unknown(wire, {1, 2, 3, 4, 6, 8, 10, 11, 14, 15});
  if (!unknown.empty()) return at + unknown + " is not a ShardManifest field";
  const std::optional<uint64_t> stored = Varint(wire, 1);
  if (stored != version)
    return at + "holds version " + (stored ? std::to_string(*stored) : "?");
  const std::optional<uint64_t> epoch = Varint(wire, 2);
  const std::optional<uint64_t> current = Varint(wire, 6);
  const std::optional<uint64_t> status = Varint(wire, 15);
  const std::optional<std::string> id = Bytes(wire, 11);
  if (!epoch || !current || !status || !id) return at + "a field twice";
  if (Uuid(*id) != shard) return at + "shard_id is not the shard's uuid";
  if (*status != 0) return at + "status is not ACTIVE";
  if (*current < 1) return at + "current_generation 0 (generations start at 1)";
  out->epoch = *epoch;
  out->current_generation = *current;
  for (const std::string& entry : Repeated(wire, 8)) {
    Wire sstable;
    if (!Parse(entry, &sstable) || !Unknown(sstable, {1, 2, 3, 4, 5}).empty())
      return at + "an SsTable that is not one";
    const std::optional<uint64_t> generation = Varint(sstable, 1);
    const std::optional<std::string> path = Bytes(sstable, 2);
    if (!generation || !path) return at + "an SsTable field twice";
    if (*generation < 1 || *generation >= *current)
      return at + "SSTable of generation " + std::to_string(*generation) +
             " at current_generation " + std::to_string(*current);
    const std::string suffix = "_gen_" + std::to_string(*generation) + "/";
    if (path->size() != 8 + suffix.size() || !IsHex8(path->substr(0, 8)) ||
        path->substr(8) != suffix)
      return at + "SSTable path '" + *path + "'";
    if (!out->sstables.emplace(*generation, *path).second)
      return at + "generation " + std::to_string(*generation) + " twice";
  }
  if (wire.fields.count(8) != out->sstables.size())
    return at + "an SsTable that is not a message";
  return "";
}

// Version `next` follows `before` by one flush or one retirement.
std::string StepProblem(const ShardVersion& before, const ShardVersion& next,
                        uint64_t version) {
  const std::string at = "version " + std::to_string(version) + ": ";
  if (next.epoch < before.epoch) return at + "the writer epoch went down";
  if (next.current_generation == before.current_generation + 1) {
    std::map<uint64_t, std::string> flushed = before.sstables;
    const auto added = next.sstables.find(before.current_generation);
    if (added == next.sstables.end())
      return at + "a flush without the SSTable of its generation";
    flushed.emplace(*added);
    if (flushed != next.sstables) return at + "a flush changed other SSTables";
    return "";
  }
  if (next.current_generation != before.current_generation)
    return at + "current_generation moved from " +
           std::to_string(before.current_generation) + " to " +
           std::to_string(next.current_generation);
  size_t gone = 0;
  for (const auto& [generation, path] : before.sstables) {
    const auto kept = next.sstables.find(generation);
    if (kept == next.sstables.end()) {
      ++gone;
    } else if (kept->second != path) {
      return at + "SSTable " + std::to_string(generation) + " moved";
    }
  }
  if (gone != 1 || next.sstables.size() + 1 != before.sstables.size())
    return at + "neither one flush nor one retirement";
  return "";
}

// Every shard's manifests and SSTable files; the latest versions' flushed
// generations go to `flushed` (per raw shard uuid).
std::string ShardProblem(const World& world,
                         std::map<std::string, uint64_t>* flushed) {
  const auto& objects = world.store().objects();
  for (uint32_t s = 0; s < world.options().shards; ++s) {
    const std::string& shard = world.shard_uuid(s);
    const std::string dir = world.wal_root() + impl::ShardManifestDir(shard);
    const std::string name = "shard " + std::to_string(s) + " ";
    std::map<uint64_t, std::string> versions;
    std::set<std::string> others;
    for (auto it = objects.lower_bound(dir);
         it != objects.end() && it->first.compare(0, dir.size(), dir) == 0;
         ++it) {
      const std::string rest = it->first.substr(dir.size());
      if (rest.rfind("manifest/", 0) == 0) {
        const std::optional<uint64_t> version =
            impl::ParseShardManifestName(rest);
        if (!version.has_value()) return name + "file " + rest;
        versions.emplace(*version, std::string(*it->second));
      } else {
        others.insert(rest);
      }
    }
    if (versions.empty() || versions.begin()->first != 1 ||
        versions.rbegin()->first != versions.size())
      return name + "manifest versions are not 1.." +
             std::to_string(versions.size());
    ShardVersion previous;
    for (const auto& [version, bytes] : versions) {
      ShardVersion next;
      const std::string problem =
          DecodeShardVersion(bytes, version, shard, &next);
      if (!problem.empty()) return name + problem;
      if (version == 1) {
        if (next.epoch != 1)
          return name + "version 1 has writer epoch " +
                 std::to_string(next.epoch) + " (the first claim's is 1)";
        if (next.current_generation != 1 || !next.sstables.empty())
          return name + "version 1 is not an empty shard";
      } else {
        const std::string step = StepProblem(previous, next, version);
        if (!step.empty()) return name + step;
      }
      previous = std::move(next);
    }
    for (const auto& [generation, path] : previous.sstables) {
      const auto data = objects.find(dir + path + "data.lance");
      if (data == objects.end())
        return name + "SSTable " + std::to_string(generation) + " has no data";
      const Result<std::vector<impl::RowKey>> rows =
          impl::DecodeRowFile(*data->second);
      if (!rows.ok() ||
          *rows != std::vector<impl::RowKey>{impl::RowKey{shard, generation}})
        return name + "SSTable " + std::to_string(generation) +
               " does not hold its generation's row";
      others.erase(path + "data.lance");
    }
    if (!others.empty())
      return name + "holds " + *others.begin() + ", in no SSTable";
    (*flushed)[shard] = previous.current_generation - 1;
  }
  return "";
}

// The system index and its details.
std::string DetailsProblem(const World& world, const impl::ManifestFile& file,
                           const std::map<std::string, uint64_t>& flushed) {
  const impl::pb::IndexMetadata* system =
      impl::FindMemWalIndex(file.index_section);
  if (system == nullptr) return "";
  if (system->fields_size() != 0 || !system->fragment_bitmap().empty())
    return "__lance_mem_wal has fields or a fragment bitmap";
  const std::string& url = system->index_details().type_url();
  const std::string kind = "MemWalIndexDetails";
  if (url.size() < kind.size() ||
      url.compare(url.size() - kind.size(), kind.size(), kind) != 0)
    return "__lance_mem_wal's details are a " + url;
  Wire wire;
  if (!Parse(system->index_details().value(), &wire))
    return "the MemWAL details are not a message";
  const std::string unknown = Unknown(wire, {1, 2, 3, 7, 8, 9, 10, 11});
  if (!unknown.empty()) return unknown + " is not a MemWalIndexDetails field";
  if (Varint(wire, 2) != world.options().shards)
    return "num_shards is not the table's shard count";
  std::vector<std::string> maintained = Repeated(wire, 8);
  std::vector<std::string> names;
  for (uint32_t i = 0; i < world.options().indexes; ++i)
    names.push_back("idx_" + std::to_string(i));
  if (maintained != names) return "the maintained indexes are not the table's";
  std::map<std::string, uint64_t> compacted;
  for (const std::string& entry : Repeated(wire, 9)) {
    const auto pair = Compacted(entry);
    if (!pair.has_value()) return "a compacted_sstables entry is not one";
    const auto shard = flushed.find(pair->first);
    if (shard == flushed.end()) return "compaction progress of no shard";
    if (pair->second < 1 || pair->second > shard->second)
      return "compacted generation " + std::to_string(pair->second) +
             " of a shard flushed to " + std::to_string(shard->second);
    if (!compacted.emplace(pair->first, pair->second).second)
      return "compacted_sstables names a shard twice";
  }
  std::set<std::string> indexed;
  for (const std::string& entry : Repeated(wire, 10)) {
    Wire progress;
    if (!Parse(entry, &progress) || !Unknown(progress, {1, 2}).empty())
      return "an index_catchup entry is not an IndexCatchupProgress";
    const std::optional<std::string> index = Bytes(progress, 1);
    if (!index.has_value() || !indexed.insert(*index).second)
      return "index_catchup names an index twice";
    std::set<std::string> shards;
    for (const std::string& claim : Repeated(progress, 2)) {
      const auto pair = Compacted(claim);
      if (!pair.has_value()) return "a caught_up_generations entry";
      if (!shards.insert(pair->first).second)
        return *index + "'s catch-up names a shard twice";
      const auto recorded = compacted.find(pair->first);
      const uint64_t limit = recorded == compacted.end() ? 0 : recorded->second;
      if (pair->second > limit)
        return *index + " is caught up to " + std::to_string(pair->second) +
               ", past the compacted " + std::to_string(limit);
    }
  }
  return "";
}

// The head's writer, data format, index versions and primary key.
std::string ManifestProblem(const World& world, const impl::ManifestFile& file,
                            const std::map<std::string, uint64_t>& flushed) {
  Wire manifest;
  if (!Parse(file.manifest.SerializeAsString(), &manifest))
    return "the manifest is not a message";
  const std::optional<std::string> writer_bytes = Bytes(manifest, 13);
  const std::optional<std::string> format_bytes = Bytes(manifest, 15);
  if (!writer_bytes || !format_bytes) return "writer_version or data_format";
  Wire writer;
  Wire format;
  if (!Parse(*writer_bytes, &writer) || !Parse(*format_bytes, &format))
    return "writer_version or data_format is not a message";
  const std::optional<std::string> library = Bytes(writer, 1);
  const std::optional<std::string> version = Bytes(writer, 2);
  const std::optional<std::string> prerelease = Bytes(writer, 3);
  if (library != "lance" || !version || !prerelease)
    return "writer_version's library is not lance";
  const std::string written =
      *version + (prerelease->empty() ? "" : "-" + *prerelease);
  if (written != impl::kWriterVersion &&
      written != impl::kUnconditionalWriterVersion)
    return "writer_version " + written + " is no writer's";
  if (file.manifest.version() == 1 && written != impl::kWriterVersion)
    return "version 1 was not written by this implementation";
  if (Bytes(format, 1) != "lance" || Bytes(format, 2) != "2.1")
    return "data_format is not lance 2.1";
  if (file.manifest.version() == 1) {
    // A new table hands out stable row ids 0, 1, ... to its rows, and
    // next_row_id is the next of them.
    std::set<uint64_t> row_ids;
    for (const impl::pb::DataFragment& fragment : file.manifest.fragments()) {
      const Result<impl::FragmentRows> rows = impl::ReadFragmentRows(
          world.store(), world.table_root(), file.manifest, fragment);
      if (!rows.ok()) return "version 1: " + rows.status().ToString();
      row_ids.insert(rows->row_ids.begin(), rows->row_ids.end());
    }
    const uint64_t n = row_ids.size();
    if (n != 0 && (*row_ids.begin() != 0 || *row_ids.rbegin() != n - 1))
      return "version 1's row ids are not 0.." + std::to_string(n - 1);
    if (file.manifest.next_row_id() != n)
      return "version 1 has " + std::to_string(n) + " rows and next_row_id " +
             std::to_string(file.manifest.next_row_id());
  }
  for (const impl::pb::IndexMetadata& index : file.index_section.indices()) {
    if (!index.has_index_version() || index.index_version() != 0)
      return "index " + index.name() + " does not carry index_version 0";
    // LanceDB reads a user index's type off its details' url (one without
    // is listed as Unknown and skipped).
    if (!impl::IsMemWalIndex(index) &&
        index.index_details().type_url() != impl::kBTreeIndexDetailsUrl)
      return "index " + index.name() + " has details '" +
             index.index_details().type_url() + "', not a BTree's";
  }
  std::vector<std::string> keys;
  std::set<int32_t> ids;  // Lance's Schema::validate: no id twice.
  for (const auto& field : file.manifest.fields()) {
    if (!ids.insert(field.id()).second)
      return "two schema fields have id " + std::to_string(field.id());
    Wire wire;
    if (!Parse(field.SerializeAsString(), &wire))
      return "a schema field is not a message";
    // Lance's Field.type (1): an int64 column is a LEAF (2); PARENT (0) is a
    // struct or list holding children.
    if (Varint(wire, 1) != 2 || Bytes(wire, 5) != "int64")
      return "field " + field.name() + " is not an int64 leaf";
    const std::optional<uint64_t> key = Varint(wire, 12);
    const std::optional<uint64_t> position = Varint(wire, 13);
    if (!key || !position || *key > 1)
      return "field " + field.name() + "'s primary key flag";
    std::string metadata_position;
    for (const std::string& entry : Repeated(wire, 10)) {
      Wire pair;
      if (!Parse(entry, &pair) || !Unknown(pair, {1, 2}).empty())
        return "field " + field.name() + "'s metadata is not a map";
      if (Bytes(pair, 1) == "lance-schema:unenforced-primary-key:position")
        metadata_position = Bytes(pair, 2).value_or("?");
    }
    if (*key == 0) {
      if (*position != 0 || !metadata_position.empty())
        return "field " + field.name() + " has a key position but no key";
      continue;
    }
    if (*position < 1 || metadata_position != std::to_string(*position))
      return "field " + field.name() + "'s key position " +
             std::to_string(*position) + " and its metadata's '" +
             metadata_position + "' differ";
    keys.push_back(field.name());
  }
  if (keys != std::vector<std::string>{std::string(impl::kKeyColumn)})
    return "the unenforced primary key is not the key column alone";
  return DetailsProblem(world, file, flushed);
}

std::string MemWalProblem(const World& world) {
  std::map<std::string, uint64_t> flushed;
  const std::string shards = ShardProblem(world, &flushed);
  if (!shards.empty()) return shards;
  impl::PrefixedStore table(const_cast<impl::MemoryStore*>(&world.store()),
                            world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  // The walk has no foreign half-set writer, so every head loads.
  if (!head.ok()) return "the head does not load: " + head.status().ToString();
  return ManifestProblem(world, *head->file, flushed);
}

// One step of the walk; the MemWAL's actions are drawn most.
void Step(World& world, int kind, uint32_t shard, uint32_t index,
          uint64_t small) {
  switch (kind) {
    case 0:
    case 1:
      (void)world.FlushMemTable(shard);
      break;
    case 2:
      (void)world.RetireSsTable(shard, small);
      break;
    case 3:
      (void)world.RetireDecide(shard, small);
      break;
    case 4:
      (void)world.RetireExecute(shard, small);
      break;
    case 5:
    case 6:
      (void)world.BeginCompactSsTable(shard, small != 2);
      break;
    case 7:
      (void)world.BeginRecordProgress(shard);
      break;
    case 8:
      (void)world.BeginAppend();
      break;
    case 9:
      (void)world.BeginCreateIndex(index);
      break;
    case 10:
      (void)world.BeginOptimizeIndex(index);
      break;
    case 11:
      (void)world.BeginDropIndex(index);
      break;
    case 12:
      (void)world.BeginActivate();
      break;
    case 13:
      (void)world.BeginReinstallMemWal();
      break;
    case 14:
      (void)world.ResetMemWal();
      break;
    case 15:
      (void)world.ForeignCompaction(shard);
      break;
    case 16:
      (void)world.BeginCallerAdvance(index, static_cast<uint32_t>(small - 1));
      break;
    case 17:
      (void)world.Restore(small);
      break;
    case 18:
      (void)world.CleanupVersions();
      break;
    case 19:
      (void)world.ShallowClone();
      break;
    case 20:
      (void)world.DropMemWal();
      break;
    case 21:
      (void)world.BeginRewriteFragments(0, small);
      break;
    default:
      if (world.inflight_count() > 0)
        (void)world.Commit(small % world.inflight_count());
      break;
  }
}

RC_GTEST_PROP(RuleFunctions,
              TheMemWalFilesAWorldWritesReadBackAsLancesReaderReadsThem, ()) {
  impl::Options options;
  options.protocol =
      *rc::gen::element(impl::Protocol::kDerived, impl::Protocol::kAdvance,
                        impl::Protocol::kUnconditional);
  options.shards = *rc::gen::inRange<uint32_t>(1, 3);
  options.indexes = *rc::gen::inRange<uint32_t>(1, 3);
  options.seed = *rc::gen::inRange<uint64_t>(0, 1000);
  Result<World> created = World::Create(options);
  RC_ASSERT(created.ok());
  World world = std::move(created).value();
  RC_ASSERT(MemWalProblem(world) == "");
  const int steps = *rc::gen::inRange(10, 50);
  for (int step = 0; step < steps; ++step) {
    const int kind = *rc::gen::inRange(0, 32);
    const auto shard = *rc::gen::inRange<uint32_t>(0, options.shards);
    const auto index = *rc::gen::inRange<uint32_t>(0, options.indexes);
    const auto small = *rc::gen::inRange<uint64_t>(1, 4);
    Step(world, kind, shard, index, small);
    RC_LOG() << "step " << step << " kind " << kind << "\n";
    RC_ASSERT(MemWalProblem(world) == "");
  }
}

// The caller's advance offers are 0, 1 and 2 (impl/world.h); any other is
// refused as input, not taken as the plain repair.
TEST(RuleFunctions, ACallerAdvanceWithAnUnknownOfferIsRefused) {
  Result<World> created = World::Create(impl::Options{
      .protocol = impl::Protocol::kAdvance, .shards = 1, .indexes = 2});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  for (const uint32_t offer : {3u, 4u, 100u}) {
    const Status refused = world.BeginCallerAdvance(0, offer);
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << offer;
  }
  EXPECT_EQ(world.inflight_count(), 0u);
}

// The other-index offer adds an advance for another index: a table with one
// index has none, and the offer is refused rather than naming the same index
// twice.
TEST(RuleFunctions, TheOtherIndexOfferNeedsASecondIndex) {
  World world = *World::Create(impl::Options{
      .protocol = impl::Protocol::kAdvance, .shards = 1, .indexes = 1});
  const auto publish = [&world] {
    const Result<impl::Outcome> outcome = world.Commit(0);
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world.last_reason();
  };
  ASSERT_TRUE(world.BeginActivate().ok());
  publish();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  publish();
  World oldest = world;  // The repair carries an advance to offer on.
  ASSERT_TRUE(oldest.BeginCallerAdvance(0, 1).ok());
  EXPECT_EQ(world.BeginCallerAdvance(0, 0).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(world.inflight_count(), 0u);
}

// The reason World gives is the last step's (the lockstep's findings quote
// it): an env step that publishes without a commit verdict clears the one an
// earlier commit left.
TEST(RuleFunctions, AForeignHalfSetLeavesNoEarlierCommitsReason) {
  Result<World> created = World::Create(impl::Options{});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_TRUE(world.Commit(0).ok());
  // The second compaction of generation 1 is stale: refused, with a reason.
  const Result<impl::Outcome> stale = world.Commit(0);
  ASSERT_TRUE(stale.ok());
  ASSERT_EQ(*stale, impl::Outcome::kRefused);
  ASSERT_FALSE(world.last_reason().empty());
  ASSERT_TRUE(world.ForeignHalfSet().ok());
  EXPECT_EQ(world.last_reason(), "");
}

// max_fragment_id is a high-water mark (Lance never hands a fragment id out
// twice): a Merge (LanceDB's add-columns; World commits none) whose fragment
// list leaves out the head's highest fragment keeps it.
TEST(RuleFunctions, AMergeWithoutTheHighestFragmentKeepsMaxFragmentId) {
  World world = *World::Create(impl::Options{});
  ASSERT_TRUE(world.BeginAppend().ok());
  ASSERT_TRUE(world.Commit(0).ok());
  const impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  ASSERT_TRUE(head.ok());
  ASSERT_EQ(head->file->manifest.fragments_size(), 2);
  ASSERT_EQ(head->file->manifest.max_fragment_id(), 1u);
  impl::pb::Transaction merge;
  merge.set_read_version(head->version());
  *merge.mutable_merge()->add_fragments() = head->file->manifest.fragments(0);
  *merge.mutable_merge()->mutable_schema() = head->file->manifest.fields();
  const impl::UuidSource uuids = [] { return std::string(16, 'u'); };
  impl::BuildInput input;
  input.head = &*head;
  input.read = &*head;
  input.transaction = &merge;
  input.transaction_file = "merge.txn";
  input.new_uuid = &uuids;
  const Result<impl::ManifestFile> built = impl::BuildManifest(input);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.fragments_size(), 1);
  EXPECT_EQ(built->manifest.max_fragment_id(), 1u);
}

// Activation on a table that carries catch-up positions from the beta
// protocol but no compaction progress clears them and rewrites the system
// index (Lance's require_index_catchup; its test
// activation_clears_beta_coverage): positions no derivation made must not
// survive into a table whose readers now trust them.
TEST(RuleFunctions, ActivationClearsBetaCatchupPositions) {
  World world = *World::Create(impl::Options{});
  const impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> loaded = impl::LoadHead(table);
  ASSERT_TRUE(loaded.ok());
  impl::ManifestFile beta = *loaded->file;
  impl::pb::IndexMetadata* system = impl::FindMemWalIndex(&beta.index_section);
  ASSERT_NE(system, nullptr);
  Result<impl::pb::MemWalIndexDetails> details =
      impl::UnpackMemWalDetails(*system);
  ASSERT_TRUE(details.ok());
  ASSERT_EQ(details->compacted_sstables_size(), 0);
  impl::pb::IndexCatchupProgress* entry = details->add_index_catchup();
  entry->set_index_name("idx_0");
  impl::pb::CompactedSsTable* claim = entry->add_caught_up_generations();
  claim->mutable_shard_id()->set_uuid(world.shard_uuid(0));
  claim->set_generation(1);
  impl::PackMemWalDetails(*details, system);
  const std::string beta_uuid = system->uuid().uuid();
  const impl::Snapshot head{
      std::make_shared<const impl::ManifestFile>(std::move(beta))};
  impl::pb::Transaction activate;
  activate.set_read_version(head.version());
  activate.mutable_update_mem_wal_state()->set_require_index_catchup(true);
  const impl::UuidSource uuids = [] { return std::string(16, 'n'); };
  impl::BuildInput input;
  input.head = &head;
  input.read = &head;
  input.transaction = &activate;
  input.transaction_file = "activate.txn";
  input.new_uuid = &uuids;
  const Result<impl::ManifestFile> built = impl::BuildManifest(input);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const impl::pb::IndexMetadata* after =
      impl::FindMemWalIndex(built->index_section);
  ASSERT_NE(after, nullptr);
  const Result<impl::pb::MemWalIndexDetails> cleared =
      impl::UnpackMemWalDetails(*after);
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(cleared->index_catchup_size(), 0);
  EXPECT_NE(after->uuid().uuid(), beta_uuid);
}

// A shard's manifests are the files of its manifest/ directory: a file in a
// directory below it is not one (its last name would parse as a version, a
// second file of that version), so reading the shard refuses it as it refuses
// any unexpected file. (World took it as a manifest until this test.) Not a
// RuleFunctions property: it writes a directory, and the gate runs none.
TEST(MemWalFiles, AFileNestedInAShardsManifestDirectoryIsRefused) {
  const World world = *World::Create(impl::Options{});
  const std::string root = std::filesystem::temp_directory_path().string() +
                           "/memwal-nested-" + std::to_string(::getpid());
  std::filesystem::remove_all(root);
  Result<impl::DirectoryStore> directory = impl::DirectoryStore::Open(root);
  ASSERT_TRUE(directory.ok());
  ASSERT_TRUE(world.WriteTo(&*directory).ok());
  const std::string first = impl::ShardManifestPath(world.shard_uuid(0), 1);
  const std::string nested = impl::ShardManifestDir(world.shard_uuid(0)) +
                             "manifest/old/" +
                             first.substr(first.rfind('/') + 1);
  const Result<impl::Blob> bytes = directory->Get(first);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(directory->Put(nested, **bytes).ok());
  const Result<World> opened = World::OpenFrom(*directory, world.options());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->ReadWal().status().code(), StatusCode::kCorruption);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace memwal
