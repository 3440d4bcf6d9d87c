// The implementation's half of the variant switches (spec/protocol.md section
// 1), registered by the switch's name: model/switches.h registers the model's
// half (the spellings and the help), and checker/lockstep/switches.h joins the
// two by name, asserting that every switch has both halves with as many
// values. Options (impl/world.h) holds the values; World's wire form writes
// every registered switch by name (impl/world_serialize.cc).
//
// A new switch is one line next to the code that reads it, e.g. in
// impl/world_begin.cc:
//
//   const SwitchOption kFence("fence", 2);
//   ... if (options_.On(kFence)) ...
//
// The older options (protocol, read, gc) keep their typed Options fields and
// register them with SwitchOption::Typed (impl/switches.cc).
#ifndef MEMWAL_IMPL_SWITCHES_H_
#define MEMWAL_IMPL_SWITCHES_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace memwal::impl {

struct Options;

// Options::switches: the value (the index of its spelling in the model's
// registration) of each switch registered without a typed field, by slot.
inline constexpr int kSwitchSlotsMax = 8;
using SwitchSlots = std::array<uint8_t, kSwitchSlotsMax>;

// A handle on a registered option (a small value: copy it freely).
class SwitchOption {
 public:
  // Registers the option of switch `name`, with `values` values (value 0 is
  // today's protocol), in a slot of Options::switches. Asserts that the name
  // is new, or was registered with as many values (then this is that option).
  SwitchOption(std::string_view name, int values);

  // Registers switch `name` as the typed field Options::*Field (an enum whose
  // enumerators are in the order of the model's spellings).
  template <auto Field>
  static SwitchOption Typed(std::string_view name, int values) {
    return SwitchOption(
        name, values,
        [](const Options& options) {
          return static_cast<uint8_t>(options.*Field);
        },
        [](Options* options, uint8_t value) {
          using T = std::remove_reference_t<decltype(options->*Field)>;
          options->*Field = static_cast<T>(value);
        });
  }

  std::string_view name() const;
  int values() const;
  int slot() const { return slot_; }  // -1 for a typed option
  uint8_t Get(const Options& options) const;
  void Set(Options* options, uint8_t value) const;

 private:
  using Getter = uint8_t (*)(const Options&);
  using Setter = void (*)(Options*, uint8_t);
  SwitchOption(std::string_view name, int values, Getter get, Setter set);

  int index_ = 0;  // in the registry
  int slot_ = -1;
  Getter get_ = nullptr;
  Setter set_ = nullptr;
};

// Every registered option, by name.
std::vector<SwitchOption> AllSwitchOptions();

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_SWITCHES_H_
