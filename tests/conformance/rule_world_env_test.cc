// The environment's writers (spec section 10, env foreign) as Lance sees
// their commits, on a World:
//
// - R62's MemWAL reset is lancedb's unset_lsm_write_spec (drop
//   `__lance_mem_wal`) and a fresh initialize in one CreateIndex: its
//   transaction removes the old system index by uuid and adds the fresh one,
//   so a reader of the transaction file (Lance's conflict resolution) sees
//   the replacement;
// - R60's foreign half-set commit is a transaction built on the head: its
//   transaction names the head as read version and carries a uuid;
// - R61's `first-shard` offer claims shard 0 only: with progress on shard 1
//   alone, the caller's advance claims nothing;
// - last_reason() explains the last commit: after a refused commit, a
//   foreign writer's published commit leaves no refusal reason behind.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "impl/format.h"
#include "impl/table.h"
#include "impl/world.h"

namespace memwal {
namespace {

impl::World NewWorld(impl::Options options = impl::Options{.shards = 1,
                                                           .indexes = 1}) {
  Result<impl::World> created = impl::World::Create(options);
  EXPECT_TRUE(created.ok());
  return std::move(created).value();
}

impl::Snapshot HeadOf(impl::World* world) {
  const impl::PrefixedStore table(world->mutable_store(), world->table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  EXPECT_TRUE(head.ok());
  return *head;
}

TEST(RuleFunctions,
     AMemWalResetsTransactionRemovesTheOldSystemIndexAndAddsAFreshOne) {
  impl::World world = NewWorld();
  const std::string old_uuid =
      impl::FindMemWalIndex(HeadOf(&world).file->index_section)->uuid().uuid();
  ASSERT_TRUE(world.ResetMemWal().ok());
  const impl::Snapshot head = HeadOf(&world);
  ASSERT_TRUE(head.file->transaction.has_value());
  ASSERT_TRUE(head.file->transaction->has_create_index());
  const auto& op = head.file->transaction->create_index();
  ASSERT_EQ(op.removed_indices_size(), 1);
  EXPECT_EQ(op.removed_indices(0).uuid().uuid(), old_uuid);
  EXPECT_TRUE(impl::IsMemWalIndex(op.removed_indices(0)));
  ASSERT_EQ(op.new_indices_size(), 1);
  EXPECT_TRUE(impl::IsMemWalIndex(op.new_indices(0)));
  EXPECT_NE(op.new_indices(0).uuid().uuid(), old_uuid);
  const impl::pb::IndexMetadata* system =
      impl::FindMemWalIndex(head.file->index_section);
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->uuid().uuid(), op.new_indices(0).uuid().uuid());
}

TEST(RuleFunctions, AForeignHalfSetLeavesNoRefusalReasonBehind) {
  impl::World world = NewWorld();
  ASSERT_TRUE(world.BeginDeleteFragment(0).ok());
  ASSERT_TRUE(world.BeginDeleteFragment(0).ok());
  ASSERT_TRUE(world.Commit(0).ok());
  const Result<impl::Outcome> second = world.Commit(0);
  ASSERT_TRUE(second.ok());
  ASSERT_NE(*second, impl::Outcome::kPublished);
  ASSERT_FALSE(world.last_reason().empty());
  ASSERT_TRUE(world.ForeignHalfSet().ok());
  EXPECT_EQ(world.last_reason(), "");
}

TEST(RuleFunctions, AForeignHalfSetsTransactionIsBuiltOnTheHead) {
  impl::World world = NewWorld();
  const uint64_t before = HeadOf(&world).version();
  ASSERT_TRUE(world.ForeignHalfSet().ok());
  const impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> loaded =
      impl::LoadVersion(table, nullptr, before + 1, /*allow_half_set=*/true);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const impl::Snapshot& head = *loaded;
  ASSERT_TRUE(head.file->transaction.has_value());
  EXPECT_EQ(head.file->transaction->read_version(), before);
  EXPECT_EQ(head.file->transaction->uuid().size(), 36u);
}

TEST(RuleFunctions, AMemWalResetLeavesNoRefusalReasonBehind) {
  impl::World world = NewWorld();
  ASSERT_TRUE(world.BeginDeleteFragment(0).ok());
  ASSERT_TRUE(world.BeginDeleteFragment(0).ok());
  ASSERT_TRUE(world.Commit(0).ok());
  ASSERT_TRUE(world.Commit(0).ok());
  ASSERT_FALSE(world.last_reason().empty());
  ASSERT_TRUE(world.ResetMemWal().ok());
  EXPECT_EQ(world.last_reason(), "");
}

std::set<std::string> ClaimedShards(const impl::pb::Transaction& t) {
  std::set<std::string> out;
  for (const auto& advance : t.create_index().mem_wal_index_catchup_advances())
    for (const auto& claim : advance.caught_up_generations())
      out.insert(claim.shard_id().uuid());
  return out;
}

TEST(RuleFunctions,
     AFirstShardOfferClaimsNothingWhenOnlyAnotherShardHasProgress) {
  impl::World world = NewWorld(impl::Options{
      .protocol = impl::Protocol::kAdvance, .shards = 2, .indexes = 1});
  ASSERT_TRUE(world.BeginActivate().ok());
  ASSERT_EQ(*world.Commit(0), impl::Outcome::kPublished);
  ASSERT_TRUE(world.FlushMemTable(1).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(1, true).ok());
  ASSERT_EQ(*world.Commit(0), impl::Outcome::kPublished);
  ASSERT_TRUE(world.BeginOptimizeIndex(0).ok());
  EXPECT_EQ(ClaimedShards(*world.inflight().back()),
            std::set<std::string>{world.shard_uuid(1)});
  ASSERT_TRUE(world.BeginCallerAdvance(0, 2).ok());
  EXPECT_EQ(ClaimedShards(*world.inflight().back()), std::set<std::string>{});
}

// R24: a rewrite names every segment that covers one of its fragments, each
// with a fresh uuid, and no other segment.
TEST(RuleFunctions, AWorldRewriteNamesExactlyTheSegmentsCoveringItsFragments) {
  impl::World world = NewWorld(impl::Options{.shards = 1, .indexes = 2});
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(world.BeginAppend().ok());
    ASSERT_EQ(*world.Commit(0), impl::Outcome::kPublished);
  }
  ASSERT_TRUE(world.BeginOptimizeIndex(1).ok());
  ASSERT_EQ(*world.Commit(0), impl::Outcome::kPublished);
  const impl::Snapshot head = HeadOf(&world);
  const Result<impl::Segments> segments =
      impl::UserSegments(head.file->index_section);
  ASSERT_TRUE(segments.ok());
  std::set<std::string> covering;
  std::set<std::string> all;
  for (const auto& [name, list] : *segments) {
    for (const impl::Segment& segment : list) {
      all.insert(segment.uuid);
      if (segment.covers->count(1) != 0 || segment.covers->count(2) != 0)
        covering.insert(segment.uuid);
    }
  }
  ASSERT_FALSE(covering.empty());
  ASSERT_NE(covering, all);  // idx_0's segment covers fragment 0 only
  ASSERT_TRUE(world.BeginRewriteFragments(1, 2).ok());
  const impl::pb::Transaction& t = *world.inflight().back();
  std::set<std::string> named;
  std::set<std::string> fresh;
  for (const auto& rewritten : t.rewrite().rewritten_indices()) {
    named.insert(rewritten.old_id().uuid());
    EXPECT_EQ(rewritten.new_id().uuid().size(), 16u);
    EXPECT_EQ(all.count(rewritten.new_id().uuid()), 0u);
    fresh.insert(rewritten.new_id().uuid());
  }
  EXPECT_EQ(named, covering);
  EXPECT_EQ(fresh.size(), covering.size());
}

// The planted-bug tests (tests/checker/lockstep_planted_test.cc) edit an
// in-flight transaction through mutable_inflight_for_testing: the edit is
// the slot's transaction from then on (copy on write: a World copied before
// keeps the original).
TEST(RuleFunctions, AnEditOfAnInflightTransactionIsWhatTheSlotHolds) {
  impl::World world = NewWorld();
  ASSERT_TRUE(world.BeginAppend().ok());
  const impl::World copy = world;
  world.mutable_inflight_for_testing(0)->set_read_version(7);
  EXPECT_EQ(world.inflight()[0]->read_version(), 7u);
  EXPECT_NE(copy.inflight()[0]->read_version(), 7u);
}

}  // namespace
}  // namespace memwal
