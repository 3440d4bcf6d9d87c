// Names of the bug switches; see bugs.h.
#include "impl/bugs.h"

#include <array>

#include "base/assert.h"

namespace memwal::impl {
namespace {

constexpr std::array<std::string_view, kBugCount> kBugNames = {
    "bit-dropped-by-new-from-previous",
    "bit-cleared-by-second-apply",
    "shallow-clone-zeroes-bits",
    "restore-walks-back",
    "half-set-folded",
    "unchanged-by-uuid-only",
    "advance-without-inspected",
    "advance-bound-at-commit",
    "no-work-repair-records-nothing",
    "claim-past-read-version",
    "invalidation-on-legacy",
    "advance-dropped-without-system-index",
    "advance-replaces-position",
    "repair-spans-live-at-commit",
    "progress-commit-drops-fragments",
    "index-work-per-transaction",
    "coverage-past-compaction",
    "single-index-watermark",
    "reader-ignores-bit",
    "bits-one-word",
    "progress-regresses",
};

}  // namespace

std::string_view BugName(Bug bug) {
  const auto index = static_cast<uint32_t>(bug);
  MEMWAL_ASSERT(index < kBugCount);
  return kBugNames[index];
}

std::optional<Bug> ParseBug(std::string_view name) {
  for (uint32_t i = 0; i < kBugCount; ++i) {
    if (kBugNames[i] == name) return static_cast<Bug>(i);
  }
  return std::nullopt;
}

}  // namespace memwal::impl
