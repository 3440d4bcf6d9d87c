// World: Serialize and Deserialize, the exact copy of a World that the
// distributed search ships to the rank that expands it next (world.h,
// impl/proto/world.proto). The rebuilt World holds the same objects under the
// same paths (sharing a blob where the sender's store shares one), the same
// roots, counters, shard uuids, in-flight transactions, pending decisions and
// last refusal, so its answers and next steps are the sender's. Its store is
// a new one, with a new epoch, and its blobs are new objects: the decodings
// cached by epoch (world_cache.cc) or by blob address (blob_cache.h) of any
// other World are never served to it.
#include <cstdint>
#include <map>

#include "base/checksum.h"
#include "impl/proto/world.pb.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

// 2: the switches by name (SwitchValue) instead of one field each.
constexpr uint32_t kWorldFormat = 2;

wire::WorldOptions ToWire(const Options& options) {
  wire::WorldOptions out;
  for (const SwitchOption& option : AllSwitchOptions()) {
    wire::SwitchValue* entry = out.add_switches();
    entry->set_name(std::string(option.name()));
    entry->set_value(option.Get(options));
  }
  out.set_bugs(options.bugs);
  out.set_shards(options.shards);
  out.set_indexes(options.indexes);
  out.set_seed(options.seed);
  out.set_memwal(options.memwal);
  return out;
}

bool SameOptions(const wire::WorldOptions& a, const wire::WorldOptions& b) {
  if (a.switches_size() != b.switches_size()) return false;
  for (int k = 0; k < a.switches_size(); ++k) {
    if (a.switches(k).name() != b.switches(k).name() ||
        a.switches(k).value() != b.switches(k).value())
      return false;
  }
  return a.bugs() == b.bugs() && a.shards() == b.shards() &&
         a.indexes() == b.indexes() && a.seed() == b.seed() &&
         a.memwal() == b.memwal();
}

}  // namespace

std::string World::Serialize() const {
  wire::WorldState state;
  *state.mutable_options() = ToWire(options_);
  std::map<const std::string*, uint32_t> first;  // blob -> 1 + its index
  for (const auto& [path, blob] : store_.objects()) {
    MEMWAL_ASSERT(blob != nullptr);
    wire::StoredObject* object = state.add_objects();
    object->set_path(path);
    const auto [it, added] =
        first.emplace(blob.get(), static_cast<uint32_t>(state.objects_size()));
    if (added) {
      object->set_bytes(*blob);
    } else {
      object->set_same_as(it->second);
    }
  }
  state.set_table_root(table_root_);
  state.set_wal_root(wal_root_);
  state.set_tables_created(tables_created_);
  state.set_uuid_counter(uuid_counter_);
  for (const std::string& uuid : shard_uuids_) state.add_shard_uuids(uuid);
  for (const auto& transaction : inflight_) {
    MEMWAL_ASSERT(transaction != nullptr);
    state.add_inflight(EncodeTransaction(*transaction));
  }
  for (const auto& [shard, generation] : pending_) {
    wire::PendingRetirement* entry = state.add_pending();
    entry->set_shard(shard);
    entry->set_generation(generation);
  }
  state.set_last_reason(last_reason_);
  wire::ShippedWorld shipped;
  shipped.set_format(kWorldFormat);
  shipped.set_state(state.SerializeAsString());
  shipped.set_checksum(Checksum64(shipped.state()));
  std::string out = shipped.SerializeAsString();
  MEMWAL_ASSERT(!out.empty());  // Pair of Deserialize's checks.
  return out;
}

Status World::RebuildStore(const wire::WorldState& state) {
  const std::string* previous = nullptr;
  std::vector<Blob> blobs;
  blobs.reserve(static_cast<std::size_t>(state.objects_size()));
  for (const wire::StoredObject& object : state.objects()) {
    if (object.path().empty() ||
        (previous != nullptr && !(*previous < object.path())))
      return Status::Corruption("shipped World: store paths out of order");
    previous = &object.path();
    Blob blob;
    if (object.same_as() == 0) {
      blob = std::make_shared<const std::string>(object.bytes());
    } else if (object.same_as() <= blobs.size() && object.bytes().empty()) {
      blob = blobs[object.same_as() - 1];
    } else {
      return Status::Corruption(
          "shipped World: a shared object names no "
          "earlier object");
    }
    MEMWAL_RETURN_IF_ERROR(store_.PutShared(object.path(), blob));
    blobs.push_back(std::move(blob));
  }
  MEMWAL_ASSERT(store_.objects().size() == blobs.size());
  return Status::Ok();
}

Result<World> World::Deserialize(std::string_view bytes,
                                 const Options& options) {
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    return Status::Corruption("shipped World: too large to parse");
  wire::ShippedWorld shipped;
  if (!shipped.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Status::Corruption("shipped World: the envelope does not parse");
  if (shipped.format() != kWorldFormat)
    return Status::Corruption("shipped World: unknown format " +
                              std::to_string(shipped.format()));
  if (Checksum64(shipped.state()) != shipped.checksum())
    return Status::Corruption("shipped World: checksum mismatch");
  wire::WorldState state;
  if (!state.ParseFromString(shipped.state()))
    return Status::Corruption("shipped World: the state does not parse");
  if (!SameOptions(state.options(), ToWire(options)))
    return Status::InvalidArgument(
        "shipped World: made with other options than the receiver's");
  World world;
  world.options_ = options;
  world.bugs_ = BugSet(options.bugs);
  MEMWAL_RETURN_IF_ERROR(world.RebuildStore(state));
  if (state.table_root().empty() || state.wal_root().empty())
    return Status::Corruption("shipped World: no table root");
  world.table_root_ = state.table_root();
  world.wal_root_ = state.wal_root();
  world.tables_created_ = state.tables_created();
  world.uuid_counter_ = state.uuid_counter();
  world.shard_uuids_.assign(state.shard_uuids().begin(),
                            state.shard_uuids().end());
  for (const std::string& encoded : state.inflight()) {
    auto transaction = std::make_shared<pb::Transaction>();
    if (!transaction->ParseFromString(encoded))
      return Status::Corruption(
          "shipped World: an in-flight transaction "
          "does not parse");
    world.inflight_.push_back(std::move(transaction));
  }
  for (const wire::PendingRetirement& entry : state.pending())
    world.pending_.emplace(entry.shard(), entry.generation());
  world.last_reason_ = state.last_reason();
  MEMWAL_ASSERT(world.inflight_.size() ==
                static_cast<std::size_t>(state.inflight_size()));
  return world;
}

}  // namespace memwal::impl
