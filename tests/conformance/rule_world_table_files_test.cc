// The table's files on the paths no World action of the gate's entries takes:
//
// - a deletion file (Lance: a Delete that updates a fragment with one, as a
//   foreign writer's row delete publishes it [P §10.2]) deletes the rows it
//   names: ReadRows lists them deleted and not held, and so does every clone
//   of the table: a shallow clone reads the file under its source (the file
//   gets the source's base id), a deep clone owns a copy (no base id), and a
//   deep clone of a shallow clone owns a copy of the source's file;
// - Restore refuses a retained version that has the MemWAL catch-up bit in one
//   word only (Lance: restore_old_manifest validates it [P §4.2]) and says so;
// - a table written to a directory after a clone (its table root is no
//   longer its MemWAL root) reopens with its shards, versions and rows, and
//   the reopened World clones under the name the writer's next clone takes;
// - a commit that loses the put-if-absent race to another writer rebases
//   over the winner and publishes the next version, or refuses where the
//   winner conflicts (spec R30);
// - each version names the operation of its transaction file (Activate and
//   RecordProgress told apart);
// - a version naming a shard the table does not have does not read;
// - a no-work repair of a table whose __lance_mem_wal was dropped is refused;
// - a repair's new segment in a shallow clone has no base id;
// - a clone records its kind and source version, and a shallow clone keeps
//   the catch-up bit (unless bug shallow-clone-zeroes-bits);
// - Retirable refuses a shard or generation that is not there, and
//   watermarks do not depend on the order of the query's indexes;
// - a manifest a load refuses is refused after the writer's own write too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/bitmap.h"
#include "impl/commit.h"
#include "impl/feature_flags.h"
#include "impl/rows.h"
#include "impl/store.h"
#include "impl/table.h"
#include "impl/world.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

using impl::Outcome;
using impl::World;
using impl::testing::Publish;
using impl::testing::PublishForeign;
using impl::testing::RacingStore;
using impl::testing::Rival;
namespace pb = impl::pb;

using Rows = std::set<std::pair<uint32_t, uint64_t>>;

// A World with one MemWAL row per shard compacted into the table: (s, 1) in
// the fragment the compaction of shard s added.
World WithMemWalRows(uint32_t shards) {
  Result<World> created =
      World::Create(impl::Options{.shards = shards, .indexes = 1, .seed = 11});
  MEMWAL_ASSERT(created.ok());
  World world = std::move(created).value();
  for (uint32_t shard = 0; shard < shards; ++shard) {
    MEMWAL_ASSERT(world.FlushMemTable(shard).ok());
    Publish(world, world.BeginCompactSsTable(shard, true));
  }
  return world;
}

// The fragment that holds `row`.
uint64_t FragmentOf(const World& world, std::pair<uint32_t, uint64_t> row) {
  const Result<impl::RowsView> rows = world.ReadRows();
  MEMWAL_ASSERT(rows.ok());
  for (const auto& [id, held] : rows->fragments) {
    if (held.count(row) != 0) return id;
  }
  MEMWAL_ASSERT(false);
  return 0;
}

// A foreign writer deletes offset 0 of `fragment` with a deletion file (a
// portable Roaring bitmap of offsets, BITMAP type) and publishes head+1.
void DeleteFirstRowByFile(World& world, uint64_t fragment) {
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  PublishForeign(world, [&](impl::ManifestFile* file) {
    bool found = false;
    for (pb::DataFragment& each : *file->manifest.mutable_fragments()) {
      if (each.id() != fragment) continue;
      found = true;
      pb::DeletionFile* deletion = each.mutable_deletion_file();
      deletion->set_file_type(pb::DeletionFile::BITMAP);
      deletion->set_read_version(file->manifest.version() - 1);
      deletion->set_id(1);
      deletion->set_num_deleted_rows(1);
      MEMWAL_ASSERT(
          table
              .PutIfAbsent(impl::DeletionFilePath(fragment, *deletion),
                           impl::EncodeFragmentBitmap(impl::FragmentSet{0}))
              .ok());
    }
    MEMWAL_ASSERT(found);
    // Lance's apply_feature_flags: a deletion file sets bit 1 in both words.
    file->manifest.set_reader_feature_flags(
        file->manifest.reader_feature_flags() | impl::kFlagDeletionFiles);
    file->manifest.set_writer_feature_flags(
        file->manifest.writer_feature_flags() | impl::kFlagDeletionFiles);
  });
}

