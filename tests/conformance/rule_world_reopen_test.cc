// A table World writes to a directory (WriteTo, the layout Lance reads) and
// reopens from it (OpenFrom, what `memwal-check validate` reads a table
// with) is the same table: the same versions, each with the same live
// fragments, progress, catch-up positions, feature bits, operation, system
// index uuid and max_fragment_id; the same rows and deleted rows; the same
// flushed and retired SSTables per shard, in the same shard order; the
// reopened World has the options it was opened with, takes the next commit
// and clones into a table of its own. The gate's entries never leave the
// in-memory store, so this is the one check of the directory round trip it
// runs (tests/impl/roundtrip_test.cc has more, outside the gate).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "impl/store.h"
#include "impl/world.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

using impl::World;

using impl::testing::Publish;

void ExpectSameTable(const World& a, const World& b) {
  const auto versions = a.Versions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(b.Versions().value(), *versions);
  for (const uint64_t version : *versions) {
    const auto x = a.ReadVersion(version);
    const auto y = b.ReadVersion(version);
    ASSERT_TRUE(x.ok() && y.ok()) << version;
    EXPECT_EQ(x->number, y->number);
    EXPECT_EQ(x->live, y->live) << version;
    EXPECT_EQ(x->segments.size(), y->segments.size()) << version;
    EXPECT_EQ(x->compacted, y->compacted) << version;
    EXPECT_EQ(x->catchup, y->catchup) << version;
    EXPECT_EQ(x->reader_bit, y->reader_bit) << version;
    EXPECT_EQ(x->writer_bit, y->writer_bit) << version;
    EXPECT_EQ(x->op, y->op) << version;
    EXPECT_EQ(x->mem_wal_index_uuid, y->mem_wal_index_uuid) << version;
    EXPECT_EQ(x->max_fragment_id, y->max_fragment_id) << version;
  }
  const auto rows = a.ReadRows();
  const auto reopened_rows = b.ReadRows();
  ASSERT_TRUE(rows.ok() && reopened_rows.ok());
  EXPECT_EQ(rows->fragments, reopened_rows->fragments);
  EXPECT_EQ(rows->deleted, reopened_rows->deleted);
  const auto wal = a.ReadWal();
  const auto reopened_wal = b.ReadWal();
  ASSERT_TRUE(wal.ok() && reopened_wal.ok());
  EXPECT_EQ(wal->flushed, reopened_wal->flushed);
  EXPECT_EQ(wal->retired, reopened_wal->retired);
  for (uint32_t shard = 0; shard < a.options().shards; ++shard)
    EXPECT_EQ(a.shard_uuid(shard), b.shard_uuid(shard)) << shard;
}

TEST(RuleFunctions, ATableWrittenToADirectoryReopensAsTheSameTable) {
  const impl::Options options{.shards = 2, .indexes = 2, .seed = 7};
  Result<World> created = World::Create(options);
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  Publish(world, world.BeginActivate());
  for (uint32_t shard = 0; shard < 2; ++shard) {
    ASSERT_TRUE(world.FlushMemTable(shard).ok());
    Publish(world, world.BeginCompactSsTable(shard, true));
  }
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginAppend());
  Publish(world, world.BeginOptimizeIndex(1));
  Publish(world, world.BeginDeleteFragment(0));
  (void)world.RetireSsTable(1, 1);  // retired if the indexes caught up
  // In memory where the machine has a tmpfs: DirectoryStore fsyncs every
  // file, which costs a disk's latency per file and nothing on tmpfs.
  const std::filesystem::path shm = "/dev/shm";
  const std::string root = (std::filesystem::is_directory(shm)
                                ? shm
                                : std::filesystem::temp_directory_path())
                               .string() +
                           "/memwal-reopen-" + std::to_string(::getpid());
  std::filesystem::remove_all(root);
  {
    Result<impl::DirectoryStore> directory = impl::DirectoryStore::Open(root);
    ASSERT_TRUE(directory.ok());
    ASSERT_TRUE(world.WriteTo(&*directory).ok());
    Result<World> reopened = World::OpenFrom(*directory, options);
    ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
    ExpectSameTable(world, *reopened);
    EXPECT_EQ(reopened->options().shards, options.shards);
    EXPECT_EQ(reopened->options().indexes, options.indexes);
    EXPECT_EQ(reopened->options().seed, options.seed);
    Publish(*reopened, reopened->BeginAppend());
    Publish(world, world.BeginAppend());
    EXPECT_EQ(reopened->ReadRows()->fragments, world.ReadRows()->fragments);
    // The reopened World clones into a table of its own, leaving the opened
    // one as it was.
    const std::string opened_root = reopened->table_root();
    ASSERT_TRUE(reopened->ShallowClone().ok());
    ASSERT_TRUE(world.ShallowClone().ok());
    EXPECT_NE(reopened->table_root(), opened_root);
    EXPECT_EQ(reopened->ReadRows()->fragments, world.ReadRows()->fragments);
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace memwal
