// The registry of the model's variant switches (model/switches.h).
#include "model/switches.h"

#include <algorithm>
#include <deque>

#include "base/assert.h"
#include "model/config.h"

namespace memwal::model {
namespace {

struct Registry {
  std::deque<SwitchInfo> infos;  // stable addresses
  std::vector<Switch> handles;
  int slots_used = 0;
};

// A function-local static: registrations run during static initialization,
// in whatever order the translation units are initialized.
Registry& SwitchRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace

Switch::Switch(SwitchInfo info) : Switch(std::move(info), nullptr, nullptr) {
  if (slot_ >= 0) return;  // the same switch, registered again
  Registry& registry = SwitchRegistry();
  MEMWAL_ASSERT(registry.slots_used < kSwitchSlotsMax &&
                "more generic switches than kSwitchSlotsMax");
  slot_ = registry.slots_used++;
  registry.handles[static_cast<std::size_t>(index_)] = *this;
}

Switch::Switch(SwitchInfo info, Getter get, Setter set) : get_(get), set_(set) {
  Registry& registry = SwitchRegistry();
  MEMWAL_ASSERT(info.values.size() >= 2 && info.values.size() <= 255);
  // A second registration of a name is the same switch when it has the same
  // values (a build that links two copies of one file, as tests/mutate's
  // mutant binaries may, runs its registration twice); else a broken build.
  for (const Switch& other : registry.handles) {
    if (other.info().name != info.name) continue;
    MEMWAL_ASSERT(other.info().values == info.values &&
                  (other.get_ == nullptr) == (get == nullptr) &&
                  "two switches of one name");
    *this = other;
    return;
  }
  index_ = static_cast<int>(registry.infos.size());
  registry.infos.push_back(std::move(info));
  registry.handles.push_back(*this);
}

const SwitchInfo& Switch::info() const {
  return SwitchRegistry().infos[static_cast<std::size_t>(index_)];
}

uint8_t Switch::Get(const Config& config) const {
  if (slot_ >= 0) return config.switches[static_cast<std::size_t>(slot_)];
  return get_(config);
}

void Switch::Set(Config* config, uint8_t value) const {
  MEMWAL_ASSERT(value < info().values.size());
  if (slot_ >= 0) {
    config->switches[static_cast<std::size_t>(slot_)] = value;
  } else {
    set_(config, value);
  }
}

Result<uint8_t> Switch::Parse(std::string_view value) const {
  const SwitchInfo& i = info();
  for (std::size_t k = 0; k < i.values.size(); ++k) {
    if (i.values[k] == value) return static_cast<uint8_t>(k);
  }
  std::string expected;
  for (const std::string_view spelling : i.values) {
    if (!expected.empty()) expected.append(", ");
    expected.append(spelling);
  }
  return Status::InvalidArgument("unknown " + std::string(i.name) + " '" +
                                 std::string(value) + "' (expected " +
                                 expected + ")");
}

std::string_view Switch::Spelling(const Config& config) const {
  return info().values.at(Get(config));
}

std::vector<Switch> AllSwitches() {
  std::vector<Switch> out = SwitchRegistry().handles;
  std::sort(out.begin(), out.end(), [](const Switch& a, const Switch& b) {
    if (a.info().rank != b.info().rank) return a.info().rank < b.info().rank;
    return a.info().name < b.info().name;
  });
  return out;
}

Result<Switch> FindSwitch(std::string_view name) {
  for (const Switch& variant : SwitchRegistry().handles) {
    if (variant.info().name == name) return variant;
  }
  return Status::NotFound("no switch '" + std::string(name) + "'");
}

std::string SwitchHelp(const Switch& variant) {
  const SwitchInfo& info = variant.info();
  std::string text;
  for (std::size_t k = 0; k < info.values.size(); ++k) {
    if (k > 0) text.append(", ");
    text.append(info.values[k]);
    if (k == 0) text.append(" (default)");
  }
  if (!info.help.empty()) {
    text.append(": ");
    text.append(info.help);
  }
  return text;
}

}  // namespace memwal::model
