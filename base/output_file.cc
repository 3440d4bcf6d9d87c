// The output writer (base/output_file.h).
#include "base/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>
#include <vector>

namespace memwal {
namespace {

std::string Reason(int error) { return std::strerror(error); }

// The directory part of `path` ("." for a bare name) and its last component.
void SplitPath(const std::string& path, std::string* dir, std::string* name) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *name = path;
    return;
  }
  *dir = slash == 0 ? "/" : path.substr(0, slash);
  *name = path.substr(slash + 1);
}

// 12 hex digits from the kernel's random source, so that no other user can
// predict the temporary name (exclusive creation refuses it anyway).
std::string RandomSuffix() {
  unsigned char bytes[6] = {};
  std::size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    MEMWAL_ASSERT(n > 0);
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string suffix;
  for (unsigned char byte : bytes) {
    suffix += kHex[byte >> 4];
    suffix += kHex[byte & 15];
  }
  return suffix;
}

constexpr std::string_view kTemporaryInfix = ".tmp-";
constexpr std::size_t kSuffixDigits = 12;  // RandomSuffix

// Whether `name` is one of this writer's temporary names: "." NAME ".tmp-"
// and RandomSuffix's 12 lowercase hex digits.
bool IsWriterTemporary(std::string_view name) {
  const std::size_t tail = kTemporaryInfix.size() + kSuffixDigits;
  if (name.size() < 2 + tail || name[0] != '.') return false;
  if (name.substr(name.size() - tail, kTemporaryInfix.size()) !=
      kTemporaryInfix)
    return false;
  for (char c : name.substr(name.size() - kSuffixDigits)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Removes the temporaries in `dir` that no live writer holds: a writer holds
// an exclusive flock on its temporary from creation to rename, the kernel
// drops it when the writer dies (SIGKILL included), so a temporary whose lock
// can be taken was left by a dead run. Only regular files are looked at,
// opened with O_NOFOLLOW relative to the directory's descriptor; a symlink, a
// FIFO or anything else at such a name is left alone. Best effort: a
// directory that cannot be read is not swept.
void SweepDirectory(const std::string& dir) {
  const int dir_fd =
      ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
  if (dir_fd < 0) return;
  const int list_fd = ::dup(dir_fd);
  DIR* listing = list_fd >= 0 ? ::fdopendir(list_fd) : nullptr;
  if (listing == nullptr) {
    if (list_fd >= 0) ::close(list_fd);
    ::close(dir_fd);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) {
    if (IsWriterTemporary(entry->d_name)) names.emplace_back(entry->d_name);
  }
  ::closedir(listing);
  for (const std::string& name : names) {
    const int fd = ::openat(dir_fd, name.c_str(),
                            O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;  // a symlink (ELOOP), gone, unreadable
    struct stat opened, named;
    if (::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) &&
        ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        ::fstatat(dir_fd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        named.st_dev == opened.st_dev && named.st_ino == opened.st_ino) {
      (void)::unlinkat(dir_fd, name.c_str(), 0);
    }
    ::close(fd);  // drops the lock
  }
  ::close(dir_fd);
}

// SweepDirectory, once per directory per process.
void SweepOnce(const std::string& dir) {
  static std::mutex lock;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> guard(lock);
    if (!swept.insert(dir).second) return;
  }
  SweepDirectory(dir);
}

// Creates DIR/.NAME.tmp-RANDOM exclusively, never through a symlink, and
// holds an exclusive flock on it until it is closed (SweepDirectory's sign
// that its writer lives).
Result<int> CreateTemporary(const std::string& dir, const std::string& name,
                            const std::function<std::string()>& next_suffix,
                            std::string* temporary) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    *temporary =
        dir + "/." + name + std::string(kTemporaryInfix) + next_suffix();
    const int fd =
        ::open(temporary->c_str(),
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno != EEXIST)
        return Status::IoError("cannot write " + dir + "/" + name + ": " +
                               Reason(errno));
      continue;
    }
    // A sweeper may have taken the lock between the open and this flock
    // (and removed the file): then the file has no name left; make another.
    struct stat info;
    if (::flock(fd, LOCK_EX) == 0 && ::fstat(fd, &info) == 0 &&
        info.st_nlink == 0) {
      ::close(fd);
      continue;
    }
    return fd;
  }
  return Status::IoError("cannot create a temporary file in " + dir);
}

