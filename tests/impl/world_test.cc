// World: the facade the checker drives, exercised action by action on the
// derived protocol and the others (spec R4-R38).
#include "impl/world.h"

#include <gtest/gtest.h>

namespace memwal::impl {
namespace {

World MakeWorld(Protocol protocol = Protocol::kDerived, uint32_t shards = 1,
                uint32_t indexes = 1, uint32_t bugs = 0) {
  Result<World> world = World::Create(Options{.protocol = protocol,
                                              .read = ReadMode::kStrict,
                                              .gc = GcMode::kAtomic,
                                              .bugs = bugs,
                                              .shards = shards,
                                              .indexes = indexes,
                                              .seed = 7});
  MEMWAL_ASSERT(world.ok());
  return std::move(world).value();
}

TableVersion Head(const World& world) {
  const auto versions = world.Versions();
  MEMWAL_ASSERT(versions.ok() && !versions->empty());
  auto version = world.ReadVersion(versions->back());
  MEMWAL_ASSERT(version.ok());
  return *version;
}

Outcome CommitOnly(World& world) {
  auto outcome = world.Commit(0);
  MEMWAL_ASSERT(outcome.ok());
  return *outcome;
}

TEST(World, CreatesVersionOneWithFragmentZeroCoveredByEveryIndex) {
  World world = MakeWorld(Protocol::kDerived, 2, 2);
  const TableVersion head = Head(world);
  EXPECT_EQ(head.number, 1u);
  EXPECT_EQ(head.live, (std::set<uint64_t>{0}));
  ASSERT_EQ(head.segments.size(), 2u);
  for (const auto& [index, segments] : head.segments) {
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].covers, (std::set<uint64_t>{0}));
  }
  EXPECT_TRUE(head.compacted.empty());
  EXPECT_TRUE(head.catchup.empty());
  EXPECT_FALSE(head.reader_bit);
  EXPECT_EQ(head.op, OpKind::kInit);
  EXPECT_TRUE(head.retained);
}

TEST(World, ActivationSetsBothBitsAndTheyStayOnLaterCommits) {
  World world = MakeWorld();
  ASSERT_TRUE(world.BeginActivate().ok());
  EXPECT_EQ(CommitOnly(world), Outcome::kPublished);
  EXPECT_TRUE(Head(world).reader_bit);
  EXPECT_TRUE(Head(world).writer_bit);
  ASSERT_TRUE(world.BeginAppend().ok());
  EXPECT_EQ(CommitOnly(world), Outcome::kPublished);
  const TableVersion head = Head(world);
  EXPECT_EQ(head.number, 3u);
  EXPECT_EQ(head.live, (std::set<uint64_t>{0, 1}));
  EXPECT_TRUE(head.reader_bit && head.writer_bit);
}

TEST(World, CompactionWithMarkerCreditsAnIndexCoveringTheReadVersion) {
  World world = MakeWorld();
  ASSERT_TRUE(world.BeginActivate().ok());
  ASSERT_EQ(CommitOnly(world), Outcome::kPublished);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_EQ(CommitOnly(world), Outcome::kPublished);
  TableVersion head = Head(world);
  EXPECT_EQ(head.compacted.at(0), 1u);
  // The read version had no progress: nothing credited yet.
  EXPECT_TRUE(head.catchup.empty());
  // The index does not cover the new fragment: a repair adds a delta covering
  // it, and because its segments then span the read version, the same commit
  // earns the position.
  ASSERT_TRUE(world.BeginOptimizeIndex(0).ok());
  ASSERT_EQ(CommitOnly(world), Outcome::kPublished);
  head = Head(world);
  EXPECT_EQ(head.segments.at(0).size(), 2u);
  EXPECT_EQ(head.catchup.at(0).at(0), 1u);
  // Nothing left to earn: a no-work repair is not enabled.
  EXPECT_FALSE(world.BeginOptimizeIndex(0).ok());
  // Older retained versions predate the compaction and still need the SSTable
  // (R12).
  EXPECT_FALSE(*world.Retirable(0, 1));
  ASSERT_TRUE(world.CleanupVersions().ok());
  EXPECT_TRUE(*world.Retirable(0, 1));
  ASSERT_TRUE(world.RetireSsTable(0, 1).ok());
  EXPECT_EQ(world.ReadWal()->retired[0], (std::set<uint64_t>{1}));
}

}  // namespace
}  // namespace memwal::impl
