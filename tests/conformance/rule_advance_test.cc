// The advance protocol's merge (spec R34): the model's ApplyAdvance
// (model/catchup.h) against the implementation's ApplyAdvances
// (impl/catchup.h) on random versions and advances, RE2's way of checking a
// fast engine against a simple one.
//
// The inputs go past what the bounded search produces: old positions above
// the shard's progress (progress lowered without clearing positions), old and
// claimed lists in any shard order with explicit zero entries, several
// indexes at different positions, two advances in one transaction, claims
// past progress, expected segments that differ from the built ones by a uuid
// or by coverage, and read versions whose live fragments the segments miss.
// The implementation sees shard `s` as "shard-s" and index `i` as "index-i".
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "impl/bitmap.h"
#include "impl/catchup.h"
#include "model/catchup.h"
#include "model/state.h"

namespace memwal {
namespace {

std::string ShardName(int shard) { return "shard-" + std::to_string(shard); }
std::string IndexName(int index) { return "index-" + std::to_string(index); }

model::FragmentSet RandomFragments() {
  return static_cast<model::FragmentSet>(
      *rc::gen::inRange(0, 1 << model::kFragmentsMax));
}

uint8_t RandomGeneration() {
  return *rc::gen::inRange<uint8_t>(0, model::kGenerationsMax + 1);
}

// Up to kSegmentsMax segments with distinct uuids (present ones first).
model::Segments RandomSegments() {
  model::Segments segments{};
  const int count = *rc::gen::inRange(0, model::kSegmentsMax + 1);
  for (int k = 0; k < count; ++k) {
    segments[k] = model::Segment{
        .uuid = static_cast<uint8_t>(1 + 4 * k + *rc::gen::inRange(0, 4)),
        .covers = RandomFragments()};
  }
  return segments;
}

impl::FragmentSet Fragments(model::FragmentSet set) {
  impl::FragmentSet out;
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if ((set >> f) & 1u) out.insert(static_cast<uint64_t>(f));
  }
  return out;
}

std::string Uuid(uint8_t uuid) { return "uuid-" + std::to_string(uuid); }

impl::Segments ImplSegments(const model::Version& version) {
  impl::Segments out;
  for (int i = 0; i < model::kIndexesMax; ++i) {
    for (const model::Segment& segment : version.segments[i]) {
      if (segment.uuid == 0) continue;
      out[IndexName(i)].push_back(impl::Segment{
          .uuid = Uuid(segment.uuid), .covers = Fragments(segment.covers)});
    }
  }
  return out;
}

// `generations` as a list in a random shard order; a zero is left out, or
// written as an explicit entry where `zero_allowed[s]`.
impl::ShardGenerations RandomList(const uint8_t* generations,
                                  const bool* zero_allowed) {
  impl::ShardGenerations list;
  for (int s = 0; s < model::kShardsMax; ++s) {
    if (generations[s] == 0 &&
        (!zero_allowed[s] || *rc::gen::arbitrary<bool>()))
      continue;
    list.emplace_back(ShardName(s), generations[s]);
  }
  const std::vector<std::size_t> order =
      *rc::gen::unique<std::vector<std::size_t>>(
          list.size(), rc::gen::inRange<std::size_t>(0, list.size()));
  impl::ShardGenerations shuffled;
  for (const std::size_t k : order) shuffled.push_back(list[k]);
  return shuffled;
}

uint64_t PositionIn(const impl::CatchupTable& table, int index, int shard) {
  const auto it = table.find(IndexName(index));
  if (it == table.end()) return 0;
  for (const auto& [name, generation] : it->second) {
    if (name == ShardName(shard)) return generation;
  }
  return 0;
}

RC_GTEST_PROP(RuleFunctions,
              TheAdvanceMergeOfTheImplementationIsTheModelsOnAnyVersions, ()) {
  model::Config config;
  config.protocol = model::Protocol::kAdvance;
  config.bounds.shards = model::kShardsMax;
  config.bounds.indexes = model::kIndexesMax;
  config.bounds.generations = model::kGenerationsMax;
  if (*rc::gen::arbitrary<bool>())
    config.bugs |= model::BugBit(model::Bug::kUnchangedByUuidOnly);
  bool any_zero[model::kShardsMax];
  std::fill(std::begin(any_zero), std::end(any_zero), true);

  model::Version head;
  model::Version read;
  head.reader_bit = head.writer_bit = true;  // requires catch-up
  read.reader_bit = read.writer_bit = true;
  read.live = RandomFragments();
  for (int s = 0; s < model::kShardsMax; ++s) {
    head.compacted[s] = RandomGeneration();
    read.compacted[s] = RandomGeneration();
  }
  for (int i = 0; i < model::kIndexesMax; ++i) {
    head.segments[i] = RandomSegments();
    for (int s = 0; s < model::kShardsMax; ++s)
      head.catchup[i][s] = RandomGeneration();  // may exceed progress
  }
  model::Version next = head;  // the build starts from the head
  for (int s = 0; s < model::kShardsMax; ++s) {
    if (*rc::gen::arbitrary<bool>()) next.compacted[s] = RandomGeneration();
  }
  for (int i = 0; i < model::kIndexesMax; ++i) {
    if (*rc::gen::arbitrary<bool>()) next.segments[i] = RandomSegments();
  }

  // Mostly inputs an advance is valid on (claims within progress, the read
  // version's fragments covered), so that the merge is compared often.
  if (*rc::gen::weightedElement<bool>({{3, true}, {1, false}})) {
    for (int s = 0; s < model::kShardsMax; ++s)
      next.compacted[s] = std::max(next.compacted[s], read.compacted[s]);
  }
  // One or two advances on distinct indexes, each claiming the read
  // version's progress (cut as R61's callers cut it) or any generations.
  model::Advances advances;
  std::vector<std::array<uint8_t, model::kShardsMax>> claims;
  impl::Advances pb_advances;
  const int first = *rc::gen::inRange(0, model::kIndexesMax);
  if (*rc::gen::weightedElement<bool>({{3, true}, {1, false}})) {
    model::FragmentSet covers = 0;
    for (const model::Segment& segment : next.segments[first])
      covers |= segment.covers;
    read.live &= covers;
  }
  std::vector<int> named = {first};
  if (*rc::gen::arbitrary<bool>())
    named.push_back((first + 1) % model::kIndexesMax);
  for (std::size_t k = 0; k < named.size(); ++k) {
    model::Advance& advance = k == 0 ? advances.own : advances.other;
    advance.index = named[k];
    // The built segments, or the built ones with one uuid replaced (same
    // coverage: only the uuid fence can refuse it), or any segments.
    const int expected_kind =
        *rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {2, 2}});
    advance.expected =
        expected_kind == 2 ? RandomSegments() : next.segments[named[k]];
    if (expected_kind == 1 && advance.expected[0].uuid != 0)
      advance.expected[0].uuid = static_cast<uint8_t>(advance.expected[0].uuid +
                                                      4 * model::kSegmentsMax);
    advance.cut = *rc::gen::inRange(-1, 3);
    std::array<uint8_t, model::kShardsMax> claim{};
    for (int s = 0; s < model::kShardsMax; ++s) {
      claim[s] = read.compacted[s];
      if (advance.cut == 1 && claim[s] > 0) claim[s] = 1;
      if (advance.cut == 2 && s > 0) claim[s] = 0;
    }
    // A zero claim for a shard with progress is the same as no claim; for a
    // shard without progress Lance refuses it, so it is never written.
    bool zero_allowed[model::kShardsMax];
    for (int s = 0; s < model::kShardsMax; ++s)
      zero_allowed[s] = next.compacted[s] != 0;
    auto* pb = pb_advances.Add();
    pb->set_index_name(IndexName(named[k]));
    model::FragmentSet covers = 0;
    for (const model::Segment& segment : advance.expected) {
      if (segment.uuid == 0) continue;
      pb->add_expected_index_segment_uuids()->set_uuid(Uuid(segment.uuid));
      covers |= segment.covers;
    }
    pb->set_expected_fragment_bitmap(
        impl::EncodeFragmentBitmap(Fragments(covers)));
    pb->set_inspected_fragments(
        impl::EncodeFragmentBitmap(Fragments(read.live)));
    for (const auto& [shard, generation] :
         RandomList(claim.data(), zero_allowed)) {
      impl::pb::CompactedSsTable* entry = pb->add_caught_up_generations();
      entry->mutable_shard_id()->set_uuid(shard);
      entry->set_generation(generation);
    }
  }

  impl::AdvanceInput input;
  input.head_requires_catchup = true;
  input.has_system_index = true;
  input.before = ImplSegments(head);
  input.after = ImplSegments(next);
  input.new_compacted = RandomList(next.compacted.data(), any_zero);
  for (int i = 0; i < model::kIndexesMax; ++i) {
    impl::ShardGenerations entry = RandomList(head.catchup[i].data(), any_zero);
    if (!entry.empty() || *rc::gen::arbitrary<bool>())
      input.old_catchup[IndexName(i)] = std::move(entry);
  }

  const Result<impl::CatchupTable> got =
      impl::ApplyAdvances(input, pb_advances, impl::BugSet(config.bugs));
  const bool valid = model::ApplyAdvance(config, advances, read, head, &next);
  RC_CLASSIFY(valid);
  RC_ASSERT(got.ok() == valid);
  if (!valid) return;
  for (int i = 0; i < model::kIndexesMax; ++i) {
    for (int s = 0; s < model::kShardsMax; ++s) {
      const uint64_t want = model::IsPresent(next, i) ? next.catchup[i][s] : 0;
      RC_ASSERT(PositionIn(*got, i, s) == want);
    }
    // Lance keeps a merged entry keyed by shard: in shard order.
    const auto it = got->find(IndexName(i));
    if (it == got->end() ||
        std::find(named.begin(), named.end(), i) == named.end())
      continue;
    RC_ASSERT(std::is_sorted(
        it->second.begin(), it->second.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; }));
  }
}

