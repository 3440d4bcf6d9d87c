// Commit (spec/protocol.md R30-R32 and R35): rebase an in-flight transaction
// over what committed since its read version, then build the new version on the
// head and publish it, or hand back a retry or a refusal.
#include <algorithm>

#include "model/catchup.h"
#include "model/conflict.h"
#include "model/read.h"
#include "model/rules.h"

namespace memwal::model {
namespace {

// R65: `none` = today's protocol (a compaction data pass without the marker is
// never fenced, the stale-data-pass finding of section 9); `data-pass` = the
// proposed fence: a data pass names the generation it merges and the build
// refuses it once that generation is compacted.
const Switch kFence({.name = "fence",
                     .values = {"none", "data-pass"},
                     .help = "the proposed fence of R65\n"
                             "(docs/exploring-a-change.md)"});

// R61 other-index: the index the second advance names, as Op::index's high
// nibble (1 + index); 0 for every other transaction.
uint8_t SecondName(const Config& config, const Txn& txn) {
  if (txn.advance != 1 + static_cast<int>(AdvanceOffer::kOtherIndex)) return 0;
  return static_cast<uint8_t>(1 + (txn.index + 1) % config.bounds.indexes);
}

Proposal ProposalOf(const Config& config, const State& state, const Txn& txn) {
  Proposal p{.op = Classify(txn.kind), .index = txn.index};
  p.names = IndexNamesOf(
      static_cast<uint8_t>(txn.index | (SecondName(config, txn) << 4)));
  if (txn.kind == OpKind::kReinstallMemWal) {
    p.index = kForeignIndex;
    p.names = 0;
    p.installs = true;
    p.details = VersionNumbered(state, txn.read_version).compacted;
  }
  switch (txn.kind) {
    case OpKind::kDeleteFragment:
    case OpKind::kUpdateColumns:
      p.fragments = FragmentSet(1u << txn.fragment);
      break;
    case OpKind::kRewriteFragments:
      p.fragments =
          FragmentSet((1u << txn.fragment) | (1u << txn.second_fragment));
      break;
    case OpKind::kCompactSsTable:
    case OpKind::kRecordProgress:
      if (txn.kind == OpKind::kRecordProgress || txn.marker) {
        p.progress_shard = txn.shard;
        p.progress_generation = txn.generation;
      }
      break;
    default:
      break;
  }
  p.new_covers = txn.segment.uuid != 0 ? txn.segment.covers : 0;
  return p;
}

Conflict RetryableIf(bool condition) {
  return condition ? Conflict::kRetryable : Conflict::kOk;
}

// R32 check_compacted_sstables_conflict, for lists of at most one entry.
Conflict ProgressCheck(const Op& committed, const Proposal& t) {
  if (committed.progress_generation == 0 || t.progress_generation == 0)
    return Conflict::kOk;
  if (committed.progress_shard != t.progress_shard) return Conflict::kOk;
  return committed.progress_generation >= t.progress_generation
             ? Conflict::kIncompatible
             : Conflict::kRetryable;
}

// R31, row t = Delete(f).
Conflict DeleteAgainst(const Op& c, const Proposal& t) {
  switch (Classify(c.kind)) {
    case LanceOp::kDelete:
    case LanceOp::kUpdate:
    case LanceOp::kRewrite:
      return RetryableIf((c.fragments & t.fragments) != 0);
    case LanceOp::kUpdateMemWalState:
    case LanceOp::kRestore:
      return Conflict::kIncompatible;
    default:
      return Conflict::kOk;
  }
}

// R31, rows t = Update and t = Rewrite share the fragment rules.
Conflict DataAgainst(const Op& c, const Proposal& t) {
  switch (Classify(c.kind)) {
    case LanceOp::kDelete:
    case LanceOp::kUpdate:
    case LanceOp::kRewrite:
      return RetryableIf((c.fragments & t.fragments) != 0);
    case LanceOp::kCreateIndex:
      return t.op == LanceOp::kRewrite
                 ? RetryableIf((c.new_covers & t.fragments) != 0)
                 : Conflict::kOk;
    case LanceOp::kUpdateMemWalState:
      return t.op == LanceOp::kRewrite ? Conflict::kOk : ProgressCheck(c, t);
    case LanceOp::kRestore:
      return Conflict::kIncompatible;
    default:
      return Conflict::kOk;
  }
}

// R31, row t = CreateIndex (user).
Conflict IndexAgainst(const Op& c, const Proposal& t) {
  switch (Classify(c.kind)) {
    case LanceOp::kRewrite:
      return RetryableIf((t.new_covers & c.fragments) != 0);
    case LanceOp::kCreateIndex:
      return RetryableIf((IndexNamesOf(c.index) & t.names) != 0);
    case LanceOp::kUpdateMemWalState:
    case LanceOp::kRestore:
      return Conflict::kIncompatible;
    default:
      return Conflict::kOk;
  }
}

// R31 note b: a committed MemWAL install met by a progress commit is checked
// like a progress commit, against the compacted_sstables of its details (the
// version it published).
Conflict DetailsCheck(const Version& installed, const Proposal& t) {
  if (t.progress_generation == 0) return Conflict::kOk;
  const uint8_t generation = installed.compacted[t.progress_shard];
  if (generation == 0) return Conflict::kOk;
  return generation >= t.progress_generation ? Conflict::kIncompatible
                                             : Conflict::kRetryable;
}

// R31, row t = UpdateMemWalState.
Conflict ProgressAgainst(const Version& committed, const Proposal& t) {
  const Op& c = committed.op;
  switch (Classify(c.kind)) {
    case LanceOp::kUpdate:
    case LanceOp::kUpdateMemWalState:
      return ProgressCheck(c, t);
    case LanceOp::kCreateIndex:
      return InstallsMemWal(c.kind) ? DetailsCheck(committed, t)
                                    : Conflict::kOk;
    case LanceOp::kRewrite:
      return Conflict::kOk;
    default:
      return Conflict::kIncompatible;
  }
}

// R31 note b, row t = a MemWAL install (R39): compatible with a committed
// UpdateMemWalState, whose progress it merges into its details (per shard the
// higher generation); retryable against another committed install; otherwise
// as a CreateIndex that names no user index and has no user segment (so an
// Update prunes nothing and a Rewrite meets no new segment). An Update's
// progress is not merged: the details replace it (Lance's, docs/findings.md).
Conflict InstallAgainst(const Op& c, Proposal* t) {
  switch (Classify(c.kind)) {
    case LanceOp::kCreateIndex:
      return RetryableIf(InstallsMemWal(c.kind));
    case LanceOp::kUpdateMemWalState:
      if (c.progress_generation > 0) {
        uint8_t& mine = t->details[c.progress_shard];
        mine = std::max(mine, c.progress_generation);
      }
      return Conflict::kOk;
    case LanceOp::kRestore:
      return Conflict::kIncompatible;
    default:
      return Conflict::kOk;
  }
}

}  // namespace

Conflict Judge(const Version& committed, Proposal* proposal) {
  const Op& c = committed.op;
  const Proposal& t = *proposal;
  MEMWAL_ASSERT(c.kind != OpKind::kInit);
  if (t.installs) return InstallAgainst(c, proposal);
  switch (t.op) {
    case LanceOp::kAppend:
      return Classify(c.kind) == LanceOp::kUpdateMemWalState ||
                     Classify(c.kind) == LanceOp::kRestore
                 ? Conflict::kIncompatible
                 : Conflict::kOk;
    case LanceOp::kDelete:
      return DeleteAgainst(c, t);
    case LanceOp::kUpdate:
    case LanceOp::kRewrite:
      return DataAgainst(c, t);
    case LanceOp::kCreateIndex:
      return IndexAgainst(c, t);
    case LanceOp::kUpdateMemWalState:
      return ProgressAgainst(committed, t);
    default:
      MEMWAL_ASSERT(false && "a transaction is never Init or Restore");
      return Conflict::kIncompatible;
  }
}

namespace {

// R30 step 1: the verdict over every version committed after the read version,
// oldest first. A compatible Update prunes t's new segments of the field it
// modified (R31 note a).
Conflict Rebase(const State& state, const Txn& txn, Proposal* t) {
  Conflict verdict = Conflict::kOk;
  for (int v = 0; v < state.version_count; ++v) {
    const Op& c = state.versions[v].op;
    if (state.versions[v].number <= txn.read_version) continue;
    const Conflict conflict = Judge(state.versions[v], t);
    verdict = std::max(verdict, conflict);
    const bool prunes = t->op == LanceOp::kCreateIndex &&
                        c.kind == OpKind::kUpdateColumns && c.index == t->index;
    if (conflict == Conflict::kOk && prunes)
      t->new_covers &= FragmentSet(~c.fragments);
  }
  return verdict;
}

// Allocates the next fragment id (from the head's high-water mark) holding
// `rows`.
int AllocateFragment(State* state, Version* next, RowSet rows) {
  const int fragment = state->next_fragment++;
  MEMWAL_ASSERT(fragment < kFragmentsMax);
  state->rows[fragment] = rows;
  next->live |= FragmentSet(1u << fragment);
  return fragment;
}

}  // namespace

bool RecordCompacted(const Txn& txn, const Version& head, Version* next) {
  if (head.mem_wal_dropped) return false;
  if (txn.generation <= head.compacted[txn.shard]) return false;
  next->compacted[txn.shard] = txn.generation;
  next->op.progress_shard = txn.shard;
  next->op.progress_generation = txn.generation;
  return true;
}

namespace {

// R24: every segment meeting {f1, f2} gets a fresh uuid and the remapped
// covers.
void RemapSegments(const State& state, FragmentSet pair, int fresh_fragment,
                   Version* next) {
  for (Segments& segments : next->segments) {
    for (Segment& segment : segments) {
      if (segment.uuid == 0 || (segment.covers & pair) == 0) continue;
      const bool whole = (segment.covers & pair) == pair;
      segment.uuid = FreshUuid(state, next);
      segment.covers = FragmentSet((segment.covers & ~pair) |
                                   (whole ? (1u << fresh_fragment) : 0u));
    }
  }
}

// R26 at publish: drop the replaced segment (if still there) and append the new
// one.
void PublishOptimize(const Txn& txn, FragmentSet covers, Version* next) {
  Segments& segments = next->segments[txn.index];
  Segments kept{};
  int count = 0;
  for (const Segment& segment : segments) {
    if (segment.uuid != 0 && segment.uuid != txn.removed_uuid)
      kept[count++] = segment;
  }
  MEMWAL_ASSERT(count < kSegmentsMax);
  kept[count] = Segment{.uuid = txn.segment.uuid, .covers = covers};
  segments = kept;
}

// Keeps the segments of `segments` whose uuid is not one of `removed`'s, in
// order. Lance removes index segments by uuid (CreateIndex.removed_indices
// [P §5]), so a segment minted after the read version (a Rewrite's remap) is
// not removed by a transaction that never saw it.
Segments WithoutUuidsOf(const Segments& segments, const Segments& removed,
                        int* count) {
  Segments kept{};
  *count = 0;
  for (const Segment& segment : segments) {
    if (segment.uuid == 0) continue;
    bool named = false;
    for (const Segment& r : removed) named = named || (r.uuid == segment.uuid);
    if (!named) kept[(*count)++] = segment;
  }
  return kept;
}

// R35 step 2 for the index operations (R25-R27). CreateIndex and DropIndex
// remove the segments of i that their read version had (by uuid), so a
// DropIndex rebased over a RewriteFragments leaves the remapped segment behind,
// as Lance does.
void IndexArm(const Config& config, const Txn& txn, FragmentSet covers,
              const Version& read, Version* next) {
  next->op.index =
      static_cast<uint8_t>(txn.index | (SecondName(config, txn) << 4));
  if (txn.segment.uuid != 0) next->op.new_covers = covers;
  if (txn.kind == OpKind::kCreateIndex || txn.kind == OpKind::kDropIndex) {
    int count = 0;
    Segments kept = WithoutUuidsOf(next->segments[txn.index],
                                   read.segments[txn.index], &count);
    if (txn.kind == OpKind::kCreateIndex) {
      // A survivor needs a Rewrite of fragments the new segment covers, which
      // R31 makes retryable, so at most the new segment is added here.
      MEMWAL_ASSERT(count < kSegmentsMax);
      kept[count] = Segment{.uuid = txn.segment.uuid, .covers = covers};
    }
    next->segments[txn.index] = kept;
  } else if (txn.segment.uuid != 0) {
    PublishOptimize(txn, covers, next);
  }
}

// RewriteFragments' arm: both fragments' rows move to one fresh fragment and
// the segments covering them are remapped; refused when one is not live.
bool RewriteArm(const Txn& txn, const Proposal& t, State* state,
                Version* next) {
  if ((Head(*state).live & t.fragments) != t.fragments) return false;
  const RowSet rows =
      state->rows[txn.fragment] | state->rows[txn.second_fragment];
  next->live &= FragmentSet(~t.fragments);
  const int fresh = AllocateFragment(state, next, rows);
  RemapSegments(*state, t.fragments, fresh, next);
  next->op.fragments = t.fragments;
  return true;
}

// R39: the installed entry replaces every __lance_mem_wal of the head (one
// system index); its details are the read version's, merged with the
// progress commits the rebase met. The build's derivation takes its prior
// positions from them (CatchupStep).
void ReinstallArm(const Txn& txn, const Proposal& t, const State& state,
                  Version* next) {
  next->compacted = t.details;
  next->catchup = VersionNumbered(state, txn.read_version).catchup;
  next->mem_wal_dropped = false;
  next->op.index = kForeignIndex;
  next->op.fragments = Head(state).number > txn.read_version ? 1 : 0;
}

// R35 step 2: the operation arm. False = refuse (a fragment no longer live, a
// stale generation). Updates the ghost rows/deleted and the fragment high-water
// mark in *state.
bool OperationArm(const Config& config, const Txn& txn, const Proposal& t,
                  State* state, Version* next) {
  const Version& head = Head(*state);
  const FragmentSet f = FragmentSet(1u << txn.fragment);
  switch (txn.kind) {
    case OpKind::kAppend:
      AllocateFragment(state, next, 0);
      return true;
    case OpKind::kDeleteFragment:
      if (!(head.live & f)) return false;
      next->live &= FragmentSet(~f);
      next->op.fragments = f;
      state->deleted |= state->rows[txn.fragment];
      return true;
    case OpKind::kCompactSsTable:
      if (txn.marker && !RecordCompacted(txn, head, next)) return false;
      // R65: the fenced data pass is refused once its generation is compacted.
      if (!txn.marker && config.On(kFence) &&
          txn.generation <= head.compacted[txn.shard]) {
        return false;
      }
      AllocateFragment(state, next, RowBit(txn.shard, txn.generation));
      return true;
    case OpKind::kUpdateColumns:
      if (!(head.live & f)) return false;
      for (Segment& segment : next->segments[txn.index])
        segment.covers &= FragmentSet(~f);
      next->op.fragments = f;
      next->op.index = txn.index;
      return true;
    case OpKind::kRewriteFragments:
      return RewriteArm(txn, t, state, next);
    case OpKind::kCreateIndex:
    case OpKind::kOptimizeIndex:
    case OpKind::kDropIndex:
      IndexArm(config, txn, t.new_covers,
               VersionNumbered(*state, txn.read_version), next);
      return true;
    case OpKind::kRecordProgress:
      if (!RecordCompacted(txn, head, next)) return false;
      if (Has(config, Bug::kProgressCommitDropsFragments)) next->live = 0;
      return true;
    case OpKind::kActivate:
      // Section 8: the bug is in UpdateMemWalState's arm, which Activate is.
      if (Has(config, Bug::kProgressCommitDropsFragments)) next->live = 0;
      return true;
    case OpKind::kReinstallMemWal:
      ReinstallArm(txn, t, *state, next);
      return true;
    default:
      MEMWAL_ASSERT(false && "not a transaction kind");
      return false;
  }
}

// R34: what an OptimizeIndex transaction claims under `advance`, rebuilt from
// its read version: i's segments after this publish as computed at begin
// (before any rebase prune). R61's caller offers cut the claim or add a
// second advance for the next index, as that index stood at the read version.
Advances AdvancesOf(const Config& config, const Txn& txn, const Version& read) {
  Advances advances;
  if (config.protocol != Protocol::kAdvance ||
      txn.kind != OpKind::kOptimizeIndex) {
    return advances;
  }
  Advance& own = advances.own;
  own.index = txn.index;
  own.expected = read.segments[txn.index];
  if (txn.segment.uuid != 0) {
    Version scratch;
    scratch.segments[txn.index] = read.segments[txn.index];
    PublishOptimize(txn, txn.segment.covers, &scratch);
    own.expected = scratch.segments[txn.index];
  }
  if (txn.advance == 0) return advances;
  const auto offer = static_cast<AdvanceOffer>(txn.advance - 1);
  if (offer == AdvanceOffer::kOtherIndex) {
    const int other = (txn.index + 1) % config.bounds.indexes;
    advances.other.index = other;
    advances.other.expected = read.segments[other];
  } else {
    own.cut = static_cast<int>(offer);
  }
  return advances;
}

// R35 step 3.
bool CatchupStep(const Config& config, const Txn& txn, const Version& read,
                 const Version& given_head, Version* next) {
  // Lance reads the prior positions from the system index after the operation
  // [P §6.2]: the head's, except after a MemWAL install (R39), whose details
  // bring their own.
  Version head = given_head;
  if (txn.kind == OpKind::kReinstallMemWal) head.catchup = next->catchup;
  switch (config.protocol) {
    case Protocol::kDerived:
    case Protocol::kUnconditional:
      if (RequiresCatchup(config, head) && !head.mem_wal_dropped)
        Derive(config, read, head, next);
      return true;
    case Protocol::kAdvance:
      return ApplyAdvance(config, AdvancesOf(config, txn, read), read, head,
                          next);
    case Protocol::kLegacy:
      return true;
  }
  MEMWAL_ASSERT(false && "protocol out of range");
  return false;
}

// R35 steps 4-6, in Lance's order: new_from_previous + inherit (4), activation
// (6, in build_manifest), then the write-time apply_feature_flags (5). False =
// activation refused.
bool FeatureBits(const Config& config, const Txn& txn, const Version& head,
                 Version* next) {
  bool bit =
      HasBothBits(head) && !Has(config, Bug::kBitDroppedByNewFromPrevious);
#ifdef MEMWAL_MODEL_MUTANT
  // deliberate mutant for tests/spec: the cross-check must fail
  bit = false;  // step 4 no longer inherits the head's feature bits
#endif
  if (txn.kind == OpKind::kActivate) {
    if (HasNoBit(head) && head.mem_wal_dropped) return false;  // R63
    if (HasNoBit(head)) {
      for (int s = 0; s < kShardsMax; ++s) {
        if (head.compacted[s] != 0) return false;
      }
      for (auto& positions : next->catchup) positions = {};
    }
    bit = true;
  }
  if (Has(config, Bug::kBitClearedBySecondApply)) bit = false;
  next->reader_bit = bit;
  next->writer_bit = bit;
  return true;
}

// R35: builds the new version on the head. False = refuse. On success *state
// holds the allocation and ghost updates and *next the version to append.
bool Build(const Config& config, const Txn& txn, const Proposal& t,
           State* state, Version* next) {
  const Version head = Head(*state);
  if (head.reader_bit != head.writer_bit) return false;  // step 1
  *next = head;
  next->number = static_cast<uint8_t>(head.number + 1);
  next->retained = true;
  next->op = Op{.kind = txn.kind};
  if (!OperationArm(config, txn, t, state, next)) return false;
  const Version& read = VersionNumbered(*state, txn.read_version);
  if (!CatchupStep(config, txn, read, head, next)) return false;
  return FeatureBits(config, txn, head, next);
}

void RemoveSlot(int slot, State* state) {
  for (int t = slot; t + 1 < state->inflight_count; ++t) {
    state->inflight[t] = state->inflight[t + 1];
  }
  state->inflight[--state->inflight_count] = Txn{};
}

}  // namespace

bool IsEnabled(const Config&, const State& state, const Commit& action) {
  return action.slot >= 0 && action.slot < state.inflight_count;
}

void Apply(const Config& config, const Commit& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn = state.inflight[action.slot];
  RemoveSlot(action.slot, &state);
  Proposal t = ProposalOf(config, state, txn);
  const Conflict verdict = Rebase(state, txn, &t);
  if (verdict != Conflict::kOk) {
    *outcome =
        verdict == Conflict::kRetryable ? Outcome::kRetry : Outcome::kRefused;
    return;
  }
  // Build updates the allocation and the ghost record in place; a refusal
  // leaves the state as it was before the build.
  const State before = state;
  Version next;
  if (!Build(config, txn, t, &state, &next)) {
    state = before;
    *outcome = Outcome::kRefused;
    return;
  }
  MEMWAL_ASSERT(state.version_count < kVersionsMax);
  state.versions[state.version_count++] = next;
  state.committed += 1;
  state.activated = state.activated || txn.kind == OpKind::kActivate ||
                    next.reader_bit || next.writer_bit;
  *outcome = Outcome::kPublished;
}

}  // namespace memwal::model
