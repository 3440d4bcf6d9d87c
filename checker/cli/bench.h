// `memwal-check bench` (memwal-check issue 8): our model-only search side by
// side with SPIN's compiled verifier on a Promela rendition of the same model
// (bench/spin/memwal.pml), in one run, as ratios; plus the lockstep search's
// transitions per second and where its time goes.
//
// PromelaModel() instantiates the template for one config: the bounds and
// variant switches as #defines, and one `do` option per (action, parameters)
// within the bounds, in the model's enumeration order. SPIN's "states stored"
// is our distinct-state count plus one (the state before the initializing
// d_step; see the template's header). RunSpin() builds and runs `pan` in a
// work directory through the shell (spin and cc from PATH).
#ifndef MEMWAL_CHECKER_CLI_BENCH_H_
#define MEMWAL_CHECKER_CLI_BENCH_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "model/config.h"

namespace memwal::checker::cli {

// SPIN counts one state more than we do: the one before Init.
inline constexpr uint64_t kSpinStateOffset = 1;

// The complete Promela model of `config`. REQUIRES: CheckConfig(config) ok.
std::string PromelaModel(const model::Config& config);

struct SpinOptions {
  std::string work_dir;                 // created if missing; pan is built here
  std::string cflags = "-O2 -DSAFETY";  // how pan.c is compiled
  bool all_errors = false;  // pan -c0: continue past errors, report each one
  int hash_log2 = 0;        // pan -w; 0: pan's default
};

struct SpinRun {
  uint64_t states_stored = 0;
  uint64_t errors = 0;
  double seconds = 0;       // pan's own "elapsed time" (the search)
  double wall_seconds = 0;  // the pan process, start to end
  double state_mb = 0;      // "actual memory usage for states"
  double hash_mb = 0;       // "memory used for hash table"
  // Invariant names of the violated assertions, in the order pan met them.
  std::vector<std::string> violated;
};

// True when `spin` and `cc` are on PATH.
bool SpinAvailable();

// Writes the model, runs spin -a, compiles and runs pan. An error when a tool
// is missing or fails, or when pan's report cannot be read.
Result<SpinRun> RunSpin(const model::Config& config,
                        const SpinOptions& options);

// memwal-check bench [--preset P] [--reps N] [--threads N] [--work-dir D]
// [--json]: exit 0, or 2 with one line on err (bad usage, SPIN missing).
int RunBenchCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err);
// Its row in the command table (checker/cli/commands.h).
std::string BenchAbout();
std::vector<Flag> BenchFlagTable();

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_BENCH_H_
