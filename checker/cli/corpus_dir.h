// The corpus directory (`memwal-check corpus --out DIR`): what may already be
// in it, how a partial one is resumed or replaced, and the completeness
// marker written last.
//
// A corpus directory holds json/, bin/ and, once the run ended, exactly one
// marker: DIR/COMPLETE (every entry asked for was written) or DIR/INCOMPLETE
// (a budget or a signal stopped the run; its first line says which). A
// directory with json/ or bin/ and no COMPLETE is partial: an interrupted run
// (killed before it could write INCOMPLETE) or a stopped one.
//   new (default)  DIR must be absent or empty.
//   --resume       DIR must be a corpus directory; the run is deterministic,
//                  so it rebuilds the same entries, checks that every file
//                  already there holds exactly what this run would write (else
//                  it refuses: other options or seed), and writes the rest.
//   --force        DIR must be a corpus directory (nothing but json/, bin/ and
//                  the markers); its contents are removed first. Anything else
//                  in DIR is refused, never deleted.
// Stray temporary files (.NAME.tmp-XXXXXX, base/output_file.h) in DIR, json/
// and bin/ are removed by --resume and --force.
#ifndef MEMWAL_CHECKER_CLI_CORPUS_DIR_H_
#define MEMWAL_CHECKER_CLI_CORPUS_DIR_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace memwal::checker::cli {

enum class CorpusDirMode { kNew, kResume, kForce };

inline constexpr std::string_view kCompleteMarker = "COMPLETE";
inline constexpr std::string_view kIncompleteMarker = "INCOMPLETE";

// What WriteCorpusFiles would refuse about `dir` itself (nothing changes on
// disk): InvalidArgument with one line.
Status CheckCorpusDirectory(const std::string& dir, CorpusDirMode mode);

// (path relative to the corpus directory, contents), e.g. ("bin/entry-0000",
// bytes).
using CorpusFiles = std::vector<std::pair<std::string, std::string>>;

// Checks `dir` against `mode`; for kResume checks that every file of `files`
// already there holds exactly its contents (before anything changes). Then,
// for kForce, empties `dir`; removes any marker (a marker is only ever
// written last) and stray temporaries; creates json/ and bin/; and writes the
// files (kResume: only the missing ones).
Status WriteCorpusFiles(const std::string& dir, const CorpusFiles& files,
                        CorpusDirMode mode);

// Writes DIR/COMPLETE (when `why_incomplete` is empty) or DIR/INCOMPLETE
// holding `why_incomplete` then `summary`.
Status WriteCorpusMarker(const std::string& dir,
                         std::string_view why_incomplete,
                         std::string_view summary);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_CORPUS_DIR_H_
