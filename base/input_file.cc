// The input reader (base/input_file.h).
#include "base/input_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "base/escape.h"

namespace memwal {
namespace {

std::string OpenProblem(const std::string& path, int error) {
  const std::string shown = Escaped(path);
  if (error == ELOOP) return shown + ": a symlink loop";
  if (error == EACCES) return shown + ": permission denied";
  if (error == ENOTDIR) return shown + ": a path component is not a directory";
  if (error == ENAMETOOLONG) return shown + ": name too long";
  return "cannot open " + shown + ": " + std::strerror(error);
}

// `path` with every symlink resolved, or the errno of the failure.
Result<std::string> Resolved(const std::string& path, int* error) {
  std::unique_ptr<char, decltype(&std::free)> real(
      ::realpath(path.c_str(), nullptr), &std::free);
  if (real == nullptr) {
    *error = errno;
    return Status::NotFound(path);
  }
  return std::string(real.get());
}

}  // namespace

namespace {

// Checks the descriptor `fd` (opened O_NONBLOCK) of `path`: a regular file of
// at most `max_bytes`; clears O_NONBLOCK. Closes it on refusal.
Result<int> CheckOpened(int fd, const std::string& path,
                        std::size_t max_bytes) {
  struct stat info;
  std::string problem;
  if (::fstat(fd, &info) != 0) {
    problem = OpenProblem(path, errno);
  } else if (!S_ISREG(info.st_mode)) {
    problem = Escaped(path) + ": not a regular file";
  } else if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    problem = Escaped(path) + ": " + std::to_string(info.st_size) +
              " bytes, more than such a file may hold (" +
              std::to_string(max_bytes) + ")";
  } else {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  if (problem.empty()) return fd;
  ::close(fd);
  return Status::InvalidArgument(problem);
}

// Reads the open file `fd` whole and closes it.
Result<std::string> ReadOpened(int fd, const std::string& path,
                               std::size_t max_bytes) {
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Status::IoError("cannot read " + Escaped(path) + ": " +
                             std::strerror(error));
    }
    if (n == 0) break;
    if (bytes.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return Status::InvalidArgument(Escaped(path) + ": grew past " +
                                     std::to_string(max_bytes) +
                                     " bytes while being read");
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

std::atomic<bool> force_walk{false};
// Set by WalkBeneath when the component it could not open is a symlink.
thread_local bool walk_met_symlink = false;

// openat2(RESOLVE_BENEATH): the kernel resolves `relative` (symlinks
// included) and fails with EXDEV if any step would leave `root_fd`. -1 with
// errno ENOSYS when the kernel (or a seccomp filter) has no openat2.
int OpenAt2Beneath(int root_fd, const char* relative, int flags) {
  if (force_walk.load()) {
    errno = ENOSYS;
    return -1;
  }
  struct open_how how = {};
  how.flags = static_cast<std::uint64_t>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const long fd =
        ::syscall(SYS_openat2, root_fd, relative, &how, sizeof(how));
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == EAGAIN || errno == EINTR) continue;       // a rename raced
    if (errno == EPERM || errno == E2BIG) errno = ENOSYS;  // filtered
    return -1;
  }
}

// Without openat2: one component at a time, each opened relative to the
// previous one with O_NOFOLLOW, so no symlink is followed at all (ELOOP) and
// ".." is refused (EXDEV): stricter than openat2, never looser.
int WalkBeneath(int root_fd, const std::string& relative, int flags) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t slash =
        std::min(relative.find('/', start), relative.size());
    const std::string part = relative.substr(start, slash - start);
    if (part == "..") {
      errno = EXDEV;
      return -1;
    }
    if (!part.empty() && part != ".") parts.push_back(part);
    start = slash + 1;
  }
  int at = ::dup(root_fd);
  if (at < 0) return -1;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const bool last = k + 1 == parts.size();
    const int next = ::openat(
        at, parts[k].c_str(),
        (last ? flags : O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC) |
            O_NOFOLLOW);
    const int error = errno;
    if (next < 0) {
      struct stat info;
      walk_met_symlink =
          ::fstatat(at, parts[k].c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(info.st_mode);
      ::close(at);
      errno = error;
      return -1;
    }
    ::close(at);
    at = next;
  }
  if (parts.empty()) {
    // The root itself.
    const int fd = ::openat(at, ".", flags);
    const int error = errno;
    ::close(at);
    errno = error;
    return fd;
  }
  return at;
}

