// The packed form of model states (checker/engine/packed.h): every state a
// run reaches packs and unpacks to itself, and bytes that are not a packed
// state are refused or decode to some state, never read out of bounds.
#include "checker/engine/packed.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker {
namespace {

// A walk from Init: each pick chooses among the enabled actions.
model::State Walk(const model::Config& config, const std::vector<int>& picks) {
  model::State state = model::Init(config.bounds);
  std::vector<model::Action> actions;
  for (int pick : picks) {
    model::EnabledActions(config, state, &actions);
    if (actions.empty()) break;
    model::Outcome outcome;
    state = model::Apply(
        config, state, actions[static_cast<std::size_t>(pick) % actions.size()],
        &outcome);
  }
  return state;
}

model::Config LargeConfig() {
  model::Config config;
  config.bounds = model::LargeBounds();
  return config;
}

TEST(Packed, InitPacksIntoFewerBytesThanItsEncodingAndBack) {
  const model::State init = model::Init(model::SmallBounds());
  std::string encoding;
  model::Encode(init, &encoding);
  std::string packed;
  engine::Pack(init, &packed);
  EXPECT_LT(packed.size(), encoding.size());
  model::State back;
  ASSERT_TRUE(engine::Unpack(packed, &back));
  EXPECT_EQ(back, init);
}

RC_GTEST_PROP(Packed, AReachedStateUnpacksToItself, ()) {
  const model::Config config = LargeConfig();
  const auto picks = *rc::gen::container<std::vector<int>>(
      *rc::gen::inRange(0, 40), rc::gen::inRange(0, 1000));
  const model::State state = Walk(config, picks);
  std::string packed;
  engine::Pack(state, &packed);
  model::State back;
  RC_ASSERT(engine::Unpack(packed, &back));
  RC_ASSERT(back == state);
  // PackEncoding of the encoding is the same packing.
  std::string encoding;
  model::Encode(state, &encoding);
  std::string again;
  engine::PackEncoding(encoding, &again);
  RC_ASSERT(again == packed);
}

RC_GTEST_PROP(Packed, AChangedOrCutPackingIsRefusedOrDecodesWithoutFault, ()) {
  const model::Config config = LargeConfig();
  const auto picks = *rc::gen::container<std::vector<int>>(
      *rc::gen::inRange(0, 30), rc::gen::inRange(0, 1000));
  std::string packed;
  engine::Pack(Walk(config, picks), &packed);
  const auto at = *rc::gen::inRange<std::size_t>(0, packed.size());
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      packed.resize(at);
      break;
    case 1:
      packed[at] = static_cast<char>(*rc::gen::arbitrary<uint8_t>());
      break;
    default:
      packed.insert(at, 1, static_cast<char>(*rc::gen::arbitrary<uint8_t>()));
      break;
  }
  model::State back;
  (void)engine::Unpack(packed, &back);  // under ASan: no out-of-bounds read
  RC_SUCCEED();
}

// Every gathering path this processor has (byte shuffles, AVX-512 compress)
// gives the portable loops' packing and the same state back, and refuses the
// same damaged packings.
RC_GTEST_PROP(Packed, EveryFastPathAgreesWithThePortableOne, ()) {
  const model::Config config = LargeConfig();
  const auto picks = *rc::gen::container<std::vector<int>>(
      *rc::gen::inRange(0, 40), rc::gen::inRange(0, 1000));
  const model::State state = Walk(config, picks);
  std::string encoding;
  model::Encode(state, &encoding);
  std::string portable;
  engine::PackEncoding(encoding, &portable, engine::PackPath::kPortable);
  std::string damaged = portable;
  const auto at = *rc::gen::inRange<std::size_t>(0, damaged.size());
  damaged[at] = static_cast<char>(*rc::gen::arbitrary<uint8_t>());
  model::State reference;
  const bool reference_ok =
      engine::Unpack(damaged, &reference, engine::PackPath::kPortable);
  for (const engine::PackPath path : engine::PackPaths()) {
    std::string fast;
    engine::PackEncoding(encoding, &fast, path);
    RC_ASSERT(fast == portable);
    model::State back;
    RC_ASSERT(engine::Unpack(fast, &back, path));
    RC_ASSERT(back == state);
    model::State other;
    RC_ASSERT(engine::Unpack(damaged, &other, path) == reference_ok);
    if (reference_ok) RC_ASSERT(other == reference);
  }
}

TEST(Packed, TooShortOrTooManyBytesAreRefused) {
  model::State back;
  EXPECT_FALSE(engine::Unpack("", &back));
  EXPECT_FALSE(engine::Unpack(std::string(1, '\1'), &back));
  std::string packed;
  engine::Pack(model::Init(model::SmallBounds()), &packed);
  EXPECT_FALSE(engine::Unpack(packed + "x", &back));
  EXPECT_FALSE(engine::Unpack(packed.substr(0, packed.size() - 1), &back));
  std::string many_versions = packed;
  many_versions[0] = static_cast<char>(model::kVersionsMax + 1);
  EXPECT_FALSE(engine::Unpack(many_versions, &back));
}

}  // namespace
}  // namespace memwal::checker
