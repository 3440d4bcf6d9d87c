// The CI gate: `check` with --junit FILE, --expect NAME=VERDICT and the
// counterexample minimized, plus the dispatch of the gate's subcommands
// (variants, minimize) for main.cc.
//
// --expect NAME=VERDICT pins an outcome. In `check`, NAME is an invariant, a
// goal, CompactedGenerationsEventuallyRetire, ImplementationMatchesModel, or
// `verdict` (the run's); in `variants`, NAME is a variant's name. VERDICT is
// any verdict the tool prints (ok, violation, incomplete, not found, not
// applicable, not run, budget), or an invariant's name (meaning: a violation
// of that invariant). In `check`, a NAME check does not decide is refused
// before the search starts. With expectations the exit code is 0 when every one
// is met and 1 otherwise; without, it is the run's.
#ifndef MEMWAL_CHECKER_CLI_EXPECT_H_
#define MEMWAL_CHECKER_CLI_EXPECT_H_

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace memwal::checker::cli {

struct Expectation {
  std::string name{};
  std::string verdict{};
};

// "NAME=VERDICT", split at the last '=' (variant names contain '=').
Result<Expectation> ParseExpectation(std::string_view text);

// OK when `name` is something `check` decides: `verdict`, an invariant, a
// goal, CompactedGenerationsEventuallyRetire or ImplementationMatchesModel;
// else InvalidArgument naming the misspelling, before any search starts.
Status CheckExpectationName(std::string_view name);

// Whether an outcome (verdict "ok"/"violation"/"incomplete"/..., and the
// broken invariant or "") meets `expected`.
bool Meets(const Expectation& expected, std::string_view verdict,
           std::string_view invariant);

// One named outcome of a run, for matching expectations.
struct NamedOutcome {
  std::string name{};
  std::string verdict{};
  std::string invariant{};
};

// The expectations not met by `outcomes`, one line each ("NAME: expected V,
// got W"); an expectation naming no outcome is unmet too.
std::vector<std::string> Unmet(const std::vector<Expectation>& expectations,
                               const std::vector<NamedOutcome>& outcomes);

// `check` with the gate's options (--junit FILE, --expect NAME=VERDICT,
// --no-minimize) plus every option of `check`. Returns the exit code.
int RunGateCheck(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);

// For main.cc: runs `variants ...`, `minimize ...`, and `check ...` when it
// carries --junit or --expect; nothing for any other command line.
std::optional<int> RunGateSubcommand(const std::vector<std::string>& args,
                                     std::ostream& out, std::ostream& err);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_EXPECT_H_
