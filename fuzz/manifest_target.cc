// Fuzz target: manifest file bytes (impl/format.h DecodeManifestFile: framing,
// footer, Manifest, IndexSection, fragment bitmaps, MemWAL details) and
// transaction file bytes (DecodeTransaction). An accepted manifest file must
// re-encode to bytes that decode again.
#include "fuzz/decoder_check.h"
#include "impl/format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const std::string_view bytes = fuzz::Bytes(data, size);
  if (const auto file = impl::DecodeManifestFile(bytes); file.ok()) {
    const auto again =
        impl::DecodeManifestFile(impl::EncodeManifestFile(*file));
    fuzz::Require(again.ok(), "an accepted manifest file does not re-decode");
  }
  if (const auto txn = impl::DecodeTransaction(bytes); txn.ok()) {
    const auto again = impl::DecodeTransaction(impl::EncodeTransaction(*txn));
    fuzz::Require(again.ok(), "an accepted transaction does not re-decode");
  }
  return 0;
}
