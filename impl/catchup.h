// The index catch-up rules behind one switch (Protocol): the derivation of
// `derived` and `unconditional` [spec R33; P §6.2], the explicit advance of
// `advance` [spec R34; P §6.4], and activation [spec R29, R35.6; P §6.3].
// `legacy` writes and withdraws nothing. All functions here are pure: they take
// abstract views of decoded versions and return the new `index_catchup` table;
// build.cc writes it back into the MemWAL system index.
#ifndef MEMWAL_IMPL_CATCHUP_H_
#define MEMWAL_IMPL_CATCHUP_H_

#include <optional>

#include "base/status.h"
#include "impl/bugs.h"
#include "impl/table.h"

namespace memwal::impl {

enum class Protocol { kDerived, kAdvance, kUnconditional, kLegacy };

// What the transaction's read version says, when the commit path loaded it
// (Lance: ReadVersionState; loaded only if the read version's reader word has
// bit 128, always under `unconditional`).
struct ReadVersionState {
  FragmentSet live;
  ShardGenerations compacted;
};

struct DerivationInput {
  std::optional<ReadVersionState> read;
  ShardGenerations head_compacted;  // Only for bug claim-past-read-version.
  Segments before;                  // User segments of the head.
  Segments after;                   // User segments after the operation.
  ShardGenerations
      new_compacted;  // This commit's compacted_sstables (after the operation).
  CatchupTable old_catchup;  // index_catchup of the system index after the
                             // operation (the head's unless it re-installs).
};

// R33: the rebuilt index_catchup, entries by name, shards in new_compacted
// order; a zero position is kept when another shard of its entry is non-zero,
// an all-zero entry is left out.
CatchupTable DeriveCatchup(const DerivationInput& input, BugSet bugs);

// Withdraw-only pass (bug invalidation-on-legacy on a table without the bit):
// every changed or dropped index loses its entry, nothing is credited.
CatchupTable WithdrawChanged(const DerivationInput& input, BugSet bugs);

struct AdvanceInput {
  bool head_requires_catchup = false;
  bool has_system_index = false;
  Segments before;
  Segments after;
  ShardGenerations new_compacted;
  ShardGenerations head_compacted;  // Only for bug advance-bound-at-commit.
  FragmentSet new_live;             // Only for bug repair-spans-live-at-commit.
  CatchupTable old_catchup;
  bool publishes_index_work =
      false;  // Only for bug index-work-per-transaction.
};

using Advances = google::protobuf::RepeatedPtrField<
    pb::Transaction::CreateIndex::IndexCatchupAdvance>;

// R34: validates every advance (FailedPrecondition refuses the commit) and
// merges.
Result<CatchupTable> ApplyAdvances(const AdvanceInput& input,
                                   const Advances& advances, BugSet bugs);

// Equal as Lance compares them: by name, then shard lists in order.
bool SameCatchup(const CatchupTable& a, const CatchupTable& b);

// R33 unchanged(i): whole segment metadata (uuid and covers, in order) equal.
// Bug unchanged-by-uuid-only: uuids only. The one definition, for the
// derivation (catchup.cc) and the advance protocol (advance.cc).
bool Unchanged(const std::vector<Segment>& before,
               const std::vector<Segment>& after, BugSet bugs);

// The segments of index `name`, none when it is absent.
const std::vector<Segment>& SegmentsOf(const Segments& segments,
                                       const std::string& name);
void WriteCatchup(const CatchupTable& table, pb::MemWalIndexDetails* details);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_CATCHUP_H_
