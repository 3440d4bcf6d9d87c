// Section 9: each invariant breaks on a state that violates exactly its
// statement (states built by applying actions, then edited by hand where no
// action of the correct model can produce the failure), and each goal is
// reached by the transition it names.
#include <gtest/gtest.h>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Activated;
using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

bool Holds(std::string_view name, const Config& config, const State& state) {
  const Invariant* invariant = FindInvariant(name);
  EXPECT_NE(invariant, nullptr) << name;
  return invariant == nullptr || invariant->holds(config, state);
}

// Activated, generation 1 compacted into fragment 1 and credited to idx_0.
Scenario Credited() {
  Scenario s(TestConfig());
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  return s;
}

TEST(Invariants, TheRegistryHasTheNineSpecNamesInOrder) {
  std::vector<std::string_view> names;
  for (const Invariant& invariant : AllInvariants())
    names.push_back(invariant.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{
                       "CatchupWithinCoverage", "CatchupWithinCompaction",
                       "ReadsMissNoRows", "FeatureBitsArePaired",
                       "ActivationIsPermanent", "NoRowIsLost",
                       "CompactionNeverRegresses", "LegacyTablesAreUntouched",
                       "UnchangedPositionsNeverDrop"}));
  EXPECT_EQ(FindInvariant("NoSuchInvariant"), nullptr);
}

TEST(Invariants, AllHoldOnACreditedTable) {
  const Scenario s = Credited();
  EXPECT_EQ(FirstBrokenInvariant(s.config(), s.state()), nullptr);
}

TEST(Invariants, CatchupWithinCoverageBreaksWhenTheIndexLosesTheRow) {
  Scenario s = Credited();
  State state = s.state();
  MutableHead(state).segments[0][1].covers =
      0;  // idx_0 no longer covers fragment 1
  EXPECT_FALSE(Holds("CatchupWithinCoverage", s.config(), state));
}

TEST(Invariants, CatchupWithinCompactionBreaksPastTheProgress) {
  Scenario s = Credited();
  State state = s.state();
  MutableHead(state).catchup[0][0] = 2;
  EXPECT_FALSE(Holds("CatchupWithinCompaction", s.config(), state));
}

TEST(Invariants, FeatureBitsArePairedBreaksOnAHalfSetVersion) {
  Scenario s = Credited();
  State state = s.state();
  state.versions[0].writer_bit = true;
  EXPECT_FALSE(Holds("FeatureBitsArePaired", s.config(), state));
}

TEST(Invariants, CompactionNeverRegressesBreaksOnALoweredProgress) {
  Scenario s = Credited();
  State state = s.state();
  MutableHead(state).compacted[0] = 0;
  MutableHead(state).catchup[0][0] = 0;
  EXPECT_FALSE(Holds("CompactionNeverRegresses", s.config(), state));
  MutableHead(state).op.kind =
      OpKind::kRestore;  // an explicit restore may lower it
  EXPECT_TRUE(Holds("CompactionNeverRegresses", s.config(), state));
}

TEST(Invariants, LegacyTablesAreUntouchedBreaksOnAPositionWithoutTheBit) {
  Scenario s(TestConfig(Protocol::kDerived));
  s.Run(Append{});
  State state = s.state();
  MutableHead(state).catchup[0][0] = 1;
  EXPECT_FALSE(Holds("LegacyTablesAreUntouched", s.config(), state));
  Config legacy = s.config();
  legacy.protocol = Protocol::kLegacy;  // only bit protocols are held to it
  EXPECT_TRUE(Holds("LegacyTablesAreUntouched", legacy, state));
}

TEST(Invariants, UnchangedPositionsNeverDropBreaksOnAnErasedPosition) {
  Scenario s = Credited();
  s.Run(Append{});
  State state = s.state();
  ASSERT_EQ(Head(state).catchup[0][0], 1);
  MutableHead(state).catchup[0][0] = 0;
  EXPECT_FALSE(Holds("UnchangedPositionsNeverDrop", s.config(), state));
}

TEST(Invariants, NoRowIsLostBreaksWhenAMetadataCommitChangesLive) {
  Scenario s = Credited();
  s.Run(Append{});
  s.Run(CreateIndex{0});
  State state = s.state();
  MutableHead(state).live &=
      FragmentSet(~0b10);  // drops fragment 1 and its row
  EXPECT_FALSE(Holds("NoRowIsLost", s.config(), state));
  MutableHead(state).op.kind = OpKind::kDeleteFragment;
  EXPECT_TRUE(Holds("NoRowIsLost", s.config(), state));
}

TEST(Invariants, ReadsMissNoRowsBreaksWhenARowIsNeitherServedNorIndexed) {
  Scenario s = Credited();
  State state = s.state();
  state.retired[0] = 0b1;     // retired ...
  state.retire_cover[0] = 0;  // ... while no index covered it
  MutableHead(state).segments[0][1].covers = 0;
  MutableHead(state).catchup[0][0] = 0;
  EXPECT_FALSE(Holds("ReadsMissNoRows", s.config(), state));
  state.retire_cover[0] =
      0b1;  // retired while covered: the base table's limitation
  EXPECT_TRUE(Holds("ReadsMissNoRows", s.config(), state));
}

