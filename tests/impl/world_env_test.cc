// The implementation's refusals after an env foreign write (spec section 10),
// as lockstep compares them with the model's disabled actions: after R63's
// DropMemWal no shard writer flushes and no compactor begins; on R60's
// half-set head GC neither decides nor deletes, while a shard writer still
// flushes.
#include <gtest/gtest.h>

#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::MakeWorld;

TEST(EnvForeign,
     AfterTheMemWalIsDroppedNoShardWriterFlushesAndNoCompactorBegins) {
  World world = MakeWorld(Protocol::kAdvance);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  // Before the drop the same actions are accepted.
  World before = world;
  EXPECT_TRUE(before.FlushMemTable(0).ok());
  EXPECT_TRUE(before.BeginCompactSsTable(0, false).ok());
  // The progress pass follows the data pass once it landed (R28).
  EXPECT_FALSE(before.BeginRecordProgress(0).ok());
  EXPECT_EQ(testing::CommitFirst(before), Outcome::kPublished);
  EXPECT_TRUE(before.BeginRecordProgress(0).ok());
  ASSERT_TRUE(world.DropMemWal().ok());
  EXPECT_FALSE(world.FlushMemTable(0).ok());
  EXPECT_FALSE(world.BeginCompactSsTable(0, false).ok());
  EXPECT_FALSE(world.BeginCompactSsTable(0, true).ok());
  EXPECT_FALSE(world.BeginRecordProgress(0).ok());
  EXPECT_EQ(world.ReadWal()->flushed, std::vector<uint64_t>{1});
}

TEST(EnvForeign, OnAHalfSetHeadGcDoesNotDecideButAShardWriterStillFlushes) {
  World world = MakeWorld(Protocol::kDerived);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.ForeignCompaction(0).ok());
  ASSERT_TRUE(world.CleanupVersions().ok());  // v1 needed the SSTable.
  World before = world;
  EXPECT_TRUE(
      before.RetireSsTable(0, 1).ok());  // Retirable on a loadable head.
  ASSERT_TRUE(world.ForeignHalfSet().ok());
  EXPECT_FALSE(world.RetireSsTable(0, 1).ok());
  EXPECT_TRUE(world.ReadWal()->retired[0].empty());
  EXPECT_TRUE(world.FlushMemTable(0).ok());
}

TEST(EnvForeign, OnAHalfSetHeadAPendingRetirementIsNotExecutedAndStaysPending) {
  World world = MakeWorld(Protocol::kDerived, 1, 1, 0, ReadMode::kStrict,
                          GcMode::kStaleRead);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.ForeignCompaction(0).ok());
  ASSERT_TRUE(world.CleanupVersions().ok());  // v1 needed the SSTable.
  ASSERT_TRUE(world.RetireDecide(0, 1).ok());
  World before = world;
  EXPECT_TRUE(before.RetireExecute(0, 1).ok());
  EXPECT_EQ(before.ReadWal()->retired[0], std::set<uint64_t>{1});
  ASSERT_TRUE(world.ForeignHalfSet().ok());
  EXPECT_FALSE(world.RetireExecute(0, 1).ok());
  EXPECT_TRUE(world.ReadWal()->retired[0].empty());
  EXPECT_EQ(world.pending().size(), 1u);
}

}  // namespace
}  // namespace memwal::impl
