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

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/assert.h"
#include "base/status.h"
#include "impl/store.h"

namespace memwal::impl {

template <typename Key, typename Value, std::size_t kEntriesMax = 20'000>
class IdentityCache {
 public:
  using KeyPtr = std::shared_ptr<const Key>;

  // The cached decoding of `blob`, or null.
  std::shared_ptr<const Value> Find(const KeyPtr& blob) {
    MEMWAL_ASSERT(blob != nullptr);
    const auto it = current_.find(blob.get());
    if (it != current_.end()) return it->second.value;
    const auto was = old_.find(blob.get());
    if (was == old_.end()) return nullptr;
    std::shared_ptr<const Value> value = was->second.value;
    Add(blob, value);
    return value;
  }

  // Caches `value` as the decoding of `blob` (a writer that has it in hand).
  void Add(const KeyPtr& blob, std::shared_ptr<const Value> value) {
    MEMWAL_ASSERT(blob != nullptr && value != nullptr);
    if (current_.size() >= kEntriesMax) {
      old_.swap(current_);
      current_.clear();
    }
    current_.insert_or_assign(blob.get(), Entry{blob, std::move(value)});
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
    KeyPtr blob;
    std::shared_ptr<const Value> value;
  };
  std::unordered_map<const Key*, Entry> current_;
  std::unordered_map<const Key*, Entry> old_;
};

template <typename Value, std::size_t kEntriesMax = 20'000>
using BlobCache = IdentityCache<std::string, Value, kEntriesMax>;

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_BLOB_CACHE_H_
