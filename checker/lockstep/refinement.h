// The refinement mapping: the implementation's persisted state (impl::World's
// decoded views) in the model's terms, compared with the model field by field,
// and the model's invariants evaluated on it.
//
// Mapping (decisions):
// - Versions: every version impl::World::Versions() lists (retained ones and
//   the ones CleanupVersions archived), oldest first, each decoded from the
//   store with ReadVersion. Fragment ids, index numbers ("idx_i" -> i), shard
//   numbers and generations map one to one.
// - Segment uuids (16 raw bytes) are renumbered 1, 2, ... by first appearance
//   over versions oldest first, indexes in order, segments in order: the order
//   model::Canonicalize uses before it numbers in-flight transactions, so over
//   versions the numbering of equal states agrees.
// - Op kinds: impl kCreateIndex stands for the model's CreateIndex,
//   OptimizeIndex and DropIndex (all Lance CreateIndex); impl kShallowClone is
//   the first version of a cloned table, where the model keeps the source
//   head's op (R37 copies the head); every other kind maps to its namesake.
// - WAL: flushed and retired per shard from the shard manifests, pending from
//   World::pending(); in-flight transactions (the impl keeps them as
//   unpublished Lance transactions) are compared by count and by content
//   (checker/lockstep/inflight.h).
// - From the decoded bytes beyond the abstraction: zero-valued progress
//   entries and the system index uuid's stability
//   (checker/lockstep/bytes_checks.h).
// - Rows per fragment and deleted rows come from the table's bytes through
//   the implementation's reader (impl::World::ReadRows: each fragment's data
//   file, row id sequence and deletion file, the Delete transactions; a
//   clone's source history included) and are compared with the model's.
// - ReadsMissNoRows's served clause is the implementation's reader's
//   (World::Watermarks per query shape, model::FirstMissedRow), not the
//   model's watermark function.
// - Ghost fields (retire_cover, activated, foreign_legacy), the commit
//   counter, the fragment high-water mark and the in-flight list come from
//   the model: the invariants are evaluated on State{impl's persisted fields +
//   model's ghost}, which is how the invariants of spec section 9 are checked
//   on the implementation.
// A state the model cannot represent (a fourth segment, a fragment id or a
// version past the model's maxima, a segment without a fragment bitmap) is an
// ImplementationMatchesModel finding with the reason.
#ifndef MEMWAL_CHECKER_LOCKSTEP_REFINEMENT_H_
#define MEMWAL_CHECKER_LOCKSTEP_REFINEMENT_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "impl/world.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::lockstep {

inline constexpr std::string_view kImplementationMatchesModel =
    "ImplementationMatchesModel";
// Conformance: every version the implementation publishes loads as Lance
// loads one (spec section 9), checked by lockstep after each publishing step.
inline constexpr std::string_view kPublishedVersionsLoad =
    "PublishedVersionsLoad";

// A decoded version, shared by every cached table that holds it.
using VersionPtr = std::shared_ptr<const impl::TableVersion>;

// What the checker reads back from the implementation after a step.
struct ImplSnapshot {
  std::vector<impl::TableVersion> versions;  // oldest first
  impl::WalState wal;
  std::set<std::pair<uint32_t, uint64_t>> pending;
  std::size_t inflight = 0;
  impl::RowsView rows;  // World::ReadRows
};

// Decodes every version (through a per-thread cache keyed by the immutable
// manifest blob: a version written once decodes once), the shard manifests
// and the pending retirements.
Result<ImplSnapshot> ReadImpl(const impl::World& world);

// The implementation's state in model terms (see the file comment): `model`
// supplies the ghost fields. Fails with the reason when the model cannot
// represent the implementation's state.
Result<model::State> Abstract(const model::Config& config,
                              const ImplSnapshot& impl,
                              const model::State& model);

// Field-by-field differences between the abstraction of the implementation
// and the model, one readable line each ("version 4: index idx_0 segment 1
// covers {0,2} (impl) vs {0} (model)"); empty when they agree.
std::vector<std::string> Diff(const model::Config& config,
                              const model::State& impl_abstract,
                              const ImplSnapshot& impl,
                              const model::State& model);

// The read side and the retention rule, answered by the implementation
// (World::Watermarks, World::Retirable) against the model's answers on the
// model's state (R40 per query shape and shard; R12 per flushed, unretired
// SSTable). Only meaningful once Diff is empty.
std::vector<std::string> ReadSideDiff(const model::Config& config,
                                      const impl::World& world,
                                      const model::State& model);

// A broken invariant (on the implementation's side) or a disagreement.
struct Finding {
  std::string invariant;  // a name of model::AllInvariants(), or
                          // ImplementationMatchesModel
  std::string detail;     // readable, multi-line
};

// After a step: evaluates every model invariant on the implementation's
// abstraction (reported first; ReadsMissNoRows with the served SSTables
// decided by the implementation's reader, World::Watermarks for the shapes of
// its own head, or by model::Watermark on its versions if it cannot answer),
// then compares it with `model` (Diff), then the read side (ReadSideDiff).
std::optional<Finding> CheckRefinement(const model::Config& config,
                                       const impl::World& world,
                                       const model::State& model);

// Same, also returning the abstraction's dump (for counterexamples).
std::optional<Finding> CheckRefinement(const model::Config& config,
                                       const impl::World& world,
                                       const model::State& model,
                                       std::string* impl_dump);

// "{0,2}".
std::string FormatSet(uint64_t bits);

}  // namespace memwal::checker::lockstep

#endif  // MEMWAL_CHECKER_LOCKSTEP_REFINEMENT_H_
