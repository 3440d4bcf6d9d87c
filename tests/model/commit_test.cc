// R30-R32 and R35: rebase verdicts by the conflict table, the progress check,
// the build-time refusals, and the feature-bit steps. Mem_wal test names follow
// Lance's where they apply.
#include <gtest/gtest.h>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Activated;
using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

Scenario ActivatedTable(Config config = TestConfig()) {
  Scenario s(config);
  if (IsBitProtocol(config.protocol)) Activated(&s);
  return s;
}

TEST(Commit, TestUpdateMemWalStatePreservesFragments) {
  Scenario s = ActivatedTable();
  s.Do(FlushMemTable{0});
  s.Run(CompactSsTable{0, false});
  EXPECT_EQ(s.Run(RecordProgress{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().live, 0b11);
  EXPECT_EQ(s.head().compacted[0], 1);
}

TEST(Commit, ProgressCommitDropsFragmentsLosesEveryRow) {
  Config config = TestConfig();
  config.bugs = BugBit(Bug::kProgressCommitDropsFragments);
  Scenario s = ActivatedTable(config);
  s.Do(FlushMemTable{0});
  s.Run(CompactSsTable{0, false});
  EXPECT_EQ(s.Run(RecordProgress{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().live, 0);
  EXPECT_FALSE(FindInvariant("NoRowIsLost")->holds(config, s.state()));
}

TEST(Commit, TestUpdateMemWalStateConflictEqualGenerationNoRetry) {
  Scenario s = ActivatedTable();
  s.Do(FlushMemTable{0});
  s.Run(CompactSsTable{0, false});
  s.Do(RecordProgress{0});
  s.Do(RecordProgress{0});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}),
            Outcome::kRefused);  // committed 1 >= proposed 1: incompatible
}

TEST(Commit, TestUpdateMemWalStateDifferentShardsNoConflict) {
  Scenario s = ActivatedTable(TestConfig(Protocol::kDerived, /*shards=*/2));
  s.Do(FlushMemTable{0});
  s.Do(FlushMemTable{1});
  s.Run(CompactSsTable{0, false});
  s.Run(CompactSsTable{1, false});
  s.Do(RecordProgress{0});
  s.Do(RecordProgress{1});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.head().compacted[1], 1);
}

TEST(Commit, AUserIndexBuildCannotRebasePastACompactionCommit) {
  Scenario s = ActivatedTable();
  s.Do(FlushMemTable{0});
  s.Run(CompactSsTable{0, false});
  s.Do(CreateIndex{0});
  s.Run(RecordProgress{0});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRefused);
}

TEST(Commit, AUserIndexBuildRebasesPastAMergeInsertWithProgress) {
  Scenario s = ActivatedTable();
  s.Do(FlushMemTable{0});
  s.Do(CreateIndex{0});
  s.Run(CompactSsTable{0, true});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
}

TEST(Commit, AStaleGenerationAgainstLatestHeadPublishesNothing) {
  Scenario s = ActivatedTable();
  s.Do(FlushMemTable{0});
  s.Do(CompactSsTable{0, true});
  s.Do(CompactSsTable{0, true});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  const FragmentSet live = s.head().live;
  EXPECT_EQ(s.Do(Commit{0}),
            Outcome::kRefused);  // an equal generation rejects, rows too
  EXPECT_EQ(s.head().live, live);
  EXPECT_EQ(s.state().next_fragment, 2);
}

TEST(Commit, DeletingTheSameFragmentTwiceIsRetryable) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  s.Do(DeleteFragment{1});
  s.Do(DeleteFragment{1});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);
  EXPECT_EQ(s.state().inflight_count, 0);
}

TEST(Commit, AnAppendRacingAProgressCommitIsIncompatible) {
  Scenario s = ActivatedTable();
  s.Do(FlushMemTable{0});
  s.Run(CompactSsTable{0, false});
  s.Do(Append{});
  s.Run(RecordProgress{0});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRefused);
}

TEST(Commit, ARewriteOfAFragmentANewSegmentCoversIsRetryable) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  s.Do(RewriteFragments{0, 1});
  s.Run(OptimizeIndex{0});  // its delta covers fragment 1
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);
}

TEST(Commit, AnIndexBuildRacingARewriteOfItsFragmentsIsRetryable) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  s.Do(CreateIndex{0});  // covers {0, 1}
  s.Run(RewriteFragments{0, 1});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);
}

TEST(Commit, TwoBuildsOfOneIndexConflictByName) {
  Scenario s(TestConfig(Protocol::kLegacy, 1, 2));
  s.Do(CreateIndex{0});
  s.Do(CreateIndex{0});
  s.Do(CreateIndex{1});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);  // another name: no conflict
}

TEST(Commit, AnyTransactionMeetingARestoreIsRefused) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  s.Do(Append{});
  EXPECT_EQ(s.Do(Restore{1}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRefused);
}

TEST(Commit, AFragmentDeletedMeanwhileRefusesTheUpdate) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Run(Append{});
  s.Do(UpdateColumns{1, 0});
  s.Run(DeleteFragment{1});
  EXPECT_EQ(s.Do(Commit{0}),
            Outcome::kRetry);  // Update vs a Delete of its fragment
}

TEST(Commit, ARebasedPublishKeepsItsOwnReadVersion) {
  Scenario s(TestConfig(Protocol::kLegacy));
  s.Do(Append{});
  s.Run(Append{});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().live, 0b111);
  EXPECT_EQ(s.head().number, 3);
}

// Only reachable through restore-walks-back: a head without the bit that has
// progress.
TEST(Commit, ActivationRejectsPreExistingBetaCompactionProgress) {
  Config config = TestConfig(Protocol::kDerived);
  config.bugs = BugBit(Bug::kRestoreWalksBack);
  Scenario s(config);
  Activated(&s);
  Compacted(&s);
  EXPECT_EQ(s.Do(Restore{1}),
            Outcome::kPublished);  // back to a version without the bit
  EXPECT_FALSE(s.head().reader_bit);
  Compacted(&s);
  EXPECT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.Run(Activate{}), Outcome::kRefused);
}

TEST(Commit, BitDroppedByNewFromPreviousSurvivesOnlyTheActivatingCommit) {
  Config config = TestConfig();
  config.bugs = BugBit(Bug::kBitDroppedByNewFromPrevious);
  Scenario s(config);
  Activated(&s);
  EXPECT_TRUE(HasBothBits(s.head()));
  s.Run(Append{});
  EXPECT_FALSE(s.head().reader_bit);
  EXPECT_EQ(s.Broken(), "ActivationIsPermanent");
}

TEST(Commit, BitClearedBySecondApplyLosesItAtOnce) {
  Config config = TestConfig();
  config.bugs = BugBit(Bug::kBitClearedBySecondApply);
  Scenario s(config);
  Activated(&s);
  EXPECT_FALSE(s.head().reader_bit);
  EXPECT_EQ(s.Broken(), "ActivationIsPermanent");
}

}  // namespace
}  // namespace memwal::model
