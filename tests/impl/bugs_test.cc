// Every bug switch of spec section 8: each test shows the right outcome with
// the switch off and the wrong one with it on. Switches whose deviation lives
// in a pure function (advance-without-inspected, advance-replaces-position,
// index-work-per-transaction, coverage-past-compaction,
// advance-bound-at-commit, repair-spans-live-at-commit,
// claim-past-read-version, unchanged-by-uuid-only) are also pinned in
// catchup_test.cc.
#include <gtest/gtest.h>

#include "impl/feature_flags.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::Publish;
using testing::PublishForeign;

uint32_t On(Bug bug) { return BugBit(bug); }

bool Activated(const World& world) {
  const TableVersion head = Head(world);
  return head.reader_bit && head.writer_bit;
}

TEST(BugSwitches, NamesParseBackToTheirSwitch) {
  for (uint32_t k = 0; k < kBugCount; ++k) {
    const Bug bug = static_cast<Bug>(k);
    EXPECT_EQ(ParseBug(BugName(bug)), bug);
  }
  EXPECT_EQ(ParseBug("unchanged-by-uuid-only"), Bug::kUnchangedByUuidOnly);
  EXPECT_FALSE(ParseBug("no-such-bug").has_value());
}

// Activate (v2), then append (v3).
World ActivatedThenAppended(uint32_t bugs) {
  World world = MakeWorld(Protocol::kDerived, 1, 1, bugs);
  Publish(world, [&] { return world.BeginActivate(); });
  Publish(world, [&] { return world.BeginAppend(); });
  return world;
}

TEST(BugSwitches, BitDroppedByNewFromPrevious) {
  EXPECT_TRUE(Activated(ActivatedThenAppended(0)));
  World buggy = ActivatedThenAppended(On(Bug::kBitDroppedByNewFromPrevious));
  EXPECT_TRUE(
      buggy.ReadVersion(2)->reader_bit);  // Only the activating commit has it.
  EXPECT_FALSE(Activated(buggy));
}

TEST(BugSwitches, BitClearedBySecondApply) {
  EXPECT_TRUE(Activated(ActivatedThenAppended(0)));
  World buggy =
      MakeWorld(Protocol::kDerived, 1, 1, On(Bug::kBitClearedBySecondApply));
  Publish(buggy, [&] { return buggy.BeginActivate(); });
  EXPECT_FALSE(Activated(
      buggy));  // Activation "succeeded" but the stored table is legacy.
}

TEST(BugSwitches, ShallowCloneZeroesBits) {
  for (const bool on : {false, true}) {
    World world =
        ActivatedThenAppended(on ? On(Bug::kShallowCloneZeroesBits) : 0);
    ASSERT_TRUE(world.ShallowClone().ok());
    EXPECT_EQ(Activated(world), !on);
  }
}

TEST(BugSwitches, RestoreWalksBack) {
  for (const bool on : {false, true}) {
    World world = ActivatedThenAppended(on ? On(Bug::kRestoreWalksBack) : 0);
    const auto outcome = world.Restore(1);
    ASSERT_TRUE(outcome.ok());
    EXPECT_EQ(*outcome, on ? Outcome::kPublished : Outcome::kRefused);
    EXPECT_EQ(Activated(world), !on);
  }
}

void MakeHalfSet(ManifestFile* file) {
  file->manifest.set_reader_feature_flags(kFlagMemWalIndexCatchup);
  file->manifest.set_writer_feature_flags(0);
}

TEST(BugSwitches, HalfSetFoldedOnCommit) {
  for (const bool on : {false, true}) {
    World world =
        MakeWorld(Protocol::kDerived, 1, 1, on ? On(Bug::kHalfSetFolded) : 0);
    ASSERT_TRUE(world.BeginAppend().ok());
    PublishForeign(world, MakeHalfSet);
    EXPECT_EQ(CommitFirst(world), on ? Outcome::kPublished : Outcome::kRefused);
    if (on) {
      EXPECT_TRUE(Activated(world));
    }
  }
}

TEST(BugSwitches, HalfSetFoldedOnRestore) {
  for (const bool on : {false, true}) {
    World world =
        MakeWorld(Protocol::kDerived, 1, 1, on ? On(Bug::kHalfSetFolded) : 0);
    PublishForeign(world, MakeHalfSet);           // v2, half-set.
    PublishForeign(world, [](ManifestFile*) {});  // v3, a clean copy... of v2.
    PublishForeign(world, [](ManifestFile* file) {  // v4, clean.
      file->manifest.set_reader_feature_flags(0);
      file->manifest.set_writer_feature_flags(0);
    });
    const auto outcome = world.Restore(2);
    ASSERT_TRUE(outcome.ok());
    EXPECT_EQ(*outcome, on ? Outcome::kPublished : Outcome::kRefused);
    if (on) {
      EXPECT_TRUE(Activated(world));
    }
  }
}

