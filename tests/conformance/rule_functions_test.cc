// The read-side rule functions of the model (model/read.h) and of the
// implementation (impl/read.h), compared on random inputs (RE2's way of
// checking a fast engine against a simple one): the exclusion watermark (R40)
// and the retirement rule (R12).
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

#include "impl/read.h"
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

}  // namespace
}  // namespace memwal
