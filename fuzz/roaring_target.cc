// Fuzz target: fragment bitmap bytes (impl/bitmap.h DecodeFragmentBitmap, over
// CRoaring's readSafe). An accepted bitmap must re-encode to bytes that decode
// to the same set.
#include "fuzz/decoder_check.h"
#include "impl/bitmap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const auto coverage = impl::DecodeFragmentBitmap(fuzz::Bytes(data, size));
  if (coverage.ok()) {
    const auto again =
        impl::DecodeFragmentBitmap(impl::EncodeFragmentBitmap(*coverage));
    fuzz::Require(again.ok() && *again == *coverage,
                  "a fragment bitmap does not round-trip");
  }
  return 0;
}
