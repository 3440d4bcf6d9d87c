// The memwal-check command line: option parsing, help texts, and the two
// subcommands this layer runs (check, replay). main.cc only forwards argv here.
//
//   memwal-check check [options]     explore the model (lockstep joins later)
//   memwal-check replay TRACE        re-execute a trace file on the model
// Exit codes: 0 ok, 1 violation or missed goal, 2 bad usage or bad input, 3
// budget ran out.
#ifndef MEMWAL_CHECKER_CLI_CLI_H_
#define MEMWAL_CHECKER_CLI_CLI_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "checker/engine/search.h"
#include "model/config.h"

namespace memwal::checker::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIncomplete = 3;

// The search order and budgets of `check` as the command line gives them.
enum class SearchMode { kBfs, kDfs };
struct ExploreOptions {
  SearchMode mode = SearchMode::kBfs;
  uint64_t max_states =
      50'000'000;  // distinct states; reaching it ends the run incomplete
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

struct ReplayOptions {
  std::string trace_path{};
  bool json = false;
};

struct Command {
  enum class Kind { kHelp, kCheckHelp, kReplayHelp, kCheck, kReplay };
  Kind kind = Kind::kHelp;
  CheckOptions check{};
  ReplayOptions replay{};
};

// Parses argv[1..] (the program name excluded). Bad usage is InvalidArgument
// with one line.
Result<Command> ParseCommandLine(const std::vector<std::string>& args);

std::string MainHelp();
std::string CheckHelp();
std::string ReplayHelp();

// The `check` command line that reproduces `options` (model part only).
std::string CheckCommandLine(const CheckOptions& options);

// A bug switched on in `config` or in `impl_bugs` (model::BugBit values) that
// needs env foreign (model::RequiredEnv) switches it on in *config; returns the
// one-line note to print, or "" when nothing changed.
std::string EnableRequiredEnv(model::Config* config, uint32_t impl_bugs);

// Whether spec section 8's row `info` applies to `protocol`: its protocols
// column is "all", "bit" (derived and advance) or a list of protocol names.
bool BugApplies(const model::BugInfo& info, model::Protocol protocol);

// OK when every bug of config.bugs and `impl_bugs` applies to the protocol;
// else InvalidArgument naming the first that does not, in one line.
Status CheckBugsApply(const model::Config& config, uint32_t impl_bugs);

// Runs a parsed command; returns the exit code. Results go to `out`,
// diagnostics to `err`.
int RunCommand(const Command& command, std::ostream& out, std::ostream& err);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_CLI_H_
