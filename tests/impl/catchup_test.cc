// Catch-up rules as pure functions: the derivation of spec R33 (Lance's
// manifest_build.rs mem_wal_index_coverage tests, P §6.5, pinned with our own
// setups) and the advance validation and merge of R34 (P §6.4).
#include "impl/catchup.h"

#include <gtest/gtest.h>

namespace memwal::impl {
namespace {

const std::string kShardA(16, 'a');
const std::string kShardB(16, 'b');

Segment Seg(const std::string& uuid, FragmentSet covers) {
  return Segment{uuid, covers};
}

// An index "idx_0" with one segment "u1" covering {0, 1}; the read version has
// fragments {0, 1} and shard A compacted to 5; this commit's progress is A = 7.
DerivationInput Baseline() {
  DerivationInput input;
  input.read = ReadVersionState{{0, 1}, {{kShardA, 5}}};
  input.head_compacted = {{kShardA, 7}};
  input.before = {{"idx_0", {Seg("u1", {0, 1})}}};
  input.after = input.before;
  input.new_compacted = {{kShardA, 7}};
  return input;
}

uint64_t Position(const CatchupTable& table, const std::string& name,
                  const std::string& shard) {
  const auto it = table.find(name);
  if (it == table.end()) return 0;
  return GenerationFor(it->second, shard);
}

TEST(Derivation, CreditsAnIndexCoveringTheReadVersion) {
  EXPECT_EQ(Position(DeriveCatchup(Baseline(), {}), "idx_0", kShardA), 5u);
}

TEST(Derivation, DoesNotCreditAnIndexShortOfTheReadVersion) {
  DerivationInput input = Baseline();
  input.read->live = {0, 1, 2};
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, ABitmapPrunedInPlaceLosesItsPosition) {
  DerivationInput input = Baseline();
  input.old_catchup = {{"idx_0", {{kShardA, 3}}}};
  input.after = {{"idx_0", {Seg("u1", {0})}}};  // Same uuid, narrower bitmap.
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, ComparingByUuidOnlyKeepsAPrunedPosition) {
  DerivationInput input = Baseline();
  input.old_catchup = {{"idx_0", {{kShardA, 3}}}};
  input.after = {{"idx_0", {Seg("u1", {0})}}};
  const BugSet bug(BugBit(Bug::kUnchangedByUuidOnly));
  EXPECT_EQ(Position(DeriveCatchup(input, bug), "idx_0", kShardA), 3u);
}

TEST(Derivation, NeverLowersAnUnchangedIndex) {
  DerivationInput input = Baseline();
  input.old_catchup = {{"idx_0", {{kShardA, 6}}}};
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_0", kShardA), 6u);
}

TEST(Derivation, DoesNotRaiseAnUnchangedIndexBeyondWhatItProves) {
  DerivationInput input = Baseline();
  input.read->live = {0, 1,
                      2};  // Not proven: the carried position stays as it was.
  input.old_catchup = {{"idx_0", {{kShardA, 2}}}};
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_0", kShardA), 2u);
}

TEST(Derivation, ClampsACarriedPositionToTheCommittedProgress) {
  DerivationInput input = Baseline();
  input.old_catchup = {{"idx_0", {{kShardA, 9}}}};
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_0", kShardA), 7u);
}

TEST(Derivation, CapsCreditByTheCommittedProgress) {
  DerivationInput input = Baseline();
  input.read->compacted = {
      {kShardA, 9}};  // e.g. a read version since rolled back.
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_0", kShardA), 7u);
  const BugSet bug(BugBit(Bug::kCoveragePastCompaction));
  EXPECT_EQ(Position(DeriveCatchup(input, bug), "idx_0", kShardA), 9u);
}

TEST(Derivation, NeverCreditsPastTheReadVersion) {
  DerivationInput input = Baseline();
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_0", kShardA), 5u);
  const BugSet bug(BugBit(Bug::kClaimPastReadVersion));
  EXPECT_EQ(Position(DeriveCatchup(input, bug), "idx_0", kShardA), 7u);
}

TEST(Derivation, DoesNotCreditAnIndexWithAnUnknownSegment) {
  DerivationInput input = Baseline();
  input.after = {{"idx_0", {Seg("u1", {0, 1}), Segment{"u2", std::nullopt}}}};
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, DropsTheEntryOfADroppedIndex) {
  DerivationInput input = Baseline();
  input.old_catchup = {{"idx_0", {{kShardA, 5}}}};
  input.after.clear();
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, CreditsANewIndexCoveringTheReadVersion) {
  DerivationInput input = Baseline();
  input.after["idx_1"] = {Seg("u9", {0, 1})};
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_1", kShardA), 5u);
}

TEST(Derivation, CreditsEachShardIndependently) {
  DerivationInput input = Baseline();
  input.read->compacted = {{kShardA, 5}, {kShardB, 2}};
  input.new_compacted = {{kShardA, 7}, {kShardB, 1}};
  const CatchupTable out = DeriveCatchup(input, {});
  EXPECT_EQ(Position(out, "idx_0", kShardA), 5u);
  EXPECT_EQ(Position(out, "idx_0", kShardB), 1u);
}

TEST(Derivation, WritesAZeroShardWhenAnotherShardOfTheEntryIsCredited) {
  DerivationInput input = Baseline();
  input.new_compacted = {{kShardA, 7}, {kShardB, 1}};  // B had none at read.
  const CatchupTable out = DeriveCatchup(input, {});
  const ShardGenerations want = {{kShardA, 5}, {kShardB, 0}};
  ASSERT_EQ(out.count("idx_0"), 1u);
  EXPECT_EQ(out.at("idx_0"), want);
}

TEST(Derivation, CreditsIndexesIndependently) {
  DerivationInput input = Baseline();
  input.before["idx_1"] = {Seg("u2", {0})};
  input.after["idx_1"] = {Seg("u2", {0})};
  const CatchupTable out = DeriveCatchup(input, {});
  EXPECT_EQ(Position(out, "idx_0", kShardA), 5u);
  EXPECT_EQ(Position(out, "idx_1", kShardA), 0u);
}

TEST(Derivation, WritesNoEntryWithoutCompactionProgress) {
  DerivationInput input = Baseline();
  input.read->compacted.clear();
  input.new_compacted.clear();
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, AnIndexCaughtUpToNothingGetsNoEntry) {
  DerivationInput input = Baseline();
  input.read->compacted
      .clear();  // Proven, but the read version had compacted nothing.
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, WithoutAReadVersionAChangedIndexStillLosesItsPosition) {
  DerivationInput input = Baseline();
  input.read.reset();
  input.old_catchup = {{"idx_0", {{kShardA, 4}}}};
  EXPECT_EQ(Position(DeriveCatchup(input, {}), "idx_0", kShardA),
            4u);  // Unchanged: kept.
  input.after = {{"idx_0", {Seg("u7", {0, 1})}}};
  EXPECT_TRUE(DeriveCatchup(input, {}).empty());
}

TEST(Derivation, AShardKeepsItsPositionWhileAnotherAdvances) {
  DerivationInput input = Baseline();
  input.read->live = {0, 1, 2};  // Not proven now.
  input.read->compacted = {{kShardA, 5}, {kShardB, 3}};
  input.new_compacted = {{kShardA, 7}, {kShardB, 4}};
  input.old_catchup = {{"idx_0", {{kShardA, 5}, {kShardB, 3}}}};
  const CatchupTable out = DeriveCatchup(input, {});
  EXPECT_EQ(Position(out, "idx_0", kShardA), 5u);
  EXPECT_EQ(Position(out, "idx_0", kShardB), 3u);
}

TEST(Derivation, CarriedPositionsDoNotLeakBetweenShards) {
  DerivationInput input = Baseline();
  input.read->live = {0, 1, 2};
  input.new_compacted = {{kShardA, 7}, {kShardB, 4}};
  input.old_catchup = {{"idx_0", {{kShardA, 5}}}};
  const CatchupTable out = DeriveCatchup(input, {});
  EXPECT_EQ(Position(out, "idx_0", kShardA), 5u);
  EXPECT_EQ(Position(out, "idx_0", kShardB), 0u);
}

TEST(Derivation, IsStableAcrossAttempts) {
  const DerivationInput input = Baseline();
  EXPECT_EQ(DeriveCatchup(input, {}), DeriveCatchup(input, {}));
}

TEST(Derivation, WithdrawOnlyRemovesChangedIndexesAndCreditsNothing) {
  DerivationInput input = Baseline();
  input.before["idx_1"] = {Seg("u2", {0})};
  input.after["idx_1"] = {Seg("u3", {0, 1})};
  input.old_catchup = {{"idx_0", {{kShardA, 2}}}, {"idx_1", {{kShardA, 2}}}};
  const CatchupTable out = WithdrawChanged(input, {});
  EXPECT_EQ(Position(out, "idx_0", kShardA), 2u);
  EXPECT_EQ(out.count("idx_1"), 0u);
}

// ---- Advance (R34) ----

using AdvanceMsg = pb::Transaction::CreateIndex::IndexCatchupAdvance;

// idx_0 goes from segment u1 {0} to u1 {0} + u2 {1}; shard A compacted 4 at
// read and 6 now.
AdvanceInput AdvanceBaseline() {
  AdvanceInput input;
  input.head_requires_catchup = true;
  input.has_system_index = true;
  input.before = {{"idx_0", {Seg("u1", {0})}}};
  input.after = {{"idx_0", {Seg("u1", {0}), Seg("u2", {1})}}};
  input.new_compacted = {{kShardA, 6}, {kShardB, 2}};
  input.head_compacted = input.new_compacted;
  input.new_live = {0, 1};
  return input;
}

AdvanceMsg MakeAdvance(std::vector<std::string> uuids, FragmentSet covers,
                       FragmentSet inspected, ShardGenerations claims) {
  AdvanceMsg advance;
  advance.set_index_name("idx_0");
  for (const auto& uuid : uuids)
    advance.add_expected_index_segment_uuids()->set_uuid(uuid);
  advance.set_expected_fragment_bitmap(EncodeFragmentBitmap(covers));
  advance.set_inspected_fragments(EncodeFragmentBitmap(inspected));
  SetGenerations(claims, advance.mutable_caught_up_generations());
  return advance;
}

Result<CatchupTable> RunAdvance(const AdvanceInput& input,
                                const AdvanceMsg& advance, BugSet bugs = {}) {
  Advances advances;
  *advances.Add() = advance;
  return ApplyAdvances(input, advances, bugs);
}

TEST(Advance, RecordsTheClaimOfAValidAdvanceOnAChangedIndex) {
  const auto out =
      RunAdvance(AdvanceBaseline(),
                 MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Position(*out, "idx_0", kShardA), 4u);
}

TEST(Advance, RefusesWhenTheSegmentUuidsDiffer) {
  const auto out =
      RunAdvance(AdvanceBaseline(),
                 MakeAdvance({"u1", "u3"}, {0, 1}, {0, 1}, {{kShardA, 4}}));
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
}

TEST(Advance, RefusesWhenTheCoverageDiffersFromTheExpectedBitmap) {
  const auto out = RunAdvance(
      AdvanceBaseline(), MakeAdvance({"u1", "u2"}, {0}, {0}, {{kShardA, 4}}));
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
}

TEST(Advance, RefusesAnAdvanceThatDoesNotCoverWhatItInspected) {
  const AdvanceMsg advance =
      MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1, 5}, {{kShardA, 4}});
  EXPECT_EQ(RunAdvance(AdvanceBaseline(), advance).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(RunAdvance(AdvanceBaseline(), advance,
                         BugSet(BugBit(Bug::kAdvanceWithoutInspected)))
                  .ok());
}

TEST(Advance, RefusesAClaimPastTheCompactionProgress) {
  const auto out =
      RunAdvance(AdvanceBaseline(),
                 MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 7}}));
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
}

