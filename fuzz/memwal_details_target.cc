// Fuzz target: MemWalIndexDetails bytes, as they arrive in the
// index_details Any of the __lance_mem_wal system index
// (impl/format.h UnpackMemWalDetails).
#include "fuzz/decoder_check.h"
#include "impl/format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const std::string_view bytes = fuzz::Bytes(data, size);
  impl::pb::IndexMetadata index;
  index.set_name(std::string(impl::kMemWalIndexName));
  index.mutable_index_details()->set_type_url(
      "type.googleapis.com/lance.table.MemWalIndexDetails");
  index.mutable_index_details()->set_value(std::string(bytes));
  if (const auto details = impl::UnpackMemWalDetails(index); details.ok()) {
    impl::pb::IndexMetadata packed;
    impl::PackMemWalDetails(*details, &packed);
    fuzz::Require(impl::UnpackMemWalDetails(packed).ok(),
                  "accepted MemWalIndexDetails do not re-decode");
  }
  return 0;
}