void ExpectDeleted(const World& world, std::pair<uint32_t, uint64_t> row,
                   uint64_t fragment, const std::string& which) {
  const Result<impl::RowsView> rows = world.ReadRows();
  ASSERT_TRUE(rows.ok()) << which << ": " << rows.status().ToString();
  EXPECT_EQ(rows->deleted.count(row), 1u) << which;
  ASSERT_EQ(rows->fragments.count(fragment), 1u) << which;
  EXPECT_EQ(rows->fragments.at(fragment).count(row), 0u) << which;
}

TEST(RuleFunctions, ARowADeletionFileDeletesIsDeletedInTheTableAndItsClones) {
  World world = WithMemWalRows(2);
  const std::pair<uint32_t, uint64_t> row{1, 1};
  const uint64_t fragment = FragmentOf(world, row);
  DeleteFirstRowByFile(world, fragment);
  ExpectDeleted(world, row, fragment, "the table");
  // The other shard's row is held still.
  EXPECT_EQ(world.ReadRows()->deleted.count({0, 1}), 0u);
  const std::string source = world.table_root();
  {
    World shallow = world;
    ASSERT_TRUE(shallow.ShallowClone().ok());
    ExpectDeleted(shallow, row, fragment, "a shallow clone");
    World deep = shallow;
    ASSERT_TRUE(deep.DeepClone().ok());
    ExpectDeleted(deep, row, fragment, "a deep clone of a shallow clone");
    // It owns a copy of the source's deletion file.
    std::vector<std::string> own;
    for (const auto& [path, blob] : deep.store().objects()) {
      if (path.rfind(deep.table_root() + "_deletions/", 0) == 0)
        own.push_back(path);
    }
    EXPECT_EQ(own.size(), 1u);
  }
  World deep = world;
  ASSERT_TRUE(deep.DeepClone().ok());
  ExpectDeleted(deep, row, fragment, "a deep clone");
  EXPECT_NE(deep.table_root(), source);
}

TEST(RuleFunctions, RestoreRefusesAVersionWithTheCatchupBitInOneWordOnly) {
  World world = WithMemWalRows(1);
  // A foreign writer publishes the bit in the reader word only, then both.
  const auto set_bits = [](bool writer) {
    return [writer](impl::ManifestFile* file) {
      pb::Manifest& manifest = file->manifest;
      manifest.set_reader_feature_flags(manifest.reader_feature_flags() |
                                        impl::kFlagMemWalIndexCatchup);
      if (writer) {
        manifest.set_writer_feature_flags(manifest.writer_feature_flags() |
                                          impl::kFlagMemWalIndexCatchup);
      }
    };
  };
  PublishForeign(world, set_bits(false));
  // Lance refuses to load a half-set head (a writer's Head() with it).
  EXPECT_FALSE(world.HeadLoads().ok());
  const Result<std::vector<uint64_t>> versions = world.Versions();
  ASSERT_TRUE(versions.ok());
  const uint64_t half = versions->back();
  PublishForeign(world, set_bits(true));
  ASSERT_TRUE(world.HeadLoads().ok());
  const Result<Outcome> restored = world.Restore(half);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ(*restored, Outcome::kRefused);
  EXPECT_NE(world.last_reason().find("one MemWAL catch-up bit"),
            std::string::npos)
      << world.last_reason();
  // The version before it, with neither bit, predates the requirement.
  const Result<Outcome> older = world.Restore(half - 1);
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(*older, Outcome::kRefused);
}

