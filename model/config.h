// The variant switches of one exploration (spec/protocol.md sections 1, 2 and
// 8): which protocol version the table runs, how readers compute exclusion
// watermarks, how garbage collection retires SSTables, which known bugs are
// switched on, and the bounds.
//
// Every switch value has one spelling shared by the spec, the CLI, traces and
// test names; Parse*/Name convert between the two. Every switch is also
// registered by name (model/switches.h), which is how the CLI, traces and
// ToString list them; a new switch needs only its registration line. The bug
// table lists every name of spec section 8 with whether the model can express
// it and, when it cannot, the spec's reason.
#ifndef MEMWAL_MODEL_CONFIG_H_
#define MEMWAL_MODEL_CONFIG_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/bounds.h"
#include "model/switches.h"

namespace memwal::model {

// R1.
enum class Protocol : uint8_t { kDerived, kAdvance, kUnconditional, kLegacy };
// R40.
enum class ReadMode : uint8_t { kStrict, kMin, kSingleIndex };
// R11, R13.
enum class GcMode : uint8_t { kAtomic, kStaleRead, kRecheck };
// Section 10: `none` = only this protocol version's own writers act on the
// table; `foreign` adds the environment actions R60-R62 (writers outside this
// protocol version's code path).
enum class Env : uint8_t { kNone, kForeign };

// Spec section 8, in the table's order.
enum class Bug : uint8_t {
  kBitDroppedByNewFromPrevious,
  kBitClearedBySecondApply,
  kShallowCloneZeroesBits,
  kRestoreWalksBack,
  kHalfSetFolded,
  kUnchangedByUuidOnly,
  kAdvanceWithoutInspected,
  kAdvanceBoundAtCommit,
  kNoWorkRepairRecordsNothing,
  kClaimPastReadVersion,
  kInvalidationOnLegacy,
  kAdvanceDroppedWithoutSystemIndex,
  kAdvanceReplacesPosition,
  kRepairSpansLiveAtCommit,
  kProgressCommitDropsFragments,
  kIndexWorkPerTransaction,
  kCoveragePastCompaction,
  kSingleIndexWatermark,
  kReaderIgnoresBit,
  kBitsOneWord,
  kProgressRegresses,
};
inline constexpr int kBugCount = 21;

// One row of spec section 8.
struct BugInfo {
  Bug bug;
  std::string_view name;         // kebab-case, as on the command line
  std::string_view description;  // one line: the deviation
  std::string_view protocols;    // "bit", "derived, advance", "all", ...
  bool in_model;                 // the model expresses it (else only impl/ can)
  std::string_view
      reason;     // in_model: the expected violation; else why the model cannot
  bool liveness;  // the expected violation is the liveness property
};

// All rows, in enum order.
std::span<const BugInfo> AllBugs();
const BugInfo& Info(Bug bug);

struct Config {
  Protocol protocol = Protocol::kDerived;
  ReadMode read = ReadMode::kStrict;
  GcMode gc = GcMode::kAtomic;
  Env env = Env::kNone;
  // The values of the switches registered without a typed field (model/
  // switches.h), by slot; 0 = the default.
  SwitchSlots switches{};
  uint32_t bugs = 0;  // bit (1 << Bug) per switched-on bug
  Bounds bounds = SmallBounds();

  // Whether `variant` is set to anything but its default.
  bool On(const Switch& variant) const {
    return variant.slot() >= 0
               ? switches[static_cast<std::size_t>(variant.slot())] != 0
               : !variant.IsDefault(*this);
  }

  friend bool operator==(const Config&, const Config&) = default;
};

inline bool Has(const Config& config, Bug bug) {
  return (config.bugs >> static_cast<int>(bug)) & 1u;
}
inline uint32_t BugBit(Bug bug) { return 1u << static_cast<int>(bug); }

// `advance` and `derived`: the protocols with feature bit 128.
inline bool IsBitProtocol(Protocol protocol) {
  return protocol == Protocol::kAdvance || protocol == Protocol::kDerived;
}

inline bool IsForeign(const Config& config) {
  return config.env == Env::kForeign;
}

// The environment an implementation-only bug needs before a model action can
// reach the state where it deviates (spec section 10): kForeign for the bugs
// reached through the env actions, kNone for the others.
Env RequiredEnv(Bug bug);

Result<Protocol> ParseProtocol(std::string_view name);

// The protocols a bug applies to, in the order its row lists them ("all": every
// protocol; "bit": derived, advance). The one reading of BugInfo::protocols.
std::vector<Protocol> ProtocolsOf(const BugInfo& info);
bool BugApplies(const BugInfo& info, Protocol protocol);
// `base` when the bug applies to it, else the first protocol it applies to.
Protocol ProtocolFor(const BugInfo& info, Protocol base);
Result<ReadMode> ParseReadMode(std::string_view name);
Result<GcMode> ParseGcMode(std::string_view name);
Result<Env> ParseEnv(std::string_view name);
Result<Bug> ParseBug(std::string_view name);

std::string_view Name(Protocol protocol);
std::string_view Name(ReadMode read);
std::string_view Name(GcMode gc);
std::string_view Name(Env env);
std::string_view Name(Bug bug);

// OK when the bounds fit (CheckBounds) and every bug is a known switch.
Status CheckConfig(const Config& config);

// One line, e.g. "protocol=derived read=strict gc=atomic bugs=none
// bounds=small(shards=1 ...)"; the other switches (" env=foreign",
// " fence=data-pass") follow gc=... only when set (AllSwitches' order).
std::string ToString(const Config& config);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_CONFIG_H_
