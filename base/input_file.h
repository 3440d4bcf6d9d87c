// The one reader for every file the tool reads (traces, checkpoints, corpus
// entries, variants rows, Lance tables), the counterpart of
// base/output_file.h: a file is opened without blocking (O_NONBLOCK, so a FIFO
// or a device never hangs the open), checked to be a regular file on the
// descriptor it was opened as (fstat, so what is read is what was checked),
// bounded in size, and read whole with every read checked.
//
// OpenInputFile / ReadInputFile(path, max_bytes, what):
//   NotFound         the path does not exist ("cannot open PATH");
//   InvalidArgument  a FIFO, device, socket or directory ("PATH: not a
//                    regular file"), a symlink loop, a component that is not
//                    a directory, permission denied, more than `max_bytes`;
//   IoError          a read failed.
// Messages are one line; the path is escaped (base/escape.h).
//
// Reading beneath a root (inspect and validate read a table's files so, so a
// manifest symlinked to /etc/passwd or a _versions symlinked to another table
// is never read): the root directory is opened once, and every file or
// directory below it is opened relative to that descriptor, so what is
// checked is what is opened (no resolve-then-open window in which a symlink
// can be swapped in):
//   - with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) (Linux 5.6+):
//     symlinks that stay inside the root are followed; one that leads out,
//     an absolute one, or ".." past the root fails with "PATH: resolves to
//     X, outside ROOT; not read" (InvalidArgument);
//   - where openat2 is missing (ENOSYS, or refused by a seccomp filter), one
//     component at a time with openat(O_NOFOLLOW): no symlink is followed at
//     all ("a symlink loop": ELOOP, or "a path component is not a
//     directory") and ".." is refused; stricter, never looser.
// CheckWithin resolves a path and says whether it lands inside the root: for
// messages and for questions (is this a directory?), never before a read.
//
// Thread-safety: distinct calls may run in parallel.
#ifndef MEMWAL_BASE_INPUT_FILE_H_
#define MEMWAL_BASE_INPUT_FILE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"

namespace memwal {

// An open descriptor (O_RDONLY, O_CLOEXEC; O_NONBLOCK cleared once the file is
// known to be regular) the caller closes.
Result<int> OpenInputFile(const std::string& path, std::size_t max_bytes);

Result<std::string> ReadInputFile(const std::string& path,
                                  std::size_t max_bytes);

// OK when `path` resolves (symlinks included) to `root` or below it; NotFound
// when it does not exist; InvalidArgument when it resolves outside.
Status CheckWithin(const std::string& root, const std::string& path);

// A root directory's descriptor and its name for messages. The owner closes
// `fd`.
struct Beneath {
  int fd = -1;
  std::string name;
};
// The root directory, opened (following symlinks: the user named it).
Result<int> OpenRootDirectory(const std::string& root);
// The file at `relative` (to root.fd), as ReadInputFile reads it.
Result<std::string> ReadInputFileBeneath(const Beneath& root,
                                         const std::string& relative,
                                         std::size_t max_bytes);
// The names in the directory at `relative` ("" for the root), unsorted,
// without "." and "..".
Result<std::vector<std::string>> ListDirectoryBeneath(
    const Beneath& root, const std::string& relative);
// For tests: take the openat(O_NOFOLLOW) walk even where openat2 exists.
void ForceBeneathWalkForTesting(bool walk);

// `path`, which must be ROOT/..., read beneath `root` (ReadInputFileBeneath).
Result<std::string> ReadInputFileWithin(const std::string& root,
                                        const std::string& path,
                                        std::size_t max_bytes);

}  // namespace memwal

#endif  // MEMWAL_BASE_INPUT_FILE_H_
