// A minimal PNG reader for the browser test: 8-bit RGB or RGBA, not
// interlaced (what Chromium's --screenshot writes). Enough to tell a blank
// screenshot from a page.
#ifndef MEMWAL_TESTS_REPORT_PNG_H_
#define MEMWAL_TESTS_REPORT_PNG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace memwal::checker {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint32_t> pixels;  // 0xRRGGBB, row-major
};

Result<Image> DecodePng(std::string_view bytes);

}  // namespace memwal::checker

#endif  // MEMWAL_TESTS_REPORT_PNG_H_
