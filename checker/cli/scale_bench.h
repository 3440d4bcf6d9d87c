// `bench --distributed` (issue 16): the level engine (checker/engine/
// distributed.h) measured under `mpirun -np 1` and `-np 2`, each a
// `memwal-check check --distributed --json` child run: states per second per
// rank, bytes exchanged per state, scaling efficiency (rate at 2 ranks over
// twice the rate at 1); for lockstep, the 2-rank run again right after with
// --rederive-moved (moved states re-derive their World instead of receiving
// it); and, per World, impl::World::Serialize + Deserialize against
// re-deriving it from the path.
#ifndef MEMWAL_CHECKER_CLI_SCALE_BENCH_H_
#define MEMWAL_CHECKER_CLI_SCALE_BENCH_H_

#include <ostream>
#include <string>
#include <vector>

namespace memwal::checker::cli {

// args: bench's arguments, with --distributed among them. Exit code.
int RunScaleBench(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_SCALE_BENCH_H_
