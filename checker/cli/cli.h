// The options of `check` and `replay`: their flag tables (CheckFlagSet, the
// one every command that runs a search shares) and help texts, for the
// command table (checker/cli/commands.h). The runs are in checker/cli/check.h.
// Exit codes: 0 ok, 1 violation or missed goal, 2 bad usage or bad input, 3
// budget ran out.
#ifndef MEMWAL_CHECKER_CLI_CLI_H_
#define MEMWAL_CHECKER_CLI_CLI_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "checker/engine/distributed.h"
#include "checker/engine/search.h"
#include "model/config.h"

namespace memwal::checker::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIncomplete = 3;

// The budgets of `check` as the command line gives them.
struct ExploreOptions {
  uint64_t max_states =
      50'000'000;  // distinct states; reaching it ends the run incomplete
  // The liveness pass's budget: none unless --max-states is given (it keeps
  // one layer in memory, spec R74; --memory-limit bounds it).
  uint64_t liveness_max_states = UINT64_MAX;
  double time_limit_s = 0;  // 0: none
};

struct CheckOptions {
  model::Config config{};
  bool model_only = false;
  ExploreOptions explore{};
  uint64_t seed = 0;
  std::string out_dir = "memwal-out";
  bool json = false;
};

// The default worker count: the machine's cores, at most 8. Counts and traces
// do not depend on it (checker/engine/search.h), only the wall time does.
int DefaultThreads();

// The search and lockstep options of `check` (checker/cli/check.h).
struct RunOptions {
  // --mode; when not given (CheckFlagSet::Finish): dfs in lockstep, whose
  // memory is one path of Worlds (a violation is searched again breadth first
  // to its depth, so its trace is a shortest one), bfs with --model-only,
  // --continue, --distributed, --checkpoint or --resume.
  engine::Order order = engine::Order::kBfs;
  bool order_given = false;  // --mode was on the command line
  int threads = DefaultThreads();
  uint64_t walks = 1000;
  int depth = 30;
  uint64_t memory_limit_mb = 0;
  uint32_t impl_only_bugs = 0;  // model::BugBit values
  bool liveness = true;
  engine::Storage storage = engine::Storage::kFingerprint;
  bool symmetry = true;      // where the configuration allows it
  bool layered = true;       // liveness one layer at a time (spec R74)
  bool reduction = true;     // liveness flushes first (spec R75)
  std::string html_dir{};    // empty: no HTML pages
  bool walks_given = false;  // --walks or --depth was on the command line
  bool keep_going = false;   // --continue (bfs): every distinct violation
  // --distributed, --checkpoint, --resume (checker/engine/distributed.h).
  engine::ScaleOut scale_out{};
};

struct ReplayOptions {
  std::string trace_path{};
  bool json = false;
};

// Every option of `check`, as one table for base/flags.h: the switches, the
// bounds (a bound given beside --preset overrides the preset's, in any
// order), the budgets and the search and lockstep options. variants,
// compare, corpus and the gate take the same table and add their own flags.
// Not copyable: the table's actions write into this object.
class CheckFlagSet {
 public:
  CheckFlagSet() = default;
  CheckFlagSet(const CheckFlagSet&) = delete;
  CheckFlagSet& operator=(const CheckFlagSet&) = delete;

  std::vector<Flag> Flags();
  // After parsing: the bound overrides applied, the configuration checked.
  Status Finish();
  // The configuration flags alone (--protocol, --read, ..., --bug,
  // --impl-bug), for listing: compare's switch keys.
  static std::vector<Flag> ConfigFlagTable();

  CheckOptions check{};
  RunOptions run{};

 private:
  std::vector<Flag> ConfigFlags();
  std::vector<Flag> BoundFlags();
  std::vector<Flag> RunFlags();
  std::vector<Flag> SearchFlags();
  std::vector<Flag> ScaleOutFlags();

  model::Bounds overrides_{-1, -1, -1, -1, -1, -1, -1};
};

// Parses `check`'s options (`args` without the word "check") into *set and
// finishes it. Bad usage is InvalidArgument with one line.
Status ParseCheckFlags(const std::vector<std::string>& args, CheckFlagSet* set);

// The rows of `check` and `replay` in the command table
// (checker/cli/commands.h).
std::string CheckAbout();
std::string ReplayAbout();
std::vector<Flag> ReplayFlags(ReplayOptions* options);
std::vector<Flag> ReplayFlagTable();

// The `check --model-only` command line that reproduces `options`' model
// configuration and seed (checker/cli/check.h has the whole run's).
std::string CheckCommandLine(const CheckOptions& options);

// A bug switched on in `config` or in `impl_bugs` (model::BugBit values) that
// needs env foreign (model::RequiredEnv) switches it on in *config; returns the
// one-line note to print, or "" when nothing changed.
std::string EnableRequiredEnv(model::Config* config, uint32_t impl_bugs);

// OK when every bug of config.bugs and `impl_bugs` applies to the protocol;
// else InvalidArgument naming the first that does not, in one line.
Status CheckBugsApply(const model::Config& config, uint32_t impl_bugs);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_CLI_H_