TEST(Advance, RefusesAClaimOnAShardWithoutProgress) {
  const std::string shard_c(16, 'c');
  const auto out =
      RunAdvance(AdvanceBaseline(),
                 MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{shard_c, 1}}));
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
}

TEST(Advance, RefusesOnATableThatDoesNotRequireCatchup) {
  AdvanceInput input = AdvanceBaseline();
  input.head_requires_catchup = false;
  const auto out = RunAdvance(
      input, MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}}));
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
}

TEST(Advance, MergesOntoAnUnchangedIndexKeepingUnnamedShardsAndTheMaximum) {
  AdvanceInput input = AdvanceBaseline();
  input.before = input.after;
  input.old_catchup = {{"idx_0", {{kShardA, 5}, {kShardB, 2}}}};
  const AdvanceMsg advance =
      MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}});
  const auto out = RunAdvance(input, advance);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Position(*out, "idx_0", kShardA), 5u);  // Never backward.
  EXPECT_EQ(Position(*out, "idx_0", kShardB), 2u);  // Not erased.
  const auto replaced =
      RunAdvance(input, advance, BugSet(BugBit(Bug::kAdvanceReplacesPosition)));
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(Position(*replaced, "idx_0", kShardA), 4u);
  EXPECT_EQ(Position(*replaced, "idx_0", kShardB), 0u);
}

