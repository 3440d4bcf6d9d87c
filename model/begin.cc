// The begin half of the table-side transactions (spec/protocol.md section 5,
// R20-R29): each reads the head (its read version) and prepares what a real
// writer prepares before commit.
#include <algorithm>

#include "model/catchup.h"
#include "model/read.h"
#include "model/rules.h"

namespace memwal::model {
namespace {

bool AllocatesFragment(OpKind kind) {
  return kind == OpKind::kAppend || kind == OpKind::kCompactSsTable ||
         kind == OpKind::kRewriteFragments;
}

// Section 5: fewer than `inflight` transactions in flight and commit budget
// left.
bool CanBegin(const Config& config, const State& state) {
  return state.inflight_count < config.bounds.inflight &&
         CommitBudgetLeft(config, state);
}

// Section 5: the fragment id this transaction will allocate at commit is still
// in bounds.
bool CanAllocate(const Config& config, const State& state) {
  int allocating = 0;
  for (int t = 0; t < state.inflight_count; ++t) {
    allocating += AllocatesFragment(state.inflight[t].kind) ? 1 : 0;
  }
  return state.next_fragment + allocating < config.bounds.fragments;
}

bool ValidShard(const Config& config, int shard) {
  return shard >= 0 && shard < config.bounds.shards;
}
bool ValidIndex(const Config& config, int index) {
  return index >= 0 && index < config.bounds.indexes;
}
bool LiveAtHead(const Config& config, const State& state, int fragment) {
  if (fragment < 0 || fragment >= config.bounds.fragments) return false;
  return Contains(Head(state).live, fragment);
}

// R22, R28: the compactor runs only on a table whose activation was
// acknowledged.
// R63: nor on a table whose __lance_mem_wal was dropped.
bool CompactorMayRun(const Config& config, const State& state) {
  if (Head(state).mem_wal_dropped) return false;
  return !IsBitProtocol(config.protocol) || state.activated;
}

// Appends `txn` (read version = head) to the in-flight transactions.
void Begin(Txn txn, State* state, Outcome* outcome) {
  MEMWAL_ASSERT(state->inflight_count < kInflightMax);
  txn.read_version = Head(*state).number;
  state->inflight[state->inflight_count++] = txn;
  *outcome = Outcome::kDone;
}

int SegmentCount(const Segments& segments) {
  int count = 0;
  for (const Segment& segment : segments) count += segment.uuid != 0 ? 1 : 0;
  return count;
}

// R26, derived/unconditional: the derivation run now, on the head with the head
// as read version, would change catch-up (Lance's
// mem_wal_catch_up_would_advance).
bool RepairWouldAdvance(const Config& config, const State& state) {
  const Version& head = Head(state);
  if (!RequiresCatchup(config, head)) return false;
  Version next = head;
  Derive(config, head, head, &next);
  return next.catchup != head.catchup;
}

// R26: a no-work repair (nothing unindexed) exists only where the protocol
// commits one.
bool NoWorkRepairCommits(const Config& config, const State& state) {
  if (Has(config, Bug::kNoWorkRepairRecordsNothing)) return false;
  switch (config.protocol) {
    case Protocol::kLegacy:
      return false;
    case Protocol::kAdvance:
      return true;
    case Protocol::kDerived:
    case Protocol::kUnconditional:
      return RepairWouldAdvance(config, state);
  }
  MEMWAL_ASSERT(false && "protocol out of range");
  return false;
}

}  // namespace

bool CommitBudgetLeft(const Config& config, const State& state) {
  return state.committed + state.inflight_count < config.bounds.commits;
}

uint8_t FreshUuid(const State& state, const Version* extra) {
  uint8_t top = 0;
  auto see = [&top](const Segments& segments) {
    for (const Segment& s : segments) top = std::max(top, s.uuid);
  };
  for (int v = 0; v < state.version_count; ++v) {
    for (const Segments& segments : state.versions[v].segments) see(segments);
  }
  for (int t = 0; t < state.inflight_count; ++t) {
    top = std::max(
        {top, state.inflight[t].segment.uuid, state.inflight[t].removed_uuid});
  }
  if (extra != nullptr) {
    for (const Segments& segments : extra->segments) see(segments);
  }
  MEMWAL_ASSERT(top < 255);
  return static_cast<uint8_t>(top + 1);
}

bool IsEnabled(const Config& config, const State& state, const Append&) {
  return CanBegin(config, state) && CanAllocate(config, state);
}

void Apply(const Config& config, const Append& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Begin(Txn{.kind = OpKind::kAppend}, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const DeleteFragment& action) {
  return CanBegin(config, state) && LiveAtHead(config, state, action.fragment);
}

void Apply(const Config& config, const DeleteFragment& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kDeleteFragment,
                .fragment = static_cast<uint8_t>(action.fragment)};
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const CompactSsTable& action) {
  if (!ValidShard(config, action.shard)) return false;
  if (!CanBegin(config, state) || !CanAllocate(config, state)) return false;
  if (!CompactorMayRun(config, state)) return false;
  const int generation = Head(state).compacted[action.shard] + 1;
  if (generation > state.flushed[action.shard]) return false;
  return !Contains(state.retired[action.shard], generation - 1);
}

void Apply(const Config& config, const CompactSsTable& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kCompactSsTable,
                .shard = static_cast<uint8_t>(action.shard),
                .generation = static_cast<uint8_t>(
                    Head(state).compacted[action.shard] + 1),
                .marker = action.marker};
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const UpdateColumns& action) {
  if (!ValidIndex(config, action.index)) return false;
  return CanBegin(config, state) && LiveAtHead(config, state, action.fragment);
}

