// The portable-Roaring layout check against CRoaring's own encoder (every
// bitmap it writes, with array, bitset and run containers, passes) and against
// damaged bytes (refused before CRoaring could print).
#include "inspect/roaring_check.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "impl/bitmap.h"

namespace memwal::inspect {
namespace {

RC_GTEST_PROP(RoaringCheck, AcceptsEveryBitmapCRoaringWrites,
              (const std::vector<uint32_t>& ids, uint32_t range_start,
               uint16_t range_length)) {
  impl::FragmentSet fragments(ids.begin(), ids.end());
  for (uint32_t i = 0; i < range_length; ++i)
    fragments.insert((uint64_t{range_start} + i) & 0xffffffffu);
  const std::string bytes = impl::EncodeFragmentBitmap(fragments);
  RC_ASSERT(CheckPortableRoaring(bytes).ok());
}

TEST(RoaringCheck, AcceptsTheBytesLanceWrote) {
  // {0, 1} as Lance 8.0.0 wrote it (docs/lance-file-layout.md section 5).
  const std::string bytes(
      "\x3a\x30\x00\x00\x01\x00\x00\x00\x00\x00\x01\x00\x10\x00\x00\x00"
      "\x00\x00\x01\x00",
      20);
  EXPECT_TRUE(CheckPortableRoaring(bytes).ok());
  EXPECT_TRUE(CheckPortableRoaring("").ok());
}

TEST(RoaringCheck, RefusesDamagedBitmaps) {
  const std::string good(
      "\x3a\x30\x00\x00\x01\x00\x00\x00\x00\x00\x01\x00\x10\x00\x00\x00"
      "\x00\x00\x01\x00",
      20);
  std::string more_containers = good;
  more_containers[4] = 5;
  std::string bad_cookie = good;
  bad_cookie[0] = 0x11;
  const std::string cases[] = {good.substr(0, 3), good.substr(0, 19),
                               good + "x", more_containers, bad_cookie};
  for (const std::string& bytes : cases) {
    EXPECT_EQ(CheckPortableRoaring(bytes).code(), StatusCode::kCorruption)
        << bytes.size();
  }
}

}  // namespace
}  // namespace memwal::inspect
