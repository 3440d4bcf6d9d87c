// Fuzz target: ShardManifest bytes (impl/format.h DecodeShardManifest), the
// files under _mem_wal/{shard}/manifest/.
#include "fuzz/decoder_check.h"
#include "impl/format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const auto manifest = impl::DecodeShardManifest(fuzz::Bytes(data, size));
  if (manifest.ok()) {
    fuzz::Require(
        impl::DecodeShardManifest(impl::EncodeShardManifest(*manifest)).ok(),
        "an accepted shard manifest does not re-decode");
  }
  return 0;
}