// TableVersion::op is the operation of the version's transaction file: an
// UpdateMemWalState that requires index catch-up is an Activate, one that
// does not records progress.
TEST(RuleFunctions, EachVersionNamesTheOperationOfItsTransactionFile) {
  Result<World> created =
      World::Create(impl::Options{.shards = 1, .indexes = 1, .seed = 11});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  const auto head_op = [&world] {
    const Result<impl::TableVersion> head =
        world.ReadVersion(world.Versions().value().back());
    MEMWAL_ASSERT(head.ok());
    return head->op;
  };
  Publish(world, world.BeginActivate());
  EXPECT_EQ(head_op(), impl::OpKind::kActivate);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginCompactSsTable(0, true));
  EXPECT_EQ(head_op(), impl::OpKind::kCompactSsTable);
  // A two-step compaction: the data pass, then its progress pass.
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginCompactSsTable(0, false));
  Publish(world, world.BeginRecordProgress(0));
  EXPECT_EQ(head_op(), impl::OpKind::kRecordProgress);
  Publish(world, world.BeginAppend());
  EXPECT_EQ(head_op(), impl::OpKind::kAppend);
  Publish(world, world.BeginCreateIndex(0));
  EXPECT_EQ(head_op(), impl::OpKind::kCreateIndex);
  Publish(world, world.BeginUpdateColumns(0, 0));
  EXPECT_EQ(head_op(), impl::OpKind::kUpdateColumns);
}

// The table's shards are the ones its MemWAL has: a version whose MemWAL
// details name another shard (a compacted SSTable, or a catch-up position),
// or whose data holds a row of another shard, does not read.
TEST(RuleFunctions, AVersionNamingAShardTheTableDoesNotHaveIsCorruption) {
  const std::string stranger(16, 'x');
  const auto latest = [](const World& world) {
    return world.ReadVersion(world.Versions().value().back());
  };
  for (const bool in_catchup : {false, true}) {
    World world = WithMemWalRows(2);
    ASSERT_TRUE(latest(world).ok());
    PublishForeign(world, [&](impl::ManifestFile* file) {
      pb::IndexMetadata* system = impl::FindMemWalIndex(&file->index_section);
      MEMWAL_ASSERT(system != nullptr);
      Result<pb::MemWalIndexDetails> details =
          impl::UnpackMemWalDetails(*system);
      MEMWAL_ASSERT(details.ok() && details->compacted_sstables_size() > 0);
      pb::CompactedSsTable entry = details->compacted_sstables(0);
      entry.mutable_shard_id()->set_uuid(stranger);
      if (in_catchup) {
        pb::IndexCatchupProgress* progress = details->add_index_catchup();
        progress->set_index_name("idx_0");
        *progress->add_caught_up_generations() = entry;
      } else {
        *details->add_compacted_sstables() = entry;
      }
      impl::PackMemWalDetails(*details, system);
    });
    const Result<impl::TableVersion> read = latest(world);
    ASSERT_FALSE(read.ok()) << (in_catchup ? "catch-up" : "compacted");
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption);
  }
  // (Found on a twin: ReadRows keeps its fold per manifest blob, so the
  // World whose data file is replaced must not have read its rows yet.)
  const World twin = WithMemWalRows(1);
  const uint64_t fragment = FragmentOf(twin, {0, 1});
  World world = WithMemWalRows(1);
  const impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  ASSERT_TRUE(head.ok());
  for (const pb::DataFragment& each : head->file->manifest.fragments()) {
    if (each.id() != fragment) continue;
    const std::string path =
        world.table_root() + "data/" + each.files(0).path();
    ASSERT_TRUE(world.mutable_store()
                    ->Put(path, impl::EncodeRowFile({impl::RowKey{
                                    .shard = stranger, .generation = 1}}))
                    .ok());
  }
  const Result<impl::RowsView> rows = world.ReadRows();
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), StatusCode::kCorruption);
}

