// Bounded reads and listings; see files.h.
#include "inspect/files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/input_file.h"

namespace memwal::inspect {
namespace {

namespace fs = std::filesystem;

// The table directory reads on this thread are confined to ("" for none).
thread_local std::string confined_to;

constexpr std::string_view kOutside =
    "a symlink to outside the table directory";

// OK, or IoError when `path` resolves outside the confining directory.
Status Confined(const std::string& path) {
  if (confined_to.empty()) return Status::Ok();
  const Status within = CheckWithin(confined_to, path);
  if (within.ok() || within.code() == StatusCode::kNotFound)
    return Status::Ok();
  return Status::IoError(within.message());
}

bool Outside(const std::string& path) {
  return !confined_to.empty() &&
         CheckWithin(confined_to, path).code() == StatusCode::kInvalidArgument;
}

}  // namespace

TableConfinement::TableConfinement(const std::string& table_dir)
    : previous_(confined_to) {
  confined_to = table_dir;
}

TableConfinement::~TableConfinement() { confined_to = previous_; }

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
  MEMWAL_RETURN_IF_ERROR(Confined(path));
  Result<std::string> bytes = ReadInputFile(path, kFileBytesMax);
  if (bytes.ok() || bytes.status().code() == StatusCode::kNotFound)
    return bytes;
  return Status::IoError(bytes.status().message());
}

Result<std::vector<DirEntry>> ListDirectory(const std::string& dir) {
  MEMWAL_RETURN_IF_ERROR(Confined(dir));
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    const std::string why = NotADirectory(dir);
    if (why == PathErrorText(ENOENT))
      return Status::NotFound(dir + ": no such directory");
    return Status::IoError(dir + ": " + why);
  }
  std::vector<DirEntry> entries;
  fs::directory_iterator it(dir, error);
  const fs::directory_iterator end;
  for (; !error && it != end; it.increment(error)) {
    std::error_code kind_error;
    entries.push_back(
        DirEntry{it->path().filename().string(), it->is_directory(kind_error)});
  }
  if (error) return Status::IoError(dir + ": " + error.message());
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
