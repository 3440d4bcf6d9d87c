// The variant switches (spec/protocol.md section 1), registered by name: the
// model's half of each switch. One registration line gives a switch its name
// (as on the command line, in traces and in ToString), the spellings of its
// values (the default, today's protocol, first) and its help text; the CLI's
// flag table, `check --help`, compare's and corpus's switch sets, ToString
// and the trace config all read this registry. The implementation registers
// its half under the same name (impl/switches.h); checker/lockstep/switches.h
// joins the two and asserts that every switch has both.
//
// A new switch is one line next to the rule that reads it, e.g. in
// model/commit.cc:
//
//   const Switch kFence({.name = "fence", .values = {"none", "data-pass"},
//                        .help = "the proposed fence of R65"});
//   ... if (config.On(kFence)) ...
//
// Its value lives in Config::switches (a slot the registration hands out); the
// older switches (protocol, read, gc, env) keep their typed Config fields and
// register them with Switch::Typed (model/config.cc).
#ifndef MEMWAL_MODEL_SWITCHES_H_
#define MEMWAL_MODEL_SWITCHES_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/status.h"

namespace memwal::model {

struct Config;

// Config::switches: one value (an index into the switch's spellings) per
// slot. Slots are handed out at registration, in static-initialization order:
// they name storage only, never a spelling or an order anybody reads.
inline constexpr int kSwitchSlotsMax = 8;
using SwitchSlots = std::array<uint8_t, kSwitchSlotsMax>;

struct SwitchInfo {
  std::string_view name;                 // kebab-case, unique
  std::vector<std::string_view> values;  // spellings; values[0] = default
  // Shown after "V0 (default), V1, ...: " in `check --help` (may hold \n).
  std::string_view help = {};
  // Where the switch is listed (help, ToString, traces): by rank, then name.
  int rank = 100;
  // Printed by ToString and CheckCommandLine and written in traces even at
  // its default (protocol, read, gc); the others only when set, so that
  // traces written before a switch existed read as before.
  bool always_shown = false;
  // No implementation option (env: the checker drives the environment's
  // actions itself); every other switch has an impl half of the same name.
  bool model_only = false;
};

// A handle on a registered switch (a small value: copy it freely).
class Switch {
 public:
  // Registers `info` with a slot of Config::switches. Asserts that there are
  // 2 to 255 values and that the name is new, or was registered with the same
  // values (then this is that switch).
  explicit Switch(SwitchInfo info);

  // Registers a switch whose value is the typed field Config::*Field (an
  // enum whose enumerators are in the order of info.values).
  template <auto Field>
  static Switch Typed(SwitchInfo info) {
    return Switch(
        std::move(info),
        [](const Config& config) {
          return static_cast<uint8_t>(config.*Field);
        },
        [](Config* config, uint8_t value) {
          using T = std::remove_reference_t<decltype(config->*Field)>;
          config->*Field = static_cast<T>(value);
        });
  }

  const SwitchInfo& info() const;
  int slot() const { return slot_; }  // -1 for a typed switch
  uint8_t Get(const Config& config) const;
  void Set(Config* config, uint8_t value) const;
  // The value's index among info().values, or InvalidArgument naming them.
  Result<uint8_t> Parse(std::string_view value) const;
  std::string_view Spelling(const Config& config) const;
  bool IsDefault(const Config& config) const { return Get(config) == 0; }

 private:
  using Getter = uint8_t (*)(const Config&);
  using Setter = void (*)(Config*, uint8_t);
  Switch(SwitchInfo info, Getter get, Setter set);

  int index_ = 0;  // in the registry
  int slot_ = -1;
  Getter get_ = nullptr;
  Setter set_ = nullptr;
};

// Every registered switch, by rank then name.
std::vector<Switch> AllSwitches();
// The switch named `name`, or NotFound.
Result<Switch> FindSwitch(std::string_view name);
// "V0 (default), V1, V2" plus ": help" when the switch has help.
std::string SwitchHelp(const Switch& variant);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_SWITCHES_H_
