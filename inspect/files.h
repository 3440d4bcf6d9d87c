// Read-only access to a table directory for inspect/: bounded file reads and
// sorted listings through std::filesystem's error_code overloads (no
// exceptions). inspect/ never writes, so it does not use impl::DirectoryStore,
// whose Open creates a missing root.
#ifndef MEMWAL_INSPECT_FILES_H_
#define MEMWAL_INSPECT_FILES_H_

#include <string>
#include <vector>

#include "base/status.h"

namespace memwal::inspect {

// While one lives on a thread, every read and listing of this file on that
// thread is confined to `table_dir`: it opens the directory once and every
// read or listing below it is opened relative to that descriptor
// (base/input_file.h: openat2 RESOLVE_BENEATH, or a component-by-component
// O_NOFOLLOW walk), so a path that would lead outside it, symlinks included,
// is refused, never read, even when a symlink is swapped in while the table
// is read (issue 42: a version manifest symlinked to a file outside the table,
// _versions symlinked to another table's). Inspect() makes one; validate's
// LoadTable makes its own.
class TableConfinement {
 public:
  explicit TableConfinement(const std::string& table_dir);
  ~TableConfinement();
  TableConfinement(const TableConfinement&) = delete;
  TableConfinement& operator=(const TableConfinement&) = delete;

 private:
  std::string previous_;
  int previous_fd_;
};

// Files larger than this are refused as corrupt: no Lance manifest comes near
// it.
inline constexpr size_t kFileBytesMax = size_t{256} << 20;

// The whole file, through the shared reader (base/input_file.h: no blocking
// open, regular files only). NotFound if missing, IoError if unreadable, not a
// regular file, too large or outside the confining table directory.
Result<std::string> ReadWholeFile(const std::string& path);

struct DirEntry {
  std::string name;
  bool is_directory = false;
};
// Entries of `dir`, by name. NotFound if `dir` is not a directory, IoError if
// it resolves outside the confining table directory.
Result<std::vector<DirEntry>> ListDirectory(const std::string& dir);
bool IsDirectory(const std::string& path);

// Why `path` is not a readable directory: "" when it is one, else "a regular
// file, not a directory", "not a directory", "a symlink loop", "permission
// denied", "No such file or directory" (strerror for the rest), "a symlink to
// outside the table directory".
std::string NotADirectory(const std::string& path);
// The words for an errno of stat or open on a path (as NotADirectory).
std::string PathErrorText(int error);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_FILES_H_
