// Feature flags (P §2.1-2.3, spec R35 steps 4-5, R36, R37): the MemWAL catch-up
// bit survives both apply_feature_flags resets only when paired, is inherited
// from the source manifest, and a half-set pair is refused (mirrors Lance's
// feature_flags.rs tests with our setups).
#include "impl/feature_flags.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace memwal::impl {
namespace {

using lance::table::Manifest;

Manifest WithWords(uint64_t reader, uint64_t writer) {
  Manifest manifest;
  manifest.set_reader_feature_flags(reader);
  manifest.set_writer_feature_flags(writer);
  return manifest;
}

TEST(FeatureFlags, TheMemWalBitIsBelowTheUnknownBoundary) {
  EXPECT_EQ(kFlagMemWalIndexCatchup, 128u);
  EXPECT_TRUE(CanReadDataset(kFlagMemWalIndexCatchup));
  EXPECT_TRUE(CanWriteDataset(kFlagMemWalIndexCatchup));
  EXPECT_FALSE(CanReadDataset(kFlagUnknown));
  EXPECT_FALSE(CanWriteDataset(kFlagUnstableDataOverlayFiles));
}

TEST(FeatureFlags, ApplyCarriesThePairedBitAcrossItsReset) {
  Manifest manifest = WithWords(128 | 1, 128 | 8);
  ASSERT_TRUE(ApplyFeatureFlags(&manifest, false, false, {}).ok());
  EXPECT_EQ(manifest.reader_feature_flags(), 128u);
  EXPECT_EQ(manifest.writer_feature_flags(), 128u);
}

TEST(FeatureFlags, ApplyDropsAHalfSetBit) {
  Manifest manifest = WithWords(128, 0);
  ASSERT_TRUE(ApplyFeatureFlags(&manifest, false, false, {}).ok());
  EXPECT_EQ(manifest.reader_feature_flags(), 0u);
}

TEST(FeatureFlags, ApplySetsDeletionFilesAndTheWriterOnlyTransactionFileBit) {
  Manifest manifest;
  manifest.add_fragments()->mutable_deletion_file()->set_num_deleted_rows(1);
  ASSERT_TRUE(ApplyFeatureFlags(&manifest, false, true, {}).ok());
  EXPECT_EQ(manifest.reader_feature_flags(), kFlagDeletionFiles);
  EXPECT_EQ(manifest.writer_feature_flags(),
            kFlagDeletionFiles | kFlagDisableTransactionFile);
}

TEST(FeatureFlags, InheritingCarriesTheBitFromTheSource) {
  Manifest dest;
  ASSERT_TRUE(InheritMemWalIndexCatchup(&dest, WithWords(128, 128), {}).ok());
  EXPECT_TRUE(ReadCatchupBits(dest).both());
  Manifest untouched;
  ASSERT_TRUE(InheritMemWalIndexCatchup(&untouched, WithWords(1, 1), {}).ok());
  EXPECT_TRUE(ReadCatchupBits(untouched).neither());
}

TEST(FeatureFlags, InheritingRefusesAHalfSetSource) {
  Manifest dest;
  EXPECT_EQ(InheritMemWalIndexCatchup(&dest, WithWords(0, 128), {}).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(ReadCatchupBits(dest).neither());
}

TEST(FeatureFlags, ValidationRefusesAHalfSetManifestOnLoad) {
  EXPECT_EQ(ValidateMemWalIndexCatchupFlags(WithWords(128, 0)).code(),
            StatusCode::kCorruption);
  EXPECT_TRUE(ValidateMemWalIndexCatchupFlags(WithWords(128, 128)).ok());
}

TEST(FeatureFlags, ShallowCloneKeepsOnlyTheMemWalBit) {
  Manifest manifest = WithWords(128 | 1 | 16, 128 | 8);
  MaskFlagsForShallowClone(&manifest, {});
  EXPECT_EQ(manifest.reader_feature_flags(), 128u);
  EXPECT_EQ(manifest.writer_feature_flags(), 128u);
}

RC_GTEST_PROP(FeatureFlags,
              ApplyNeverLeavesAHalfSetPairAndCarriesExactlyAPairedBit,
              (uint64_t reader, uint64_t writer)) {
  Manifest manifest = WithWords(reader, writer);
  RC_ASSERT(ApplyFeatureFlags(&manifest, false, false, {}).ok());
  RC_ASSERT(!ReadCatchupBits(manifest).half());
  const bool paired = (reader & 128) != 0 && (writer & 128) != 0;
  RC_ASSERT(ReadCatchupBits(manifest).both() == paired);
  RC_ASSERT(CanReadDataset(manifest.reader_feature_flags()));
}

RC_GTEST_PROP(FeatureFlags, InheritThenApplyKeepsAnActivatedSourceActivated,
              (uint64_t dest_reader, uint64_t dest_writer)) {
  Manifest dest =
      WithWords(dest_reader & ~uint64_t{128}, dest_writer & ~uint64_t{128});
  RC_ASSERT(ApplyFeatureFlags(&dest, false, false, {}).ok());
  RC_ASSERT(InheritMemWalIndexCatchup(&dest, WithWords(128, 128), {}).ok());
  RC_ASSERT(ApplyFeatureFlags(&dest, false, false, {}).ok());
  RC_ASSERT(ReadCatchupBits(dest).both());
}

}  // namespace
}  // namespace memwal::impl
