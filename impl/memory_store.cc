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

void MemoryStore::Changed(const ObjectMap::Facts& facts) {
  epoch_ = NextEpoch();
  (facts.wal ? wal_epoch_ : table_epoch_) = NextEpoch();
  if (facts.versions) versions_epoch_ = NextEpoch();
}

namespace {

uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ObjectMap::Facts MemoryStore::FactsOf(const std::string& path, const Blob& blob,
                                      bool fresh) const {
  ObjectMap::Facts facts;
  facts.wal = InWal(path);
  facts.versions = InVersions(path);
  if (facts.wal) return facts;
  const ObjectMap::Object* same =
      fresh ? nullptr : objects_->FindTableBlob(blob.get());
  if (same != nullptr) {
    facts.low = same->facts.low;
    facts.high = same->facts.high;
    return facts;
  }
  const XXH128_hash_t hash = XXH3_128bits(blob->data(), blob->size());
  facts.low = hash.low64;
  facts.high = hash.high64;
  return facts;
}

// The digest is a sum of one 128-bit term per object (its bytes' hash mixed
// with its path's), so an object is added or removed in any order, and an
// object moved to another path (CleanupVersions' archive) is not hashed again.
void MemoryStore::Count(const std::string& path, const ObjectMap::Facts& facts,
                        int sign) {
  if (facts.wal) return;
  const uint64_t seed = XXH3_64bits(path.data(), path.size());
  const uint64_t factor = static_cast<uint64_t>(static_cast<int64_t>(sign));
  table_digest_.first += factor * Mix(facts.low ^ seed);
  table_digest_.second += factor * Mix(facts.high ^ Mix(seed));
}

std::vector<ObjectMap::Entry>::const_iterator ObjectMap::LowerBound(
    std::string_view path) const {
  return std::lower_bound(entries_.begin(), entries_.end(), path,
                          [](const Entry& entry, std::string_view key) {
                            return std::string_view(entry->first) < key;
                          });
}

const ObjectMap::Object* ObjectMap::FindTableBlob(
    const std::string* blob) const {
  for (const Entry& entry : entries_) {
    if (entry->second.get() == blob && !entry->facts.wal) return entry.get();
  }
  return nullptr;
}

ObjectMap::Entry ObjectMap::Set(const std::string& path, Blob blob,
                                const Facts& facts) {
  const auto at = LowerBound(path);
  const std::size_t index = static_cast<std::size_t>(at - entries_.begin());
  Entry entry = std::make_shared<const Object>(path, std::move(blob), facts);
  if (at != entries_.end() && (*at)->first == path) {
    std::swap(entries_[index], entry);
    return entry;
  }
  entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(index),
                  std::move(entry));
  return nullptr;
}

ObjectMap::Entry ObjectMap::Erase(std::string_view path) {
  const auto at = LowerBound(path);
  if (at == entries_.end() || (*at)->first != path) return nullptr;
  Entry removed = *at;
  entries_.erase(at);
  return removed;
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
  return PutIfAbsentBlob(path, std::move(bytes)).status();
}

Result<Blob> MemoryStore::PutIfAbsentBlob(const std::string& path,
                                          std::string bytes) {
  MEMWAL_ASSERT(!path.empty());
  if (objects_->Find(path) != nullptr) return Status::AlreadyExists(path);
  Blob blob = std::make_shared<const std::string>(std::move(bytes));
  const ObjectMap::Facts facts = FactsOf(path, blob, /*fresh=*/true);
  Count(path, facts, 1);
  const ObjectMap::Entry replaced = Own().Set(path, blob, facts);
  MEMWAL_ASSERT(replaced == nullptr);
  Changed(facts);
  return blob;
}

Status MemoryStore::Put(const std::string& path, std::string bytes) {
  return PutShared(path, std::make_shared<const std::string>(std::move(bytes)));
}

Status MemoryStore::PutShared(const std::string& path, Blob blob) {
  MEMWAL_ASSERT(!path.empty() && blob != nullptr);
  const ObjectMap::Facts facts = FactsOf(path, blob, /*fresh=*/false);
  Count(path, facts, 1);
  const ObjectMap::Entry replaced = Own().Set(path, std::move(blob), facts);
  if (replaced != nullptr) Count(path, replaced->facts, -1);
  Changed(facts);
  return Status::Ok();
}

Status MemoryStore::Move(const std::string& from, const std::string& to) {
  MEMWAL_ASSERT(!to.empty() && from != to);
  const ObjectMap::Object* found = objects_->Find(from);
  if (found == nullptr) return Status::NotFound(from);
  const Blob blob = found->second;
  const ObjectMap::Facts facts = found->facts;
  // FactsOf(to, blob, false): the bytes' hash is the one `from` keeps, unless
  // `from` is the MemWAL's (whose objects keep none).
  ObjectMap::Facts moved = facts;
  moved.wal = InWal(to);
  moved.versions = InVersions(to);
  if (moved.wal) {
    moved.low = 0;
    moved.high = 0;
  } else if (facts.wal) {
    moved = FactsOf(to, blob, /*fresh=*/false);
  }
  Count(to, moved, 1);
  Objects& objects = Own();
  const ObjectMap::Entry replaced = objects.Set(to, blob, moved);
  if (replaced != nullptr) Count(to, replaced->facts, -1);
  Changed(moved);
  const ObjectMap::Entry removed = objects.Erase(from);
  MEMWAL_ASSERT(removed != nullptr);
  Count(from, removed->facts, -1);
  Changed(removed->facts);
  return Status::Ok();
}

void MemoryStore::ShareIdentical(const std::string& path, Blob blob) {
  MEMWAL_ASSERT(blob != nullptr);
  const ObjectMap::Object* found = objects_->Find(path);
  MEMWAL_ASSERT(found != nullptr && *found->second == *blob);
  if (found->second == blob) return;
  const ObjectMap::Facts facts = found->facts;  // the same bytes
  Own().Set(path, std::move(blob), facts);
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
  if (objects_->Find(path) == nullptr) return Status::NotFound(path);
  const ObjectMap::Entry removed = Own().Erase(path);
  MEMWAL_ASSERT(removed != nullptr);
  Count(path, removed->facts, -1);
  Changed(removed->facts);
  return Status::Ok();
}

}  // namespace memwal::impl
