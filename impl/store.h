// Store: the object-store interface every table operation goes through. Paths
// are
// '/'-separated and relative to the store's root. The protocol relies on
// exactly these guarantees and nothing more:
//   * PutIfAbsent is atomic: of two writers of one path, exactly one gets OK
//   and the other
//     AlreadyExists, and a reader never sees a partial object. Version
//     publication (the commit point) is a PutIfAbsent of the next version's
//     manifest.
//   * Put overwrites (used for hints and test fixtures only, never for a
//   commit).
//   * A Get after an acknowledged Put/PutIfAbsent returns those bytes.
#ifndef MEMWAL_IMPL_STORE_H_
#define MEMWAL_IMPL_STORE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace memwal::impl {

using Blob = std::shared_ptr<const std::string>;

class Store {
 public:
  virtual ~Store() = default;
  // NotFound if absent.
  virtual Result<Blob> Get(const std::string& path) const = 0;
  // AlreadyExists if `path` exists (another writer won the race).
  virtual Status PutIfAbsent(const std::string& path, std::string bytes) = 0;
  // PutIfAbsent, then the blob it stored (what Get(path) gives next).
  virtual Result<Blob> PutIfAbsentBlob(const std::string& path,
                                       std::string bytes) {
    MEMWAL_RETURN_IF_ERROR(PutIfAbsent(path, std::move(bytes)));
    return Get(path);
  }
  virtual Status Put(const std::string& path, std::string bytes) = 0;
  // Every path that starts with `prefix`, in byte order.
  virtual Result<std::vector<std::string>> List(
      const std::string& prefix) const = 0;
  // NotFound if absent.
  virtual Status Delete(const std::string& path) = 0;
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_STORE_H_
