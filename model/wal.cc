// WAL-side actions (spec/protocol.md R10-R13): flushing SSTables and retiring
// them.
#include "model/read.h"
#include "model/rules.h"

namespace memwal::model {
namespace {

bool InRange(const Config& config, int shard, int generation) {
  return shard >= 0 && shard < config.bounds.shards && generation >= 1 &&
         generation <= config.bounds.generations;
}

// R11's guard, shared by RetireSsTable and RetireDecide.
bool RetireGuard(const Config& config, const State& state, int shard,
                 int generation) {
  if (!InRange(config, shard, generation)) return false;
  if (generation > state.flushed[shard]) return false;
  if (Contains(state.retired[shard], generation - 1)) return false;
  return Retirable(config, state, shard, generation);
}

// Retires (s,g) and records which indexes covered its row at that moment (R3
// ghost).
void Retire(const Config& config, State* state, int shard, int generation) {
  MEMWAL_ASSERT(!Contains(state->retired[shard], generation - 1));
  state->retired[shard] |= GenerationSet(1u << (generation - 1));
  const int row = shard * kGenerationsMax + generation - 1;
  state->retire_cover[row] = CoveringIndexes(config, *state, shard, generation);
}

}  // namespace

bool IsEnabled(const Config& config, const State& state,
               const FlushMemTable& action) {
  if (action.shard < 0 || action.shard >= config.bounds.shards) return false;
  // R63: no shard writer runs once __lance_mem_wal is dropped.
  if (Head(state).mem_wal_dropped) return false;
  return state.flushed[action.shard] < config.bounds.generations;
}

void Apply(const Config& config, const FlushMemTable& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  state.flushed[action.shard] += 1;
  *outcome = Outcome::kDone;
}

bool IsEnabled(const Config& config, const State& state,
               const RetireSsTable& action) {
  if (config.gc != GcMode::kAtomic) return false;
  return RetireGuard(config, state, action.shard, action.generation);
}

void Apply(const Config& config, const RetireSsTable& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Retire(config, &state, action.shard, action.generation);
  *outcome = Outcome::kDone;
}

bool IsEnabled(const Config& config, const State& state,
               const RetireDecide& action) {
  if (config.gc == GcMode::kAtomic) return false;
  if (!RetireGuard(config, state, action.shard, action.generation))
    return false;
  return !(state.pending & RowBit(action.shard, action.generation));
}

void Apply(const Config& config, const RetireDecide& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  state.pending |= RowBit(action.shard, action.generation);
  *outcome = Outcome::kDone;
}

bool IsEnabled(const Config& config, const State& state,
               const RetireExecute& action) {
  if (config.gc == GcMode::kAtomic) return false;
  if (!InRange(config, action.shard, action.generation)) return false;
  return state.pending & RowBit(action.shard, action.generation);
}

// stale-read deletes without looking again; recheck drops a decision the head
// no longer supports (R13).
void Apply(const Config& config, const RetireExecute& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  state.pending &= RowSet(~RowBit(action.shard, action.generation));
  const bool recheck_fails =
      config.gc == GcMode::kRecheck &&
      !Retirable(config, state, action.shard, action.generation);
  if (!recheck_fails) Retire(config, &state, action.shard, action.generation);
  *outcome = Outcome::kDone;
}

}  // namespace memwal::model