TEST(BugSwitches, HalfSetHeadIsRefusedOnLoad) {
  World world = MakeWorld();
  PublishForeign(world, MakeHalfSet);
  EXPECT_EQ(world.BeginAppend().code(), StatusCode::kCorruption);
  EXPECT_TRUE(
      world.ReadVersion(2)->reader_bit);  // Still reportable to the checker.
  EXPECT_FALSE(world.ReadVersion(2)->writer_bit);
}

// Activated table whose idx_0 holds position 1 on shard 0 (v4).
World CaughtUp(uint32_t bugs, Protocol protocol = Protocol::kDerived) {
  World world = MakeWorld(protocol, 1, 1, bugs);
  Publish(world, [&] { return world.BeginActivate(); });
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  return world;
}

TEST(BugSwitches, UnchangedByUuidOnly) {
  for (const bool on : {false, true}) {
    World world = CaughtUp(on ? On(Bug::kUnchangedByUuidOnly) : 0);
    ASSERT_EQ(Head(world).catchup.at(0).at(0), 1u);
    Publish(world, [&] {
      return world.BeginUpdateColumns(1, 0);
    });  // Prunes fragment 1.
    EXPECT_EQ(Head(world).catchup.count(0), on ? 1u : 0u);
  }
}

TEST(BugSwitches, NoWorkRepairRecordsNothing) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kDerived, 1, 1,
                            on ? On(Bug::kNoWorkRepairRecordsNothing) : 0);
    Publish(world, [&] { return world.BeginActivate(); });
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
    Publish(world, [&] {
      return world.BeginOptimizeIndex(0);
    });  // Covers {0,1}; no progress.
    Publish(world, [&] {
      return world.BeginRecordProgress(0);
    });  // compacted 1, no position.
    ASSERT_TRUE(Head(world).catchup.empty());
    const Status repair =
        world.BeginOptimizeIndex(0);  // Nothing unindexed: a no-work repair.
    EXPECT_EQ(repair.ok(), !on);
    if (repair.ok()) {
      EXPECT_EQ(CommitFirst(world), Outcome::kPublished);
      EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
    }
  }
}

TEST(BugSwitches, ClaimPastReadVersion) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kDerived, 1, 1,
                            on ? On(Bug::kClaimPastReadVersion) : 0);
    Publish(world, [&] { return world.BeginActivate(); });
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, [&] {
      return world.BeginCompactSsTable(0, true);
    });                                                    // g1 in fragment 1.
    ASSERT_TRUE(world.BeginOptimizeIndex(0).ok());         // Reads {0,1}, c=1.
    ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());  // g2 in fragment 2.
    ASSERT_EQ(*world.Commit(1), Outcome::kPublished);
    ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
    // Fragment 2 (generation 2) is not covered by idx_0, so only 1 is honest.
    EXPECT_EQ(Head(world).catchup.at(0).at(0), on ? 2u : 1u);
  }
}

TEST(BugSwitches, InvalidationOnLegacy) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kDerived, 1, 1,
                            on ? On(Bug::kInvalidationOnLegacy) : 0);
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
    // Beta-era coverage left on a legacy table (no bit), as a foreign writer
    // left it.
    PublishForeign(world, [&](ManifestFile* file) {
      pb::IndexMetadata* system = FindMemWalIndex(&file->index_section);
      auto details = UnpackMemWalDetails(*system);
      pb::IndexCatchupProgress* progress = details->add_index_catchup();
      progress->set_index_name("idx_0");
      *progress->add_caught_up_generations() = details->compacted_sstables(0);
      PackMemWalDetails(*details, system);
    });
    ASSERT_EQ(Head(world).catchup.at(0).at(0), 1u);
    Publish(world,
            [&] { return world.BeginOptimizeIndex(0); });  // Changes idx_0.
    // On a legacy table a missing entry reads as caught up: withdrawing widens
    // coverage.
    EXPECT_EQ(Head(world).catchup.count(0), on ? 0u : 1u);
  }
}

TEST(BugSwitches, AdvanceDroppedWithoutSystemIndex) {
  for (const bool on : {false, true}) {
    World world = CaughtUp(on ? On(Bug::kAdvanceDroppedWithoutSystemIndex) : 0,
                           Protocol::kAdvance);
    PublishForeign(world, [](ManifestFile* file) {
      auto* indices = file->index_section.mutable_indices();
      for (int k = 0; k < indices->size(); ++k) {
        if (IsMemWalIndex(indices->Get(k))) indices->DeleteSubrange(k, 1);
      }
    });
    ASSERT_TRUE(world.BeginOptimizeIndex(0)
                    .ok());  // advance: the repair always commits.
    EXPECT_EQ(CommitFirst(world), on ? Outcome::kPublished : Outcome::kRefused);
  }
}

