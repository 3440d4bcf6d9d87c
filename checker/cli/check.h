// The lockstep side of the command line: `check` in lockstep with the
// implementation (the default; --model-only keeps the model alone), its extra
// options, the summary (text or --json), counterexample files, and `replay`
// on both sides.
//
// Options added to `check` (all of check's options are one table,
// CheckFlagSet in checker/cli/cli.h):
//   --threads N          BFS/random workers (default: cores, at most 8); same
//   counts for any N
//   --mode bfs|dfs|random
//   --walks N --depth D  random walks: how many, and steps per walk
//   --memory-limit MB    stop (exit 3) when the resident set exceeds MB
//   --impl-bug NAME      switch a known bug on in the implementation only
//   --no-liveness        skip CompactedGenerationsEventuallyRetire, which is
//                        checked on the model graph after a clean bfs or dfs
//                        run (it costs about 3 s at small); --liveness
//                        turns it back on
//   --html DIR           write DIR/summary.html (state-space summary) and the
//                        counterexample's page (checker/report/report.h)
//   --continue           bfs: a violation does not end the search; every
//                        distinct broken invariant is reported with its
//                        shortest trace (--json: "violations", a list)
//
// Trace files, format version 2 (checker/report/trace.h's version 1 plus two keys):
//   "lockstep": true|false   whether the run drove the implementation
//   "impl_bugs": [NAME...]   bugs switched on in the implementation only
//   "step": N                the step whose state breaks the invariant
//   "detail": "..."          why: the differences, implementation vs model
//   "implementation_state": "..."  the implementation at that step, in model
//                            terms (the model's states are in the ITF file)
// Version 2 is written and read here; version 1 (no lockstep information)
// is refused as an older format, like any other version.
#ifndef MEMWAL_CHECKER_CLI_CHECK_H_
#define MEMWAL_CHECKER_CLI_CHECK_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "checker/cli/cli.h"
#include "checker/cli/expect.h"
#include "checker/engine/distributed.h"
#include "checker/engine/search.h"
#include "checker/engine/seen_set.h"
#include "checker/report/trace.h"

namespace memwal::checker::cli {

// The engine's options for `check` (CheckOptions and RunOptions as parsed).
engine::Options SearchOptionsOf(const CheckOptions& check,
                                const RunOptions& run);

// InvalidArgument (one line) for options that contradict each other:
// --model-only with --impl-bug, a bug that does not apply to the protocol
// (CheckBugsApply), --walks or --depth without --mode random.
Status RefuseContradictions(const CheckOptions& check, const RunOptions& run);

// One `check` run before it is reported: the options as run (env foreign
// switched on where a bug needs it), the search with liveness after a clean
// bfs/dfs run, and the counterexample files ("" when none was written).
struct CheckRun {
  CheckOptions check{};
  std::string env_note{};
  engine::SearchResult result{};
  std::string trace_file{};
  std::string itf_file{};
  // --continue: the trace and ITF files of every violation, in the order of
  // SearchResult::violations (the first is trace_file, itf_file).
  std::vector<std::pair<std::string, std::string>> files{};
  // A run of the level engine (--distributed, --checkpoint, --resume).
  std::optional<engine::DistributedStats> distributed{};
};

// Runs the search of `check` (the text header goes to `out` unless --json).
// A contradiction or an unwritable counterexample is an error.
Result<CheckRun> RunCheckSearch(const CheckOptions& check,
                                const RunOptions& run, std::ostream& out,
                                std::ostream& err);

// What the gate (checker/cli/expect.h) adds to a run's report: keys merged into
// the --json document, and lines printed after the text summary.
struct CheckExtras {
  nlohmann::json fields = nlohmann::json::object();
  std::string text{};
};

// Prints `done` (text or --json, with `extras`) and writes --html; returns the
// run's exit code, or 2 when a page cannot be written.
int ReportCheckRun(const CheckRun& done, const RunOptions& run,
                   const CheckExtras& extras, std::ostream& out,
                   std::ostream& err);

// Runs `check`: lockstep unless check.model_only. Returns the exit code.
int RunLockstepCheck(const CheckOptions& check, const RunOptions& run,
                     std::ostream& out, std::ostream& err);

// Runs `replay TRACE` on the model and (for a lockstep trace) the
// implementation, and reports the verdict. Exit 1 on a violation, 0 without,
// 2 for an unreadable, older-format or corrupt trace.
int RunLockstepReplay(const std::string& path, bool json, std::ostream& out,
                      std::ostream& err);

// `check` as the command line gives it: check's table plus the gate's
// --junit, --expect and --no-minimize (checker/cli/expect.h).
struct CheckCommand {
  CheckFlagSet set{};
  GateOptions gate{};
  std::vector<Flag> Flags();
};

// The rows of `check` and `replay` in the command table
// (checker/cli/commands.h): the flags and the runs.
std::vector<Flag> CheckFlagTable();
int RunCheckCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err);
int RunReplayCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

// The `check` command line that reproduces a run.
std::string LockstepCommandLine(const CheckOptions& check,
                                const RunOptions& run);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_CHECK_H_
