// Checks that read the implementation's decoded bytes where the model's
// abstraction cannot say what they say (issue 18 item 4).
//
// - Zero-valued entries (impl::TableVersion keeps them):
// CatchupWithinCompaction
//   is "every head position p of shard s has 0 < p <= compacted[s]". The model
//   writes 0 for "no entry", so on the model only p <= compacted[s] can fail;
//   on the implementation's head both halves are checked: no persisted
//   index_catchup entry is all zeros (Lance omits such an entry; a zero for
//   one shard is written when another shard is non-zero [P §6.2 step 9]), and
//   every persisted position, the first per shard, is at most the head's
//   compacted_sstables entry for the shard. A compacted_sstables entry of 0
//   (which no writer writes and the model cannot represent) is an
//   ImplementationMatchesModel finding.
// - The system index's uuid: Lance keeps __lance_mem_wal's uuid when nothing
//   in its details changed and mints a new one when they change. For each
//   version k > 0 of the history that is not a Restore (which brings back the
//   restored version's system index), the uuid of version k equals that of
//   version k-1 exactly when the model's versions k-1 and k have the same
//   compacted and catch-up progress and both keep the system index.
#ifndef MEMWAL_CHECKER_LOCKSTEP_BYTES_CHECKS_H_
#define MEMWAL_CHECKER_LOCKSTEP_BYTES_CHECKS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "checker/lockstep/refinement.h"
#include "impl/world.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::lockstep {

// On the implementation's decoded head: CatchupWithinCompaction (both halves)
// or ImplementationMatchesModel for a zero compacted entry.
std::optional<Finding> CheckZeroEntries(const model::Config& config,
                                        const impl::TableVersion& head);

// Per version of `impl`, oldest first, what SystemIndexUuidDiff compares: 2
// for the first version and a Restore (not compared), else 1 when the version
// keeps the system index uuid of the version before it and 0 when it mints a
// new one. A function of the decoded table alone (kept with it).
std::vector<uint8_t> SystemIndexUuidKept(const std::vector<VersionPtr>& impl);

// One line per version whose system index uuid stability disagrees with the
// model's; `kept` is SystemIndexUuidKept(impl), and `impl` and `model` have
// the same number of versions.
std::vector<std::string> SystemIndexUuidDiff(
    const std::vector<VersionPtr>& impl, const std::vector<uint8_t>& kept,
    const model::State& model);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_BYTES_CHECKS_H_
