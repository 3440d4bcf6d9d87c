// The one reader of trace files (format version 2, checker/cli/check.h),
// shared by `replay`, `minimize`, `report` and `corpus --include`, so that a
// trace is valid for all of them or for none (design.md section 8: traces
// from disk are untrusted).
//
// What it refuses, each with a one-line InvalidArgument (NotFound for a
// missing file):
//   - a path that is not a regular file, or a file of more than
//     kTraceFileBytesMax bytes;
//   - anything that is not strict JSON, a duplicate key in any object, nesting
//     deeper than kTraceDepthMax, a step that is larger than kStepValuesMax
//     JSON values, more than kTraceStepsMax steps, or more than
//     kOtherValuesMax JSON values outside the steps;
//   - anything missing, extra, mistyped (version 2.0, step -1, a non-string in
//     impl_bugs) or from another format version.
// Memory: the file is parsed as a stream (never held whole); each step is
// turned into a model::Action as soon as it is read, so the reader holds the
// trace's strings, at most kTraceStepsMax actions and a bounded number of
// other JSON values. Measured peak: 191 MB resident for a 63 MiB trace that is
// one long "detail" string (the parser's token buffer grows by doubling), 72
// MB for 63 MiB of whitespace, 8 MB for 63 MiB of steps (refused at
// kTraceStepsMax), 7 MB for 60 MiB of nesting (refused at kTraceDepthMax).
// Messages never echo the trace's bytes raw: control characters and
// non-ASCII bytes are escaped (base/output_file.h's Escaped), so an error
// stays one line and reaches no terminal as an escape sequence.
#ifndef MEMWAL_CHECKER_REPORT_TRACE_READER_H_
#define MEMWAL_CHECKER_REPORT_TRACE_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "checker/report/trace.h"

namespace memwal::checker::report {

inline constexpr std::uintmax_t kTraceFileBytesMax = 64u << 20;
// Ten times the longest trace a search writes (a random walk of --depth
// 10000 at most).
inline constexpr std::size_t kTraceStepsMax = 100000;
inline constexpr int kTraceDepthMax = 16;
inline constexpr std::size_t kStepValuesMax = 256;
inline constexpr std::size_t kOtherValuesMax = 4096;

// Reads and validates the trace file at `path`.
Result<LockstepTrace> ReadTraceFile(const std::string& path);

// The same for a trace's text.
Result<LockstepTrace> ReadTraceText(std::string_view text);

}  // namespace memwal::checker::report

#endif  // MEMWAL_CHECKER_REPORT_TRACE_READER_H_
