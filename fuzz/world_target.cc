// Fuzz target: shipped World bytes (impl/world.h World::Deserialize), what a
// rank receives for a lockstep state that moves to it. The options are those
// of fuzz/corpus/world (2 shards, 2 indexes, the derived protocol). An
// accepted World must answer its reads with values or a Status, and ship
// again to the same bytes.
#include "fuzz/decoder_check.h"
#include "impl/world.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const impl::Options options{.shards = 2, .indexes = 2, .seed = 16};
  const auto world = impl::World::Deserialize(fuzz::Bytes(data, size), options);
  if (!world.ok()) return 0;
  static_cast<void>(world->Versions());
  static_cast<void>(world->ReadWal());
  static_cast<void>(world->ReadRows());
  static_cast<void>(world->HeadLoads());
  const std::string bytes = world->Serialize();
  const auto again = impl::World::Deserialize(bytes, options);
  fuzz::Require(again.ok(), "an accepted World does not ship again");
  fuzz::Require(again->Serialize() == bytes,
                "a World shipped twice changes its bytes");
  return 0;
}
