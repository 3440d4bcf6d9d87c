// Bounded reads and listings; see files.h.
#include "inspect/files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace memwal::inspect {
namespace {

namespace fs = std::filesystem;

Status PathProblem(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0) return Status::Ok();
  if (errno == ENOENT) return Status::NotFound(path + ": no such file");
  return Status::IoError(path + ": " + PathErrorText(errno));
}

}  // namespace

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
  if (::stat(path.c_str(), &info) != 0) return PathErrorText(errno);
  if (S_ISDIR(info.st_mode)) return "";
  if (S_ISREG(info.st_mode)) return "a regular file, not a directory";
  return "not a directory";
}

Result<std::string> ReadWholeFile(const std::string& path) {
  MEMWAL_RETURN_IF_ERROR(PathProblem(path));
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error) return Status::IoError(path + ": " + error.message());
  if (!fs::is_regular_file(status))
    return Status::IoError(path + ": not a regular file");
  const uintmax_t size = fs::file_size(path, error);
  if (error) return Status::IoError(path + ": " + error.message());
  if (size > kFileBytesMax) {
    return Status::Corruption(
        path + ": " + std::to_string(size) + " bytes, larger than " +
        std::to_string(kFileBytesMax) + " (not a manifest)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::IoError(path + ": cannot open (" + PathErrorText(errno) +
                           ")");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<uintmax_t>(in.gcount()) != size) {
    return Status::IoError(path + ": short read");
  }
  return bytes;
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
  return fs::is_directory(path, error);
}

}  // namespace memwal::inspect
