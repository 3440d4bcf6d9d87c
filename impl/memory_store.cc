// MemoryStore; see memory_store.h.
#include "impl/memory_store.h"

#include <atomic>
#include <memory>
#include <string_view>

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
  const auto [it, inserted] = Own().try_emplace(
      path, std::make_shared<const std::string>(std::move(bytes)));
  MEMWAL_ASSERT(inserted);
  MEMWAL_ASSERT(it->second != nullptr);
  Changed(path);
  return Status::Ok();
}

Status MemoryStore::Put(const std::string& path, std::string bytes) {
  MEMWAL_ASSERT(!path.empty());
  Own()[path] = std::make_shared<const std::string>(std::move(bytes));
  Changed(path);
  return Status::Ok();
}

Status MemoryStore::PutShared(const std::string& path, Blob blob) {
  MEMWAL_ASSERT(!path.empty() && blob != nullptr);
  Own()[path] = std::move(blob);
  Changed(path);
  return Status::Ok();
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
  if (objects_->count(path) == 0) return Status::NotFound(path);
  Own().erase(path);
  Changed(path);
  return Status::Ok();
}

}  // namespace memwal::impl
