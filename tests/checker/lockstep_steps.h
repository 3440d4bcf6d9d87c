// Test support shared by the planted-bytes tests (lockstep_planted_test.cc,
// lockstep_bytes_test.cc): a tiny setup with a seed of its own per test (the
// decode caches are keyed by the options, so a planted rewrite never meets an
// entry decoded before it), and the model and the implementation run side by
// side over a list of actions.
#ifndef MEMWAL_TESTS_CHECKER_LOCKSTEP_STEPS_H_
#define MEMWAL_TESTS_CHECKER_LOCKSTEP_STEPS_H_

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "checker/lockstep/lockstep.h"
#include "model/actions.h"
#include "model/rules.h"

namespace memwal::checker::lockstep::testing {

inline LockstepSetup TinySetup(uint64_t base, uint64_t seed) {
  LockstepSetup setup;
  setup.config.bounds = model::TinyBounds();
  setup.seed = base + seed;
  return setup;
}

inline bool Mentions(const std::optional<Finding>& finding,
                     const std::string& text) {
  return finding.has_value() && finding->detail.find(text) != std::string::npos;
}

struct Ran {
  model::State state;
  impl::World world;
};

// The model and the implementation after `actions`, Init and each step
// checked, then `unchecked` applied to both without a check (so that nothing
// decodes the versions it writes before a test plants a change in them).
inline Ran RunSteps(const LockstepSetup& setup,
                    const std::vector<model::Action>& actions,
                    const std::vector<model::Action>& unchecked = {}) {
  Result<impl::World> world = InitWorld(setup);
  EXPECT_TRUE(world.ok());
  model::State state = model::Init(setup.config.bounds);
  EXPECT_FALSE(CheckInit(setup, *world).has_value());
  for (const model::Action& action : actions) {
    EXPECT_TRUE(model::IsEnabled(setup.config, state, action))
        << model::ToString(action);
    model::Outcome outcome;
    state = model::Apply(setup.config, state, action, &outcome);
    const std::optional<Finding> finding =
        StepLockstep(setup, action, outcome, state, &*world);
    EXPECT_FALSE(finding.has_value())
        << model::ToString(action) << ": " << finding->detail;
  }
  for (const model::Action& action : unchecked) {
    EXPECT_TRUE(model::IsEnabled(setup.config, state, action))
        << model::ToString(action);
    model::Outcome outcome;
    state = model::Apply(setup.config, state, action, &outcome);
    EXPECT_TRUE(ApplyToWorld(action, &*world).ok()) << model::ToString(action);
  }
  return Ran{state, std::move(*world)};
}

}  // namespace memwal::checker::lockstep::testing

#endif  // MEMWAL_TESTS_CHECKER_LOCKSTEP_STEPS_H_
