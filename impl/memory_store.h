// MemoryStore: an in-memory Store whose copy is cheap. Objects are immutable
// shared blobs in an ordered map, so copying a store copies the map of pointers
// and shares every blob; the checker copies whole worlds at every search step.
// Not thread-safe; copies are independent.
#ifndef MEMWAL_IMPL_MEMORY_STORE_H_
#define MEMWAL_IMPL_MEMORY_STORE_H_

#include <map>
#include <string>
#include <vector>

#include "impl/store.h"

namespace memwal::impl {

class MemoryStore final : public Store {
 public:
  Result<Blob> Get(const std::string& path) const override;
  Status PutIfAbsent(const std::string& path, std::string bytes) override;
  Status Put(const std::string& path, std::string bytes) override;
  Result<std::vector<std::string>> List(
      const std::string& prefix) const override;
  Status Delete(const std::string& path) override;

  // Every object, in path order.
  const std::map<std::string, Blob>& objects() const { return objects_; }

 private:
  std::map<std::string, Blob> objects_;
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_MEMORY_STORE_H_
