// R33, the catch-up derivation (derived protocol unless a test says otherwise).
// Test names follow Lance's own tests (docs/lance-facts.md section 6.5)
// where the model can express the scenario; each builds its state by applying
// spec actions from Init.
#include <gtest/gtest.h>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Activated;
using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

// Activation, then generation 1 of shard 0 compacted into fragment 1 (not yet
// indexed).
Scenario CompactedTable(Config config = TestConfig()) {
  Scenario s(config);
  if (IsBitProtocol(config.protocol)) Activated(&s);
  Compacted(&s);
  return s;
}

TEST(Derivation, AnIndexCoveringTheReadVersionIsCredited) {
  Scenario s = CompactedTable();
  EXPECT_EQ(s.Position(0, 0), 0);
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Derivation, AnIndexShortOfTheReadVersionIsNotCredited) {
  Scenario s = CompactedTable();
  EXPECT_EQ(s.Run(Append{}),
            Outcome::kPublished);  // the index still lacks fragment 1
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Derivation, ABitmapPrunedInPlaceDoesNotKeepItsPosition) {
  Scenario s = CompactedTable();
  s.Run(OptimizeIndex{0});
  ASSERT_EQ(s.Position(0, 0), 1);
  const uint8_t uuid = s.head().segments[0][1].uuid;
  EXPECT_EQ(s.Run(UpdateColumns{1, 0}), Outcome::kPublished);
  EXPECT_EQ(s.head().segments[0][1].uuid, uuid);  // pruned in place
  EXPECT_EQ(s.head().segments[0][1].covers, 0);
  EXPECT_EQ(s.Position(0, 0), 0);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Derivation, AnUnchangedIndexIsNotRaisedBeyondWhatItProves) {
  Scenario s = CompactedTable();
  s.Run(OptimizeIndex{0});
  Compacted(&s);  // generation 2 lands in fragment 2, which the index lacks
  EXPECT_EQ(s.head().compacted[0], 2);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Derivation, AnUnchangedIndexIsNeverLowered) {
  Scenario s = CompactedTable();
  s.Do(DeleteFragment{
      0});  // begun before the credit: its read version proves nothing
  s.Run(OptimizeIndex{0});
  ASSERT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Derivation, CreditNeverReachesPastTheReadVersion) {
  Scenario s = CompactedTable();
  s.Run(OptimizeIndex{0});
  s.Do(Append{});  // reads compacted = 1 with every live fragment covered
  Compacted(&s);   // compacted becomes 2 meanwhile
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().compacted[0], 2);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Derivation, ADroppedIndexLosesItsEntry) {
  Scenario s = CompactedTable();
  s.Run(OptimizeIndex{0});
  ASSERT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Run(DropIndex{0}), Outcome::kPublished);
  EXPECT_FALSE(IsPresent(s.head(), 0));
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Derivation, ANewIndexCoveringTheReadVersionIsCredited) {
  Scenario s = CompactedTable();
  EXPECT_EQ(s.Run(CreateIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().segments[0][0].covers, 0b11);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Derivation, ALegacyTableIsUntouched) {
  Scenario s = CompactedTable(TestConfig(Protocol::kLegacy));
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 0);
  EXPECT_FALSE(s.head().reader_bit);
}

TEST(Derivation, EachShardIsCreditedIndependently) {
  Scenario s = CompactedTable(TestConfig(Protocol::kDerived, /*shards=*/2));
  s.Run(OptimizeIndex{0});
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Position(0, 1), 0);  // shard 1 has no progress
  Compacted(&s, 1);
  s.Run(OptimizeIndex{0});
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Position(0, 1), 1);
}

TEST(Derivation, IndexesAreCreditedIndependently) {
  Scenario s = CompactedTable(TestConfig(Protocol::kDerived, 1, /*indexes=*/2));
  s.Run(OptimizeIndex{0});
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Position(1, 0), 0);  // idx_1 still lacks fragment 1
}

TEST(Derivation, NoCompactionProgressWritesNoEntries) {
  Scenario s(TestConfig());
  Activated(&s);
  s.Run(Append{});
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Derivation, AShardKeepsItsPositionWhileAnotherAdvances) {
  Scenario s = CompactedTable(TestConfig(Protocol::kDerived, 2));
  s.Run(OptimizeIndex{0});
  ASSERT_EQ(s.Position(0, 0), 1);
  Compacted(&s, 1);
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Position(0, 1), 0);
}

TEST(Derivation, AnOrdinaryIndexJobIsNeverBlocked) {
  Scenario s = CompactedTable();
  s.Do(CreateIndex{0});  // covers {0, 1}
  s.Run(Append{});       // a concurrent append: the new index will not cover it
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
}

