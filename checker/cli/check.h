// The lockstep side of the command line: `check` in lockstep with the
// implementation (the default; --model-only keeps the model alone), its extra
// options, the summary (text or --json), counterexample files, and `replay`
// on both sides.
//
// Options added to `check` (parsed by ParseLockstepFlag):
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
//                        counterexample's page (checker/report.h)
//
// Trace files, format version 2 (checker/trace.h's version 1 plus two keys):
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
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "checker/cli/cli.h"
#include "checker/engine/search.h"
#include "checker/engine/seen_set.h"
#include "checker/report/trace.h"

namespace memwal::checker::cli {

// The default worker count: the machine's cores, at most 8. Counts and traces
// do not depend on it (checker/engine/search.h), only the wall time does.
int DefaultThreads();

// What `check` needs beyond CheckOptions.
struct RunOptions {
  engine::Order order = engine::Order::kBfs;
  int threads = DefaultThreads();
  uint64_t walks = 1000;
  int depth = 30;
  uint64_t memory_limit_mb = 0;
  uint32_t impl_only_bugs = 0;  // model::BugBit values
  bool liveness = true;
  engine::Storage storage = engine::Storage::kFingerprint;
  bool symmetry = true;      // where the configuration allows it
  std::string html_dir{};    // empty: no HTML pages
  bool walks_given = false;  // --walks or --depth was on the command line
};

// The engine's options for `check` (CheckOptions and RunOptions as parsed).
engine::Options SearchOptionsOf(const CheckOptions& check,
                                const RunOptions& run);

// Parses one of the options above; false when `flag` is not one. `value`
// returns the flag's argument (or an error when it is missing).
using FlagValue = std::function<Result<std::string>(std::string_view flag)>;
Result<bool> ParseLockstepFlag(std::string_view flag, const FlagValue& value,
                               RunOptions* options);

// Help lines for the options above.
std::string LockstepHelp();

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
};

// Runs the search of `check` (the text header goes to `out` unless --json).
// A contradiction or an unwritable counterexample is an error.
Result<CheckRun> RunCheckSearch(const CheckOptions& check,
                                const RunOptions& run, std::ostream& out,
                                std::ostream& err);

// What the gate (checker/expect.h) adds to a run's report: keys merged into
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

// The whole command line (argv without the program name): the options above
// are taken out first, the rest goes to ParseCommandLine (checker/cli.h);
// `check`, `replay` and `check --help` run here, everything else through
// RunCommand (checker/cli.h).
int RunMemwalCheck(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

// The `check` command line that reproduces a run.
std::string LockstepCommandLine(const CheckOptions& check,
                                const RunOptions& run);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_CHECK_H_