// One advance of index 0 over segment 1 covering fragment 1, claiming
// generation 1 of shard 0.
impl::Advances AdvanceOfShard0ToGeneration1() {
  impl::Advances out;
  auto* advance = out.Add();
  advance->set_index_name(IndexName(0));
  advance->add_expected_index_segment_uuids()->set_uuid(Uuid(1));
  advance->set_expected_fragment_bitmap(
      impl::EncodeFragmentBitmap(Fragments(1)));
  advance->set_inspected_fragments(impl::EncodeFragmentBitmap(Fragments(1)));
  auto* claim = advance->add_caught_up_generations();
  claim->mutable_shard_id()->set_uuid(ShardName(0));
  claim->set_generation(1);
  return out;
}

// Lance refuses a claim that names a shard without compaction progress, an
// explicit zero claim too. The model cannot express that claim (R34 skips a
// zero), so the property above never writes one, and this pins the
// implementation's refusal alone (it is what kills the mutant
// advance-no-progress-ok of the former hand-written mutant list).
TEST(RuleFunctions, AZeroClaimForAShardWithoutProgressIsRefused) {
  impl::AdvanceInput input;
  input.head_requires_catchup = true;
  input.has_system_index = true;
  input.before[IndexName(0)] = {
      impl::Segment{.uuid = Uuid(1), .covers = Fragments(1)}};
  input.after = input.before;
  input.new_compacted = {{ShardName(0), 1}};  // shard 1: no progress
  const auto advances = [](bool zero_claim_for_shard_1) {
    impl::Advances out = AdvanceOfShard0ToGeneration1();
    if (zero_claim_for_shard_1) {
      auto* claim = out.Mutable(0)->add_caught_up_generations();
      claim->mutable_shard_id()->set_uuid(ShardName(1));
      claim->set_generation(0);
    }
    return out;
  };
  const Result<impl::CatchupTable> without =
      impl::ApplyAdvances(input, advances(false), impl::BugSet());
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  EXPECT_EQ(PositionIn(*without, 0, 0), 1u);
  const Result<impl::CatchupTable> with =
      impl::ApplyAdvances(input, advances(true), impl::BugSet());
  ASSERT_FALSE(with.ok());
  EXPECT_NE(with.status().ToString().find(
                "names a shard without compaction progress"),
            std::string::npos)
      << with.status().ToString();
}

// Lance refuses a catch-up advance on a table without __lance_mem_wal: there
// is no system index to record it in. The property above always gives a
// system index (the model's table always has one), so this pins the refusal.
TEST(RuleFunctions, AnAdvanceOnATableWithoutTheSystemIndexIsRefused) {
  impl::AdvanceInput input;
  input.head_requires_catchup = true;
  input.has_system_index = false;
  input.before[IndexName(0)] = {
      impl::Segment{.uuid = Uuid(1), .covers = Fragments(1)}};
  input.after = input.before;
  input.new_compacted = {{ShardName(0), 1}};
  const impl::Advances advances = AdvanceOfShard0ToGeneration1();
  const Result<impl::CatchupTable> got =
      impl::ApplyAdvances(input, advances, impl::BugSet());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().ToString().find("__lance_mem_wal"), std::string::npos)
      << got.status().ToString();
  input.has_system_index = true;
  EXPECT_TRUE(impl::ApplyAdvances(input, advances, impl::BugSet()).ok());
}

}  // namespace
}  // namespace memwal
