// The invariants of spec/protocol.md section 9.
#include "model/invariants.h"

#include <array>

#include "model/read.h"

namespace memwal::model {
namespace {

// The live fragments of the head that index i's segments cover.
FragmentSet CoveredLive(const Version& head, int index) {
  return CoveredBy(head, index) & head.live;
}

// Row (s,g) is held by some live fragment in `covered` (a FragmentSet).
bool HeldWithin(const State& state, FragmentSet fragments, RowSet row) {
  for (int f = 0; f < kFragmentsMax; ++f) {
    if (Contains(fragments, f) && (state.rows[f] & row)) return true;
  }
  return false;
}

// The live fragments every index of `uses` covers.
FragmentSet CoveredByAll(const Config& config, const Version& head,
                         IndexSet uses) {
  FragmentSet fragments = head.live;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (Contains(uses, i)) fragments &= CoveredLive(head, i);
  }
  return fragments;
}

// The newest version and its predecessor, when the history has two versions.
struct LastCommit {
  const Version* before = nullptr;
  const Version* after = nullptr;
};
LastCommit Last(const State& state) {
  if (state.version_count < 2) return {};
  return {&state.versions[state.version_count - 2],
          &state.versions[state.version_count - 1]};
}

// Section 10 (R64): a foreign compactor wrote this table while it had no bit.
// From then on the bit protocols promise only LegacyTablesAreUntouched and the
// other invariants of their own commits: what the legacy reading missed or let
// GC retire, and what the foreign positions cover, is the legacy reading's
// failure, which `legacy` shows.
bool ForeignLegacyTable(const Config& config, const State& state) {
  return IsForeign(config) && state.foreign_legacy;
}

// CatchupWithinCoverage: for every index i and shard s with head position p,
// every row (s,g) with g <= p that a live fragment holds is held by a live
// fragment i's segments cover. Prevents: recording catch-up past what the index
// covers, so that SSTables stop being served while the index lacks their rows
// (the headline failure).
bool CatchupWithinCoverage(const Config& config, const State& state) {
  if (ForeignLegacyTable(config, state)) return true;
  const Version& head = Head(state);
  const RowSet live_rows = LiveRows(state, head);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (int s = 0; s < config.bounds.shards; ++s) {
      for (int g = 1; g <= head.catchup[i][s]; ++g) {
        const RowSet row = RowBit(s, g);
        if (!(live_rows & row)) continue;
        if (!HeldWithin(state, CoveredLive(head, i), row)) return false;
      }
    }
  }
  return true;
}

// CatchupWithinCompaction: every head position p of shard s has 0 < p <=
// compacted[s]. Prevents: crediting generations no commit copied into the base
// table.
bool CatchupWithinCompaction(const Config& config, const State& state) {
  const Version& head = Head(state);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (int s = 0; s < config.bounds.shards; ++s) {
      if (head.catchup[i][s] > head.compacted[s]) return false;
    }
  }
  return true;
}

// Row (s,g) is visible to `shape`: served (above the reader's `watermark` on
// shard s), held by a live fragment every index of the shape covers, or
// retired while every index of the shape covered it and still held by a live
// fragment (spec section 9, the retirement clause).
bool RowVisible(const Config& config, const State& state, QueryShape shape,
                int watermark, int s, int g) {
  if (ServedAbove(state, watermark, s, g)) return true;
  const Version& head = Head(state);
  const RowSet row = RowBit(s, g);
  if (HeldWithin(state, CoveredByAll(config, head, shape.uses), row))
    return true;
  const bool retired = Contains(state.retired[s], g - 1);
  const IndexSet cover = state.retire_cover[s * kGenerationsMax + g - 1];
  return retired && (shape.uses & ~cover) == 0 &&
         HeldWithin(state, head.live, row);
}

// Some flushed row is not deleted (else no query can miss one).
bool AnyUndeletedFlushedRow(const Config& config, const State& state) {
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= state.flushed[s]; ++g) {
      if (!(state.deleted & RowBit(s, g))) return true;
    }
  }
  return false;
}

// ReadsMissNoRows: every query shape sees every flushed, undeleted MemWAL row
// (section 9), served as the model's reader (R40) serves it. Prevents: a
// query silently missing a row written through MemWAL.
bool ReadsMissNoRows(const Config& config, const State& state) {
  if (ForeignLegacyTable(config, state)) return true;
  if (!AnyUndeletedFlushedRow(config, state)) return true;
  return !FirstMissedRow(config, state, ModelWatermarks(config, state));
}

// FeatureBitsArePaired: every version this protocol wrote has reader_bit ==
// writer_bit (a foreign half-set commit, R60, is the environment's, and R35.1
// refuses to build on it). Prevents: a half-active table read with one
// semantics and written with the other.
bool FeatureBitsArePaired(const Config&, const State& state) {
  for (int v = 0; v < state.version_count; ++v) {
    if (state.versions[v].op.kind == OpKind::kForeignHalfSet) continue;
    if (state.versions[v].reader_bit != state.versions[v].writer_bit)
      return false;
  }
  return true;
}

// ActivationIsPermanent: once activated, the head carries both bits.
// Prevents: an activated table silently falling back to "missing means caught
// up".
bool ActivationIsPermanent(const Config&, const State& state) {
  return !state.activated || HasBothBits(Head(state));
}

