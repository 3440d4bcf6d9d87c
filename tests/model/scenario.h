// Test-only helper: builds a model state by applying spec actions from Init,
// failing the current test (with the action and state) when a step is not
// enabled.
#ifndef MEMWAL_TESTS_MODEL_SCENARIO_H_
#define MEMWAL_TESTS_MODEL_SCENARIO_H_

#include <gtest/gtest.h>

#include <string>

#include "model/actions.h"
#include "model/config.h"
#include "model/invariants.h"
#include "model/state.h"

namespace memwal::model::testing {

class Scenario {
 public:
  explicit Scenario(Config config)
      : config_(config), state_(Init(config.bounds)) {}

  // Applies `action`; returns the outcome. A disabled action fails the test and
  // is skipped.
  Outcome Do(const Action& action) {
    if (!IsEnabled(config_, state_, action)) {
      ADD_FAILURE() << ToString(action) << " is not enabled in\n"
                    << ToString(state_);
      return Outcome::kRefused;
    }
    Outcome outcome;
    state_ = Apply(config_, state_, action, &outcome);
    AssertWellFormed(state_, config_.bounds);
    return outcome;
  }

  // Begins `begin` and commits it at once (it is the newest in-flight
  // transaction).
  Outcome Run(const Action& begin) {
    Do(begin);
    return Do(Commit{state_.inflight_count - 1});
  }

  bool Enabled(const Action& action) const {
    return IsEnabled(config_, state_, action);
  }
  const State& state() const { return state_; }
  const Version& head() const { return Head(state_); }
  const Config& config() const { return config_; }
  int Position(int index, int shard) const {
    return head().catchup[index][shard];
  }
  // The name of the first broken invariant, or "" when all hold.
  std::string Broken() const {
    const Invariant* broken = FirstBrokenInvariant(config_, state_);
    return broken ? std::string(broken->name) : "";
  }

 private:
  Config config_;
  State state_;
};

// A config with the given protocol and small explicit bounds (room for most
// scenarios).
inline Config TestConfig(Protocol protocol = Protocol::kDerived, int shards = 1,
                         int indexes = 1) {
  Config config;
  config.protocol = protocol;
  config.bounds = Bounds{.shards = shards,
                         .generations = 3,
                         .fragments = 6,
                         .indexes = indexes,
                         .commits = 7,
                         .inflight = 3};
  return config;
}

// Activation (bit protocols only) as one published commit.
inline void Activated(Scenario* s) {
  EXPECT_EQ(s->Run(Activate{}), Outcome::kPublished);
}

// Flushes and compacts (with the marker) the next generation of `shard` in one
// commit.
inline void Compacted(Scenario* s, int shard = 0) {
  s->Do(FlushMemTable{shard});
  EXPECT_EQ(s->Run(CompactSsTable{shard, true}), Outcome::kPublished);
}

}  // namespace memwal::model::testing

#endif  // MEMWAL_TESTS_MODEL_SCENARIO_H_