// `relative` opened beneath `root_fd`, or -1 and errno.
int OpenBeneath(int root_fd, const std::string& relative, int flags) {
  walk_met_symlink = false;
  const std::string path = relative.empty() ? "." : relative;
  const int fd = OpenAt2Beneath(root_fd, path.c_str(), flags);
  if (fd >= 0 || errno != ENOSYS) return fd;
  return WalkBeneath(root_fd, relative, flags);
}

// The error of an open beneath `root_name` of `path` (its name for messages).
Status BeneathProblem(const std::string& root_name, const std::string& path,
                      int error) {
  if (error == ENOENT) return Status::NotFound("cannot open " + Escaped(path));
  if (walk_met_symlink)
    return Status::InvalidArgument(
        Escaped(path) +
        ": passes through a symlink, not followed (no openat2 here)");
  if (error == EXDEV) {
    // Where it would have led, for the message only (nothing is read there).
    int resolve_error = 0;
    Result<std::string> real = Resolved(path, &resolve_error);
    return Status::InvalidArgument(
        Escaped(path) + ": " +
        (real.ok() ? "resolves to " + Escaped(*real) + ", outside "
                   : std::string("leads outside ")) +
        Escaped(root_name) + "; not read");
  }
  return Status::InvalidArgument(OpenProblem(path, error));
}

}  // namespace

Result<int> OpenInputFile(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return Status::NotFound("cannot open " + Escaped(path));
    return Status::InvalidArgument(OpenProblem(path, errno));
  }
  return CheckOpened(fd, path, max_bytes);
}

Result<std::string> ReadInputFile(const std::string& path,
                                  std::size_t max_bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const int fd, OpenInputFile(path, max_bytes));
  return ReadOpened(fd, path, max_bytes);
}

Result<int> OpenRootDirectory(const std::string& root) {
  const int fd =
      ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) return fd;
  if (errno == ENOENT) return Status::NotFound("cannot open " + Escaped(root));
  return Status::InvalidArgument(OpenProblem(root, errno));
}

Result<std::string> ReadInputFileBeneath(const Beneath& root,
                                         const std::string& relative,
                                         std::size_t max_bytes) {
  const std::string path = root.name + "/" + relative;
  const int fd =
      OpenBeneath(root.fd, relative, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return BeneathProblem(root.name, path, errno);
  MEMWAL_ASSIGN_OR_RETURN(const int checked, CheckOpened(fd, path, max_bytes));
  return ReadOpened(checked, path, max_bytes);
}

Result<std::vector<std::string>> ListDirectoryBeneath(
    const Beneath& root, const std::string& relative) {
  const std::string path =
      relative.empty() ? root.name : root.name + "/" + relative;
  const int fd = OpenBeneath(root.fd, relative,
                             O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return BeneathProblem(root.name, path, errno);
  DIR* listing = ::fdopendir(fd);
  if (listing == nullptr) {
    const int error = errno;
    ::close(fd);
    return Status::IoError("cannot list " + Escaped(path) + ": " +
                           std::strerror(error));
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(listing);
  return names;
}

void ForceBeneathWalkForTesting(bool walk) { force_walk.store(walk); }

Status CheckWithin(const std::string& root, const std::string& path) {
  int error = 0;
  Result<std::string> real_root = Resolved(root, &error);
  if (!real_root.ok()) return Status::NotFound(OpenProblem(root, error));
  Result<std::string> real = Resolved(path, &error);
  if (!real.ok()) {
    if (error == ENOENT)
      return Status::NotFound("cannot open " + Escaped(path));
    return Status::InvalidArgument(OpenProblem(path, error));
  }
  const std::string& base = *real_root;
  const bool inside =
      *real == base || (real->size() > base.size() && real->starts_with(base) &&
                        (base == "/" || (*real)[base.size()] == '/'));
  if (inside) return Status::Ok();
  return Status::InvalidArgument(Escaped(path) + ": resolves to " +
                                 Escaped(*real) + ", outside " + Escaped(root) +
                                 "; not read");
}

Result<std::string> ReadInputFileWithin(const std::string& root,
                                        const std::string& path,
                                        std::size_t max_bytes) {
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (!path.starts_with(base + "/"))
    return Status::InvalidArgument(Escaped(path) + ": not a path under " +
                                   Escaped(root) + "; not read");
  MEMWAL_ASSIGN_OR_RETURN(const int fd, OpenRootDirectory(base));
  const Beneath beneath{.fd = fd, .name = base};
  Result<std::string> bytes =
      ReadInputFileBeneath(beneath, path.substr(base.size() + 1), max_bytes);
  ::close(fd);
  return bytes;
}

}  // namespace memwal
