// World: the facade the checker drives, exercised action by action on the
// derived protocol and the others (spec R4-R38).
#include "impl/world.h"

#include <gtest/gtest.h>

#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::Publish;
using testing::PublishForeign;

Outcome CommitOnly(World& world) { return CommitFirst(world); }

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

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::Publish;
using testing::PublishForeign;

// Activated derived table, shard 0 flushed once and compacted with its marker
// (v3), and the index repaired so that it holds catch-up position 1 (v4).
World CaughtUpWorld(uint32_t bugs = 0, Protocol protocol = Protocol::kDerived) {
  World world = MakeWorld(protocol, 1, 1, bugs);
  Publish(world, [&] { return world.BeginActivate(); });
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  return world;
}

TEST(World, UpdateColumnsPrunesTheBitmapInPlaceKeepingTheUuid) {
  World world = CaughtUpWorld();
  const TableVersion before = Head(world);
  Publish(world, [&] { return world.BeginUpdateColumns(1, 0); });
  const TableVersion after = Head(world);
  EXPECT_EQ(after.segments.at(0)[1].uuid, before.segments.at(0)[1].uuid);
  EXPECT_EQ(after.segments.at(0)[1].covers, (std::set<uint64_t>{}));
  EXPECT_EQ(after.live, before.live);
  EXPECT_TRUE(after.catchup.empty()) << "a pruned index keeps no position";
  EXPECT_EQ(after.op, OpKind::kUpdateColumns);
}

TEST(World, RewriteRemapsSegmentsWithNewUuidsAndRecalculatedBitmaps) {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginAppend(); });
  Publish(world, [&] { return world.BeginCreateIndex(0); });  // Covers {0, 1}.
  const TableVersion before = Head(world);
  Publish(world, [&] { return world.BeginRewriteFragments(0, 1); });
  const TableVersion after = Head(world);
  EXPECT_EQ(after.live, (std::set<uint64_t>{2}));
  ASSERT_EQ(after.segments.at(0).size(), 1u);
  EXPECT_NE(after.segments.at(0)[0].uuid, before.segments.at(0)[0].uuid);
  EXPECT_EQ(after.segments.at(0)[0].covers, (std::set<uint64_t>{2}));
}

TEST(World, ARewriteOfAPartlyCoveredPairDropsBothFromTheBitmap) {
  World world = MakeWorld();
  Publish(world,
          [&] { return world.BeginAppend(); });  // idx_0 still covers only {0}.
  Publish(world, [&] { return world.BeginRewriteFragments(0, 1); });
  EXPECT_EQ(Head(world).segments.at(0)[0].covers, (std::set<uint64_t>{}));
}

TEST(World, OptimizeAddsADeltaThenMergesTheNewestOfTwo) {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginAppend(); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  EXPECT_EQ(Head(world).segments.at(0).size(), 2u);
  const std::string first = Head(world).segments.at(0)[0].uuid;
  Publish(world, [&] { return world.BeginAppend(); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  const auto segments = Head(world).segments.at(0);
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0].uuid, first);
  EXPECT_EQ(segments[1].covers, (std::set<uint64_t>{1, 2}));
}

TEST(World, DropIndexRemovesItsSegmentsAndItsPosition) {
  World world = CaughtUpWorld();
  Publish(world, [&] { return world.BeginDropIndex(0); });
  EXPECT_TRUE(Head(world).segments.empty());
  EXPECT_TRUE(Head(world).catchup.empty());
  EXPECT_FALSE(world.BeginDropIndex(0).ok());
}

TEST(World, RecordingProgressPreservesEveryFragment) {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
  Publish(world, [&] { return world.BeginRecordProgress(0); });
  const TableVersion head = Head(world);
  EXPECT_EQ(head.live, (std::set<uint64_t>{0, 1}));
  EXPECT_EQ(head.compacted.at(0), 1u);
  EXPECT_EQ(head.op, OpKind::kRecordProgress);
}

TEST(World, AStaleGenerationAgainstTheLatestHeadPublishesNothing) {
  World world = MakeWorld();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  EXPECT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_EQ(CommitFirst(world),
            Outcome::kRefused);  // Update vs Update: the build refuses.
  EXPECT_EQ(Head(world).number, 2u);
  EXPECT_NE(world.last_reason().find("Stale"), std::string::npos);
}

TEST(World, ActivationRejectsPreExistingBetaCompactionProgress) {
  World world = MakeWorld();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  ASSERT_TRUE(world.BeginActivate().ok());
  EXPECT_EQ(CommitFirst(world), Outcome::kRefused);
  EXPECT_FALSE(Head(world).reader_bit);
}

TEST(World, ActivationExistsOnlyInTheBitProtocols) {
  World legacy = MakeWorld(Protocol::kLegacy);
  EXPECT_FALSE(legacy.BeginActivate().ok());
  World unconditional = MakeWorld(Protocol::kUnconditional);
  EXPECT_FALSE(unconditional.BeginActivate().ok());
}

