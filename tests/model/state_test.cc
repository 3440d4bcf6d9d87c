// State: Init (R4), uuid canonicalization (R3), the canonical encoding and its
// fingerprint, plus rapidcheck random walks from Init (well-formedness, Encode
// injective, Fingerprint a function of Encode).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Scenario;
using testing::TestConfig;

TEST(State, InitHasOneVersionWithEveryIndexCoveringFragmentZero) {
  const State init = Init(Bounds{.shards = 2,
                                 .generations = 2,
                                 .fragments = 3,
                                 .indexes = 3,
                                 .commits = 4,
                                 .inflight = 2});
  EXPECT_EQ(init.version_count, 1);
  const Version& v = Head(init);
  EXPECT_EQ(v.number, 1);
  EXPECT_EQ(v.live, 0b1);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(v.segments[i][0].covers, 0b1);
    EXPECT_EQ(v.segments[i][0].uuid, i + 1);
  }
  EXPECT_TRUE(v.retained);
  EXPECT_FALSE(v.reader_bit);
  EXPECT_FALSE(init.activated);
}

// Pinned so that a change of encoding, hash or Init shows up, on every build
// and platform. Moved when the hash became XXH3 (seed 0x6d656d77616c2d31).
TEST(State, TheFingerprintOfInitIsPinned) {
  EXPECT_EQ(Fingerprint(Init(SmallBounds())), 0x750bd759f8acd721ULL);
  EXPECT_EQ(Fingerprint(Init(TinyBounds())), Fingerprint(Init(SmallBounds())));
}

TEST(State, FingerprintIsTheHashOfEncode) {
  std::string bytes;
  const State init = Init(SmallBounds());
  Encode(init, &bytes);
  EXPECT_EQ(Fingerprint(init), Hash64(bytes));
  EXPECT_EQ(Hash64(""), Hash64(std::string_view()));
  EXPECT_NE(Hash64("a"), Hash64("b"));
}

TEST(State, CanonicalizationRenumbersUuidsInOrderOfFirstAppearance) {
  State state = Init(Bounds{.shards = 1,
                            .generations = 1,
                            .fragments = 2,
                            .indexes = 2,
                            .commits = 2,
                            .inflight = 1});
  state.versions[0].segments[0][0].uuid = 9;
  state.versions[0].segments[1][0].uuid = 4;
  Canonicalize(&state);
  EXPECT_EQ(state.versions[0].segments[0][0].uuid, 1);
  EXPECT_EQ(state.versions[0].segments[1][0].uuid, 2);
}

TEST(State, StatesDifferingOnlyInUuidNamesAreOneState) {
  Scenario a(TestConfig(Protocol::kLegacy, 1, 2));
  a.Do(CreateIndex{1});
  a.Do(CreateIndex{0});
  Scenario b(TestConfig(Protocol::kLegacy, 1, 2));
  b.Do(CreateIndex{1});
  b.Do(CreateIndex{0});
  b.Do(Commit{0});
  a.Do(Commit{0});
  EXPECT_EQ(a.state(), b.state());
  EXPECT_EQ(Fingerprint(a.state()), Fingerprint(b.state()));
}

// A random walk of up to `steps` enabled actions from Init under a random
// protocol.
struct Walk {
  Config config;
  std::vector<State> states;
};

Walk RandomWalk(int steps) {
  Walk walk;
  walk.config =
      TestConfig(*rc::gen::element(Protocol::kDerived, Protocol::kAdvance,
                                   Protocol::kUnconditional, Protocol::kLegacy),
                 *rc::gen::inRange(1, 3), *rc::gen::inRange(0, 4));
  walk.config.gc =
      *rc::gen::element(GcMode::kAtomic, GcMode::kStaleRead, GcMode::kRecheck);
  walk.states.push_back(Init(walk.config.bounds));
  std::vector<Action> enabled;
  for (int k = 0; k < steps; ++k) {
    EnabledActions(walk.config, walk.states.back(), &enabled);
    if (enabled.empty()) break;
    const std::size_t pick = *rc::gen::inRange<std::size_t>(0, enabled.size());
    Outcome outcome;
    walk.states.push_back(
        Apply(walk.config, walk.states.back(), enabled[pick], &outcome));
  }
  return walk;
}

RC_GTEST_PROP(State, RandomWalksKeepTheStateWellFormed, ()) {
  const Walk walk = RandomWalk(40);
  for (const State& state : walk.states)
    AssertWellFormed(state, walk.config.bounds);
  std::vector<Action> enabled;
  for (const State& state : walk.states) {
    EnabledActions(walk.config, state, &enabled);
    for (const Action& action : enabled)
      RC_ASSERT(IsEnabled(walk.config, state, action));
  }
}

RC_GTEST_PROP(State, EncodeIsInjectiveDecodableAndFingerprintFollowsEncode,
              ()) {
  const Walk walk = RandomWalk(40);
  std::map<std::string, State> by_encoding;
  for (const State& state : walk.states) {
    std::string bytes;
    Encode(state, &bytes);
    RC_ASSERT(Fingerprint(state) == Hash64(bytes));
    State decoded;
    RC_ASSERT(Decode(bytes, &decoded));
    RC_ASSERT(decoded == state);
    RC_ASSERT(!Decode(bytes.substr(0, bytes.size() - 1), &decoded));
    RC_ASSERT(!Decode(bytes + "x", &decoded));
    const auto [it, inserted] = by_encoding.emplace(bytes, state);
    RC_ASSERT(inserted ||
              it->second == state);  // equal encodings only for equal states
  }
  for (std::size_t a = 0; a < walk.states.size(); ++a) {
    for (std::size_t b = 0; b < walk.states.size(); ++b) {
      std::string x, y;
      Encode(walk.states[a], &x);
      Encode(walk.states[b], &y);
      RC_ASSERT((x == y) == (walk.states[a] == walk.states[b]));
    }
  }
}

RC_GTEST_PROP(State, ApplyIsDeterministic, ()) {
  const Walk walk = RandomWalk(25);
  std::vector<Action> enabled;
  for (const State& state : walk.states) {
    EnabledActions(walk.config, state, &enabled);
    for (const Action& action : enabled) {
      Outcome first, second;
      RC_ASSERT(Apply(walk.config, state, action, &first) ==
                Apply(walk.config, state, action, &second));
      RC_ASSERT(first == second);
    }
  }
}

}  // namespace
}  // namespace memwal::model
