// The one writer for every file the tool writes (design.md section 8: "never
// replaces what is not a regular file and never follows a symlink at its
// temporary name"), and the check that standard output took what was written.
//
// WriteOutputFile(path, contents):
//   1. refuses (InvalidArgument, one line) a `path` that exists and is not a
//      regular file: a FIFO, a device node, a directory or a symlink (a
//      symlink is refused even when it points at a regular file);
//   2. creates the temporary file in the same directory under an
//      unpredictable name (.NAME.tmp-XXXXXX, mkostemp: O_CREAT|O_EXCL, so a
//      planted file or symlink at that name makes creation fail instead of
//      being followed), mode 0644 minus the umask;
//   3. writes everything, checking every write, fsyncs and closes (checked);
//   4. renames it over `path` and fsyncs the directory.
// On any failure the temporary file is removed and `path` is unchanged.
// A writer holds an exclusive flock on its temporary until the rename, so a
// run that was killed (SIGKILL, power) leaves a temporary nobody holds: the
// first write into a directory (and MakeOutputDirectory) of every later run
// removes such stale temporaries there, once per directory per process: only
// names of this writer's pattern (.NAME.tmp- and 12 hex digits), only regular
// files, opened relative to the directory with O_NOFOLLOW (a symlink at such
// a name is left alone), only when their lock can be taken (a live writer's
// temporary is never touched).
// Two runs writing the same path use distinct temporary files; the last
// rename wins. Between the check of step 1 and the rename of step 4 another
// process may put something else at `path`; rename then replaces that entry
// itself (it never writes through it).
//
// Thread-safety: distinct calls may run in parallel.
#ifndef MEMWAL_BASE_OUTPUT_FILE_H_
#define MEMWAL_BASE_OUTPUT_FILE_H_

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "base/escape.h"  // Escaped, for one-line messages
#include "base/status.h"

namespace memwal {

// InvalidArgument when `path` exists and is not a regular file (symlinks
// included), IoError when it cannot be examined; OK when it is absent or a
// regular file.
Status CheckOutputPath(const std::string& path);

Status WriteOutputFile(const std::string& path, std::string_view contents);

// Creates the output directory `dir` (and its missing parents), the one rule
// for every --out, --html and --checkpoint directory: InvalidArgument when
// `dir` exists and is a symlink (even to a directory; corpus --out refused one
// and check --out followed it) or not a directory, IoError when it cannot be
// made.
Status MakeOutputDirectory(const std::string& dir);

// The same with the random part of the temporary names taken from
// `next_suffix` (tests plant files at the names it will return).
Status WriteOutputFile(const std::string& path, std::string_view contents,
                       const std::function<std::string()>& next_suffix);

// Flushes `stream` (stdout, say) and reports whether every byte written to it
// so far reached the operating system: IoError naming `what` otherwise (a full
// disk, a closed pipe, /dev/full).
Status FlushOutput(std::FILE* stream, std::string_view what);

}  // namespace memwal

#endif  // MEMWAL_BASE_OUTPUT_FILE_H_