TEST(Advance, RefusesARepeatedExpectedSegmentUuidAsInvalidInput) {
  const auto out = RunAdvance(
      AdvanceBaseline(),
      MakeAdvance({"u1", "u2", "u1"}, {0, 1}, {0, 1}, {{kShardA, 4}}));
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
}

TEST(Advance, OrdersMergedPositionsByShardUuid) {
  AdvanceInput input = AdvanceBaseline();
  input.before = input.after;
  input.old_catchup = {{"idx_0", {{kShardB, 2}}}};
  const auto out = RunAdvance(
      input, MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}}));
  ASSERT_TRUE(out.ok());
  const ShardGenerations want = {{kShardA, 4}, {kShardB, 2}};
  EXPECT_EQ(out->at("idx_0"), want);
  // A changed index takes its claims alone, ordered the same way.
  AdvanceInput changed = AdvanceBaseline();
  const auto claims = RunAdvance(
      changed,
      MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardB, 1}, {kShardA, 4}}));
  ASSERT_TRUE(claims.ok());
  const ShardGenerations sorted = {{kShardA, 4}, {kShardB, 1}};
  EXPECT_EQ(claims->at("idx_0"), sorted);
}

TEST(Advance, AChangedIndexWithoutAnAdvanceLosesItsEntry) {
  AdvanceInput input = AdvanceBaseline();
  input.old_catchup = {{"idx_0", {{kShardA, 3}}}};
  const auto out = ApplyAdvances(input, Advances(), {});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

TEST(Advance, AnUnchangedIndexWithoutAnAdvanceKeepsItsEntry) {
  AdvanceInput input = AdvanceBaseline();
  input.before = input.after;
  input.old_catchup = {{"idx_0", {{kShardA, 3}}}};
  const auto out = ApplyAdvances(input, Advances(), {});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Position(*out, "idx_0", kShardA), 3u);
}

