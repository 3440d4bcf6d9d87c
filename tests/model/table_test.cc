// R36-R38 (Restore, ShallowClone, CleanupVersions) and R34 (the advance
// protocol).
#include <gtest/gtest.h>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Activated;
using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

TEST(Restore, ARestoreOnAnActivatedTableToAnOlderVersionIsRefused) {
  Scenario s(TestConfig());
  Activated(&s);
  const State before = s.state();
  EXPECT_EQ(s.Do(Restore{1}), Outcome::kRefused);
  EXPECT_EQ(s.state(), before);
}

TEST(Restore, ARestoreInheritsTheBitsOfAnActivatedHead) {
  Scenario s(TestConfig());
  Activated(&s);
  s.Run(Append{});
  EXPECT_EQ(s.Do(Restore{2}), Outcome::kPublished);
  EXPECT_TRUE(HasBothBits(s.head()));
  EXPECT_EQ(s.head().live, 0b1);
  EXPECT_EQ(s.head().op.kind, OpKind::kRestore);
}

TEST(Restore, RestoreWalksBackBreaksActivationIsPermanent) {
  Config config = TestConfig();
  config.bugs = BugBit(Bug::kRestoreWalksBack);
  Scenario s(config);
  Activated(&s);
  EXPECT_EQ(s.Do(Restore{1}), Outcome::kPublished);
  EXPECT_EQ(s.Broken(), "ActivationIsPermanent");
}

TEST(Restore, FragmentIdsAreNeverReusedAcrossARestore) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  s.Do(Restore{1});
  s.Run(Append{});
  EXPECT_EQ(s.head().live, 0b101);
}

TEST(CleanupVersions, OnlyTheHeadStaysRestorable) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  EXPECT_TRUE(s.Enabled(Restore{1}));
  s.Do(CleanupVersions{});
  EXPECT_FALSE(s.Enabled(Restore{1}));
  EXPECT_FALSE(s.Enabled(CleanupVersions{}));
}

TEST(ShallowClone, TheCloneKeepsTheBitAndDropsHistoryAndTransactions) {
  Scenario s(TestConfig());
  Activated(&s);
  s.Do(Append{});
  s.Do(ShallowClone{});
  EXPECT_EQ(s.state().version_count, 1);
  EXPECT_EQ(s.head().number, 2);
  EXPECT_TRUE(HasBothBits(s.head()));
  EXPECT_EQ(s.state().inflight_count, 0);
  EXPECT_EQ(s.state().committed, 2);
}

TEST(ShallowClone, ShallowCloneZeroesBitsBreaksActivationIsPermanent) {
  Config config = TestConfig();
  config.bugs = BugBit(Bug::kShallowCloneZeroesBits);
  Scenario s(config);
  Activated(&s);
  s.Do(ShallowClone{});
  EXPECT_EQ(s.Broken(), "ActivationIsPermanent");
}

// Advance protocol: an OptimizeIndex repair carries an advance validated at
// commit.
Scenario AdvanceTable() {
  Scenario s(TestConfig(Protocol::kAdvance));
  Activated(&s);
  Compacted(&s);
  return s;
}

TEST(Advance, AValidAdvanceRecordsTheReadVersionsProgress) {
  Scenario s = AdvanceTable();
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Advance, AnyOtherIndexChangeWithdraws) {
  Scenario s = AdvanceTable();
  s.Run(OptimizeIndex{0});
  EXPECT_EQ(s.Run(CreateIndex{0}),
            Outcome::kPublished);  // proves, but carries no advance
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Advance, ANewIndexEarnsNothingWithoutAnAdvance) {
  Scenario s = AdvanceTable();
  s.Run(CreateIndex{0});
  EXPECT_EQ(s.Position(0, 0), 0);
}

TEST(Advance, AnAdvanceWhoseSegmentsChangedMeanwhileRefusesTheCommit) {
  Scenario s = AdvanceTable();
  s.Do(OptimizeIndex{0});      // expects idx_0 = {u1{0}, new{1}}
  s.Run(UpdateColumns{0, 0});  // prunes fragment 0 from u1 in place
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRefused);
}

TEST(Advance, AnAdvanceOnATableWithoutTheBitIsRefused) {
  Scenario s(TestConfig(Protocol::kAdvance));
  s.Run(Append{});
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kRefused);
}

TEST(Advance, TheNoWorkRepairAlwaysCommits) {
  Scenario s = AdvanceTable();
  s.Run(OptimizeIndex{0});
  EXPECT_TRUE(s.Enabled(OptimizeIndex{0}));
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
}

TEST(Advance, AdvanceBoundAtCommitClaimsProgressTheIndexNeverSaw) {
  // A no-work repair read before the compaction commits after it and claims its
  // progress.
  Config config = TestConfig(Protocol::kAdvance);
  config.bugs = BugBit(Bug::kAdvanceBoundAtCommit);
  Scenario s(config);
  Activated(&s);
  s.Do(FlushMemTable{0});
  s.Do(OptimizeIndex{0});
  s.Run(CompactSsTable{0, true});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Broken(), "CatchupWithinCoverage");
}

}  // namespace
}  // namespace memwal::model
