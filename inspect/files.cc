// Bounded reads and listings; see files.h.
#include "inspect/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/input_file.h"

namespace memwal::inspect {
namespace {

namespace fs = std::filesystem;

// The table directory reads on this thread are confined to ("" for none),
// and its descriptor (-1 when it could not be opened: every read is then
// refused).
thread_local std::string confined_to;
thread_local int confined_fd = -1;

constexpr std::string_view kOutside =
    "a symlink to outside the table directory";

bool Outside(const std::string& path) {
  return !confined_to.empty() &&
         CheckWithin(confined_to, path).code() == StatusCode::kInvalidArgument;
}

// `path` relative to the confining directory: the part after "TABLE/".
// IoError for a path not spelled under it (every path inspect and validate
// read is TABLE + "/" + a name).
Result<std::string> RelativeToTable(const std::string& path) {
  if (path == confined_to) return std::string();
  if (!path.starts_with(confined_to + "/"))
    return Status::IoError(path + ": not a path under " + confined_to +
                           "; not read");
  std::string relative = path.substr(confined_to.size() + 1);
  while (relative.starts_with("/")) relative.erase(0, 1);
  return relative;
}

}  // namespace

TableConfinement::TableConfinement(const std::string& table_dir)
    : previous_(confined_to), previous_fd_(confined_fd) {
  std::string dir = table_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  confined_to = dir;
  const Result<int> fd = OpenRootDirectory(dir);
  confined_fd = fd.ok() ? *fd : -1;
}

TableConfinement::~TableConfinement() {
  if (confined_fd >= 0) ::close(confined_fd);
  confined_to = previous_;
  confined_fd = previous_fd_;
}

std::string PathErrorText(int error) {
  switch (error) {
    case ELOOP:
      return "a symlink loop";
    case EACCES:
      return "permission denied";
    case ENOTDIR:
      return "a path component is not a directory";
    case ENAMETOOLONG:
      return "name too long";
    default:
      return std::strerror(error);
  }
}

std::string NotADirectory(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && Outside(path))
    return std::string(kOutside);
  if (::stat(path.c_str(), &info) != 0) return PathErrorText(errno);
  if (S_ISDIR(info.st_mode)) return "";
  if (S_ISREG(info.st_mode)) return "a regular file, not a directory";
  return "not a directory";
}

Result<std::string> ReadWholeFile(const std::string& path) {
  const auto read = [&path]() -> Result<std::string> {
    if (confined_to.empty()) return ReadInputFile(path, kFileBytesMax);
    if (confined_fd < 0)
      return Status::IoError(confined_to + ": cannot be opened; not read");
    MEMWAL_ASSIGN_OR_RETURN(const std::string relative, RelativeToTable(path));
    return ReadInputFileBeneath(Beneath{.fd = confined_fd, .name = confined_to},
                                relative, kFileBytesMax);
  };
  Result<std::string> bytes = read();
  if (bytes.ok() || bytes.status().code() == StatusCode::kNotFound)
    return bytes;
  return Status::IoError(bytes.status().message());
}

Result<std::vector<DirEntry>> ListDirectory(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    const std::string why = NotADirectory(dir);
    if (why == PathErrorText(ENOENT))
      return Status::NotFound(dir + ": no such directory");
    return Status::IoError(dir + ": " + why);
  }
  std::vector<DirEntry> entries;
  if (!confined_to.empty()) {
    // Listed through a descriptor opened beneath the table (input_file.h);
    // whether an entry is a directory is only a hint: whatever is read
    // below it is opened beneath the table again.
    if (confined_fd < 0)
      return Status::IoError(confined_to + ": cannot be opened; not read");
    MEMWAL_ASSIGN_OR_RETURN(const std::string relative, RelativeToTable(dir));
    const Beneath table{.fd = confined_fd, .name = confined_to};
    const Result<std::vector<std::string>> names =
        ListDirectoryBeneath(table, relative);
    if (!names.ok()) {
      if (names.status().code() == StatusCode::kNotFound)
        return Status::NotFound(dir + ": no such directory");
      return Status::IoError(names.status().message());
    }
    for (const std::string& name : *names)
      entries.push_back(DirEntry{name, IsDirectory(dir + "/" + name)});
  } else {
    fs::directory_iterator it(dir, error);
    const fs::directory_iterator end;
    for (; !error && it != end; it.increment(error)) {
      std::error_code kind_error;
      entries.push_back(DirEntry{it->path().filename().string(),
                                 it->is_directory(kind_error)});
    }
    if (error) return Status::IoError(dir + ": " + error.message());
  }
  std::sort(
      entries.begin(), entries.end(),
      [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

bool IsDirectory(const std::string& path) {
  std::error_code error;
  return fs::is_directory(path, error) && !Outside(path);
}

}  // namespace memwal::inspect