TEST(Derivation, AnIndexCaughtUpToNothingGetsNoEntry) {
  Scenario s(TestConfig());
  Activated(&s);
  s.Do(FlushMemTable{0});
  s.Do(CreateIndex{0});  // proves its read version, whose progress is 0
  s.Run(CompactSsTable{0, true});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Derivation, ABitmapNarrowedAfterTheBuildLosesItsPosition) {
  Scenario s = CompactedTable();
  s.Do(CreateIndex{0});  // covers {0, 1} at read
  EXPECT_EQ(s.Run(UpdateColumns{1, 0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}),
            Outcome::kPublished);  // rebased: R31 note a prunes 1
  EXPECT_EQ(s.head().segments[0][0].covers, 0b01);
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Derivation, ActivationAcceptsACleanTable) {
  Scenario s(TestConfig());
  Activated(&s);
  EXPECT_TRUE(HasBothBits(s.head()));
  EXPECT_TRUE(s.state().activated);
}

TEST(Derivation, AnOrdinaryCommitKeepsTheFeatureBit) {
  Scenario s(TestConfig());
  Activated(&s);
  s.Run(Append{});
  EXPECT_TRUE(HasBothBits(s.head()));
}

TEST(Derivation, ANoWorkRepairStillRecordsDerivedCatchUp) {
  Scenario s(TestConfig());
  Activated(&s);
  s.Do(FlushMemTable{0});
  s.Run(CompactSsTable{0, false});  // the data pass: fragment 1, no progress
  s.Run(OptimizeIndex{0});          // now covers {0, 1}
  s.Run(RecordProgress{0});  // progress 1, proven against a read version with 0
  ASSERT_EQ(s.Position(0, 0), 0);
  ASSERT_TRUE(
      s.Enabled(OptimizeIndex{0}));  // nothing unindexed, but it would advance
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Derivation, ANoWorkOptimizeOffProtocolCommitsNothing) {
  Scenario s = CompactedTable(TestConfig(Protocol::kLegacy));
  s.Run(OptimizeIndex{0});
  EXPECT_FALSE(s.Enabled(OptimizeIndex{0}));
}

TEST(Derivation, ANoWorkRepairThatWouldChangeNothingDoesNotBegin) {
  Scenario s = CompactedTable();
  s.Run(OptimizeIndex{0});  // credited to 1 already
  EXPECT_FALSE(s.Enabled(OptimizeIndex{0}));
}

TEST(Derivation, CreditIsAnchoredToTheReadVersionAcrossARebase) {
  Scenario s = CompactedTable();
  s.Do(OptimizeIndex{0});  // read version: fragments {0, 1}, progress 1
  s.Run(Append{});         // a concurrent append adds fragment 2
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Derivation, ALegacyTableEarnsNothingOnCommit) {
  Scenario s = CompactedTable(TestConfig(Protocol::kLegacy));
  s.Run(CreateIndex{0});
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Derivation, UnconditionalDerivesWithoutABit) {
  Scenario s = CompactedTable(TestConfig(Protocol::kUnconditional));
  s.Run(OptimizeIndex{0});
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_FALSE(s.head().reader_bit);
}

TEST(Derivation, ARewriteGivesNewUuidsAndWithdrawsThePosition) {
  Scenario s = CompactedTable();
  s.Run(OptimizeIndex{0});
  ASSERT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Run(RewriteFragments{0, 1}), Outcome::kPublished);
  EXPECT_EQ(s.head().live, 0b100);
  EXPECT_EQ(s.Position(0, 0),
            0);  // changed, and fragment 2 did not exist at read
  EXPECT_EQ(s.Broken(), "");
}

// R33 (issue 20 item 2): Lance's covers_read_version guard. A read version
// with no fragments proves nothing, although every segment's covers contain
// its (empty) live set: an index built over an emptied table is not credited
// the generation that table's progress records.
TEST(Derivation, AReadVersionWithNoFragmentsProvesNothing) {
  Scenario s(TestConfig(Protocol::kUnconditional));
  Compacted(&s);  // fragment 1 holds (0,1); compacted 1
  ASSERT_EQ(s.Run(DeleteFragment{0}), Outcome::kPublished);
  ASSERT_EQ(s.Run(DeleteFragment{1}), Outcome::kPublished);
  ASSERT_EQ(s.head().live, 0);
  ASSERT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.Run(CreateIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().segments[0][0].covers, 0);  // covers the empty read
  EXPECT_EQ(s.Position(0, 0), 0);                // but earns nothing
  EXPECT_EQ(s.Broken(), "");
}

}  // namespace
}  // namespace memwal::model
