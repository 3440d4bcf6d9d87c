// Atomic table actions (spec/protocol.md R36-R38): Restore, ShallowClone,
// CleanupVersions.
#include "model/rules.h"

namespace memwal::model {
namespace {

// R36: refused if v is half-set, or if the head has either bit and v has
// neither ("that version predates it"). restore-walks-back refuses nothing.
bool RestoreRefused(const Config& config, const Version& v,
                    const Version& head) {
  if (Has(config, Bug::kRestoreWalksBack)) return false;
  if (v.reader_bit != v.writer_bit) return true;
  const bool head_has_bit = head.reader_bit || head.writer_bit;
  return head_has_bit && HasNoBit(v);
}

bool HasRetainedOlderVersion(const State& state) {
  for (int v = 0; v + 1 < state.version_count; ++v) {
    if (state.versions[v].retained) return true;
  }
  return false;
}

}  // namespace

bool IsEnabled(const Config& config, const State& state,
               const Restore& action) {
  if (!CommitBudgetLeft(config, state)) return false;
  for (int v = 0; v + 1 < state.version_count; ++v) {
    const Version& version = state.versions[v];
    if (version.number == action.version) return version.retained;
  }
  return false;
}

void Apply(const Config& config, const Restore& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  const Version& head = Head(state);
  const Version& old = VersionNumbered(state, action.version);
  if (RestoreRefused(config, old, head)) {
    *outcome = Outcome::kRefused;
    return;
  }
  Version next = old;
  next.number = static_cast<uint8_t>(head.number + 1);
  next.retained = true;
  next.op = Op{.kind = OpKind::kRestore};
  const bool inherit =
      HasBothBits(head) && !Has(config, Bug::kRestoreWalksBack);
  next.reader_bit = old.reader_bit || inherit;
  next.writer_bit = old.writer_bit || inherit;
  MEMWAL_ASSERT(state.version_count < kVersionsMax);
  state.versions[state.version_count++] = next;
  state.committed += 1;
  state.activated = state.activated || next.reader_bit || next.writer_bit;
  *outcome = Outcome::kPublished;
}

bool IsEnabled(const Config& config, const State& state, const ShallowClone&) {
  return CommitBudgetLeft(config, state);
}

// R37: the clone's only version is the head (same number) with its words masked
// to bit 128; the old table's history and in-flight transactions stay behind;
// the WAL is shared.
void Apply(const Config& config, const ShallowClone& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  Version clone = Head(state);
  if (Has(config, Bug::kShallowCloneZeroesBits)) {
    clone.reader_bit = false;
    clone.writer_bit = false;
  }
  clone.retained = true;
  state.versions = {};
  state.versions[0] = clone;
  state.version_count = 1;
  state.inflight = {};
  state.inflight_count = 0;
  state.committed += 1;
  *outcome = Outcome::kDone;
}

bool IsEnabled(const Config&, const State& state, const CleanupVersions&) {
  return HasRetainedOlderVersion(state);
}

void Apply(const Config& config, const CleanupVersions& action, State* out,
           Outcome* outcome) {
  State& state = *out;
  MEMWAL_ASSERT(IsEnabled(config, state, action));
  for (int v = 0; v + 1 < state.version_count; ++v)
    state.versions[v].retained = false;
  *outcome = Outcome::kDone;
}

}  // namespace memwal::model
