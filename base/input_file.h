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
// ReadInputFileWithin(root, path, ...) also refuses (InvalidArgument, "PATH:
// outside ROOT") a path that, with every symlink resolved, is not `root`
// itself or below it: inspect and validate read a table's files this way, so
// a manifest symlinked to /etc/passwd or a _versions symlinked to another
// table is never read. CheckWithin does the same check for a directory before
// it is listed.
//
// Thread-safety: distinct calls may run in parallel.
#ifndef MEMWAL_BASE_INPUT_FILE_H_
#define MEMWAL_BASE_INPUT_FILE_H_

#include <cstddef>
#include <string>

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

Result<std::string> ReadInputFileWithin(const std::string& root,
                                        const std::string& path,
                                        std::size_t max_bytes);

}  // namespace memwal

#endif  // MEMWAL_BASE_INPUT_FILE_H_
