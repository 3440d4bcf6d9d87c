// Fuzz target: IndexSection bytes. The input becomes the index section of an
// otherwise valid manifest file (impl/format.h's layout), so every mutation
// reaches the section's validation (index metadata, uuids, fragment bitmaps,
// the MemWAL system index's details) instead of failing at the framing.
#include <string>

#include "fuzz/decoder_check.h"
#include "impl/format.h"

namespace {

void PutLe(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i)
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// [u32 n][section][u32 m][manifest][u64 position][u16 0][u16 2]["LANC"].
std::string FrameAroundSection(std::string_view section) {
  std::string file;
  PutLe(section.size(), 4, &file);
  file.append(section);
  memwal::impl::pb::Manifest manifest;
  manifest.set_version(1);
  manifest.set_index_section(0);
  const std::string body = manifest.SerializeAsString();
  const uint64_t position = file.size();
  PutLe(body.size(), 4, &file);
  file.append(body);
  PutLe(position, 8, &file);
  PutLe(0, 2, &file);
  PutLe(2, 2, &file);
  file.append("LANC");
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const std::string file = FrameAroundSection(fuzz::Bytes(data, size));
  if (const auto decoded = impl::DecodeManifestFile(file); decoded.ok()) {
    const auto again =
        impl::DecodeManifestFile(impl::EncodeManifestFile(*decoded));
    fuzz::Require(again.ok(), "an accepted index section does not re-decode");
  }
  return 0;
}
