// Format: the Roaring fragment-bitmap codec, manifest file framing, file names
// and the validating decoders (spec R2; P §1).
#include "impl/format.h"

#include <gtest/gtest.h>

#include "impl/bitmap.h"

namespace memwal::impl {
namespace {

TEST(FragmentBitmap, EmptyBytesDecodeToUnknownCoverage) {
  const auto decoded = DecodeFragmentBitmap("");
  ASSERT_TRUE(decoded.ok());
  EXPECT_FALSE(decoded->has_value());
}

TEST(FragmentBitmap, AnEmptyBitmapEncodesToNonEmptyBytes) {
  const std::string bytes = EncodeFragmentBitmap(FragmentSet{});
  EXPECT_FALSE(bytes.empty());
  const auto decoded = DecodeFragmentBitmap(bytes);
  ASSERT_TRUE(decoded.ok());
  ASSERT_TRUE(decoded->has_value());
  EXPECT_TRUE((*decoded)->empty());
}

TEST(FragmentBitmap, GarbageIsCorruptionNotACrash) {
  const auto decoded = DecodeFragmentBitmap("\x01\x02\x03");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace memwal::impl
