// The environment actions of env foreign (spec/protocol.md section 10,
// R60-R62): writers outside this protocol version's own code path.
#include "model/catchup.h"
#include "model/read.h"
#include "model/rules.h"

namespace memwal::model {
namespace {

// A foreign commit: a copy of the head, numbered next, with `kind` as its op.
void PublishForeign(OpKind kind, Version next, State* state) {
  next.number = static_cast<uint8_t>(Head(*state).number + 1);
  next.retained = true;
  next.op = Op{.kind = kind, .index = kForeignIndex};
  MEMWAL_ASSERT(state->version_count < kVersionsMax);
  state->versions[state->version_count++] = next;
  state->committed += 1;
}

bool HasProgress(const Version& version) {
  for (const uint8_t generation : version.compacted) {
    if (generation != 0) return true;
  }
  return false;
}

// Section 5's fragment budget, counting the in-flight transactions that will
// allocate one.
bool CanAllocate(const Config& config, const State& state) {
  int allocating = 0;
  for (int t = 0; t < state.inflight_count; ++t) {
    const OpKind kind = state.inflight[t].kind;
    allocating += kind == OpKind::kAppend || kind == OpKind::kCompactSsTable ||
                          kind == OpKind::kRewriteFragments
                      ? 1
                      : 0;
  }
  return state.next_fragment + allocating < config.bounds.fragments;
}

}  // namespace

// R60: only on a head without the bit (a foreign writer does not clear a bit
// this protocol set; on an activated table it carries bit 128 in both words).
bool IsEnabled(const Config& config, const State& state,
               const ForeignHalfSet&) {
  return IsForeign(config) && IsBitProtocol(config.protocol) &&
         CommitBudgetLeft(config, state) && HasNoBit(Head(state));
}

void Apply(const Config& config, const ForeignHalfSet& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Version next = Head(state);
  next.reader_bit = true;
  next.writer_bit = false;
  *outcome = Outcome::kDone;
  PublishForeign(OpKind::kForeignHalfSet, next, &state);
}

// R61: OptimizeIndex's guard, and an offer that differs from R26's own
// advance (a second index to name; a claim that the cut lowers or shortens).
bool IsEnabled(const Config& config, const State& state,
               const CallerAdvance& action) {
  if (!IsForeign(config) || config.protocol != Protocol::kAdvance) return false;
  if (action.offer < 0 || action.offer >= kAdvanceOffers) return false;
  if (!IsEnabled(config, state, OptimizeIndex{action.index})) return false;
  const Version& head = Head(state);
  switch (static_cast<AdvanceOffer>(action.offer)) {
    case AdvanceOffer::kOtherIndex:
      return config.bounds.indexes >= 2 &&
             IsPresent(head, (action.index + 1) % config.bounds.indexes);
    case AdvanceOffer::kOldest:
      for (const uint8_t generation : head.compacted) {
        if (generation >= 2) return true;
      }
      return false;
    case AdvanceOffer::kFirstShard:
      for (int s = 1; s < config.bounds.shards; ++s) {
        if (head.compacted[s] != 0) return true;
      }
      return false;
  }
  return false;
}

void Apply(const Config& config, const CallerAdvance& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Apply(config, OptimizeIndex{action.index}, &state, outcome);
  state.inflight[state.inflight_count - 1].advance =
      static_cast<uint8_t>(action.offer + 1);
}

// R62: only where there is progress to reset.
bool IsEnabled(const Config& config, const State& state, const ResetMemWal&) {
  if (!IsForeign(config)) return false;
  if (config.protocol != Protocol::kDerived &&
      config.protocol != Protocol::kUnconditional) {
    return false;
  }
  return CommitBudgetLeft(config, state) && HasProgress(Head(state));
}

void Apply(const Config& config, const ResetMemWal& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Version next = Head(state);
  next.compacted = {};
  for (auto& positions : next.catchup) positions = {};
  *outcome = Outcome::kDone;
  PublishForeign(OpKind::kResetMemWal, next, &state);
}

// R63: the writers are drained: every flushed generation is compacted.
bool IsEnabled(const Config& config, const State& state, const DropMemWal&) {
  if (!IsForeign(config) || config.protocol != Protocol::kAdvance) return false;
  const Version& head = Head(state);
  if (!CommitBudgetLeft(config, state) || head.mem_wal_dropped) return false;
  for (int s = 0; s < config.bounds.shards; ++s) {
    if (state.flushed[s] != head.compacted[s]) return false;
  }
  return true;
}

void Apply(const Config& config, const DropMemWal& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Version next = Head(state);
  next.compacted = {};
  for (auto& positions : next.catchup) positions = {};
  next.mem_wal_dropped = true;
  *outcome = Outcome::kDone;
  PublishForeign(OpKind::kDropMemWal, next, &state);
}

// R64: on a table without the bit (the foreign compactor knows no bit, and
// on an activated table this protocol's own compactor runs), the next
// generation flushed and not retired.
bool IsEnabled(const Config& config, const State& state,
               const ForeignCompaction& action) {
  if (!IsForeign(config) || !IsBitProtocol(config.protocol)) return false;
  if (action.shard < 0 || action.shard >= config.bounds.shards) return false;
  const Version& head = Head(state);
  if (!HasNoBit(head) || head.mem_wal_dropped) return false;
  if (!CommitBudgetLeft(config, state) || !CanAllocate(config, state))
    return false;
  const int generation = head.compacted[action.shard] + 1;
  return generation <= state.flushed[action.shard] &&
         !Contains(state.retired[action.shard], generation - 1);
}

// R64: the data and the progress land together (R22 marker), then the
// `unconditional` derivation (R33) runs with the head as read version.
void Apply(const Config& config, const ForeignCompaction& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Version head = Head(state);
  const int s = action.shard;
  const int generation = head.compacted[s] + 1;
  Version next = head;
  const int fragment = state.next_fragment++;
  state.rows[fragment] = RowBit(s, generation);
  next.live |= FragmentSet(1u << fragment);
  next.compacted[s] = static_cast<uint8_t>(generation);
  Config unconditional = config;
  unconditional.protocol = Protocol::kUnconditional;
  unconditional.bugs = 0;  // the foreign writer has none of this run's bugs
  Derive(unconditional, head, head, &next);
  *outcome = Outcome::kDone;
  PublishForeign(OpKind::kForeignCompaction, next, &state);
  state.foreign_legacy = true;
  Op& op = MutableHead(state).op;
  op.index = 0;
  op.progress_shard = static_cast<uint8_t>(s);
  op.progress_generation = static_cast<uint8_t>(generation);
}

}  // namespace memwal::model
