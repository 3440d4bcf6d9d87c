// Decoded blobs, kept by blob address. A stored blob never changes, so its
// decoding is a function of its address while the blob lives, and an entry
// keeps its blob alive, so the address is not reused while it is cached. The
// same holds for any immutable shared object (IdentityCache: a decoded
// manifest's derived views are kept by the decoding's address). Two
// generations: when the current one holds `kEntriesMax` entries it becomes the
// old one (the previous old one is dropped), and a hit in the old one moves
// back. The callers keep one per thread (thread_local): the table's manifests
// (impl/table.cc), the shard manifests (world_wal.cc), the row and deletion
// files (rows.cc).
#ifndef MEMWAL_IMPL_BLOB_CACHE_H_
#define MEMWAL_IMPL_BLOB_CACHE_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/assert.h"
#include "base/status.h"
#include "impl/store.h"

namespace memwal::impl {

// The share of their maximum that the per-thread decode caches keep (this
// file's TwoGenerations and impl/epoch_cache.h's EpochCache): a cache of
// maximum M keeps M / divisor entries (at least 64). 1, the default, keeps a
// breadth-first level's worth; a depth-first lockstep search, whose next
// states are its path's neighbours, sets a larger divisor for the run
// (checker/engine/search.cc) so that the caches do not hold a decoding per
// state it has passed. Per thread, as the caches are (two searches in one
// process set their own); it changes how much is cached, never an answer.
inline thread_local std::size_t cache_divisor = 1;
inline std::size_t CachedEntries(std::size_t most) {
  return std::max<std::size_t>(std::min<std::size_t>(most, 64),
                               most / cache_divisor);
}

// A map of at most about 2 * kEntriesMax entries in two generations: when
// the current one holds kEntriesMax entries it becomes the old one (the
// previous old one is dropped), and a hit in the old one moves back, so what
// was used recently survives the flush.
template <typename Key, typename Entry, std::size_t kEntriesMax>
class TwoGenerations {
 public:
  // The entry for `key`, or null (valid until the next Put).
  const Entry* Find(const Key& key) {
    const auto it = current_.find(key);
    if (it != current_.end()) return &it->second;
    const auto was = old_.find(key);
    if (was == old_.end()) return nullptr;
    Entry entry = std::move(was->second);
    old_.erase(was);
    return &Put(key, std::move(entry));
  }

  const Entry& Put(const Key& key, Entry entry) {
    if (current_.size() >= CachedEntries(kEntriesMax)) {
      old_.swap(current_);
      current_.clear();
    }
    return current_.insert_or_assign(key, std::move(entry)).first->second;
  }

 private:
  std::unordered_map<Key, Entry> current_;
  std::unordered_map<Key, Entry> old_;
};

template <typename Key, typename Value, std::size_t kEntriesMax = 20'000>
class IdentityCache {
 public:
  using KeyPtr = std::shared_ptr<const Key>;

  // The cached decoding of `blob`, or null.
  std::shared_ptr<const Value> Find(const KeyPtr& blob) {
    MEMWAL_ASSERT(blob != nullptr);
    const Entry* entry = entries_.Find(blob.get());
    return entry == nullptr ? nullptr : entry->value;
  }

  // Caches `value` as the decoding of `blob` (a writer that has it in hand).
  void Add(const KeyPtr& blob, std::shared_ptr<const Value> value) {
    MEMWAL_ASSERT(blob != nullptr && value != nullptr);
    entries_.Put(blob.get(), Entry{blob, std::move(value)});
  }

  // The decoding of `blob`: cached, or `decode(*blob)` (a Result<Value>),
  // cached when it succeeds.
  template <typename Decode>
  Result<std::shared_ptr<const Value>> Get(const KeyPtr& blob, Decode decode) {
    if (std::shared_ptr<const Value> hit = Find(blob)) return hit;
    MEMWAL_ASSIGN_OR_RETURN(Value decoded, decode(*blob));
    auto value = std::make_shared<const Value>(std::move(decoded));
    Add(blob, value);
    return value;
  }

 private:
  struct Entry {
    KeyPtr blob;  // keeps the key alive, so its address is not reused
    std::shared_ptr<const Value> value;
  };
  TwoGenerations<const Key*, Entry, kEntriesMax> entries_;
};

template <typename Value, std::size_t kEntriesMax = 20'000>
using BlobCache = IdentityCache<std::string, Value, kEntriesMax>;

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_BLOB_CACHE_H_
