// Known-bug switches of spec section 8, as the implementation expresses them.
// Each is off by default and, when on, makes one small deviation at the place
// where the real bug was; the comment at each use names the switch. The names
// are spelled exactly as in spec section 8.
#ifndef MEMWAL_IMPL_BUGS_H_
#define MEMWAL_IMPL_BUGS_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace memwal::impl {

// Bit positions in Options::bugs (a uint32_t set: bit (1 << value)).
enum class Bug : uint32_t {
  kBitDroppedByNewFromPrevious = 0,
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

inline constexpr uint32_t kBugCount = 21;

// The spec name, e.g. "unchanged-by-uuid-only".
std::string_view BugName(Bug bug);
// Inverse of BugName; nullopt for an unknown name.
std::optional<Bug> ParseBug(std::string_view name);

constexpr uint32_t BugBit(Bug bug) {
  return uint32_t{1} << static_cast<uint32_t>(bug);
}

// A set of switched-on bugs.
class BugSet {
 public:
  constexpr BugSet() = default;
  constexpr explicit BugSet(uint32_t bits) : bits_(bits) {}
  constexpr bool has(Bug bug) const { return (bits_ & BugBit(bug)) != 0; }
  constexpr uint32_t bits() const { return bits_; }

 private:
  uint32_t bits_ = 0;
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_BUGS_H_
