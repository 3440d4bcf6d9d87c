// Manifest feature flags as Lance beta.16 defines them [P §2.1-2.3], and the
// MemWAL catch-up bit's life cycle: carried across apply_feature_flags' reset
// only when both words hold it, inherited from the source manifest where a
// manifest is derived from another (new_from_previous, restore), masked through
// shallow clone, and refused when half-set.
#ifndef MEMWAL_IMPL_FEATURE_FLAGS_H_
#define MEMWAL_IMPL_FEATURE_FLAGS_H_

#include <cstdint>

#include "base/status.h"
#include "impl/bugs.h"
#include "impl/proto/table.pb.h"

namespace memwal::impl {

// Lance: feature_flags.rs constants at beta.16 [P §2.1].
inline constexpr uint64_t kFlagDeletionFiles = 1;
inline constexpr uint64_t kFlagStableRowIds = 2;
inline constexpr uint64_t kFlagUseV2FormatDeprecated = 4;
inline constexpr uint64_t kFlagTableConfig = 8;
inline constexpr uint64_t kFlagBasePaths = 16;
inline constexpr uint64_t kFlagDisableTransactionFile = 32;
inline constexpr uint64_t kFlagUnstableDataOverlayFiles = 64;
inline constexpr uint64_t kFlagMemWalIndexCatchup = 128;
inline constexpr uint64_t kFlagUnknown = 256;
static_assert(kFlagMemWalIndexCatchup < kFlagUnknown);

// Which of the two words carry bit 128.
struct CatchupBits {
  bool reader = false;
  bool writer = false;
  bool both() const { return reader && writer; }
  bool neither() const { return !reader && !writer; }
  bool half() const { return reader != writer; }
};
CatchupBits ReadCatchupBits(const lance::table::Manifest& manifest);

// Lance: Manifest::uses_stable_row_ids: the reader word has bit 2 [P §2.1].
inline bool UsesStableRowIds(const lance::table::Manifest& manifest) {
  return (manifest.reader_feature_flags() & kFlagStableRowIds) != 0;
}

// Lance: apply_feature_flags [P §2.2]: resets both words and re-derives them
// from the manifest; bit 128 is carried across the reset only when both words
// had it (a half-set pair is dropped here and left to the load check). Runs
// twice per commit (R35.4, R35.5). Bug kBitClearedBySecondApply: bit 128 is not
// carried at all.
Status ApplyFeatureFlags(lance::table::Manifest* manifest,
                         bool enable_stable_row_id,
                         bool disable_transaction_file, BugSet bugs);

// Lance: inherit_mem_wal_index_catchup(dest, src) [P §2.3]: neither bit in src
// is a no-op, both sets both in dest, one is FailedPrecondition. Bug
// kHalfSetFolded: a half-set src is completed to both bits instead.
Status InheritMemWalIndexCatchup(lance::table::Manifest* dest,
                                 const lance::table::Manifest& src,
                                 BugSet bugs);

// Lance: validate_mem_wal_index_catchup_flags [P §2.3]: Corruption if the two
// words disagree on bit 128. Run on every manifest load and on the version a
// Restore reads.
Status ValidateMemWalIndexCatchupFlags(const lance::table::Manifest& manifest);

// Lance: Manifest::shallow_clone keeps only bit 128 of each source word [P
// §4.2]. Bug kShallowCloneZeroesBits: both words become 0.
void MaskFlagsForShallowClone(lance::table::Manifest* manifest, BugSet bugs);

// Lance: can_read_dataset / can_write_dataset with overlays disabled [P §2.3].
bool CanReadDataset(uint64_t reader_flags);
bool CanWriteDataset(uint64_t writer_flags);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_FEATURE_FLAGS_H_
