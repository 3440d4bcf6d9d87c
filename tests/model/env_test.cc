// The environment actions of env foreign (spec/protocol.md section 10,
// R60-R62): guards, effects, and how this protocol's own actions meet them.
#include <gtest/gtest.h>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Activated;
using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

Config Foreign(Protocol protocol, int shards = 1, int indexes = 1) {
  Config config = TestConfig(protocol, shards, indexes);
  config.env = Env::kForeign;
  return config;
}

TEST(Env, NoEnvActionIsEnabledWithoutEnvForeign) {
  const Config config = TestConfig(Protocol::kDerived);
  Scenario s(config);
  Activated(&s);
  Compacted(&s);
  EXPECT_FALSE(s.Enabled(ForeignHalfSet{}));
  EXPECT_FALSE(s.Enabled(ResetMemWal{}));
  EXPECT_FALSE(IsEnabled(TestConfig(Protocol::kAdvance), s.state(),
                         CallerAdvance{0, 1}));
  for (int kind = 0; kind < kActionKinds; ++kind) {
    const std::string_view name = KindName(kind);
    const bool env = name == "ForeignHalfSet" || name == "CallerAdvance" ||
                     name == "ResetMemWal" || name == "DropMemWal" ||
                     name == "ForeignCompaction";
    // R39's re-install is not an env action; it is off without a bound.
    const bool reinstall = name == "ReinstallMemWal";
    EXPECT_EQ(KindApplies(config, kind), !env && !reinstall) << name;
  }
}

TEST(Env, EnvForeignIsPrintedOnlyWhenSet) {
  EXPECT_EQ(ToString(TestConfig()).find("env="), std::string::npos);
  EXPECT_NE(ToString(Foreign(Protocol::kDerived)).find("env=foreign"),
            std::string::npos);
  EXPECT_EQ(*ParseEnv("foreign"), Env::kForeign);
  EXPECT_FALSE(ParseEnv("other").ok());
}

// R60.
TEST(Env, AForeignHalfSetCommitSetsTheReaderWordOnly) {
  Scenario s(Foreign(Protocol::kDerived));
  s.Do(ForeignHalfSet{});
  EXPECT_TRUE(s.head().reader_bit);
  EXPECT_FALSE(s.head().writer_bit);
  EXPECT_EQ(s.head().op.kind, OpKind::kForeignHalfSet);
  EXPECT_EQ(s.Broken(), "");  // FeatureBitsArePaired skips foreign versions
}

TEST(Env, NoWriterOpensAHalfSetHeadAndACommitOnItIsRefused) {
  Scenario s(Foreign(Protocol::kDerived));
  s.Do(Append{});
  s.Do(ForeignHalfSet{});
  EXPECT_FALSE(s.Enabled(Append{}));
  EXPECT_FALSE(s.Enabled(Restore{1}));
  EXPECT_FALSE(s.Enabled(CleanupVersions{}));
  EXPECT_FALSE(s.Enabled(ShallowClone{}));
  EXPECT_FALSE(s.Enabled(ForeignHalfSet{}));
  EXPECT_TRUE(s.Enabled(FlushMemTable{0}));
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRefused);  // R35.1
  EXPECT_EQ(s.Broken(), "");
}

TEST(Env, AForeignHalfSetNeedsAHeadWithoutTheBit) {
  Scenario s(Foreign(Protocol::kDerived));
  Activated(&s);
  EXPECT_FALSE(s.Enabled(ForeignHalfSet{}));
  EXPECT_FALSE(IsEnabled(Foreign(Protocol::kUnconditional),
                         Init(TestConfig().bounds), ForeignHalfSet{}));
}

// R61.
TEST(Env, ACallerAdvanceForAnotherIndexIsRefusedWhenThatIndexMissedAFragment) {
  Scenario s(Foreign(Protocol::kAdvance, 1, 2));
  Activated(&s);
  s.Run(Append{});
  EXPECT_EQ(s.Run(CallerAdvance{0, 0}), Outcome::kRefused);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Env, ACallerAdvanceForAnotherIndexThatCoversEverythingIsCredited) {
  Scenario s(Foreign(Protocol::kAdvance, 1, 2));
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{1});
  EXPECT_EQ(s.Run(CallerAdvance{0, 0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Position(1, 0), 1);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Env, ACallerAdvanceNamingAnotherIndexConflictsWithItsBuild) {
  Scenario s(Foreign(Protocol::kAdvance, 1, 2));
  Activated(&s);
  s.Run(Append{});
  s.Do(CallerAdvance{0, 0});
  s.Run(CreateIndex{1});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);  // R31: same index name
}

TEST(Env, AnOldestClaimNeverLowersAnUnchangedPosition) {
  Scenario s(Foreign(Protocol::kAdvance));
  Activated(&s);
  Compacted(&s);
  Compacted(&s);
  EXPECT_FALSE(s.Enabled(CallerAdvance{0, 2}));  // one shard: nothing to cut
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 2);
  EXPECT_EQ(s.Run(CallerAdvance{0, 1}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 2);  // R34: max(old, claim)
  EXPECT_EQ(s.Broken(), "");
}

