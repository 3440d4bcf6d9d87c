// Counterexample minimization: delta debugging over a trace's actions and
// their parameters, re-checked on the model and (for a lockstep trace) the
// implementation at every try.
//
// A try is accepted when its trace replays (every step enabled in the model)
// and its first finding is the same invariant as the original's; the accepted
// trace is cut after that finding. For the liveness property
// CompactedGenerationsEventuallyRetire a try is accepted when no safety
// finding occurs and the last state has no fair continuation that retires.
//
// Steps are handled per transaction: a Commit is tied to the begin action of
// the transaction it commits (not to its slot number), so dropping a begin
// drops its commits, and the slots of later commits are renumbered. The passes,
// repeated until none makes progress:
//   1. ddmin over the steps (chunks of halving size, then single steps);
//   2. each transaction as a whole (its begin and its commits);
//   3. lower parameters: every shard, generation, fragment, index and version
//      number of a step, down to 0 (or 1 for versions); marker true -> false;
//   4. lower bounds: shards, generations, fragments, indexes, commits,
//      inflight, one at a time, as low as the trace still replays.
// The result is 1-minimal: dropping any single step (or transaction) no longer
// breaks the same invariant.
#ifndef MEMWAL_CHECKER_CLI_MINIMIZE_H_
#define MEMWAL_CHECKER_CLI_MINIMIZE_H_

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "checker/lockstep/lockstep.h"
#include "model/actions.h"

namespace memwal::checker::cli {

struct MinimizeInput {
  lockstep::LockstepSetup setup{};
  bool lockstep = true;  // re-check on the implementation too
  std::string invariant{};
  std::vector<model::Action> trace{};
  // A lasso (liveness): trace[*loop, end) is the cycle. Its stem is already
  // a shortest path and its cycle a chain of shortest paths inside the SCC
  // (checker/engine/fair_cycles.h); Minimize checks it and keeps it.
  std::optional<std::size_t> loop{};
  std::optional<std::size_t> window{};
};

struct Minimized {
  lockstep::LockstepSetup setup{};  // bounds possibly lowered
  std::vector<model::Action> trace{};
  std::size_t steps_before = 0;
  std::size_t steps_after = 0;
  int tries = 0;  // replays run
  std::optional<std::size_t> loop{};
  std::optional<std::size_t> window{};
};

// The number of steps after which `trace` breaks `invariant` first (see the
// file comment), or nothing when it does not replay or breaks another
// invariant first, or none.
std::optional<std::size_t> BreaksAt(const lockstep::LockstepSetup& setup,
                                    bool lockstep, const std::string& invariant,
                                    const std::vector<model::Action>& trace);

// REQUIRES: BreaksAt(input...) has a value (else the input is returned as is).
Minimized Minimize(const MinimizeInput& input);

// `memwal-check minimize TRACE [--out DIR] [--json]`: minimizes a trace file
// (format version 2) and writes <out>/<invariant>.min.trace.json. Exit 0 when
// minimized, 2 for a bad file or a trace that does not break its recorded
// invariant.
int RunMinimizeCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);
// Its row in the command table (checker/cli/commands.h).
std::string MinimizeAbout();
std::vector<Flag> MinimizeFlagTable();

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_MINIMIZE_H_