// NoRowIsLost: unless the last commit is DeleteFragment or Restore, every row a
// live fragment held before is held by one after; after UpdateMemWalState or
// CreateIndex, live is unchanged. Prevents: a metadata-only commit dropping
// every row (#8438).
bool NoRowIsLost(const Config&, const State& state) {
  const LastCommit last = Last(state);
  if (last.after == nullptr) return true;
  const OpKind kind = last.after->op.kind;
  if (kind == OpKind::kDeleteFragment || kind == OpKind::kRestore) return true;
  const RowSet before = LiveRows(state, *last.before);
  if ((before & ~LiveRows(state, *last.after)) != 0) return false;
  const LanceOp op = Classify(kind);
  const bool metadata_only =
      op == LanceOp::kUpdateMemWalState || op == LanceOp::kCreateIndex;
  return !metadata_only || last.before->live == last.after->live;
}

// R39: a MemWAL re-install that published rebased. Its details are those of
// its read version (plus the progress commits it met), so whatever an Update
// or a derivation recorded in between is replaced: Lance's own behaviour,
// reported in docs/findings.md and pinned by tests, not this protocol's.
// An install that did not rebase is held to both invariants below.
bool RebasedReinstall(const Version& after) {
  return after.op.kind == OpKind::kReinstallMemWal && after.op.fragments != 0;
}

// CompactionNeverRegresses: unless the last commit is Restore, a MemWAL reset
// (R62, as explicit as a restore) or a rebased re-install (R39, Lance's),
// compacted grows pointwise. Prevents: an old SSTable outranking newer base
// rows.
bool CompactionNeverRegresses(const Config& config, const State& state) {
  const LastCommit last = Last(state);
  if (last.after == nullptr || last.after->op.kind == OpKind::kRestore ||
      last.after->op.kind == OpKind::kResetMemWal ||
      last.after->op.kind == OpKind::kDropMemWal ||
      RebasedReinstall(*last.after))
    return true;
  for (int s = 0; s < config.bounds.shards; ++s) {
    if (last.after->compacted[s] < last.before->compacted[s]) return false;
  }
  return true;
}

// LegacyTablesAreUntouched (bit protocols): if the predecessor has neither bit
// and the last commit is not Activate, catchup is unchanged. Prevents: widening
// coverage on legacy tables, where a missing entry means caught up.
bool LegacyTablesAreUntouched(const Config& config, const State& state) {
  if (!IsBitProtocol(config.protocol)) return true;
  const LastCommit last = Last(state);
  if (last.after == nullptr || !HasNoBit(*last.before)) return true;
  if (last.after->op.kind == OpKind::kActivate) return true;
  // R64: the foreign compactor's positions are the environment's, and a
  // Restore brings back an older version's (only such positions exist on a
  // table without the bit).
  if (IsForeignOp(last.after->op.kind) ||
      last.after->op.kind == OpKind::kRestore)
    return true;
  return last.after->catchup == last.before->catchup;
}

// UnchangedPositionsNeverDrop: unless the last commit is Restore, Activate or
// a MemWAL reset (R62 withdraws every position with the progress), every index
// whose segments are equal before and after keeps at least its position in
// every shard. Prevents: repairs erasing or lowering positions they did not
// disprove.
bool UnchangedPositionsNeverDrop(const Config& config, const State& state) {
  const LastCommit last = Last(state);
  if (last.after == nullptr) return true;
  const OpKind kind = last.after->op.kind;
  if (kind == OpKind::kRestore || kind == OpKind::kActivate ||
      kind == OpKind::kResetMemWal || kind == OpKind::kDropMemWal ||
      RebasedReinstall(*last.after))
    return true;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (last.before->segments[i] != last.after->segments[i]) continue;
    for (int s = 0; s < config.bounds.shards; ++s) {
      if (last.after->catchup[i][s] < last.before->catchup[i][s]) return false;
    }
  }
  return true;
}

constexpr std::array<Invariant, 9> kInvariants = {{
    {"CatchupWithinCoverage", CatchupWithinCoverage},
    {"CatchupWithinCompaction", CatchupWithinCompaction},
    {"ReadsMissNoRows", ReadsMissNoRows},
    {"FeatureBitsArePaired", FeatureBitsArePaired},
    {"ActivationIsPermanent", ActivationIsPermanent},
    {"NoRowIsLost", NoRowIsLost},
    {"CompactionNeverRegresses", CompactionNeverRegresses},
    {"LegacyTablesAreUntouched", LegacyTablesAreUntouched},
    {"UnchangedPositionsNeverDrop", UnchangedPositionsNeverDrop},
}};

}  // namespace

std::optional<MissedRow> FirstMissedRow(const Config& config,
                                        const State& state,
                                        const ReaderWatermarks& watermarks) {
  if (ForeignLegacyTable(config, state)) return std::nullopt;
  const QueryShapes shapes = AllQueryShapes(config, state);
  for (int q = 0; q < shapes.count; ++q) {
    for (int s = 0; s < config.bounds.shards; ++s) {
      const int watermark = watermarks.of[q][s];
      for (int g = 1; g <= state.flushed[s]; ++g) {
        if (state.deleted & RowBit(s, g)) continue;
        if (!RowVisible(config, state, shapes.shapes[q], watermark, s, g))
          return MissedRow{
              .shape = shapes.shapes[q], .shard = s, .generation = g};
      }
    }
  }
  return std::nullopt;
}

bool ReadsMissNoRowsGiven(const Config& config, const State& state,
                          const ReaderWatermarks& watermarks) {
  return !FirstMissedRow(config, state, watermarks);
}

std::span<const Invariant> AllInvariants() { return kInvariants; }

const Invariant* FirstBrokenInvariant(const Config& config,
                                      const State& state) {
  for (const Invariant& invariant : kInvariants) {
    if (!invariant.holds(config, state)) return &invariant;
  }
  return nullptr;
}

const Invariant* FindInvariant(std::string_view name) {
  for (const Invariant& invariant : kInvariants) {
    if (invariant.name == name) return &invariant;
  }
  return nullptr;
}

}  // namespace memwal::model
