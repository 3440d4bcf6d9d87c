// The variant switches joined by name (checker/lockstep/switches.h).
#include "checker/lockstep/switches.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/assert.h"

namespace memwal::checker::lockstep {
namespace {

// A registration missing on one side is a broken build, not a user error:
// name it, then abort through the assertion.
void RequireJoined(bool joined, const std::string& what) {
  if (!joined)
    std::fprintf(stderr, "variant switch registry: %s\n", what.c_str());
  MEMWAL_ASSERT(joined && "a variant switch lacks one of its halves");
}

std::vector<JoinedSwitch> Join() {
  const std::vector<impl::SwitchOption> options = impl::AllSwitchOptions();
  std::vector<JoinedSwitch> joined;
  std::size_t matched = 0;
  for (const model::Switch& variant : model::AllSwitches()) {
    const model::SwitchInfo& info = variant.info();
    JoinedSwitch entry{.model = variant, .impl = std::nullopt};
    for (const impl::SwitchOption& option : options) {
      if (option.name() == info.name) entry.impl = option;
    }
    const std::string name(info.name);
    if (info.model_only) {
      RequireJoined(!entry.impl.has_value(),
                    "'" + name + "' is model-only but impl/ registers it");
    } else {
      RequireJoined(entry.impl.has_value(),
                    "'" + name + "' has no implementation half (impl/)");
      RequireJoined(
          entry.impl->values() == static_cast<int>(info.values.size()),
          "'" + name + "' has " + std::to_string(info.values.size()) +
              " values in model/ but " + std::to_string(entry.impl->values()) +
              " in impl/");
      ++matched;
    }
    joined.push_back(entry);
  }
  for (const impl::SwitchOption& option : options) {
    RequireJoined(model::FindSwitch(option.name()).ok(),
                  "impl/ registers '" + std::string(option.name()) +
                      "', which model/ does not");
  }
  MEMWAL_ASSERT(matched == options.size());
  return joined;
}

}  // namespace

const std::vector<JoinedSwitch>& JoinedSwitches() {
  static const std::vector<JoinedSwitch> joined = Join();
  return joined;
}

void SetImplSwitches(const model::Config& config, impl::Options* options) {
  for (const JoinedSwitch& entry : JoinedSwitches()) {
    if (entry.impl.has_value())
      entry.impl->Set(options, entry.model.Get(config));
  }
}

}  // namespace memwal::checker::lockstep
