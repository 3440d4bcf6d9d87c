// The commit path (spec R30): losing the put-if-absent race to another writer
// of the same store means rebasing over the winner and publishing the next
// version; an incompatible winner refuses. Also the advance protocol end to end
// through World.
#include "impl/commit.h"

#include <gtest/gtest.h>

#include <memory>

#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::Publish;
using testing::RacingStore;
using testing::Rival;

Result<CommitResult> CommitAgainstRival(World& world, pb::Transaction mine,
                                        pb::Transaction rival) {
  PrefixedStore table(world.mutable_store(), world.table_root());
  RacingStore racing(&table, Rival(std::move(rival)));
  auto counter = std::make_shared<uint64_t>(0);
  const UuidSource uuids = [counter] {
    return std::string(15, 'r') + char(++*counter);
  };
  mine.set_read_version(Head(world).number);
  mine.set_uuid("mine");
  return CommitTransaction(CommitInput{.protocol = Protocol::kDerived,
                                       .bugs = {},
                                       .table = &racing,
                                       .archive = nullptr,
                                       .new_uuid = &uuids},
                           mine);
}

TEST(Commit, LosingThePublicationRaceRebasesAndPublishesTheNextVersion) {
  World world = MakeWorld();
  pb::Transaction append;
  append.mutable_append()->add_fragments();
  const auto result = CommitAgainstRival(world, append, append);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->outcome, Outcome::kPublished);
  EXPECT_EQ(result->version,
            3u);  // The rival took version 2 (a metadata-only copy).
  EXPECT_EQ(Head(world).live, (std::set<uint64_t>{0, 1}));
  EXPECT_EQ(Head(world).op, OpKind::kAppend);
}

TEST(Commit, LosingTheRaceToAnIncompatibleCommitRefuses) {
  World world = MakeWorld();
  pb::Transaction append;
  append.mutable_append()->add_fragments();
  pb::Transaction progress;
  progress.mutable_update_mem_wal_state();
  const auto result = CommitAgainstRival(world, append, progress);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->outcome, Outcome::kRefused);
  EXPECT_EQ(Head(world).number, 2u);
}

TEST(Commit, ARebasedCommitPublishesAboveItsReadVersion) {
  World world = MakeWorld();
  ASSERT_TRUE(world.BeginAppend().ok());
  ASSERT_TRUE(world.BeginAppend().ok());
  EXPECT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_EQ(Head(world).number, 3u);
  EXPECT_EQ(Head(world).live, (std::set<uint64_t>{0, 1, 2}));
}

TEST(AdvanceProtocol, OnlyARepairRecordsAPosition) {
  World world = MakeWorld(Protocol::kAdvance);
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] {
    return world.BeginCreateIndex(0);
  });  // Covers {0,1}, says nothing.
  EXPECT_TRUE(Head(world).catchup.empty());
  Publish(world, [&] {
    return world.BeginOptimizeIndex(0);
  });  // No-work repair + advance.
  EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
  EXPECT_EQ(Head(world).op, OpKind::kCreateIndex);
  Publish(world, [&] { return world.BeginAppend(); });  // Unchanged: kept.
  EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
  Publish(world, [&] {
    return world.BeginOptimizeIndex(0);
  });  // Delta: changed, re-claimed.
  EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
  Publish(world, [&] {
    return world.BeginUpdateColumns(2, 0);
  });  // Pruned: withdrawn.
  EXPECT_TRUE(Head(world).catchup.empty());
}

TEST(AdvanceProtocol, ARepairRacingAReindexIsRefusedByItsSegmentFence) {
  World world = MakeWorld(Protocol::kAdvance);
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  ASSERT_TRUE(world.BeginOptimizeIndex(0).ok());
  ASSERT_TRUE(world.BeginUpdateColumns(1, 0).ok());
  ASSERT_EQ(*world.Commit(1), Outcome::kPublished);
  // Compatible by the conflict table (the rebase prunes the repair's new
  // segment), but the advance's expected bitmap no longer matches: the build
  // refuses.
  EXPECT_EQ(CommitFirst(world), Outcome::kRefused);
}

}  // namespace
}  // namespace memwal::impl