// Lance's optimize_indices commits a no-work repair only where
// mem_wal_catch_up_would_advance says catch-up would advance (spec R26): on a
// table that requires catch-up but whose __lance_mem_wal index was dropped
// (R63) there is no catch-up to advance, so the repair is refused at begin.
TEST(RuleFunctions, ANoWorkRepairOfATableWithoutItsMemWalIndexIsRefused) {
  Result<World> created =
      World::Create(impl::Options{.shards = 1, .indexes = 1, .seed = 11});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  Publish(world, world.BeginActivate());
  ASSERT_TRUE(world.DropMemWal().ok());
  const Result<impl::TableVersion> head =
      world.ReadVersion(world.Versions().value().back());
  ASSERT_TRUE(head.ok());
  ASSERT_TRUE(head->reader_bit && head->writer_bit);
  ASSERT_TRUE(head->mem_wal_index_uuid.empty());
  EXPECT_FALSE(world.BeginOptimizeIndex(0).ok());
  EXPECT_EQ(world.inflight_count(), 0u);
}

// Lance: a segment optimize_indices writes is a new file of this table, in
// its own _indices/, so it has no base_id, even where the segment it extends
// (or merges) is a clone source's (the shallow clone's indexes name their
// source's base).
TEST(RuleFunctions, ASegmentARepairWritesInAShallowCloneHasNoBaseId) {
  World world = WithMemWalRows(1);
  ASSERT_TRUE(world.ShallowClone().ok());
  const auto segments = [&world] {
    const impl::PrefixedStore table(world.mutable_store(), world.table_root());
    const Result<impl::Snapshot> head = impl::LoadHead(table);
    MEMWAL_ASSERT(head.ok());
    std::map<std::string, bool> based;  // uuid -> has a base id
    for (const pb::IndexMetadata& index : head->file->index_section.indices()) {
      if (index.name() == "idx_0")
        based.emplace(index.uuid().uuid(), index.has_base_id());
    }
    return based;
  };
  const std::map<std::string, bool> cloned = segments();
  ASSERT_FALSE(cloned.empty());
  for (const auto& [uuid, based] : cloned) EXPECT_TRUE(based);
  Publish(world, world.BeginAppend());  // an unindexed fragment
  Publish(world, world.BeginOptimizeIndex(0));
  int fresh = 0;
  for (const auto& [uuid, based] : segments()) {
    if (cloned.count(uuid) != 0) continue;
    ++fresh;
    EXPECT_FALSE(based);
  }
  EXPECT_EQ(fresh, 1);
}

// A clone's first version records the clone in its transaction (Lance's
// Clone operation): shallow or deep, and the source version; a shallow clone
// keeps only bit 128 of its source's feature words (Manifest::shallow_clone),
// which bug shallow-clone-zeroes-bits drops too.
TEST(RuleFunctions, ACloneRecordsItsKindAndAShallowOneKeepsTheCatchupBit) {
  for (const bool deep : {false, true}) {
    World world = WithMemWalRows(1);
    const uint64_t source = world.Versions().value().back();
    ASSERT_TRUE((deep ? world.DeepClone() : world.ShallowClone()).ok());
    const Result<impl::TableVersion> head =
        world.ReadVersion(world.Versions().value().back());
    ASSERT_TRUE(head.ok() && head->transaction != nullptr);
    ASSERT_TRUE(head->transaction->has_clone());
    EXPECT_EQ(head->transaction->clone().is_shallow(), !deep);
    EXPECT_EQ(head->transaction->clone().ref_version(), source);
  }
  for (const bool bug : {false, true}) {
    Result<World> created = World::Create(impl::Options{
        .bugs = bug ? impl::BugBit(impl::Bug::kShallowCloneZeroesBits) : 0u,
        .shards = 1,
        .indexes = 1,
        .seed = 11});
    ASSERT_TRUE(created.ok());
    World world = std::move(created).value();
    Publish(world, world.BeginActivate());
    ASSERT_TRUE(world.ShallowClone().ok());
    const Result<impl::TableVersion> head =
        world.ReadVersion(world.Versions().value().back());
    ASSERT_TRUE(head.ok());
    EXPECT_EQ(head->reader_bit, !bug);
    EXPECT_EQ(head->writer_bit, !bug);
  }
}

