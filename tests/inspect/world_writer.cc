// inspect_world_writer OUT_DIR [legacy|derived]: writes a small table with
// impl/'s World into OUT_DIR (activate under `derived`; flush generations 1 and
// 2 of one shard; compact generation 1; repair idx_0), for the
// reverse-direction probe of tests/fixtures/lancedb/REVERSE.md (does LanceDB
// open what our directory store writes?).
#include <iostream>
#include <optional>
#include <string>

#include "impl/directory_store.h"
#include "impl/world.h"

namespace {

using memwal::Status;
using memwal::impl::Outcome;
using memwal::impl::World;

bool Publish(World* world, const Status& begun) {
  if (!begun.ok()) return false;
  const memwal::Result<Outcome> outcome =
      world->Commit(world->inflight_count() - 1);
  return outcome.ok() && *outcome == Outcome::kPublished;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: inspect_world_writer OUT_DIR [legacy|derived]\n";
    return 2;
  }
  const std::string protocol_name = argc == 3 ? argv[2] : "legacy";
  std::optional<memwal::impl::Protocol> protocol;
  if (protocol_name == "legacy") protocol = memwal::impl::Protocol::kLegacy;
  if (protocol_name == "derived") protocol = memwal::impl::Protocol::kDerived;
  if (!protocol.has_value()) {
    std::cerr << "inspect_world_writer: unknown protocol " << protocol_name
              << "\n";
    return 2;
  }
  memwal::Result<World> created = World::Create(
      memwal::impl::Options{.protocol = *protocol, .shards = 1, .indexes = 1});
  if (!created.ok()) return 1;
  World world = std::move(*created);
  bool ok =
      protocol_name != "derived" || Publish(&world, world.BeginActivate());
  ok = ok && world.FlushMemTable(0).ok() && world.FlushMemTable(0).ok();
  ok = ok && Publish(&world, world.BeginCompactSsTable(0, true));
  ok = ok && Publish(&world, world.BeginOptimizeIndex(0));
  memwal::Result<memwal::impl::DirectoryStore> store =
      memwal::impl::DirectoryStore::Open(argv[1]);
  ok = ok && store.ok() && world.WriteTo(&*store).ok();
  if (!ok) {
    std::cerr << "inspect_world_writer: " << world.last_reason() << "\n";
    return 1;
  }
  return 0;
}
