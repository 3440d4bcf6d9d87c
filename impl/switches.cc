// The registry of the implementation's switch options (impl/switches.h), and
// the three options with typed fields.
#include "impl/switches.h"

#include <algorithm>
#include <deque>
#include <string>

#include "base/assert.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

struct OptionRegistry {
  std::deque<std::string> names;  // stable addresses
  std::vector<SwitchOption> handles;
  std::vector<int> values;
  int slots_used = 0;
};

// A function-local static: registrations run during static initialization,
// in whatever order the translation units are initialized.
OptionRegistry& Registry() {
  static OptionRegistry registry;
  return registry;
}

const SwitchOption kProtocolOption =
    SwitchOption::Typed<&Options::protocol>("protocol", 4);
const SwitchOption kReadOption = SwitchOption::Typed<&Options::read>("read", 3);
const SwitchOption kGcOption = SwitchOption::Typed<&Options::gc>("gc", 3);

}  // namespace

SwitchOption::SwitchOption(std::string_view name, int values)
    : SwitchOption(name, values, nullptr, nullptr) {
  if (slot_ >= 0) return;  // the same option, registered again
  OptionRegistry& registry = Registry();
  MEMWAL_ASSERT(registry.slots_used < kSwitchSlotsMax &&
                "more generic switch options than kSwitchSlotsMax");
  slot_ = registry.slots_used++;
  registry.handles[static_cast<std::size_t>(index_)] = *this;
}

SwitchOption::SwitchOption(std::string_view name, int values, Getter get,
                           Setter set)
    : get_(get), set_(set) {
  OptionRegistry& registry = Registry();
  MEMWAL_ASSERT(values >= 2 && values <= 255);
  // A second registration of a name is the same option when it has as many
  // values (a build that links two copies of one file, as tests/mutate's
  // mutant binaries may, runs its registration twice); else a broken build.
  for (const SwitchOption& other : registry.handles) {
    if (other.name() != name) continue;
    MEMWAL_ASSERT(other.values() == values &&
                  (other.get_ == nullptr) == (get == nullptr) &&
                  "two switch options of one name");
    *this = other;
    return;
  }
  index_ = static_cast<int>(registry.names.size());
  registry.names.emplace_back(name);
  registry.values.push_back(values);
  registry.handles.push_back(*this);
}

std::string_view SwitchOption::name() const {
  return Registry().names[static_cast<std::size_t>(index_)];
}

int SwitchOption::values() const {
  return Registry().values[static_cast<std::size_t>(index_)];
}

uint8_t SwitchOption::Get(const Options& options) const {
  if (slot_ >= 0) return options.switches[static_cast<std::size_t>(slot_)];
  return get_(options);
}

void SwitchOption::Set(Options* options, uint8_t value) const {
  MEMWAL_ASSERT(value < values());
  if (slot_ >= 0) {
    options->switches[static_cast<std::size_t>(slot_)] = value;
  } else {
    set_(options, value);
  }
}

std::vector<SwitchOption> AllSwitchOptions() {
  std::vector<SwitchOption> out = Registry().handles;
  std::sort(out.begin(), out.end(),
            [](const SwitchOption& a, const SwitchOption& b) {
              return a.name() < b.name();
            });
  return out;
}

}  // namespace memwal::impl
