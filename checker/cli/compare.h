// `memwal-check compare A B`: runs two switch sets on the same bounds, each
// through the one search engine (checker/engine/search.h), lockstep with the
// implementation unless --model-only, and prints them side by side: verdict,
// broken invariant, distinct states, transitions, goals reached, time and the
// shortest counterexample of each. Every figure comes from the two runs of the
// same invocation.
//
// A switch set is a comma-separated list of KEY=VALUE, with the spellings of
// `check`'s flags: protocol=, read=, gc=, env=, fence=, bug= (repeatable),
// impl-bug= (repeatable); "default" alone means no switch. For example
//   memwal-check compare protocol=derived protocol=derived,fence=data-pass
//       --model-only --commits 5 --generations 1 --markdown
// Every other option (bounds, --preset, --model-only, --seed, budgets,
// --threads, --no-liveness, --no-symmetry, --mode) applies to both runs.
// Output: a plain-text table, or --markdown (a GitHub table, for a pull
// request); --html DIR also writes DIR/compare.html.
// Exit: 0 when both searches completed (whatever their verdicts: the table is
// the result), 2 for bad usage, 3 when a budget stopped either run.
#ifndef MEMWAL_CHECKER_CLI_COMPARE_H_
#define MEMWAL_CHECKER_CLI_COMPARE_H_

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/flags.h"
#include "base/status.h"

namespace memwal::checker::cli {

// "protocol=derived,fence=data-pass" as `check` flags
// ("--protocol", "derived", "--fence", "data-pass"). InvalidArgument, one
// line, for an unknown key or a pair without '='.
Result<std::vector<std::string>> SwitchFlags(std::string_view set);

// args: the command line after "compare". Returns the exit code.
int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err);
// Its row in the command table (checker/cli/commands.h).
std::string CompareAbout();
std::vector<Flag> CompareFlagTable();

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_COMPARE_H_
