// The CI gate: `check` with --junit FILE, --expect NAME=VERDICT and the
// counterexample minimized (check's runner, checker/cli/check.h, comes here
// when either is given).
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

#include "base/flags.h"
#include "base/status.h"
#include "checker/cli/cli.h"

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

// The gate's options of `check`.
struct GateOptions {
  std::string junit_path{};
  std::vector<Expectation> expectations{};
  bool minimize = true;
  // Whether the run goes through the gate (--junit or --expect given).
  bool active() const { return !junit_path.empty() || !expectations.empty(); }
};

// --junit FILE, --expect NAME=VERDICT and --no-minimize, writing *options.
std::vector<Flag> GateFlags(GateOptions* options);

// `check` with the gate's options. Returns the exit code.
int RunGateCheck(const CheckOptions& check, const RunOptions& run,
                 const GateOptions& gate, std::ostream& out, std::ostream& err);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_EXPECT_H_
