// DirectoryStore; see directory_store.h for the crash-safety argument.
#include "impl/directory_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

namespace memwal::impl {
namespace {

namespace fs = std::filesystem;

Status ErrnoStatus(const std::string& what, int error) {
  return Status::IoError(what + ": " + std::strerror(error));
}

bool IsTempName(const std::string& relative) {
  const size_t slash = relative.rfind('/');
  const size_t start = slash == std::string::npos ? 0 : slash + 1;
  return relative.compare(start, 5, ".tmp-") == 0;
}

Status WriteAll(int fd, const std::string& bytes, const std::string& name) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus("write " + name, errno);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open " + dir, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync " + dir, error);
  return Status::Ok();
}

}  // namespace

Result<DirectoryStore> DirectoryStore::Open(const std::string& root) {
  std::error_code error;
  fs::create_directories(root, error);
  if (error) return Status::IoError("create " + root + ": " + error.message());
  if (!fs::is_directory(root, error))
    return Status::IoError(root + " is not a directory");
  return DirectoryStore(root);
}

Result<Blob> DirectoryStore::Get(const std::string& path) const {
  const std::string full = root_ + "/" + path;
  // O_NONBLOCK: opening a FIFO must not wait for a writer (refused below).
  const int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return Status::NotFound(path);
  if (fd < 0) return ErrnoStatus("open " + full, errno);
  // Untrusted input: only regular files, and none larger than any object a
  // table of this size holds (a FIFO or /dev/zero behind a name would
  // otherwise be read without end).
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::Corruption(full + ": not a regular file");
  }
  if (static_cast<uint64_t>(info.st_size) > kMaxObjectBytes) {
    ::close(fd);
    return Status::Corruption(full + ": " + std::to_string(info.st_size) +
                              " bytes, more than a table object may hold (" +
                              std::to_string(kMaxObjectBytes) + ")");
  }
  std::string bytes;
  char buffer[1 << 14];
  for (;;) {
    if (bytes.size() > kMaxObjectBytes) {  // grew while being read
      ::close(fd);
      return Status::Corruption(full + ": grew past " +
                                std::to_string(kMaxObjectBytes) + " bytes");
    }
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return ErrnoStatus("read " + full, error);
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return Blob(std::make_shared<const std::string>(std::move(bytes)));
}

Result<std::string> DirectoryStore::WriteTemp(const std::string& path,
                                              const std::string& bytes) {
  const fs::path target = fs::path(root_) / path;
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) return Status::IoError("create " + target.parent_path().string());
  const std::string temp =
      (target.parent_path() / (".tmp-" + std::to_string(::getpid()) + "-" +
                               std::to_string(temp_counter_++)))
          .string();
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create " + temp, errno);
  Status status = WriteAll(fd, bytes, temp);
  if (status.ok() && ::fsync(fd) != 0)
    status = ErrnoStatus("fsync " + temp, errno);
  ::close(fd);
  if (!status.ok()) {
    ::unlink(temp.c_str());
    return status;
  }
  return temp;
}

Status DirectoryStore::PutIfAbsent(const std::string& path, std::string bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string temp, WriteTemp(path, bytes));
  const std::string full = root_ + "/" + path;
  // link(2) fails with EEXIST when the name is taken: the put-if-absent commit
  // point.
  const int rc = ::link(temp.c_str(), full.c_str());
  const int error = errno;
  ::unlink(temp.c_str());
  if (rc != 0 && error == EEXIST) return Status::AlreadyExists(path);
  if (rc != 0) return ErrnoStatus("link " + full, error);
  return SyncDirectory(fs::path(full).parent_path().string());
}

Status DirectoryStore::Put(const std::string& path, std::string bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string temp, WriteTemp(path, bytes));
  const std::string full = root_ + "/" + path;
  if (::rename(temp.c_str(), full.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return ErrnoStatus("rename " + full, error);
  }
  return SyncDirectory(fs::path(full).parent_path().string());
}

Result<std::vector<std::string>> DirectoryStore::List(
    const std::string& prefix) const {
  std::vector<std::string> paths;
  std::error_code error;
  fs::recursive_directory_iterator it(root_, error), end;
  if (error) return Status::IoError("list " + root_ + ": " + error.message());
  for (; it != end; it.increment(error)) {
    if (error) return Status::IoError("list " + root_ + ": " + error.message());
    if (!it->is_regular_file(error)) continue;
    const std::string relative =
        fs::relative(it->path(), root_, error).generic_string();
    if (IsTempName(relative)) continue;
    if (relative.compare(0, prefix.size(), prefix) == 0)
      paths.push_back(relative);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

Status DirectoryStore::Delete(const std::string& path) {
  const std::string full = root_ + "/" + path;
  if (::unlink(full.c_str()) != 0) {
    if (errno == ENOENT) return Status::NotFound(path);
    return ErrnoStatus("unlink " + full, errno);
  }
  return Status::Ok();
}

}  // namespace memwal::impl
