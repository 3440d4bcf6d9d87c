// Feature flags; see feature_flags.h. Every step cites the Lance behaviour it
// mirrors.
#include "impl/feature_flags.h"

#include <algorithm>

namespace memwal::impl {

using lance::table::Manifest;

CatchupBits ReadCatchupBits(const Manifest& manifest) {
  return CatchupBits{
      .reader =
          (manifest.reader_feature_flags() & kFlagMemWalIndexCatchup) != 0,
      .writer =
          (manifest.writer_feature_flags() & kFlagMemWalIndexCatchup) != 0,
  };
}

namespace {

void SetBoth(Manifest* manifest, uint64_t flag) {
  manifest->set_reader_feature_flags(manifest->reader_feature_flags() | flag);
  manifest->set_writer_feature_flags(manifest->writer_feature_flags() | flag);
}

bool AnyDeletionFile(const Manifest& manifest) {
  for (const auto& fragment : manifest.fragments()) {
    if (fragment.has_deletion_file()) return true;
  }
  return false;
}

}  // namespace

Status ApplyFeatureFlags(Manifest* manifest, bool enable_stable_row_id,
                         bool disable_transaction_file, BugSet bugs) {
  MEMWAL_ASSERT(manifest != nullptr);
  // Lance: step 1 captures bit 128 only when both words carry it [P §2.2].
  const bool carry = ReadCatchupBits(*manifest).both() &&
                     !bugs.has(Bug::kBitClearedBySecondApply);
  manifest->set_reader_feature_flags(0);
  manifest->set_writer_feature_flags(0);
  if (AnyDeletionFile(*manifest)) SetBoth(manifest, kFlagDeletionFiles);
  if (manifest->base_paths_size() > 0) SetBoth(manifest, kFlagBasePaths);
  // Lance: a non-empty table config sets bit 8 in the writer word only [P
  // §2.2].
  if (manifest->config_size() > 0) {
    manifest->set_writer_feature_flags(manifest->writer_feature_flags() |
                                       kFlagTableConfig);
  }
  // Lance: step 4 [P §2.2]: row-id metadata on any fragment, or stable row
  // ids asked for, needs it on every fragment and sets bit 2 in both words.
  // The implementation's fragments all carry inline row ids (build.cc,
  // AddFragments), so every version with a fragment has the bit, as Lance
  // writes it.
  const auto carries = [](const lance::table::DataFragment& fragment) {
    return fragment.row_id_sequence_case() !=
           lance::table::DataFragment::ROW_ID_SEQUENCE_NOT_SET;
  };
  const auto& fragments = manifest->fragments();
  if (enable_stable_row_id ||
      std::any_of(fragments.begin(), fragments.end(), carries)) {
    if (!std::all_of(fragments.begin(), fragments.end(), carries))
      return Status::FailedPrecondition("All fragments must have row ids");
    SetBoth(manifest, kFlagStableRowIds);
  }
  if (disable_transaction_file) {
    manifest->set_writer_feature_flags(manifest->writer_feature_flags() |
                                       kFlagDisableTransactionFile);
  }
  if (carry) SetBoth(manifest, kFlagMemWalIndexCatchup);
  MEMWAL_ASSERT(!ReadCatchupBits(*manifest).half());
  return Status::Ok();
}

Status InheritMemWalIndexCatchup(Manifest* dest, const Manifest& src,
                                 BugSet bugs) {
  MEMWAL_ASSERT(dest != nullptr);
  const CatchupBits bits = ReadCatchupBits(src);
  if (bits.neither()) return Status::Ok();
  if (bits.half() && !bugs.has(Bug::kHalfSetFolded)) {
    return Status::FailedPrecondition(
        "Manifest has only one of the MemWAL index-catchup reader and writer "
        "feature bits "
        "set");
  }
  SetBoth(dest, kFlagMemWalIndexCatchup);
  MEMWAL_ASSERT(ReadCatchupBits(*dest).both());
  return Status::Ok();
}

Status ValidateMemWalIndexCatchupFlags(const Manifest& manifest) {
  if (ReadCatchupBits(manifest).half()) {
    return Status::Corruption(
        "manifest version " + std::to_string(manifest.version()) +
        " has only one of the MemWAL index-catchup feature bits set");
  }
  return Status::Ok();
}

void MaskFlagsForShallowClone(Manifest* manifest, BugSet bugs) {
  MEMWAL_ASSERT(manifest != nullptr);
  const uint64_t mask =
      bugs.has(Bug::kShallowCloneZeroesBits) ? 0 : kFlagMemWalIndexCatchup;
  manifest->set_reader_feature_flags(manifest->reader_feature_flags() & mask);
  manifest->set_writer_feature_flags(manifest->writer_feature_flags() & mask);
}

bool CanReadDataset(uint64_t reader_flags) {
  const uint64_t supported =
      (kFlagUnknown - 1) & ~kFlagUnstableDataOverlayFiles;
  return (reader_flags & ~supported) == 0;
}

bool CanWriteDataset(uint64_t writer_flags) {
  const uint64_t supported =
      (kFlagUnknown - 1) & ~kFlagUnstableDataOverlayFiles;
  return (writer_flags & ~supported) == 0;
}

}  // namespace memwal::impl
