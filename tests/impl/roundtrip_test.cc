// Persisted round trips and the on-disk layout (crash-safe object store; PR
// 8263's "activate, reopen from storage, commit, reopen again"): a World
// written to a real directory is laid out as Lance lays out a table, every
// manifest decodes and re-encodes to the same bytes, and the MemWAL bit
// survives reopening. Plus a rapidcheck property over random action sequences.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "impl/feature_flags.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::Publish;

std::string TempDir(const std::string& name) {
  const std::string dir = std::filesystem::temp_directory_path().string() +
                          "/memwal-rt-" + std::to_string(::getpid()) + "-" +
                          name;
  std::filesystem::remove_all(dir);
  return dir;
}

DirectoryStore OpenDir(const std::string& root) {
  auto store = DirectoryStore::Open(root);
  MEMWAL_ASSERT(store.ok());
  return std::move(store).value();
}

// Every manifest under `store` decodes and re-encodes to the same bytes;
// returns how many.
size_t CheckManifestsReencode(const Store& store) {
  const auto paths = store.List(std::string(kVersionsDir));
  MEMWAL_ASSERT(paths.ok());
  for (const std::string& path : *paths) {
    const auto blob = store.Get(path);
    MEMWAL_ASSERT(blob.ok());
    const auto decoded = DecodeManifestFile(**blob);
    EXPECT_TRUE(decoded.ok()) << path << ": " << decoded.status().ToString();
    if (decoded.ok()) {
      EXPECT_EQ(EncodeManifestFile(*decoded), **blob) << path;
    }
  }
  return paths->size();
}

TEST(RoundTrip, RequiredCatchupSurvivesActivateReopenCommitReopen) {
  const Options options{
      .protocol = Protocol::kDerived, .shards = 2, .indexes = 2, .seed = 3};
  World world = *World::Create(options);
  Publish(world, [&] { return world.BeginActivate(); });
  const std::string first = TempDir("first");
  DirectoryStore dir1 = OpenDir(first);
  ASSERT_TRUE(world.WriteTo(&dir1).ok());
  auto reopened = World::OpenFrom(dir1, options);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_TRUE(Head(*reopened).reader_bit && Head(*reopened).writer_bit);
  ASSERT_TRUE(reopened->FlushMemTable(1).ok());
  Publish(*reopened, [&] { return reopened->BeginCompactSsTable(1, true); });
  Publish(*reopened, [&] { return reopened->BeginAppend(); });
  const std::string second = TempDir("second");
  DirectoryStore dir2 = OpenDir(second);
  ASSERT_TRUE(reopened->WriteTo(&dir2).ok());
  auto again = World::OpenFrom(dir2, options);
  ASSERT_TRUE(again.ok());
  const TableVersion head = Head(*again);
  EXPECT_EQ(head.number, 4u);
  EXPECT_TRUE(head.reader_bit && head.writer_bit);
  EXPECT_EQ(head.compacted.at(1), 1u);
  EXPECT_EQ(again->ReadWal()->flushed, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(CheckManifestsReencode(dir2), 4u);
  std::filesystem::remove_all(first);
  std::filesystem::remove_all(second);
}

TEST(RoundTrip, ADirectoryTableIsLaidOutAsLanceLaysOutATable) {
  World world = MakeWorld(Protocol::kDerived, 1, 1);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  const std::string root = TempDir("layout");
  DirectoryStore dir = OpenDir(root);
  ASSERT_TRUE(world.WriteTo(&dir).ok());
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(
      root + "/_versions/18446744073709551614.manifest"));  // Version 1.
  EXPECT_TRUE(fs::exists(
      root + "/_versions/18446744073709551613.manifest"));  // Version 2.
  const std::string shard = UuidHex(world.shard_uuid(0));
  EXPECT_TRUE(fs::exists(root + "/_mem_wal/" + shard + "/manifest/1" +
                         std::string(63, '0') + ".binpb"));
  // Every manifest names a transaction file that exists, and its index section
  // sits where the manifest says.
  for (const uint64_t version : {1, 2}) {
    const auto blob = dir.Get(VersionFileName(version));
    ASSERT_TRUE(blob.ok());
    const auto file = DecodeManifestFile(**blob);
    ASSERT_TRUE(file.ok());
    const auto txn = dir.Get(std::string(kTransactionsDir) +
                             file->manifest.transaction_file());
    ASSERT_TRUE(txn.ok());
    // The manifest embeds the same transaction bytes (transaction_section).
    ASSERT_TRUE(file->transaction.has_value());
    EXPECT_EQ(EncodeTransaction(*file->transaction), **txn);
    const std::string& bytes = **blob;
    const uint64_t offset = file->manifest.index_section();
    uint32_t size = 0;
    for (int k = 0; k < 4; ++k) {
      size |= uint32_t{static_cast<uint8_t>(
                  bytes[offset + static_cast<uint64_t>(k)])}
              << (8 * k);
    }
    pb::IndexSection section;
    ASSERT_TRUE(section.ParseFromString(bytes.substr(offset + 4, size)));
    EXPECT_EQ(section.indices_size(), 2);
    EXPECT_NE(FindMemWalIndex(section), nullptr);
  }
  // The MemWAL system index carries its details in an Any named
  // ...MemWalIndexDetails.
  const auto head = DecodeManifestFile(**dir.Get(VersionFileName(2)));
  const pb::IndexMetadata* system = FindMemWalIndex(head->index_section);
  EXPECT_EQ(system->index_details().type_url(),
            "/lance.table.MemWalIndexDetails");
  EXPECT_TRUE(system->fragment_bitmap().empty());
  EXPECT_EQ(system->fields_size(), 0);
  const auto details = UnpackMemWalDetails(*system);
  EXPECT_EQ(details->maintained_indexes(0), "idx_0");
  EXPECT_EQ(details->compacted_sstables(0).generation(), 1u);
  std::filesystem::remove_all(root);
}

