// The read-side rule functions of the model (model/read.h) and of the
// implementation (impl/read.h), compared on random inputs (RE2's way of
// checking a fast engine against a simple one): the exclusion watermark (R40),
// the retirement rule (R12) and the catch-up derivation (R33).
//
// The inputs go past what the bounded search produces: progress and catch-up
// lists in any shard order, explicit zero entries next to missing ones,
// positions above compaction progress, half-set feature words, several indexes
// at different positions. The implementation sees the same version through a
// VersionView with shard `s` named "shard-s" and index `i` named "index-i".
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "impl/catchup.h"
#include "impl/read.h"
#include "model/catchup.h"
#include "model/read.h"
#include "model/state.h"

namespace memwal {
namespace {

std::string ShardName(int shard) { return "shard-" + std::to_string(shard); }
std::string IndexName(int index) { return "index-" + std::to_string(index); }

// One random version over every shard and index the model can hold.
model::Version RandomVersion() {
  model::Version version;
  for (int s = 0; s < model::kShardsMax; ++s) {
    version.compacted[s] =
        *rc::gen::inRange<uint8_t>(0, model::kGenerationsMax + 1);
  }
  for (int i = 0; i < model::kIndexesMax; ++i) {
    if (*rc::gen::arbitrary<bool>()) {
      version.segments[i][0] =
          model::Segment{.uuid = static_cast<uint8_t>(i + 1), .covers = 1};
    }
    for (int s = 0; s < model::kShardsMax; ++s) {
      // May exceed compaction progress: the search never writes that.
      version.catchup[i][s] =
          *rc::gen::inRange<uint8_t>(0, model::kGenerationsMax + 1);
    }
  }
  version.reader_bit = *rc::gen::arbitrary<bool>();
  version.writer_bit = *rc::gen::arbitrary<bool>();
  version.retained = true;
  return version;
}

// A per-shard list in a random order; a zero is written as an explicit entry
// or left out, at random (both mean "no position").
impl::ShardGenerations RandomList(const uint8_t* generations) {
  impl::ShardGenerations list;
  for (int s = 0; s < model::kShardsMax; ++s) {
    if (generations[s] == 0 && *rc::gen::arbitrary<bool>()) continue;
    list.emplace_back(ShardName(s), generations[s]);
  }
  const std::vector<std::size_t> order =
      *rc::gen::unique<std::vector<std::size_t>>(
          list.size(), rc::gen::inRange<std::size_t>(0, list.size()));
  impl::ShardGenerations shuffled;
  for (const std::size_t k : order) shuffled.push_back(list[k]);
  return shuffled;
}

impl::VersionView ViewOf(const model::Version& version) {
  impl::VersionView view;
  view.compacted = RandomList(version.compacted.data());
  for (int i = 0; i < model::kIndexesMax; ++i) {
    if (model::IsPresent(version, i)) view.indexes.insert(IndexName(i));
    const impl::ShardGenerations entry = RandomList(version.catchup[i].data());
    // An entry of zeros only is the same as no entry; keep either at random.
    if (!entry.empty() || *rc::gen::arbitrary<bool>())
      view.catchup[IndexName(i)] = entry;
  }
  view.both_bits = version.reader_bit && version.writer_bit;
  return view;
}

model::Config RandomConfig() {
  model::Config config;
  config.protocol = *rc::gen::element(
      model::Protocol::kDerived, model::Protocol::kAdvance,
      model::Protocol::kUnconditional, model::Protocol::kLegacy);
  config.read =
      *rc::gen::element(model::ReadMode::kStrict, model::ReadMode::kMin,
                        model::ReadMode::kSingleIndex);
  config.bounds.shards = model::kShardsMax;
  config.bounds.indexes = model::kIndexesMax;
  config.bounds.generations = model::kGenerationsMax;
  if (*rc::gen::arbitrary<bool>())
    config.bugs |= model::BugBit(model::Bug::kSingleIndexWatermark);
  if (*rc::gen::arbitrary<bool>())
    config.bugs |= model::BugBit(model::Bug::kReaderIgnoresBit);
  return config;
}

impl::Protocol ImplProtocol(model::Protocol protocol) {
  return static_cast<impl::Protocol>(static_cast<int>(protocol));
}

impl::BugSet ImplBugs(const model::Config& config) {
  // impl::Bug and model::Bug list spec section 8 in the same order.
  return impl::BugSet(config.bugs);
}

RC_GTEST_PROP(RuleFunctions,
              TheWatermarkOfTheImplementationIsTheModelsOnAnyVersion, ()) {
  static_assert(static_cast<int>(impl::Protocol::kLegacy) ==
                static_cast<int>(model::Protocol::kLegacy));
  static_assert(static_cast<int>(impl::Bug::kReaderIgnoresBit) ==
                static_cast<int>(model::Bug::kReaderIgnoresBit));
  const model::Config config = RandomConfig();
  model::State state;
  state.versions[0] = RandomVersion();
  state.version_count = 1;
  const model::Version& head = state.versions[0];
  const impl::VersionView view = ViewOf(head);
  model::QueryShape shape;
  std::vector<std::string> query;
  for (int i = 0; i < model::kIndexesMax; ++i) {
    if (!model::IsPresent(head, i) || !*rc::gen::arbitrary<bool>()) continue;
    shape.uses = static_cast<model::IndexSet>(shape.uses | (1u << i));
    query.push_back(IndexName(i));
  }
  const impl::ReadMode read =
      static_cast<impl::ReadMode>(static_cast<int>(config.read));
  for (int s = 0; s < model::kShardsMax; ++s) {
    const int want = model::Watermark(config, state, shape, s);
    const uint64_t got = impl::ExclusionWatermark(view, ShardName(s), query,
                                                  ImplProtocol(config.protocol),
                                                  read, ImplBugs(config));
    RC_ASSERT(got == static_cast<uint64_t>(want));
  }
}

RC_GTEST_PROP(RuleFunctions,
              RetirementOfTheImplementationIsTheModelsOnAnyRetainedVersions,
              ()) {
  const model::Config config = RandomConfig();
  model::State state;
  state.version_count = *rc::gen::inRange<uint8_t>(1, 4);
  std::vector<impl::VersionView> retained;
  for (int v = 0; v < state.version_count; ++v) {
    state.versions[v] = RandomVersion();
    state.versions[v].retained =
        v + 1 == state.version_count || *rc::gen::arbitrary<bool>();
    if (state.versions[v].retained)
      retained.push_back(ViewOf(state.versions[v]));
  }
  for (int s = 0; s < model::kShardsMax; ++s) {
    for (int g = 1; g <= model::kGenerationsMax; ++g) {
      const bool want = model::Retirable(config, state, s, g);
      const bool got =
          impl::Retirable(retained, ShardName(s), static_cast<uint64_t>(g),
                          ImplProtocol(config.protocol));
      RC_ASSERT(got == want);
    }
  }
}

// Random segments for every index: absent, or one or two segments with
// random uuids and covers.
void RandomSegments(model::Version* version) {
  for (int i = 0; i < model::kIndexesMax; ++i) {
    version->segments[i] = {};
    const int count = *rc::gen::inRange(0, model::kSegmentsMax + 1);
    for (int k = 0; k < count; ++k) {
      version->segments[i][k] =
          model::Segment{.uuid = static_cast<uint8_t>(*rc::gen::inRange(1, 8)),
                         .covers = static_cast<model::FragmentSet>(
                             *rc::gen::inRange(0, 1 << model::kFragmentsMax))};
    }
  }
  version->live = static_cast<model::FragmentSet>(
      *rc::gen::inRange(0, 1 << model::kFragmentsMax));
}

impl::FragmentSet Fragments(model::FragmentSet set) {
  impl::FragmentSet out;
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if ((set >> f) & 1u) out.insert(static_cast<uint64_t>(f));
  }
  return out;
}

impl::Segments ImplSegments(const model::Version& version) {
  impl::Segments out;
  for (int i = 0; i < model::kIndexesMax; ++i) {
    for (const model::Segment& segment : version.segments[i]) {
      if (segment.uuid == 0) continue;
      out[IndexName(i)].push_back(
          impl::Segment{.uuid = "uuid-" + std::to_string(segment.uuid),
                        .covers = Fragments(segment.covers)});
    }
  }
  return out;
}

impl::CatchupTable ImplCatchup(const model::Version& version) {
  impl::CatchupTable table;
  for (int i = 0; i < model::kIndexesMax; ++i) {
    impl::ShardGenerations entry = RandomList(version.catchup[i].data());
    const bool zeros_only =
        std::all_of(entry.begin(), entry.end(),
                    [](const auto& e) { return e.second == 0; });
    if (!zeros_only) table[IndexName(i)] = std::move(entry);
  }
  return table;
}

uint64_t PositionIn(const impl::CatchupTable& table, int index, int shard) {
  const auto it = table.find(IndexName(index));
  if (it == table.end()) return 0;
  for (const auto& [name, generation] : it->second) {
    if (name == ShardName(shard)) return generation;
  }
  return 0;
}

// R33 on a head that requires catch-up, a read version and the version after
// the operation, all random: positions above progress, segments changed or
// not, read versions with or without the bit or live fragments.
RC_GTEST_PROP(RuleFunctions,
              TheDerivationOfTheImplementationIsTheModelsOnAnyVersions, ()) {
  model::Config config = RandomConfig();
  config.protocol = *rc::gen::element(model::Protocol::kDerived,
                                      model::Protocol::kUnconditional);
  config.bugs = 0;
  if (*rc::gen::arbitrary<bool>())
    config.bugs |= model::BugBit(model::Bug::kClaimPastReadVersion);
  if (*rc::gen::arbitrary<bool>())
    config.bugs |= model::BugBit(model::Bug::kUnchangedByUuidOnly);
  model::Version head = RandomVersion();
  model::Version read = RandomVersion();
  model::Version next = RandomVersion();
  head.reader_bit = head.writer_bit = true;  // requires catch-up
  RandomSegments(&head);
  RandomSegments(&read);
  RandomSegments(&next);
  for (int i = 0; i < model::kIndexesMax; ++i) {
    if (*rc::gen::arbitrary<bool>()) next.segments[i] = head.segments[i];
  }
  impl::DerivationInput input;
  if (config.protocol == model::Protocol::kUnconditional || read.reader_bit) {
    input.read =
        impl::ReadVersionState{.live = Fragments(read.live),
                               .compacted = RandomList(read.compacted.data())};
  }
  input.head_compacted = RandomList(head.compacted.data());
  input.before = ImplSegments(head);
  input.after = ImplSegments(next);
  input.new_compacted = RandomList(next.compacted.data());
  input.old_catchup = ImplCatchup(head);
  const impl::CatchupTable got = impl::DeriveCatchup(input, ImplBugs(config));
  model::Derive(config, read, head, &next);
  for (int i = 0; i < model::kIndexesMax; ++i) {
    for (int s = 0; s < model::kShardsMax; ++s) {
      const uint64_t want = model::IsPresent(next, i) ? next.catchup[i][s] : 0;
      RC_ASSERT(PositionIn(got, i, s) == want);
    }
  }
}

}  // namespace
}  // namespace memwal