TEST(BugSwitches, RepairSpansLiveAtCommit) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kAdvance, 1, 1,
                            on ? On(Bug::kRepairSpansLiveAtCommit) : 0);
    Publish(world, [&] { return world.BeginActivate(); });
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
    ASSERT_TRUE(world.BeginOptimizeIndex(0).ok());  // Inspects {0,1}.
    ASSERT_TRUE(world.BeginAppend().ok());
    ASSERT_EQ(*world.Commit(1),
              Outcome::kPublished);  // Fragment 2 lands first.
    EXPECT_EQ(CommitFirst(world), on ? Outcome::kRefused : Outcome::kPublished);
    if (!on) {
      EXPECT_EQ(Head(world).catchup.at(0).at(0), 1u);
    }
  }
}

TEST(BugSwitches, AdvanceBoundAtCommit) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kAdvance, 1, 1,
                            on ? On(Bug::kAdvanceBoundAtCommit) : 0);
    Publish(world, [&] { return world.BeginActivate(); });
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
    ASSERT_TRUE(world.BeginOptimizeIndex(0).ok());  // Claims generation 1.
    ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
    ASSERT_EQ(*world.Commit(1), Outcome::kPublished);
    ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
    EXPECT_EQ(Head(world).catchup.at(0).at(0), on ? 2u : 1u);
  }
}

TEST(BugSwitches, ProgressCommitDropsFragments) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kDerived, 1, 1,
                            on ? On(Bug::kProgressCommitDropsFragments) : 0);
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
    Publish(world, [&] { return world.BeginRecordProgress(0); });
    EXPECT_EQ(Head(world).live.size(), on ? 0u : 2u);
  }
}

// Activated, compacted to 1 on shard 0, idx_0 at 1 and idx_1 without an entry.
World TwoIndexes(uint32_t bugs) {
  World world = MakeWorld(Protocol::kDerived, 1, 2, bugs);
  Publish(world, [&] { return world.BeginActivate(); });
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  return world;
}

TEST(BugSwitches, SingleIndexWatermark) {
  EXPECT_EQ(*TwoIndexes(0).Watermarks({0, 1}), (std::vector<uint64_t>{0}));
  EXPECT_EQ(*TwoIndexes(On(Bug::kSingleIndexWatermark)).Watermarks({0, 1}),
            (std::vector<uint64_t>{1}));
}

TEST(BugSwitches, ReaderIgnoresBit) {
  EXPECT_EQ(*TwoIndexes(0).Watermarks({1}), (std::vector<uint64_t>{0}));
  EXPECT_EQ(*TwoIndexes(On(Bug::kReaderIgnoresBit)).Watermarks({1}),
            (std::vector<uint64_t>{1}));
}

// Two compactions of different shards read the same version; the second to
// commit rebases over the first. Right: both shards keep their progress. Bug
// progress-regresses: the second starts from its read version's progress, so
// the first shard's goes back to nothing.
TEST(BugSwitches, ProgressRegresses) {
  for (const bool on : {false, true}) {
    World world = MakeWorld(Protocol::kUnconditional, 2, 1,
                            on ? On(Bug::kProgressRegresses) : 0);
    ASSERT_TRUE(world.FlushMemTable(0).ok());
    ASSERT_TRUE(world.FlushMemTable(1).ok());
    ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
    ASSERT_TRUE(world.BeginCompactSsTable(1, true).ok());
    ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
    ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
    const TableVersion head = Head(world);
    const auto shard0 = head.compacted.find(0);
    EXPECT_EQ(shard0 != head.compacted.end() && shard0->second == 1, !on) << on;
    EXPECT_EQ(head.compacted.count(1), 1u);
  }
}

// Right: activation sets bit 128 in both words. Bug bits-one-word: the
// write path leaves it in the writer word only.
TEST(BugSwitches, BitsOneWord) {
  for (const bool on : {false, true}) {
    World world =
        MakeWorld(Protocol::kDerived, 1, 1, on ? On(Bug::kBitsOneWord) : 0);
    Publish(world, [&] { return world.BeginActivate(); });
    const TableVersion head = Head(world);
    EXPECT_TRUE(head.writer_bit);
    EXPECT_EQ(head.reader_bit, !on);
  }
}

}  // namespace
}  // namespace memwal::impl