TEST(RoundTrip, AWrittenTransactionLoadsAsItsFileDecodes) {
  // Decode-once: a writer encodes a transaction once (its .txn file's bytes
  // are the manifest's transaction section) and seeds the decoding it has in
  // hand; a load returns what decoding the file gives.
  World world = MakeWorld(Protocol::kDerived, 1, 1);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  ASSERT_TRUE(world.ShallowClone().ok());
  Publish(world, [&] { return world.BeginAppend(); });
  ASSERT_EQ(world.Restore(2).value(), Outcome::kPublished);
  const PrefixedStore table(world.mutable_store(), world.table_root());
  const auto versions = ListVersions(table);
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 3u);  // The clone, the append, the restore.
  for (const uint64_t version : *versions) {
    const auto snapshot = LoadVersion(table, nullptr, version, true);
    ASSERT_TRUE(snapshot.ok());
    const auto loaded = LoadSharedTransaction(table, *snapshot);
    ASSERT_TRUE(loaded.ok());
    const auto txn = table.Get(std::string(kTransactionsDir) +
                               snapshot->file->manifest.transaction_file());
    ASSERT_TRUE(txn.ok());
    const auto decoded = DecodeTransaction(**txn);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(EncodeTransaction(**loaded), **txn) << version;
    EXPECT_EQ(EncodeTransaction(*decoded), **txn) << version;
    ASSERT_TRUE(snapshot->file->transaction.has_value());
    EXPECT_EQ(EncodeTransaction(*snapshot->file->transaction), **txn);
  }
}

TEST(RoundTrip, ATransactionFileOrphanedByACrashIsIgnoredOnReopen) {
  // Crash scenario: (1) a writer puts its transaction file, (2) it crashes
  // before the manifest's put-if-absent. Nothing was acknowledged, and the
  // table must reopen and commit.
  const Options options{
      .protocol = Protocol::kDerived, .shards = 1, .indexes = 1, .seed = 5};
  World world = *World::Create(options);
  const std::string root = TempDir("orphan");
  DirectoryStore dir = OpenDir(root);
  ASSERT_TRUE(world.WriteTo(&dir).ok());
  ASSERT_TRUE(dir.PutIfAbsent(std::string(kTransactionsDir) + "1-crashed.txn",
                              "partial")
                  .ok());
  auto reopened = World::OpenFrom(dir, options);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(*reopened->Versions(), (std::vector<uint64_t>{1}));
  Publish(*reopened, [&] { return reopened->BeginAppend(); });
  EXPECT_EQ(Head(*reopened).number, 2u);
  std::filesystem::remove_all(root);
}

// One random step on a world; failures of Begin (not enabled) are fine.
void RandomStep(World& world, uint32_t choice, uint32_t a, uint32_t b) {
  const Options& o = world.options();
  switch (choice % 14) {
    case 0:
      (void)world.FlushMemTable(a % o.shards);
      break;
    case 1:
      (void)world.BeginAppend();
      break;
    case 2:
      (void)world.BeginDeleteFragment(a % 6);
      break;
    case 3:
      (void)world.BeginCompactSsTable(a % o.shards, b % 2 == 0);
      break;
    case 4:
      (void)world.BeginUpdateColumns(a % 6, b % o.indexes);
      break;
    case 5:
      (void)world.BeginRewriteFragments(a % 6, a % 6 + 1 + b % 3);
      break;
    case 6:
      (void)world.BeginCreateIndex(a % o.indexes);
      break;
    case 7:
      (void)world.BeginOptimizeIndex(a % o.indexes);
      break;
    case 8:
      (void)world.BeginDropIndex(a % o.indexes);
      break;
    case 9:
      (void)world.BeginRecordProgress(a % o.shards);
      break;
    case 10:
      (void)world.BeginActivate();
      break;
    case 11:
      if (world.inflight_count() > 0)
        MEMWAL_ASSERT(world.Commit(a % world.inflight_count()).ok());
      break;
    case 12:
      (void)world.Restore(1 + a % 8);
      break;
    default:
      (void)world.RetireSsTable(a % o.shards, 1 + b % 3);
      break;
  }
}

RC_GTEST_PROP(
    RoundTrip, RandomActionSequencesNeverWriteAnUndecodableManifest,
    (const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>& steps)) {
  const auto protocol =
      *rc::gen::element(Protocol::kDerived, Protocol::kAdvance,
                        Protocol::kUnconditional, Protocol::kLegacy);
  World world = *World::Create(
      Options{.protocol = protocol, .shards = 2, .indexes = 2, .seed = 1});
  bool activated = false;
  for (size_t k = 0; k < steps.size() && k < 40; ++k) {
    const auto& [choice, a, b] = steps[k];
    RandomStep(world, choice, a, b);
    const TableVersion head = Head(world);
    RC_ASSERT(head.reader_bit == head.writer_bit);  // FeatureBitsArePaired.
    activated |= head.reader_bit;
    RC_ASSERT(!activated || head.reader_bit);  // ActivationIsPermanent.
    for (const auto& [index, shards] :
         head.catchup) {  // CatchupWithinCompaction.
      for (const auto& [shard, position] : shards) {
        RC_ASSERT(head.compacted.count(shard) == 1);
        RC_ASSERT(position <= head.compacted.at(shard));
      }
    }
  }
  PrefixedStore table(world.mutable_store(), world.table_root());
  CheckManifestsReencode(table);
  const auto versions = world.Versions();
  RC_ASSERT(versions.ok());
  for (const uint64_t version : *versions)
    RC_ASSERT(world.ReadVersion(version).ok());
}

}  // namespace
}  // namespace memwal::impl
