// The MemWAL re-install as a model action (spec/protocol.md R39, R31 note b):
// its bound, its conflict rules with Lance's outcomes (retryable, incompatible,
// compatible and merging), and the finding that an install rebased over an
// Update with progress replaces that progress.
#include <gtest/gtest.h>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

// `unconditional` needs no activation before the compactor runs.
Config WithReinstalls(int reinstalls,
                      Protocol protocol = Protocol::kUnconditional) {
  Config config = TestConfig(protocol);
  config.bounds.reinstalls = reinstalls;
  return config;
}

TEST(ReinstallMemWal, IsOffWithoutAReinstallBoundAndOnlyTheGateSetsOne) {
  Scenario s(WithReinstalls(0));
  EXPECT_FALSE(s.Enabled(ReinstallMemWal{}));
  const int kind = static_cast<int>(Action(ReinstallMemWal{}).index());
  EXPECT_FALSE(KindApplies(s.config(), kind));
  EXPECT_TRUE(KindApplies(WithReinstalls(1), kind));
  EXPECT_EQ(GateBounds().reinstalls, 1);
  for (const Bounds& b :
       {TinyBounds(), SmallBounds(), MediumBounds(), LargeBounds()})
    EXPECT_EQ(b.reinstalls, 0);
  EXPECT_FALSE(CheckBounds(Bounds{.reinstalls = kReinstallsMax + 1}).ok());
}

TEST(ReinstallMemWal, TheBoundCountsInstallsInFlightAndPublished) {
  Scenario s(WithReinstalls(1));
  ASSERT_TRUE(s.Enabled(ReinstallMemWal{}));
  s.Do(ReinstallMemWal{});
  EXPECT_FALSE(s.Enabled(ReinstallMemWal{}));  // one in flight
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().op.kind, OpKind::kReinstallMemWal);
  EXPECT_FALSE(s.Enabled(ReinstallMemWal{}));  // one published
}

TEST(ReinstallMemWal, WithoutARebaseKeepsTheDetailsItReadAndAllInvariants) {
  Scenario s(WithReinstalls(1));
  Compacted(&s);
  const Version before = s.head();
  EXPECT_EQ(s.Run(ReinstallMemWal{}), Outcome::kPublished);
  EXPECT_EQ(s.head().compacted, before.compacted);
  EXPECT_EQ(s.head().catchup, before.catchup);
  EXPECT_EQ(s.head().live, before.live);
  EXPECT_EQ(s.head().segments, before.segments);
  EXPECT_EQ(s.head().op.index, kForeignIndex);  // names no user index
  EXPECT_EQ(s.head().op.fragments, 0);          // not rebased
  EXPECT_EQ(s.Broken(), "");
}

// R31 note b: compatible with a committed UpdateMemWalState, keeping its
// progress (per shard the higher generation).
TEST(ReinstallMemWal, RebasedOverAProgressCommitIsCompatibleAndKeepsIt) {
  Scenario s(WithReinstalls(1));
  s.Do(FlushMemTable{0});
  EXPECT_EQ(s.Run(CompactSsTable{0, false}), Outcome::kPublished);
  s.Do(ReinstallMemWal{});  // slot 0 reads compacted {}
  s.Do(RecordProgress{0});  // slot 1
  ASSERT_EQ(s.Do(Commit{1}), Outcome::kPublished);
  ASSERT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().compacted[0], 1);
  EXPECT_EQ(s.head().op.fragments, 1);  // rebased
  EXPECT_EQ(s.Broken(), "");
}

// R31 note b: a progress commit meeting a committed install whose details
// carry an older generation of its shard is retryable.
TEST(ReinstallMemWal, ANewerProgressCommitRebasedOverAnInstallIsRetryable) {
  Scenario s(WithReinstalls(1));
  s.Do(FlushMemTable{0});
  s.Do(FlushMemTable{0});
  EXPECT_EQ(s.Run(CompactSsTable{0, false}), Outcome::kPublished);
  EXPECT_EQ(s.Run(RecordProgress{0}), Outcome::kPublished);
  EXPECT_EQ(s.Run(CompactSsTable{0, false}), Outcome::kPublished);
  s.Do(ReinstallMemWal{});  // slot 0 carries generation 1
  s.Do(RecordProgress{0});  // slot 1 proposes generation 2
  ASSERT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);
  EXPECT_EQ(s.head().compacted[0], 1);
}