// Retirable(shard, generation) answers for a shard of the table and a
// generation from 1; anything else is InvalidArgument.
TEST(RuleFunctions, RetirableRefusesAShardOrGenerationThatIsNotThere) {
  World world = WithMemWalRows(2);
  EXPECT_TRUE(world.Retirable(1, 1).ok());
  for (const auto& [shard, generation] :
       std::vector<std::pair<uint32_t, uint64_t>>{{2, 1}, {0, 0}, {2, 0}}) {
    const Result<bool> answer = world.Retirable(shard, generation);
    ASSERT_FALSE(answer.ok()) << shard << " " << generation;
    EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
  }
}

// A read's watermarks do not depend on the order its query names the indexes
// in (the single-index reader trusts the smallest index number).
TEST(RuleFunctions, WatermarksDoNotDependOnTheOrderOfTheQuery) {
  for (const impl::ReadMode read :
       {impl::ReadMode::kStrict, impl::ReadMode::kMin,
        impl::ReadMode::kSingleIndex}) {
    Result<World> created = World::Create(
        impl::Options{.read = read, .shards = 1, .indexes = 2, .seed = 11});
    ASSERT_TRUE(created.ok());
    World world = std::move(created).value();
    Publish(world, world.BeginActivate());
    // idx_0 catches up to generation 1, idx_1 to generation 2.
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, world.BeginCompactSsTable(0, true));
    Publish(world, world.BeginOptimizeIndex(0));
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, world.BeginCompactSsTable(0, true));
    Publish(world, world.BeginOptimizeIndex(1));
    const Result<impl::TableVersion> head =
        world.ReadVersion(world.Versions().value().back());
    ASSERT_TRUE(head.ok());
    ASSERT_EQ(head->catchup.at(0).at(0), 1u);
    ASSERT_EQ(head->catchup.at(1).at(0), 2u);
    const auto ascending = world.Watermarks({0, 1});
    const auto descending = world.Watermarks({1, 0});
    ASSERT_TRUE(ascending.ok() && descending.ok());
    EXPECT_EQ(*ascending, *descending) << static_cast<int>(read);
  }
}

// The writer's decode-once (WriteManifestFile seeds the decoding of what it
// wrote) never lets a manifest through that a load would refuse: a version
// whose fragment ids are not ascending, written through WriteManifestFile, is
// Corruption on load as it would be for any reader.
TEST(RuleFunctions, AManifestALoadRefusesIsRefusedAfterItsOwnWriteToo) {
  World world = WithMemWalRows(1);
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  ASSERT_TRUE(head.ok());
  impl::ManifestFile file = impl::CopyWithoutTransaction(*head->file);
  const uint64_t version = head->version() + 1;
  file.manifest.set_version(version);
  ASSERT_GT(file.manifest.fragments_size(), 0);
  *file.manifest.add_fragments() = file.manifest.fragments(0);  // id again
  pb::Transaction transaction;
  transaction.set_read_version(head->version());
  transaction.mutable_append();
  const std::string name = impl::TransactionFileName(head->version(), "bad");
  file.manifest.set_transaction_file(name);
  file.transaction = transaction;
  const Result<impl::Blob> blob =
      impl::WriteTransactionFile(&table, name, transaction);
  ASSERT_TRUE(blob.ok());
  ASSERT_TRUE(impl::WriteManifestFile(&table, std::move(file), {}, *blob).ok());
  const Result<impl::Snapshot> loaded =
      impl::LoadVersion(table, nullptr, version, false);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
}

