// The input reader (base/input_file.h).
#include "base/input_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

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

Result<int> OpenInputFile(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return Status::NotFound("cannot open " + Escaped(path));
    return Status::InvalidArgument(OpenProblem(path, errno));
  }
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

Result<std::string> ReadInputFile(const std::string& path,
                                  std::size_t max_bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const int fd, OpenInputFile(path, max_bytes));
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
  MEMWAL_RETURN_IF_ERROR(CheckWithin(root, path));
  return ReadInputFile(path, max_bytes);
}

}  // namespace memwal
