// `memwal-check variants`: every protocol version, read mode, gc mode and
// known-bug switch, each alone against the base configuration (the default
// one unless --protocol/--read/--gc say otherwise), run side by side at one
// bound and printed as one table (text, --json or --markdown).
//
// Per variant: a search (lockstep unless --model-only), the liveness check
// after a clean search (unless --no-liveness), and the counterexample's
// minimization (checker/cli/minimize.h). Every counterexample is written under
// --out DIR as <variant>/<invariant>.trace.json (as found) and
// <variant>/<invariant>.min.trace.json (minimized).
//
// Bounds per variant (the table's `run` column says them): a bug runs under
// the base protocol when its spec row applies to it, else under the first
// protocol the row names ("bit" -> derived); `read=single-index` and
// `bug=single-index-watermark` need two indexes to differ from `min`, so they
// run with indexes >= 2. A bug only the implementation expresses runs in
// lockstep with the bug switched on in the implementation alone (under env
// foreign when model::RequiredEnv says so); under --model-only its row reads
// "not run". Every verdict comes from a run of this invocation: a bug row is
// "violation" when the search finds it, else "not found" with what the search
// covered. Budgets are in states, so that a verdict is the same on any
// machine: a bug search stops after kBugSearchStates distinct states unless
// --max-states says otherwise ("not found", with the budget named). Wall-clock
// time is only a safety stop (kBugSafetySeconds, or --time-limit): a row it
// ends reads "budget", never "not found" or "ok".
#ifndef MEMWAL_CHECKER_CLI_VARIANTS_H_
#define MEMWAL_CHECKER_CLI_VARIANTS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "checker/cli/minimize.h"
#include "checker/engine/search.h"
#include "checker/lockstep/lockstep.h"

namespace memwal::checker::cli {

// One configuration to run and its role in the table.
struct Variant {
  std::string name{};  // "default", "protocol=legacy", "bug=NAME", ...
  std::string run{};   // what differs from the base, e.g. "advance, indexes=2"
  lockstep::LockstepSetup setup{};
  bool bug = false;  // a known-bug row: "violation" or "not found"
};

// How many distinct states a bug row searches when --max-states is not given.
inline constexpr uint64_t kBugSearchStates = 2'000'000;
// The wall-clock safety stop of a bug row when --time-limit is not given.
inline constexpr double kBugSafetySeconds = 900;

// The variants for `base`, in table order: default, protocols, read modes, gc
// modes, bugs (spec section 8 order).
std::vector<Variant> AllVariants(const model::Config& base);

// A search, liveness after a clean complete search, and minimization.
struct RunSettings {
  engine::Options search{};
  bool liveness = true;
  bool minimize = true;
  std::string out_dir{};          // empty: write nothing
  bool max_states_given = false;  // --max-states: no kBugSearchStates
  // The liveness pass's budget; 0: search.max_states.
  uint64_t liveness_max_states = 0;
};

struct VariantResult {
  engine::Verdict verdict = engine::Verdict::kOk;
  std::string invariant{};  // broken property, "" when none
  std::string detail{};
  uint64_t states = 0;
  double seconds = 0;                   // search + liveness
  std::vector<model::Action> found{};   // the trace as found
  std::optional<std::size_t> loop{};    // a lasso: found[*loop, end) cycles
  std::optional<std::size_t> window{};  // and found[*window, end) windowed
  std::optional<Minimized> minimized{};
  std::string trace_file{};
  std::string min_trace_file{};
  bool goal_missed = false;  // `invariant` is a goal never reached
  std::string stopped_by{};  // the budget that ended the search, "" if none
  engine::Stats stats{};
  std::string write_error{};  // why a trace file could not be written
};

// "ok", "violation", "incomplete" (as checker/engine/search.h's Name(Verdict),
// which the lockstep build may not link).
std::string VerdictText(engine::Verdict verdict);

VariantResult RunOne(const lockstep::LockstepSetup& setup,
                     const RunSettings& settings,
                     const std::string& out_subdir);

// One row of the table.
struct VariantRow {
  std::string variant{};
  std::string run{};
  std::string verdict{};  // ok, violation, incomplete, not found (a bug row
                          // whose search found nothing), not run (an
                          // implementation-only bug under --model-only)
  std::string invariant{};
  uint64_t states = 0;
  double seconds = 0;
  std::optional<std::size_t> steps{};         // minimized length
  std::optional<std::size_t> steps_before{};  // as found
  std::string trace_file{};   // the minimized trace file, else the one found;
                              // "" when none was written
  std::string write_error{};  // why a trace file could not be written
};

VariantRow RunVariant(const Variant& variant, const RunSettings& settings);

std::string VariantsText(const std::vector<VariantRow>& rows);
std::string VariantsMarkdown(const std::vector<VariantRow>& rows);
// An array of objects with keys variant, verdict, invariant, states, seconds,
// counterexample_steps (null when there is none) and trace_file (null when
// none was written), as checker/report/report.h's RenderVariantsPage reads them.
std::string VariantsJson(const std::vector<VariantRow>& rows);

// `memwal-check variants [check's bound/switch/budget options] [--only NAME]...
// [--json|--markdown] [--out DIR] [--expect NAME=VERDICT]... [--no-minimize]
// [--html DIR]`; --html writes DIR/variants.html and one page per trace.
int RunVariantsCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);
// Its row in the command table (checker/cli/commands.h).
std::string VariantsAbout();
std::vector<Flag> VariantsFlagTable();

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_VARIANTS_H_
