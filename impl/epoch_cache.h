// Decodings kept by store epoch (impl/memory_store.h): an epoch is never
// reused in the process and names the contents of a store (or of one of its
// parts), so a decoding of those contents is a function of (epoch, what is
// decoded). Direct-mapped: a slot holds the last key that hashed to it. The
// callers keep one per thread (thread_local): World's views of its table and
// shard manifests (impl/world_cache.cc), the checker's decoded tables and
// WALs (checker/lockstep/refinement.cc).
#ifndef MEMWAL_IMPL_EPOCH_CACHE_H_
#define MEMWAL_IMPL_EPOCH_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "impl/blob_cache.h"

namespace memwal::impl {

template <typename Value, std::size_t kSlots = 1024>
class EpochCache {
 public:
  // The value for (epoch, key, tag), made by `make` when the slot holds
  // another. The tag tells apart decodings of one key (an option, a flag)
  // without building a longer key string on every call.
  template <typename Make>
  Value Get(uint64_t epoch, std::string_view key, uint32_t tag, Make make) {
    const std::size_t hash = std::hash<std::string_view>{}(key) ^
                             (epoch * 0x9e3779b97f4a7c15ULL) ^
                             (uint64_t{tag} * 0xc2b2ae3d27d4eb4fULL);
    // The slots in use: impl::CachedEntries of them (blob_cache.h).
    Slot& slot = slots_[(hash >> 7) % CachedEntries(kSlots)];
    if (!slot.value.has_value() || slot.epoch != epoch || slot.tag != tag ||
        slot.key != key) {
      // make() may use other caches, never this one's slot.
      Value made = make();
      slot.epoch = epoch;
      slot.tag = tag;
      slot.key.assign(key);
      slot.value.emplace(std::move(made));
    }
    return *slot.value;
  }
  template <typename Make>
  Value Get(uint64_t epoch, std::string_view key, Make make) {
    return Get(epoch, key, 0, std::move(make));
  }

 private:
  struct Slot {
    uint64_t epoch = 0;
    uint32_t tag = 0;
    std::string key;
    std::optional<Value> value;
  };
  std::array<Slot, kSlots> slots_{};
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_EPOCH_CACHE_H_