// R31 note b: two installs are singletons of one system index: retryable.
// (The model begins an install only with nothing in flight, so the other
// install is env foreign's MemWAL reset, R62, which Lance sees as one.)
TEST(ReinstallMemWal, AnInstallRebasedOverAnotherInstallIsRetryable) {
  Config config = WithReinstalls(1);
  config.env = Env::kForeign;
  Scenario s(config);
  Compacted(&s);
  s.Do(ReinstallMemWal{});
  EXPECT_FALSE(s.Enabled(ReinstallMemWal{}));  // nothing else in flight
  EXPECT_EQ(s.Do(ResetMemWal{}), Outcome::kDone);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRetry);
  EXPECT_EQ(s.head().op.kind, OpKind::kResetMemWal);
}

// Under the bit protocols the install waits for activation (a bound: before
// it there is nothing for the install to carry).
TEST(ReinstallMemWal, UnderABitProtocolBeginsOnlyOnAnActivatedTable) {
  Scenario s(WithReinstalls(1, Protocol::kDerived));
  EXPECT_FALSE(s.Enabled(ReinstallMemWal{}));
  testing::Activated(&s);
  EXPECT_TRUE(s.Enabled(ReinstallMemWal{}));
}

TEST(ReinstallMemWal, RebasedOverARestoreIsIncompatible) {
  Scenario s(WithReinstalls(1));
  EXPECT_EQ(s.Run(Append{}), Outcome::kPublished);
  s.Do(ReinstallMemWal{});
  EXPECT_EQ(s.Do(Restore{1}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kRefused);
}

// The installed system index has no user segment: a Rewrite and an install
// rebase over each other.
TEST(ReinstallMemWal, AndARewriteRebaseOverEachOther) {
  Scenario s(WithReinstalls(1));
  EXPECT_EQ(s.Run(Append{}), Outcome::kPublished);
  s.Do(ReinstallMemWal{});
  s.Do(RewriteFragments{0, 1});
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
}

// The finding (docs/findings.md): Lance merges only UpdateMemWalState progress into an
// install, so an install rebased over a merge-insert Update that carried
// progress replaces it and compacted_sstables moves backward. The model keeps
// Lance's outcome; CompactionNeverRegresses exempts exactly such a rebased
// install and nothing else.
TEST(ReinstallMemWal, RebasedOverACompactionWithTheMarkerReplacesThatProgress) {
  Scenario s(WithReinstalls(1));
  s.Do(FlushMemTable{0});
  s.Do(ReinstallMemWal{});        // slot 0 reads compacted {}
  s.Do(CompactSsTable{0, true});  // slot 1
  ASSERT_EQ(s.Do(Commit{1}), Outcome::kPublished);
  ASSERT_EQ(s.head().compacted[0], 1);
  const Version before = s.head();
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_EQ(s.head().compacted[0], 0);
  EXPECT_LT(s.head().compacted[0], before.compacted[0]);
  EXPECT_EQ(s.head().op.fragments, 1);
  EXPECT_EQ(s.Broken(), "");
  // The same step backward by an install that did not rebase is not exempt.
  State edited = s.state();
  edited.versions[edited.version_count - 1].op.fragments = 0;
  EXPECT_FALSE(
      FindInvariant("CompactionNeverRegresses")->holds(s.config(), edited));
}

// R39 with R33: the build takes the prior positions from the installed
// details (the read version's), so positions recorded after the install's
// read version are replaced as well.
TEST(ReinstallMemWal, RebasedOverACreditingCommitTakesItsReadPositions) {
  Scenario s(WithReinstalls(1));
  s.Do(FlushMemTable{0});
  s.Do(ReinstallMemWal{});  // slot 0 reads no positions
  // The compaction credits nothing (index 0 does not cover its fragment);
  // the index rebuild after it credits generation 1.
  ASSERT_EQ(s.Run(CompactSsTable{0, true}), Outcome::kPublished);
  ASSERT_EQ(s.Run(CreateIndex{0}), Outcome::kPublished);
  const int position = s.Position(0, 0);
  EXPECT_EQ(s.Do(Commit{0}), Outcome::kPublished);
  EXPECT_LE(s.Position(0, 0), position);
  EXPECT_EQ(s.head().compacted[0], 0);
  EXPECT_EQ(s.Position(0, 0), 0);  // capped by the replaced progress
  EXPECT_EQ(s.Broken(), "");
}

}  // namespace
}  // namespace memwal::model