void Apply(const Config& config, const UpdateColumns& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kUpdateColumns,
                .fragment = static_cast<uint8_t>(action.fragment),
                .index = static_cast<uint8_t>(action.index)};
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const RewriteFragments& action) {
  if (action.first >= action.second) return false;
  if (!LiveAtHead(config, state, action.first)) return false;
  if (!LiveAtHead(config, state, action.second)) return false;
  return CanBegin(config, state) && CanAllocate(config, state);
}

void Apply(const Config& config, const RewriteFragments& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kRewriteFragments,
                .fragment = static_cast<uint8_t>(action.first),
                .second_fragment = static_cast<uint8_t>(action.second)};
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const CreateIndex& action) {
  return ValidIndex(config, action.index) && CanBegin(config, state);
}

// R25: one new segment with a fresh uuid covering the read version's live
// fragments.
void Apply(const Config& config, const CreateIndex& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kCreateIndex,
                .index = static_cast<uint8_t>(action.index),
                .segment = Segment{.uuid = FreshUuid(state, nullptr),
                                   .covers = Head(state).live}};
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const OptimizeIndex& action) {
  if (!ValidIndex(config, action.index) || !CanBegin(config, state))
    return false;
  const Version& head = Head(state);
  if (!IsPresent(head, action.index)) return false;
  const FragmentSet unindexed = head.live & ~CoveredBy(head, action.index);
  return unindexed != 0 || NoWorkRepairCommits(config, state);
}

// R26: a delta segment over the unindexed fragments, or (two segments already)
// a fresh segment replacing the newest one and covering its covers too; nothing
// for a no-work repair.
void Apply(const Config& config, const OptimizeIndex& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Version& head = Head(state);
  const Segments& segments = head.segments[action.index];
  const FragmentSet unindexed = head.live & ~CoveredBy(head, action.index);
  Txn txn{.kind = OpKind::kOptimizeIndex,
          .index = static_cast<uint8_t>(action.index)};
  if (unindexed != 0) {
    const int count = SegmentCount(segments);
    txn.segment =
        Segment{.uuid = FreshUuid(state, nullptr), .covers = unindexed};
    if (count == kSegmentsMax) {
      txn.removed_uuid = segments[count - 1].uuid;
      txn.segment.covers |= segments[count - 1].covers;
    }
  }
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state,
               const DropIndex& action) {
  if (!ValidIndex(config, action.index) || !CanBegin(config, state))
    return false;
  return IsPresent(Head(state), action.index);
}

void Apply(const Config& config, const DropIndex& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kDropIndex,
                .index = static_cast<uint8_t>(action.index)};
  Begin(txn, &state, outcome);
}

// R28: the data pass of generation g = read.compacted[s]+1 has landed in a live
// fragment.
bool IsEnabled(const Config& config, const State& state,
               const RecordProgress& action) {
  if (!ValidShard(config, action.shard) || !CanBegin(config, state))
    return false;
  if (!CompactorMayRun(config, state)) return false;
  const Version& head = Head(state);
  const int generation = head.compacted[action.shard] + 1;
  if (generation > config.bounds.generations) return false;
  return (LiveRows(state, head) & RowBit(action.shard, generation)) != 0;
}

void Apply(const Config& config, const RecordProgress& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Txn txn{.kind = OpKind::kRecordProgress,
                .shard = static_cast<uint8_t>(action.shard),
                .generation = static_cast<uint8_t>(
                    Head(state).compacted[action.shard] + 1)};
  Begin(txn, &state, outcome);
}

bool IsEnabled(const Config& config, const State& state, const Activate&) {
  if (!IsBitProtocol(config.protocol) || !CanBegin(config, state)) return false;
  return HasNoBit(Head(state));
}

void Apply(const Config& config, const Activate& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Begin(Txn{.kind = OpKind::kActivate}, &state, outcome);
}

// R39: the head has __lance_mem_wal (R63 can drop it under env foreign), and
// fewer than Bounds::reinstalls re-installs are in flight or published. Two
// more bounds keep the gate within its time budget (measured at the gate:
// 512,244 states without the action, 768,346 with only the count bound,
// 532,580 with all three): the install begins with no other transaction in
// flight (the others begin after it, so they read its read version or a later
// one), and under the bit protocols only on an activated table (before
// activation there is no progress or position for it to carry, R22, R28).
bool IsEnabled(const Config& config, const State& state,
               const ReinstallMemWal&) {
  if (!CanBegin(config, state) || Head(state).mem_wal_dropped) return false;
  if (state.inflight_count != 0) return false;
  if (IsBitProtocol(config.protocol) && !state.activated) return false;
  int reinstalls = 0;
  for (int v = 0; v < state.version_count; ++v)
    reinstalls += state.versions[v].op.kind == OpKind::kReinstallMemWal;
  for (int t = 0; t < state.inflight_count; ++t)
    reinstalls += state.inflight[t].kind == OpKind::kReinstallMemWal;
  return reinstalls < config.bounds.reinstalls;
}

// R39: the new system index carries the details of the read version (its
// compacted and catchup), which Commit takes from the history.
void Apply(const Config& config, const ReinstallMemWal& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Begin(Txn{.kind = OpKind::kReinstallMemWal}, &state, outcome);
}

}  // namespace memwal::model
