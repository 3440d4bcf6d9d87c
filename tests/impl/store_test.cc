// Stores (impl/store.h): put-if-absent semantics, cheap copies of the memory
// store, and the directory store's crash-safe publication on a real directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "impl/directory_store.h"
#include "impl/memory_store.h"

namespace memwal::impl {
namespace {

std::string TempDir(const std::string& name) {
  const std::string dir = std::filesystem::temp_directory_path().string() +
                          "/memwal-impl-" + std::to_string(::getpid()) + "-" +
                          name;
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(MemoryStore, PutIfAbsentRefusesATakenName) {
  MemoryStore store;
  ASSERT_TRUE(store.PutIfAbsent("_versions/a", "one").ok());
  EXPECT_EQ(store.PutIfAbsent("_versions/a", "two").code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(**store.Get("_versions/a"), "one");
  EXPECT_EQ(store.Get("missing").status().code(), StatusCode::kNotFound);
}

TEST(MemoryStore, ACopySharesBlobsAndDivergesIndependently) {
  MemoryStore store;
  ASSERT_TRUE(store.Put("x", std::string(1000, 'x')).ok());
  MemoryStore copy = store;
  EXPECT_EQ(store.Get("x")->get(),
            copy.Get("x")->get());  // Same blob, not a byte copy.
  ASSERT_TRUE(copy.Put("y", "y").ok());
  EXPECT_FALSE(store.Get("y").ok());
}

TEST(MemoryStore, ACopyKeepsTheEpochAndEveryChangeTakesANewOne) {
  MemoryStore store;
  const MemoryStore other;
  EXPECT_NE(store.epoch(), other.epoch());  // two new stores
  ASSERT_TRUE(store.Put("x", "x").ok());
  MemoryStore copy = store;
  EXPECT_EQ(copy.epoch(), store.epoch());
  // Both copies write the same path: same bytes, yet each change is new.
  ASSERT_TRUE(copy.PutIfAbsent("y", "y").ok());
  ASSERT_TRUE(store.PutIfAbsent("y", "y").ok());
  EXPECT_NE(copy.epoch(), store.epoch());
  // A refused write and a delete of nothing change nothing.
  const uint64_t before = store.epoch();
  EXPECT_FALSE(store.PutIfAbsent("y", "z").ok());
  EXPECT_FALSE(store.Delete("absent").ok());
  EXPECT_EQ(store.epoch(), before);
  ASSERT_TRUE(store.Delete("y").ok());
  EXPECT_NE(store.epoch(), before);
}

TEST(MemoryStore, AChangeTakesANewEpochForItsPartOnly) {
  MemoryStore store;
  const uint64_t table = store.table_epoch();
  const uint64_t wal = store.wal_epoch();
  ASSERT_TRUE(store.Put("t0/_mem_wal/abc/manifest/1.binpb", "m").ok());
  EXPECT_EQ(store.table_epoch(), table);
  EXPECT_NE(store.wal_epoch(), wal);
  const uint64_t wal_after = store.wal_epoch();
  ASSERT_TRUE(store.Put("t0/_versions/1.manifest", "v").ok());
  EXPECT_NE(store.table_epoch(), table);
  EXPECT_EQ(store.wal_epoch(), wal_after);
  // Only a whole directory name counts, not a name that ends with it.
  EXPECT_TRUE(MemoryStore::InWal("_mem_wal/x"));
  EXPECT_FALSE(MemoryStore::InWal("t0/not_mem_wal/x"));
  EXPECT_FALSE(MemoryStore::InWal("t0/_mem_wal"));
  // The manifests' epoch changes with a manifest only.
  const uint64_t versions = store.versions_epoch();
  ASSERT_TRUE(store.Put("t0/data/1.lance", "d").ok());
  EXPECT_EQ(store.versions_epoch(), versions);
  ASSERT_TRUE(store.Put("archive/t0/_versions/1.manifest", "v").ok());
  EXPECT_NE(store.versions_epoch(), versions);
  EXPECT_TRUE(MemoryStore::InVersions("_versions/1.manifest"));
  EXPECT_FALSE(MemoryStore::InVersions("t0/data/x_versions/1"));
  // A copy keeps both; a delete changes its part.
  MemoryStore copy = store;
  EXPECT_EQ(copy.table_epoch(), store.table_epoch());
  EXPECT_EQ(copy.wal_epoch(), store.wal_epoch());
  ASSERT_TRUE(copy.Delete("t0/_mem_wal/abc/manifest/1.binpb").ok());
  EXPECT_EQ(copy.table_epoch(), store.table_epoch());
  EXPECT_NE(copy.wal_epoch(), store.wal_epoch());
}

TEST(MemoryStore, TheSourceOfACopyChangesWithoutTheCopySeeingIt) {
  MemoryStore store;
  ASSERT_TRUE(store.Put("x", "x").ok());
  const MemoryStore copy = store;  // shares the object map until a change
  ASSERT_TRUE(store.Put("x", "changed").ok());
  ASSERT_TRUE(store.Delete("x").ok());
  ASSERT_TRUE(store.PutIfAbsent("z", "z").ok());
  EXPECT_EQ(**copy.Get("x"), "x");
  EXPECT_FALSE(copy.Get("z").ok());
  EXPECT_EQ(copy.objects().size(), 1u);
}

TEST(MemoryStore, AMovedFromStoreStaysWhole) {
  MemoryStore store;
  ASSERT_TRUE(store.Put("x", "x").ok());
  MemoryStore moved = std::move(store);
  EXPECT_EQ(**moved.Get("x"), "x");
  EXPECT_EQ(**store.Get("x"), "x");  // NOLINT(bugprone-use-after-move)
  ASSERT_TRUE(store.Put("y", "y").ok());
  EXPECT_FALSE(moved.Get("y").ok());
}

TEST(MemoryStore, PutSharedStoresTheBlobItselfAsANewChange) {
  MemoryStore store;
  ASSERT_TRUE(store.Put("a", "bytes").ok());
  const Blob blob = *store.Get("a");
  const uint64_t before = store.epoch();
  ASSERT_TRUE(store.PutShared("b", blob).ok());
  EXPECT_EQ(store.Get("b")->get(), blob.get());
  EXPECT_NE(store.epoch(), before);
}

TEST(MemoryStore, TheTableDigestIsOfTheTablePartsBytesInAnyOrder) {
  MemoryStore one;
  ASSERT_TRUE(one.Put("t0/_versions/1.manifest", "m1").ok());
  ASSERT_TRUE(one.PutIfAbsent("t0/data/a.lance", "rows").ok());
  ASSERT_TRUE(one.Put("t0/_mem_wal/s/manifest/1", "wal one").ok());
  MemoryStore two;
  ASSERT_TRUE(two.Put("t0/_mem_wal/s/manifest/1", "wal two").ok());
  ASSERT_TRUE(two.PutIfAbsent("t0/data/a.lance", "rows").ok());
  ASSERT_TRUE(two.Put("t0/_versions/1.manifest", "old").ok());
  EXPECT_NE(one.table_digest(), two.table_digest());
  // Overwritten, then the MemWAL's part changed: only the table's part counts.
  ASSERT_TRUE(two.Put("t0/_versions/1.manifest", "m1").ok());
  EXPECT_EQ(one.table_digest(), two.table_digest());
  // Moved to another path (the bytes shared), then deleted: back again.
  ASSERT_TRUE(two.PutShared("archive/t0/_versions/1.manifest",
                            *two.Get("t0/_versions/1.manifest"))
                  .ok());
  EXPECT_NE(one.table_digest(), two.table_digest());
  ASSERT_TRUE(two.Delete("archive/t0/_versions/1.manifest").ok());
  EXPECT_EQ(one.table_digest(), two.table_digest());
  EXPECT_NE(one.table_digest(), MemoryStore().table_digest());
}

TEST(MemoryStore, ShareIdenticalSwapsTheBlobButNotTheContentsOrEpochs) {
  MemoryStore store;
  ASSERT_TRUE(store.Put("t0/_versions/1.manifest", "m1").ok());
  MemoryStore other;
  ASSERT_TRUE(other.Put("t0/_versions/1.manifest", "m1").ok());
  const Blob theirs = *other.Get("t0/_versions/1.manifest");
  const MemoryStore before = store;
  store.ShareIdentical("t0/_versions/1.manifest", theirs);
  EXPECT_EQ(*store.Get("t0/_versions/1.manifest"), theirs);
  EXPECT_NE(*before.Get("t0/_versions/1.manifest"), theirs);  // its own map
  EXPECT_EQ(store.epoch(), before.epoch());
  EXPECT_EQ(store.versions_epoch(), before.versions_epoch());
  EXPECT_EQ(store.table_digest(), before.table_digest());
}

// Every path with its blob's address, in path order.
std::vector<std::pair<std::string, const std::string*>> Contents(
    const MemoryStore& store) {
  std::vector<std::pair<std::string, const std::string*>> out;
  for (const auto& [path, blob] : store.objects())
    out.emplace_back(path, blob.get());
  return out;
}

TEST(MemoryStore, MoveIsGetPutSharedAndDeleteInOneChange) {
  MemoryStore start;
  ASSERT_TRUE(start.Put("t0/_versions/1.manifest", "m1").ok());
  ASSERT_TRUE(start.Put("t0/_versions/2.manifest", "m2").ok());
  ASSERT_TRUE(start.Put("t0/_mem_wal/s/manifest/1", "wal").ok());
  ASSERT_TRUE(start.Put("archive/t0/_versions/2.manifest", "older").ok());
  // Table to archive, onto a taken name, table into the MemWAL's part and
  // back out of it.
  const std::vector<std::pair<std::string, std::string>> moves = {
      {"t0/_versions/1.manifest", "archive/t0/_versions/1.manifest"},
      {"t0/_versions/2.manifest", "archive/t0/_versions/2.manifest"},
      {"archive/t0/_versions/1.manifest", "t0/_mem_wal/s/manifest/2"},
      {"t0/_mem_wal/s/manifest/1", "t0/_versions/3.manifest"},
  };
  MemoryStore moved = start;
  MemoryStore stepped = start;
  for (const auto& [from, to] : moves) {
    const uint64_t wal_before = moved.wal_epoch();
    const uint64_t versions_before = moved.versions_epoch();
    ASSERT_TRUE(moved.Move(from, to).ok()) << from;
    const Blob blob = *stepped.Get(from);
    ASSERT_TRUE(stepped.PutShared(to, blob).ok());
    ASSERT_TRUE(stepped.Delete(from).ok());
    EXPECT_EQ(Contents(moved), Contents(stepped)) << from;
    EXPECT_EQ(moved.table_digest(), stepped.table_digest()) << from;
    EXPECT_EQ(moved.wal_epoch() != wal_before,
              MemoryStore::InWal(from) || MemoryStore::InWal(to))
        << from;
    EXPECT_NE(moved.versions_epoch(), versions_before) << from;
  }
  EXPECT_NE(moved.table_digest(), start.table_digest());
  EXPECT_EQ(Contents(start).size(), 4u);  // the copies' source is untouched
  EXPECT_EQ(moved.Move("t0/none", "t0/other").code(), StatusCode::kNotFound);
}

TEST(MemoryStore, ListReturnsExactlyThePrefixInOrder) {
  MemoryStore store;
  for (const char* path : {"a/2", "a/1", "b/1", "a0"})
    ASSERT_TRUE(store.Put(path, "").ok());
  EXPECT_EQ(*store.List("a/"), (std::vector<std::string>{"a/1", "a/2"}));
}

TEST(DirectoryStore, PutIfAbsentPublishesOnceAndLeavesNoTemporaryFiles) {
  const std::string root = TempDir("put");
  auto store = DirectoryStore::Open(root);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->PutIfAbsent("_versions/v.manifest", "first").ok());
  EXPECT_EQ(store->PutIfAbsent("_versions/v.manifest", "second").code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(**store->Get("_versions/v.manifest"), "first");
  size_t files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) ++files;
  }
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(root);
}

TEST(DirectoryStore, TwoHandlesOnOneDirectoryRaceForOneName) {
  const std::string root = TempDir("race");
  auto a = DirectoryStore::Open(root);
  auto b = DirectoryStore::Open(root);
  ASSERT_TRUE(a.ok() && b.ok());
  const Status first = a->PutIfAbsent("_versions/2.manifest", "a");
  const Status second = b->PutIfAbsent("_versions/2.manifest", "b");
  EXPECT_TRUE(first.ok());
  EXPECT_EQ(second.code(), StatusCode::kAlreadyExists);
  std::filesystem::remove_all(root);
}

TEST(DirectoryStore, ListSkipsAnAbandonedTemporaryFile) {
  const std::string root = TempDir("list");
  auto store = DirectoryStore::Open(root);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->Put("_transactions/1-x.txn", "t").ok());
  // A crash after writing a temporary file and before linking it leaves this
  // behind.
  ASSERT_TRUE(store->Put("_versions/.tmp-crashed", "partial").ok());
  EXPECT_EQ(*store->List(""),
            (std::vector<std::string>{"_transactions/1-x.txn"}));
  ASSERT_TRUE(store->Delete("_transactions/1-x.txn").ok());
  EXPECT_EQ(store->Delete("_transactions/1-x.txn").code(),
            StatusCode::kNotFound);
  std::filesystem::remove_all(root);
}

TEST(DirectoryStore, RefusesToReadAnOversizedFileOrAFifo) {
  const std::string root = TempDir("bounded");
  auto store = DirectoryStore::Open(root);
  ASSERT_TRUE(store.ok());
  // Sparse: 1 byte past the limit costs no disk.
  ASSERT_TRUE(store->Put("_versions/big.manifest", "x").ok());
  std::filesystem::resize_file(root + "/_versions/big.manifest",
                               kMaxObjectBytes + 1);
  const auto big = store->Get("_versions/big.manifest");
  EXPECT_EQ(big.status().code(), StatusCode::kCorruption);
  EXPECT_NE(big.status().message().find("more than a table object may hold"),
            std::string::npos);
  ASSERT_EQ(::mkfifo((root + "/_versions/fifo.manifest").c_str(), 0600), 0);
  const auto fifo = store->Get("_versions/fifo.manifest");
  EXPECT_EQ(fifo.status().code(), StatusCode::kCorruption);
  EXPECT_NE(fifo.status().message().find("not a regular file"),
            std::string::npos);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace memwal::impl