TEST(World, ALegacyTableEarnsNothingOnCommit) {
  World world = MakeWorld(Protocol::kDerived);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] { return world.BeginCreateIndex(0); });
  EXPECT_TRUE(Head(world).catchup.empty());
}

TEST(World, UnconditionalDerivesWithoutABit) {
  World world = MakeWorld(Protocol::kUnconditional);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] { return world.BeginCreateIndex(0); });
  EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
  EXPECT_FALSE(Head(world).reader_bit);
}

TEST(World, CreditIsAnchoredToTheReadVersionAcrossARebase) {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
  Publish(world, [&] {
    return world.BeginRecordProgress(0);
  });                                           // compacted 1, live {0,1}.
  ASSERT_TRUE(world.BeginCreateIndex(0).ok());  // Covers {0,1}.
  Publish(world, [&] { return world.BeginAppend(); });
  EXPECT_EQ(CommitFirst(world),
            Outcome::kPublished);  // Rebased past the append.
  EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
}

TEST(World, AUserIndexBuildCannotRebasePastACompactionCommit) {
  World world = MakeWorld();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
  ASSERT_TRUE(world.BeginCreateIndex(0).ok());
  ASSERT_TRUE(world.BeginRecordProgress(0).ok());
  EXPECT_EQ(*world.Commit(1), Outcome::kPublished);
  EXPECT_EQ(CommitFirst(world), Outcome::kRefused);
}

TEST(World, AnUnchangedCommitDoesNotRewriteTheSystemIndex) {
  World world = CaughtUpWorld();
  const std::string before = Head(world).mem_wal_index_uuid;
  Publish(world,
          [&] { return world.BeginAppend(); });  // Position carried, unchanged.
  EXPECT_EQ(Head(world).mem_wal_index_uuid, before);
  EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
}

TEST(World, RestoreRefusesAVersionThatPredatesActivation) {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginActivate(); });
  const auto outcome = world.Restore(1);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(*outcome, Outcome::kRefused);
  EXPECT_EQ(Head(world).number, 2u);
}

TEST(World, RestoreCopiesTheOldVersionAndKeepsTheBit) {
  World world = CaughtUpWorld();
  Publish(world, [&] { return world.BeginDropIndex(0); });
  const auto outcome = world.Restore(4);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(*outcome, Outcome::kPublished);
  const TableVersion head = Head(world);
  EXPECT_EQ(head.number, 6u);
  EXPECT_EQ(head.op, OpKind::kRestore);
  EXPECT_EQ(head.catchup.at(0).at(0), 1u);
  EXPECT_EQ(head.segments.at(0).size(), 2u);
  EXPECT_TRUE(head.reader_bit && head.writer_bit);
}

TEST(World, EveryInFlightTransactionMeetsARestoreAsIncompatible) {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginAppend(); });
  ASSERT_TRUE(world.BeginAppend().ok());
  ASSERT_TRUE(world.Restore(1).ok());
  EXPECT_EQ(CommitFirst(world), Outcome::kRefused);
}

TEST(World, ShallowCloneKeepsTheBitAndStartsANewHistory) {
  World world = CaughtUpWorld();
  ASSERT_TRUE(world.BeginAppend().ok());
  ASSERT_TRUE(world.ShallowClone().ok());
  EXPECT_EQ(world.inflight_count(), 0u);
  EXPECT_EQ(*world.Versions(), (std::vector<uint64_t>{4}));
  const TableVersion head = Head(world);
  EXPECT_TRUE(head.reader_bit && head.writer_bit);
  EXPECT_EQ(head.op, OpKind::kShallowClone);
  EXPECT_EQ(head.catchup.at(0).at(0), 1u);
  EXPECT_EQ(world.ReadWal()->flushed[0],
            1u);  // The shard directories are shared.
  Publish(world, [&] { return world.BeginAppend(); });
  EXPECT_EQ(Head(world).number, 5u);
}

TEST(World, CleanupKeepsOnlyTheHeadRestorableButHistoryReportable) {
  World world = CaughtUpWorld();
  ASSERT_TRUE(world.CleanupVersions().ok());
  EXPECT_EQ(*world.Versions(), (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_FALSE(world.ReadVersion(2)->retained);
  EXPECT_TRUE(world.ReadVersion(4)->retained);
  EXPECT_FALSE(world.Restore(2).ok());
  EXPECT_FALSE(world.CleanupVersions().ok());
}

TEST(World, ALaggingWriterStillRebasesAfterCleanup) {
  World world = MakeWorld();
  ASSERT_TRUE(world.BeginAppend().ok());
  Publish(world, [&] { return world.BeginAppend(); });
  ASSERT_TRUE(world.CleanupVersions().ok());
  EXPECT_EQ(CommitFirst(world), Outcome::kPublished);
}

TEST(ReadSide, APlainScanUsesTheCompactionWatermark) {
  World world = CaughtUpWorld();
  EXPECT_EQ(*world.Watermarks({}), (std::vector<uint64_t>{1}));
  EXPECT_EQ(*world.Watermarks({0}), (std::vector<uint64_t>{1}));
}

TEST(ReadSide, AStrictReaderRetainsEverythingForAnUntrackedIndex) {
  World world = MakeWorld(Protocol::kDerived, 1, 2);
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] {
    return world.BeginOptimizeIndex(0);
  });  // idx_0 at 1, idx_1 none.
  EXPECT_EQ(*world.Watermarks({0}), (std::vector<uint64_t>{1}));
  EXPECT_EQ(*world.Watermarks({1}), (std::vector<uint64_t>{0}));
  EXPECT_EQ(*world.Watermarks({0, 1}), (std::vector<uint64_t>{0}));
}

