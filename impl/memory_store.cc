// MemoryStore; see memory_store.h.
#include "impl/memory_store.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "impl/format.h"

namespace memwal::impl {

uint64_t MemoryStore::NextEpoch() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

namespace {

// Whether `path` has a directory named `dir` (which ends with '/').
bool HasDirectory(const std::string& path, std::string_view dir) {
  for (std::size_t at = path.find(dir); at != std::string::npos;
       at = path.find(dir, at + 1)) {
    if (at == 0 || path[at - 1] == '/') return true;
  }
  return false;
}

}  // namespace

bool MemoryStore::InWal(const std::string& path) {
  return HasDirectory(path, kMemWalDir);
}

bool MemoryStore::InVersions(const std::string& path) {
  return HasDirectory(path, kVersionsDir);
}

void MemoryStore::Changed(const std::string& path) {
  epoch_ = NextEpoch();
  (InWal(path) ? wal_epoch_ : table_epoch_) = NextEpoch();
  if (InVersions(path)) versions_epoch_ = NextEpoch();
}

// The digest is a sum of one 128-bit hash per object (the bytes' hash seeded
// by the path's), so an object is added or removed in any order.
void MemoryStore::Count(const std::string& path, const std::string& bytes,
                        int sign) {
  if (InWal(path)) return;
  const XXH128_hash_t hash = XXH3_128bits_withSeed(
      bytes.data(), bytes.size(), XXH3_64bits(path.data(), path.size()));
  const uint64_t factor = static_cast<uint64_t>(static_cast<int64_t>(sign));
  table_digest_.first += factor * hash.low64;
  table_digest_.second += factor * hash.high64;
}

std::vector<ObjectMap::Entry>::const_iterator ObjectMap::LowerBound(
    std::string_view path) const {
  return std::lower_bound(entries_.begin(), entries_.end(), path,
                          [](const Entry& entry, std::string_view key) {
                            return std::string_view(entry->first) < key;
                          });
}

Blob ObjectMap::Set(const std::string& path, Blob blob) {
  const auto at = LowerBound(path);
  const std::size_t index = static_cast<std::size_t>(at - entries_.begin());
  Entry entry = std::make_shared<const value_type>(path, std::move(blob));
  if (at != entries_.end() && (*at)->first == path) {
    Blob replaced = (*at)->second;
    entries_[index] = std::move(entry);
    return replaced;
  }
  entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(index),
                  std::move(entry));
  return nullptr;
}

bool ObjectMap::Erase(std::string_view path) {
  const auto at = LowerBound(path);
  if (at == entries_.end() || (*at)->first != path) return false;
  entries_.erase(at);
  return true;
}

MemoryStore::Objects& MemoryStore::Own() {
  MEMWAL_ASSERT(objects_ != nullptr);
  // use_count is exact here: another owner is another store, and a store is
  // not shared between threads while it is being changed.
  if (objects_.use_count() > 1) objects_ = std::make_shared<Objects>(*objects_);
  return *objects_;
}

Result<Blob> MemoryStore::Get(const std::string& path) const {
  const auto it = objects_->find(path);
  if (it == objects_->end()) return Status::NotFound(path);
  MEMWAL_ASSERT(it->second != nullptr);
  return it->second;
}

Status MemoryStore::PutIfAbsent(const std::string& path, std::string bytes) {
  MEMWAL_ASSERT(!path.empty());
  if (objects_->count(path) != 0) return Status::AlreadyExists(path);
  Blob blob = std::make_shared<const std::string>(std::move(bytes));
  Count(path, *blob, 1);
  const Blob replaced = Own().Set(path, std::move(blob));
  MEMWAL_ASSERT(replaced == nullptr);
  Changed(path);
  return Status::Ok();
}

Status MemoryStore::Put(const std::string& path, std::string bytes) {
  return PutShared(path, std::make_shared<const std::string>(std::move(bytes)));
}

Status MemoryStore::PutShared(const std::string& path, Blob blob) {
  MEMWAL_ASSERT(!path.empty() && blob != nullptr);
  Count(path, *blob, 1);
  const Blob replaced = Own().Set(path, std::move(blob));
  if (replaced != nullptr) Count(path, *replaced, -1);
  Changed(path);
  return Status::Ok();
}

void MemoryStore::ShareIdentical(const std::string& path, Blob blob) {
  MEMWAL_ASSERT(blob != nullptr);
  const auto found = objects_->find(path);
  MEMWAL_ASSERT(found != objects_->end() && *found->second == *blob);
  if (found->second == blob) return;
  Own().Set(path, std::move(blob));
}

Result<std::vector<std::string>> MemoryStore::List(
    const std::string& prefix) const {
  std::vector<std::string> paths;
  for (auto it = objects_->lower_bound(prefix); it != objects_->end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    paths.push_back(it->first);
  }
  return paths;
}

Status MemoryStore::Delete(const std::string& path) {
  const auto found = objects_->find(path);
  if (found == objects_->end()) return Status::NotFound(path);
  Count(path, *found->second, -1);
  const bool erased = Own().Erase(path);
  MEMWAL_ASSERT(erased);
  Changed(path);
  return Status::Ok();
}

}  // namespace memwal::impl
