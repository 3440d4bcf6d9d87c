// The variant switches joined by name: the model's half of each switch
// (model/switches.h: its spellings, its help, where a Config holds it) with
// the implementation's (impl/switches.h: where Options holds it). Lockstep
// sets a World's options from a Config through this join, so a new switch
// needs no mapping here, only its two registration lines.
#ifndef MEMWAL_CHECKER_LOCKSTEP_SWITCHES_H_
#define MEMWAL_CHECKER_LOCKSTEP_SWITCHES_H_

#include <optional>
#include <vector>

#include "impl/switches.h"
#include "impl/world.h"
#include "model/config.h"
#include "model/switches.h"

namespace memwal::checker::lockstep {

struct JoinedSwitch {
  model::Switch model;
  std::optional<impl::SwitchOption> impl;  // none for a model_only switch
};

// Every switch, in the model's order (model::AllSwitches). The first call
// asserts that every switch the model registers (model_only ones aside) has an
// implementation half of the same name and as many values, and that every
// implementation half names a model switch; memwal-check's main calls it at
// start-up.
const std::vector<JoinedSwitch>& JoinedSwitches();

// Sets every switch of `options` that has an implementation half to its
// value in `config`.
void SetImplSwitches(const model::Config& config, impl::Options* options);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_SWITCHES_H_