// A fresh directory (on tmpfs where the machine has one: DirectoryStore
// fsyncs every file), removed when it goes out of scope.
struct ScratchDirectory {
  explicit ScratchDirectory(const std::string& name) {
    const std::filesystem::path shm = "/dev/shm";
    path = (std::filesystem::is_directory(shm)
                ? shm
                : std::filesystem::temp_directory_path())
               .string() +
           "/memwal-" + name + "-" + std::to_string(::getpid());
    std::filesystem::remove_all(path);
  }
  ~ScratchDirectory() { std::filesystem::remove_all(path); }
  std::string path;
};

TEST(RuleFunctions, ATableWrittenAfterACloneReopensWithItsShardsAndRows) {
  World world = WithMemWalRows(2);
  ASSERT_TRUE(world.DeepClone().ok());
  Publish(world, world.BeginAppend());
  ASSERT_NE(world.table_root(), world.wal_root());
  ScratchDirectory scratch("clone-reopen");
  Result<impl::DirectoryStore> directory =
      impl::DirectoryStore::Open(scratch.path);
  ASSERT_TRUE(directory.ok());
  ASSERT_TRUE(world.WriteTo(&*directory).ok());
  Result<World> reopened = World::OpenFrom(*directory, world.options());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  for (uint32_t shard = 0; shard < 2; ++shard)
    EXPECT_EQ(reopened->shard_uuid(shard), world.shard_uuid(shard)) << shard;
  EXPECT_EQ(reopened->Versions().value(), world.Versions().value());
  const auto rows = world.ReadRows();
  const auto reopened_rows = reopened->ReadRows();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_TRUE(reopened_rows.ok()) << reopened_rows.status().ToString();
  EXPECT_EQ(reopened_rows->fragments, rows->fragments);
  const auto wal = world.ReadWal();
  const auto reopened_wal = reopened->ReadWal();
  ASSERT_TRUE(wal.ok() && reopened_wal.ok());
  EXPECT_EQ(reopened_wal->flushed, wal->flushed);
  // The writer of the directory has one table (it never cloned): the
  // reopened World's next clone is its second table, named as the writer's.
  World writer = WithMemWalRows(2);
  ASSERT_TRUE(writer.ShallowClone().ok());
  ASSERT_TRUE(reopened->ShallowClone().ok());
  EXPECT_EQ(reopened->table_root(), writer.table_root());
}

TEST(RuleFunctions, ACommitThatLosesThePublicationRaceRebasesOverTheWinner) {
  pb::Transaction append;
  append.mutable_append()->add_fragments();
  pb::Transaction progress;
  progress.mutable_update_mem_wal_state();
  // A compatible winner: published above it; an incompatible one: refused.
  for (const bool compatible : {true, false}) {
    World world = WithMemWalRows(1);
    const uint64_t read = world.Versions().value().back();
    impl::PrefixedStore table(world.mutable_store(), world.table_root());
    RacingStore racing(&table, Rival(compatible ? append : progress));
    auto counter = std::make_shared<uint64_t>(0);
    const impl::UuidSource uuids = [counter] {
      return std::string(15, 'r') + static_cast<char>(++*counter);
    };
    pb::Transaction mine = append;
    mine.set_read_version(read);
    mine.set_uuid("mine");
    const Result<impl::CommitResult> result = impl::CommitTransaction(
        impl::CommitInput{.protocol = impl::Protocol::kDerived,
                          .bugs = {},
                          .table = &racing,
                          .archive = nullptr,
                          .new_uuid = &uuids},
        mine);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const std::vector<uint64_t> versions = world.Versions().value();
    if (compatible) {
      EXPECT_EQ(result->outcome, Outcome::kPublished) << result->reason;
      EXPECT_EQ(result->version, read + 2);
      EXPECT_EQ(versions.back(), read + 2);
    } else {
      EXPECT_EQ(result->outcome, Outcome::kRefused);
      EXPECT_EQ(versions.back(), read + 1);
    }
  }
}

}  // namespace
}  // namespace memwal
