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
// - Op kinds and details: from each version's transaction file
//   (checker/lockstep/transactions.h), never from the model.
// - WAL: flushed and retired per shard from the shard manifests, pending from
//   World::pending(); in-flight transactions from the staged Lance
//   transactions, compared as model::Txn values and by content
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
// - Every other field too (AbstractPersisted below): the model's state is
//   only the other side of the comparison. What the bytes cannot decide is
//   listed in docs/ghost-fields.md.
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
#include "checker/lockstep/transactions.h"
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

// THE abstraction function: the implementation's persisted state in model
// terms, from its bytes alone (no model state is read; production lockstep,
// replay, the lasso replay and the tests all use it, and `validate` can run
// it on a table opened with impl::World::OpenFrom). It reads:
// - versions: every manifest the table lists (retained and archived by
//   CleanupVersions), oldest first: live fragments, index segments (uuids
//   numbered by first appearance), compacted_sstables, index_catchup, the
//   feature words, retention, the system index's presence; each version's
//   op, kind and details, from its transaction file
//   (checker/lockstep/transactions.h), a shallow clone's first version taking
//   its source head's;
// - committed: the versions of the lineage (the table's and those of the
//   tables it was shallow-cloned from) after the first; next_fragment: the
//   head's max_fragment_id + 1; activated: a version of the lineage that
//   this protocol committed carries a bit, or an activation committed;
//   foreign_legacy: a merge-insert of the lineage carries the
//   `unconditional`-era writer_version (R64);
// - rows and deleted rows: the fragments' data, row id and deletion files
//   and the Delete transactions (World::ReadRows), the lineage's included;
// - flushed and retired generations: the shard manifests; pending: the
//   GC's decided retirements (World::pending(), the GC's own memory);
// - in-flight transactions: the staged Lance transactions
//   (World::inflight(), begin order), each decoded as transactions.h says.
// It cannot decide retire_cover (which indexes covered a row when the GC
// retired its SSTable: no byte records it); every retired row counts as
// covered by every index (docs/ghost-fields.md). Nor does Lance persist the
// caller's R61 advance offer where its claim equals the protocol's own (then
// Txn::advance is 0; comparisons apply VisibleAdvance to the model's side).
// Fails with the reason (FailedPrecondition "the model cannot represent
// it: ...", or the decoder's error) when the bytes do not decode or the model
// cannot represent them. Cached per set of manifest blobs (a thread's
// cache): a World whose table bytes did not change abstracts without
// decoding again.
Result<model::State> AbstractPersisted(const model::Config& config,
                                       const impl::World& world);

// The same abstraction over versions a caller holds, for a caller without a
// World (validate's windows of a long table): AbstractPersisted's own code
// (versions, ops from their transaction files, the lineage's table-wide
// fields, rows, WAL, retire_cover) run on `lineage` (oldest first: the clone
// sources' versions, then the table's own `own` versions), `rows` and `wal` as
// World::ReadRows and World::ReadWal give them and `pending` as
// World::pending(); no transaction is in flight.
Result<model::State> AbstractVersions(
    const model::Config& config,
    const std::vector<const impl::TableVersion*>& lineage, std::size_t own,
    const impl::RowsView& rows, const impl::WalState& wal,
    const std::set<std::pair<uint32_t, uint64_t>>& pending,
    const ShardNumbers& shards);

// Field-by-field differences between the abstraction of the implementation
// and the model, one readable line each ("version 4: index idx_0 segment 1
// covers {0,2} (impl) vs {0} (model)"); empty when they agree on every field
// the bytes decide (all but retire_cover).
std::vector<std::string> Diff(const model::Config& config,
                              const model::State& impl_abstract,
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

// Keeps the decoded table of `world` (CheckRefinement's) with it
// (impl::World::annotation), so that the checks of the Worlds stepped from
// it decode only the manifests they add.
void KeepDecodedTable(const model::Config& config, impl::World* world);

// Gives `world`'s table (every object outside the MemWAL's part) the blobs of
// the byte-identical table this thread met before, if any: the same bytes at
// the same paths, so that decodings kept by blob address serve it. Only when
// the table changed since the decoding kept with `world`.
void ShareIdenticalTable(impl::World* world);

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