TEST(Advance, BoundAtCommitClaimsTheHeadsProgress) {
  const AdvanceMsg advance =
      MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}});
  const auto out = RunAdvance(AdvanceBaseline(), advance,
                              BugSet(BugBit(Bug::kAdvanceBoundAtCommit)));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Position(*out, "idx_0", kShardA), 6u);
}

TEST(Advance, SpanningLiveAtCommitRefusesARepairOutrunByAnAppend) {
  AdvanceInput input = AdvanceBaseline();
  input.new_live = {0, 1, 2};  // Appended after the repair inspected the table.
  const AdvanceMsg advance =
      MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}});
  EXPECT_TRUE(RunAdvance(input, advance).ok());
  EXPECT_FALSE(
      RunAdvance(input, advance, BugSet(BugBit(Bug::kRepairSpansLiveAtCommit)))
          .ok());
}

TEST(Advance, InspectedFragmentsAreCheckedPerAdvanceNotPerTransaction) {
  AdvanceInput input = AdvanceBaseline();
  input.publishes_index_work =
      true;  // Some other index got a new segment in this commit.
  const AdvanceMsg advance =
      MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1, 5}, {{kShardA, 4}});
  EXPECT_FALSE(RunAdvance(input, advance).ok());
  EXPECT_TRUE(
      RunAdvance(input, advance, BugSet(BugBit(Bug::kIndexWorkPerTransaction)))
          .ok());
}

TEST(Advance, TwoAdvancesForOneIndexAreRefused) {
  Advances advances;
  *advances.Add() = MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 4}});
  *advances.Add() = MakeAdvance({"u1", "u2"}, {0, 1}, {0, 1}, {{kShardA, 3}});
  EXPECT_FALSE(ApplyAdvances(AdvanceBaseline(), advances, {}).ok());
}

}  // namespace
}  // namespace memwal::impl
