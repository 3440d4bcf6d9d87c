// DirectoryStore: a Store on a real directory, laid out as Lance lays out a
// table (the store's paths are the table's relative paths: _versions/,
// _transactions/, _mem_wal/...).
//
// Crash safety: every object is written to a unique temporary file in the
// target's directory, fsynced, and then published. PutIfAbsent publishes with
// link(2), which fails with EEXIST if the name is taken, so exactly one racing
// writer wins and no reader ever sees a partial object; Put publishes with
// rename(2). The directory is fsynced after publication. A crash between
// writing a transaction file and its manifest leaves an unreferenced
// transaction file and loses nothing acknowledged. Temporary files start with
// ".tmp-" and are skipped by List.
#ifndef MEMWAL_IMPL_DIRECTORY_STORE_H_
#define MEMWAL_IMPL_DIRECTORY_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "impl/store.h"

namespace memwal::impl {

// The largest object DirectoryStore::Get reads (64 MiB, as checker::ReadFile):
// manifests, transactions and shard manifests of real tables are kilobytes.
inline constexpr uint64_t kMaxObjectBytes = uint64_t{64} << 20;

class DirectoryStore final : public Store {
 public:
  // `root` must exist or be creatable.
  static Result<DirectoryStore> Open(const std::string& root);

  // Refuses (Corruption) anything but a regular file of at most
  // kMaxObjectBytes.
  Result<Blob> Get(const std::string& path) const override;
  Status PutIfAbsent(const std::string& path, std::string bytes) override;
  Status Put(const std::string& path, std::string bytes) override;
  Result<std::vector<std::string>> List(
      const std::string& prefix) const override;
  Status Delete(const std::string& path) override;

  const std::string& root() const { return root_; }

 private:
  explicit DirectoryStore(std::string root) : root_(std::move(root)) {}
  // Writes `bytes` to a fresh temporary file next to `path`; returns its full
  // name.
  Result<std::string> WriteTemp(const std::string& path,
                                const std::string& bytes);

  std::string root_;
  uint64_t temp_counter_ = 0;
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_DIRECTORY_STORE_H_
