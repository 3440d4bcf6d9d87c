// The level-synchronous search over ranks: `check --distributed` under
// `mpirun -np N`, and the search behind `--checkpoint DIR` / `--resume DIR`
// (with or without mpirun; without, it is one rank with --threads workers).
//
// Partitioning. A state is owned by the rank its fingerprint hashes to; the
// owner keeps it in its seen set. A BFS level is a global sequence in the
// threaded engine's order (checker/engine/search.h): sorted by the (parent
// position, action index) of each state's first discoverer. Rank r expands a
// contiguous slice of it, [r*N/R, (r+1)*N/R) of the level's N states, so the
// global position of a parent is its slice start plus its local index.
//
// One level, on every rank:
//   1. expand the slice (with --threads workers, as the threaded engine does),
//      stopping at the first lockstep finding; each successor gets the key
//      (parent position << 16 | action index);
//   2. send (fingerprint, key) of each successor to its owner, in one batch
//      per level (MPI_Alltoallv); the owner answers, per successor, whether it
//      is the first discoverer: not in its seen set and the smallest key of
//      its state in this level;
//   3. a model-only run checks the invariants on the first discoverers; the
//      level's finding is the smallest key over ranks (MPI_Allreduce), as the
//      threaded engine's is; owners insert only the first discoverers before
//      it, and the counters cover exactly the transitions up to it (the rank
//      holding the finding's parent recounts its slice up to it);
//   4. the first discoverers of rank r are, in key order, a contiguous block
//      of the next level (keys of rank r's slice precede rank r+1's), placed
//      by an exclusive prefix of the counts over ranks; a rank keeps its block
//      while every block is within a quarter of the even share, otherwise the
//      next level is re-sliced evenly, each state that moves taking its path
//      (2 bytes per step).
//      A lockstep state that moves to another rank takes its impl::World
//      too, as impl::World::Serialize writes it, and the receiver rebuilds it
//      with impl::World::Deserialize (bench/README.md measures this against
//      replaying the path from Init, which --rederive-moved restores for
//      that comparison); one that stays keeps its World.
// So the distinct states, transitions, verdict and first counterexample are
// those of the threaded BFS for any rank and thread count. The search ends
// when a level is empty (every rank agrees through the reduction) or at a
// finding; rank 0's report is the merged one (sums, or for goals a union).
// Budgets: time, memory and interrupts stop the run at the level in which any
// rank sees them; max_states stops at the same state as the threaded engine.
//
// Counterexamples are the frontier's paths (no parent-link table across
// ranks), replayed on every rank as checker/engine/search.cc does.
//
// Checkpoints (checker/engine/checkpoint.h) are taken between levels when
// --checkpoint-every SECONDS have passed since the last one (0: every level):
// each rank's seen set, frontier slice (packed states and paths), counters
// and the level. --resume DIR continues from DIR's snapshot with the same
// configuration and rank count, and gives the final counts and verdict of an
// uninterrupted run. A snapshot keeps paths, not Worlds: on resume each rank
// re-derives the Worlds of its slice of one level from their paths, once per
// run, and the snapshot stays at 2 bytes per step per frontier state instead
// of a serialized World's kilobytes.
#ifndef MEMWAL_CHECKER_ENGINE_DISTRIBUTED_H_
#define MEMWAL_CHECKER_ENGINE_DISTRIBUTED_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "checker/engine/comm.h"
#include "checker/engine/search.h"
#include "checker/lockstep/lockstep.h"

namespace memwal::checker::engine {

struct ScaleOut {
  bool distributed = false;
  std::string checkpoint_dir{};
  double checkpoint_every_s = 300;
  std::string resume_dir{};
  // Tests: sleep this long after each snapshot (so a kill lands after one).
  double pause_after_snapshot_s = 0;
  // Bench (--rederive-moved): a lockstep state that moves re-derives its
  // World from its path instead of receiving it (the measurement's baseline).
  bool rederive_moved = false;
  bool active() const {
    return distributed || !checkpoint_dir.empty() || !resume_dir.empty();
  }
};

// What the ranks did, merged on every rank.
struct DistributedStats {
  int ranks = 1;
  uint64_t bytes_exchanged = 0;  // payload between ranks, all ranks together
  std::vector<uint64_t> states_per_rank{};    // owned (in each seen set)
  std::vector<uint64_t> expanded_per_rank{};  // states expanded
  uint64_t worlds_shipped = 0;  // lockstep Worlds sent to another rank
  double ship_seconds = 0;  // CPU serializing and rebuilding them, all ranks
  uint64_t worlds_rederived = 0;  // re-derived (resume, --rederive-moved)
  double rederive_seconds = 0;    // CPU replaying their paths, all ranks
  double cpu_seconds = 0;         // process CPU time of the run, all ranks
  uint64_t snapshots = 0;         // checkpoints written
  uint64_t resumed_level = 0;     // the level resumed at; 0: not resumed
};

struct DistributedResult {
  SearchResult result{};
  DistributedStats dist{};
};

// Collective over `comm`. InvalidArgument for options it cannot run (not
// bfs) or a snapshot of another configuration; Corruption for a corrupt
// snapshot; IoError when a checkpoint cannot be written.
Result<DistributedResult> SearchLevels(const lockstep::LockstepSetup& setup,
                                       const Options& options,
                                       const ScaleOut& scale, Comm& comm);

// The hash a snapshot is tied to: the model configuration, seed,
// implementation-only bugs, lockstep, storage and symmetry (not budgets,
// threads or ranks, which do not change the answer; ranks are checked apart).
uint64_t ConfigurationHash(const lockstep::LockstepSetup& setup,
                           const Options& options);

// --distributed, --checkpoint DIR, --checkpoint-every SECONDS, --resume DIR
// and the bench's --pause-after-snapshot S and --rederive-moved (their help is
// check's flag table, CheckFlagSet::ScaleOutFlags in checker/cli/cli.cc).
// False when `flag` is not one of them.
Result<bool> ParseScaleOutFlag(
    std::string_view flag,
    const std::function<Result<std::string>(std::string_view)>& value,
    ScaleOut* scale);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_DISTRIBUTED_H_
