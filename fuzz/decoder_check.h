// Shared by the decoder fuzz targets: a decoder of untrusted bytes may refuse
// them (a Status) but never crash, and what it accepts must survive a round
// trip through its encoder. A broken round trip is a finding: print and abort,
// so that libFuzzer and AFL++ report it.
#ifndef MEMWAL_FUZZ_DECODER_CHECK_H_
#define MEMWAL_FUZZ_DECODER_CHECK_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace memwal::fuzz {

inline std::string_view Bytes(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

inline void Require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

}  // namespace memwal::fuzz

#endif  // MEMWAL_FUZZ_DECODER_CHECK_H_
