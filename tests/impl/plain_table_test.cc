// A plain table (Options::memwal = false): a Lance table before its MemWAL is
// installed. User operations work as on any table; every MemWAL action fails
// or is refused, because there is no `__lance_mem_wal` to record it in. The
// reverse-direction test (tests/inspect/reverse_test.cc) writes such a table
// for LanceDB, whose listIndices refuses any table holding the system index.
#include <gtest/gtest.h>

#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::Publish;

World PlainWorld(Protocol protocol) {
  Result<World> world = World::Create(Options{
      .protocol = protocol, .shards = 0, .indexes = 1, .memwal = false});
  MEMWAL_ASSERT(world.ok());
  return std::move(world).value();
}

bool HasSystemIndex(const World& world) {
  return !Head(world).mem_wal_index_uuid.empty();
}

TEST(PlainTable, IsCreatedWithoutTheSystemIndex) {
  const World world = PlainWorld(Protocol::kLegacy);
  EXPECT_FALSE(HasSystemIndex(world));
  EXPECT_EQ(Head(world).live, (std::set<uint64_t>{0}));
}

TEST(PlainTable, CannotHaveShards) {
  const Result<World> world = World::Create(
      Options{.protocol = Protocol::kLegacy, .shards = 1, .memwal = false});
  ASSERT_FALSE(world.ok());
  EXPECT_NE(world.status().ToString().find("no shards"), std::string::npos);
}

TEST(PlainTable, TakesAppendsDeletesAndIndexWork) {
  World world = PlainWorld(Protocol::kLegacy);
  Publish(world, [&] { return world.BeginAppend(); });
  Publish(world, [&] { return world.BeginDeleteFragment(0); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  EXPECT_EQ(Head(world).live, (std::set<uint64_t>{1}));
  EXPECT_FALSE(HasSystemIndex(world));
}

TEST(PlainTable, RefusesToActivate) {
  World world = PlainWorld(Protocol::kDerived);
  ASSERT_TRUE(world.BeginActivate().ok());
  EXPECT_EQ(CommitFirst(world), Outcome::kRefused);
  EXPECT_FALSE(Head(world).reader_bit);
}

TEST(PlainTable, HasNoShardToFlushOrCompact) {
  World world = PlainWorld(Protocol::kLegacy);
  EXPECT_FALSE(world.FlushMemTable(0).ok());
  EXPECT_FALSE(world.BeginCompactSsTable(0, true).ok());
  EXPECT_FALSE(world.BeginRecordProgress(0).ok());
}

}  // namespace
}  // namespace memwal::impl