Status WriteAll(int fd, std::string_view contents, const std::string& path) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n =
        ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return Status::IoError("cannot write " + path + ": " +
                             Reason(n < 0 ? errno : ENOSPC));
    done += static_cast<std::size_t>(n);
  }
  MEMWAL_ASSERT(done == contents.size());
  if (::fsync(fd) != 0)
    return Status::IoError("cannot write " + path + ": " + Reason(errno));
  return Status::Ok();
}

// Best effort: a directory fsync makes the rename durable; file systems that
// cannot fsync a directory (EINVAL) still got a complete, renamed file.
void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

Status CheckOutputPath(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty output path");
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::IoError("cannot write " + path + ": " + Reason(errno));
  }
  if (S_ISREG(info.st_mode)) return Status::Ok();
  const char* what = S_ISLNK(info.st_mode)    ? "a symlink"
                     : S_ISDIR(info.st_mode)  ? "a directory"
                     : S_ISFIFO(info.st_mode) ? "a FIFO"
                     : S_ISCHR(info.st_mode)  ? "a character device"
                     : S_ISBLK(info.st_mode)  ? "a block device"
                     : S_ISSOCK(info.st_mode) ? "a socket"
                                              : "not a regular file";
  return Status::InvalidArgument("refusing to replace " + path + ": it is " +
                                 what + ", not a regular file");
}

Status WriteOutputFile(const std::string& path, std::string_view contents) {
  return WriteOutputFile(path, contents, &RandomSuffix);
}

Status WriteOutputFile(const std::string& path, std::string_view contents,
                       const std::function<std::string()>& next_suffix) {
  MEMWAL_RETURN_IF_ERROR(CheckOutputPath(path));
  std::string dir, name;
  SplitPath(path, &dir, &name);
  if (name.empty() || name == "." || name == "..")
    return Status::InvalidArgument("not a file name: " + path);
  SweepOnce(dir);
  std::string temporary;
  MEMWAL_ASSIGN_OR_RETURN(const int fd,
                          CreateTemporary(dir, name, next_suffix, &temporary));
  // The descriptor (and its flock) is held until the rename is done: a
  // sweeper must never see an unheld temporary of a live writer.
  Status status = WriteAll(fd, contents, path);
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0)
    status = Status::IoError("cannot write " + path + ": " + Reason(errno));
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    ::close(fd);
    return status;
  }
  // Written and fsynced (WriteAll) before the rename; a close that fails now
  // is still reported.
  if (::close(fd) != 0)
    return Status::IoError("cannot write " + path + ": " + Reason(errno));
  SyncDirectory(dir);
  return Status::Ok();
}

Status MakeOutputDirectory(const std::string& dir) {
  struct stat info;
  if (::lstat(dir.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      SweepOnce(dir);
      return Status::Ok();
    }
    return Status::InvalidArgument(
        "refusing to use " + Escaped(dir) + " as an output directory: it is " +
        (S_ISLNK(info.st_mode) ? "a symlink" : "not a directory"));
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return Status::IoError("cannot create " + Escaped(dir) + ": " +
                           error.message());
  return Status::Ok();
}

Status FlushOutput(std::FILE* stream, std::string_view what) {
  MEMWAL_ASSERT(stream != nullptr);
  const bool flushed = std::fflush(stream) == 0;
  if (flushed && !std::ferror(stream)) return Status::Ok();
  const int error = errno;
  return Status::IoError(
      "cannot write " + std::string(what) + ": " +
      (flushed ? std::string("write error") : Reason(error)));
}

}  // namespace memwal