TEST(ReadSide, AMinReaderLetsAMissingEntryCapNothing) {
  World world = MakeWorld(Protocol::kDerived, 1, 2, 0, ReadMode::kMin);
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  EXPECT_EQ(*world.Watermarks({0, 1}), (std::vector<uint64_t>{1}));
}

TEST(ReadSide, ALegacyTableIsReadWithMissingMeaningCaughtUp) {
  World world = MakeWorld(Protocol::kDerived);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  EXPECT_EQ(*world.Watermarks({0}), (std::vector<uint64_t>{1}));
  EXPECT_TRUE(*world.Retirable(0, 1) ==
              false);  // Version 1 (retained) had no progress.
  ASSERT_TRUE(world.CleanupVersions().ok());
  EXPECT_TRUE(*world.Retirable(0, 1));
}

TEST(Retirement, GcStaleReadDeletesOnADecisionMadeEarlier) {
  World world = CaughtUpWorld(0);
  ASSERT_TRUE(world.CleanupVersions().ok());
  ASSERT_TRUE(world.RetireDecide(0, 1).ok());
  Publish(world, [&] {
    return world.BeginUpdateColumns(1, 0);
  });  // Withdraws the position.
  EXPECT_FALSE(*world.Retirable(0, 1));
  EXPECT_EQ(*world.RetireExecute(0, 1), Outcome::kDone);
  EXPECT_EQ(world.ReadWal()->retired[0], (std::set<uint64_t>{1}));
}

TEST(Retirement, GcRecheckDropsADecisionTheHeadNoLongerSupports) {
  World world = MakeWorld(Protocol::kDerived, 1, 1, 0, ReadMode::kStrict,
                          GcMode::kRecheck);
  Publish(world, [&] { return world.BeginActivate(); });
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  ASSERT_TRUE(world.CleanupVersions().ok());
  ASSERT_TRUE(world.RetireDecide(0, 1).ok());
  Publish(world, [&] { return world.BeginUpdateColumns(1, 0); });
  EXPECT_EQ(*world.RetireExecute(0, 1), Outcome::kRefused);
  EXPECT_TRUE(world.ReadWal()->retired[0].empty());
  EXPECT_TRUE(world.pending().empty());
}

TEST(Retirement, AnSsTableThatIsNotRetirableIsRefused) {
  World world = MakeWorld();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  EXPECT_EQ(world.RetireSsTable(0, 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(world.RetireSsTable(0, 2).code(), StatusCode::kFailedPrecondition);
}

TEST(World, CopiesAreIndependentAndDeterministic) {
  World a = CaughtUpWorld();
  World b = a;
  Publish(b, [&] { return b.BeginAppend(); });
  EXPECT_EQ(Head(a).number, 4u);
  EXPECT_EQ(Head(b).number, 5u);
  World c = CaughtUpWorld();
  EXPECT_EQ(a.store().objects().size(), c.store().objects().size());
  for (const auto& [path, blob] : a.store().objects()) {
    EXPECT_EQ(*blob, **c.store().Get(path)) << path;
  }
}

}  // namespace
}  // namespace memwal::impl

namespace memwal::impl {
namespace {

// Lance removes the segments a CreateIndex names by uuid [P §5]: a drop rebased
// over a Rewrite that remapped the segment leaves the remapped one (the model
// follows this since lockstep finding F1).
TEST(World, ADropRebasedOverARewriteLeavesTheRemappedSegment) {
  World world = testing::MakeWorld();
  testing::Publish(world, [&] { return world.BeginAppend(); });
  ASSERT_TRUE(world.BeginDropIndex(0).ok());
  ASSERT_TRUE(world.BeginRewriteFragments(0, 1).ok());
  ASSERT_EQ(*world.Commit(1), Outcome::kPublished);
  ASSERT_EQ(testing::CommitFirst(world), Outcome::kPublished);
  ASSERT_EQ(testing::Head(world).segments.at(0).size(), 1u);
  EXPECT_EQ(testing::Head(world).segments.at(0)[0].covers,
            (std::set<uint64_t>{}));
}

}  // namespace
}  // namespace memwal::impl