// ReadsMissNoRowsGiven: the "served" clause is the reader's answers, not the
// model's watermark function. Activated and generation 1 compacted into
// fragment 1, which idx_0 does not cover and no position credits: the plain
// scan sees the row in fragment 1 (watermark 1), the indexed query only in
// the SSTable (the strict reader's watermark 0).
TEST(Invariants, ReadsMissNoRowsGivenAReaderThatSkipsTheOnlyCopyBreaks) {
  Scenario s(TestConfig());
  Activated(&s);
  Compacted(&s);
  const State& state = s.state();
  const ReaderWatermarks model = ModelWatermarks(s.config(), state);
  const QueryShapes shapes = AllQueryShapes(s.config(), state);
  ASSERT_EQ(shapes.count, 3);  // plain, index(0), all = {0}
  EXPECT_EQ(model.of[0][0], 1);
  EXPECT_EQ(model.of[1][0], 0);
  EXPECT_EQ(model.of[2][0], 0);
  EXPECT_TRUE(Holds("ReadsMissNoRows", s.config(), state));
  EXPECT_TRUE(ReadsMissNoRowsGiven(s.config(), state, model));
  EXPECT_FALSE(FirstMissedRow(s.config(), state, model).has_value());
  // A reader that caps the indexed query at the compaction (as one that
  // ignored the missing entry would) skips the row's only visible copy.
  ReaderWatermarks skipping = model;
  skipping.of[1][0] = 1;
  const std::optional<MissedRow> missed =
      FirstMissedRow(s.config(), state, skipping);
  ASSERT_TRUE(missed.has_value());
  EXPECT_EQ(missed->shape, (QueryShape{.uses = 0b1}));
  EXPECT_EQ(missed->shard, 0);
  EXPECT_EQ(missed->generation, 1);
  EXPECT_FALSE(ReadsMissNoRowsGiven(s.config(), state, skipping));
  // The same watermark on the plain scan misses nothing: fragment 1 is
  // visible to it.
  ReaderWatermarks plain_only = model;
  plain_only.of[0][0] = 3;
  EXPECT_TRUE(ReadsMissNoRowsGiven(s.config(), state, plain_only));
  // A deleted row is missed by no reader.
  State deleted = state;
  deleted.deleted = RowBit(0, 1);
  EXPECT_TRUE(ReadsMissNoRowsGiven(s.config(), deleted, skipping));
}

// The goal named `name` on the transition `action` from s's current state.
bool Reached(std::string_view name, Scenario& s, const Action& action) {
  const State before = s.state();
  const Outcome outcome = s.Do(action);
  for (const Goal& goal : AllGoals()) {
    if (goal.name == name)
      return goal.reached(s.config(), before, action, outcome, s.state());
  }
  ADD_FAILURE() << "no goal " << name;
  return false;
}

TEST(Goals, EachGoalIsReachedByTheTransitionItNames) {
  Scenario s(TestConfig());
  Activated(&s);
  Compacted(&s);
  s.Do(OptimizeIndex{0});
  EXPECT_TRUE(Reached("ReachPositionCredited", s, Commit{0}));
  EXPECT_TRUE(
      Reached("ReachRestoreOnActivatedTable", s, Restore{1}));  // refused
  s.Do(Append{});
  s.Run(Append{});
  EXPECT_TRUE(Reached("ReachCommitRebased", s, Commit{0}));
  s.Do(UpdateColumns{1, 0});
  EXPECT_FALSE(Reached("ReachPositionCredited", s, Commit{0}));
  s.Do(UpdateColumns{0, 0});
  EXPECT_TRUE(Reached("ReachBitmapPrunedInPlace", s, Commit{0}));
}

TEST(Goals, WithdrawnAndRetiredAreReachedByTheirTransitions) {
  Scenario s(TestConfig());
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  s.Do(CleanupVersions{});
  EXPECT_TRUE(Reached("ReachSsTableRetired", s, RetireSsTable{0, 1}));
  s.Do(UpdateColumns{1, 0});
  EXPECT_TRUE(Reached("ReachPositionWithdrawn", s, Commit{0}));
}

TEST(Goals, ApplicabilityFollowsTheProtocol) {
  auto applicable = [](Protocol protocol) {
    Config config;
    config.protocol = protocol;
    int count = 0;
    for (const Goal& goal : AllGoals())
      count += goal.applicable(config) ? 1 : 0;
    return count;
  };
  EXPECT_EQ(AllGoals().size(), 6u);
  EXPECT_EQ(applicable(Protocol::kDerived), 6);
  EXPECT_EQ(applicable(Protocol::kAdvance), 6);
  EXPECT_EQ(applicable(Protocol::kUnconditional), 5);
  EXPECT_EQ(applicable(Protocol::kLegacy), 3);
}

}  // namespace
}  // namespace memwal::model