TEST(Env, AFirstShardClaimKeepsTheOtherShardsPosition) {
  Scenario s(Foreign(Protocol::kAdvance, 2));
  Activated(&s);
  Compacted(&s, 0);
  Compacted(&s, 1);
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 1), 1);
  EXPECT_EQ(s.Run(CallerAdvance{0, 2}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);
  EXPECT_EQ(s.Position(0, 1), 1);  // a shard the claim does not name is kept
  EXPECT_EQ(s.Broken(), "");
}

// R62.
TEST(Env, AMemWalResetClearsProgressAndPositions) {
  Scenario s(Foreign(Protocol::kDerived));
  Activated(&s);
  EXPECT_FALSE(s.Enabled(ResetMemWal{}));  // nothing to reset
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  ASSERT_EQ(s.Position(0, 0), 1);
  s.Do(ResetMemWal{});
  EXPECT_EQ(s.head().compacted[0], 0);
  EXPECT_EQ(s.Position(0, 0), 0);
  EXPECT_TRUE(HasBothBits(s.head()));
  EXPECT_EQ(s.Broken(), "");  // exempt from CompactionNeverRegresses and
                              // UnchangedPositionsNeverDrop
}

TEST(Env, ARebasedBuildOverAResetIsClampedToItsOwnProgress) {
  Scenario s(Foreign(Protocol::kDerived));
  Activated(&s);
  Compacted(&s);
  Compacted(&s);
  s.Do(CreateIndex{0});
  s.Do(ResetMemWal{});
  EXPECT_EQ(s.Run(CompactSsTable{0, true}), Outcome::kPublished);
  EXPECT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);  // R33: min(read 2, committed 1)
  EXPECT_EQ(s.Broken(), "");
}

// R63.
TEST(Env, DroppingTheMemWalNeedsDrainedWritersAndEndsProgress) {
  Scenario s(Foreign(Protocol::kAdvance));
  Activated(&s);
  s.Do(FlushMemTable{0});
  EXPECT_FALSE(s.Enabled(DropMemWal{}));  // generation 1 not compacted yet
  EXPECT_EQ(s.Run(CompactSsTable{0, true}), Outcome::kPublished);
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  ASSERT_EQ(s.Position(0, 0), 1);
  s.Do(DropMemWal{});
  EXPECT_TRUE(s.head().mem_wal_dropped);
  EXPECT_EQ(s.head().compacted[0], 0);
  EXPECT_EQ(s.Position(0, 0), 0);
  EXPECT_TRUE(HasBothBits(s.head()));
  EXPECT_FALSE(s.Enabled(FlushMemTable{0}));
  EXPECT_FALSE(s.Enabled(DropMemWal{}));
  EXPECT_EQ(s.Broken(), "");
}

TEST(Env, AnAdvanceOnATableWithoutTheSystemIndexIsRefused) {
  Scenario s(Foreign(Protocol::kAdvance));
  Activated(&s);
  s.Do(DropMemWal{});
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kRefused);  // R34
  EXPECT_EQ(s.Run(CreateIndex{0}), Outcome::kPublished);  // no advance
  EXPECT_EQ(s.Broken(), "");
}

// R64.
TEST(Env, AForeignCompactorRecordsPositionsTheBitProtocolsLeaveAlone) {
  Scenario s(Foreign(Protocol::kDerived));
  s.Do(FlushMemTable{0});
  s.Do(FlushMemTable{0});
  s.Do(ForeignCompaction{0});
  EXPECT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.Position(0, 0), 0);  // idx_0 does not cover the new fragment
  EXPECT_TRUE(s.state().foreign_legacy);
  EXPECT_EQ(s.Run(OptimizeIndex{0}), Outcome::kPublished);
  s.Do(ForeignCompaction{0});
  EXPECT_EQ(s.Position(0, 0), 1);  // the unconditional derivation credits it
  EXPECT_FALSE(HasBothBits(s.head()));
  EXPECT_EQ(s.Run(UpdateColumns{1, 0}), Outcome::kPublished);
  EXPECT_EQ(s.Position(0, 0), 1);  // untouched: the table has no bit
  EXPECT_EQ(s.Run(Activate{}), Outcome::kRefused);  // progress (R29)
  EXPECT_EQ(s.Broken(), "");
}

TEST(Env, AForeignCompactorNeedsATableWithoutTheBit) {
  Scenario s(Foreign(Protocol::kDerived));
  Activated(&s);
  s.Do(FlushMemTable{0});
  EXPECT_FALSE(s.Enabled(ForeignCompaction{0}));
}

TEST(Env, EnvActionsRoundTripThroughJson) {
  for (const Action& action :
       {Action(ForeignHalfSet{}), Action(CallerAdvance{1, 2}),
        Action(ResetMemWal{}), Action(DropMemWal{}),
        Action(ForeignCompaction{1})}) {
    const Result<Action> back = ActionFromJson(ToJson(action));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, action);
    EXPECT_EQ(
        MakeAction(static_cast<int>(action.index()), ActionParams(action)),
        action);
  }
}

}  // namespace
}  // namespace memwal::model
