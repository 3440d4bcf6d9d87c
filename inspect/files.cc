// Bounded reads and listings; see files.h.
#include "inspect/files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace memwal::inspect {

namespace fs = std::filesystem;

Result<std::string> ReadWholeFile(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status))
    return Status::NotFound(path + ": no such file");
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
  if (!in) return Status::IoError(path + ": cannot open");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<uintmax_t>(in.gcount()) != size) {
    return Status::IoError(path + ": short read");
  }
  return bytes;
}

Result<std::vector<DirEntry>> ListDirectory(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error))
    return Status::NotFound(dir + ": no such directory");
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
