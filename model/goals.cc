// The reachability goals of spec/protocol.md section 9: scenarios every run
// must reach so that "no violation" is never vacuous. Each is a predicate of
// one transition.
#include <array>

#include "model/invariants.h"

namespace memwal::model {
namespace {

bool IsCommit(const Action& action) {
  return std::holds_alternative<Commit>(action);
}

// Some (index, shard) position at the head moved in the direction `raised`.
bool PositionMoved(const Config& config, const State& before,
                   const State& after, bool raised) {
  const Version& old_head = Head(before);
  const Version& new_head = Head(after);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (int s = 0; s < config.bounds.shards; ++s) {
      const int was = old_head.catchup[i][s];
      const int is = new_head.catchup[i][s];
      if (raised ? is > was : is < was) return true;
    }
  }
  return false;
}

// ReachPositionCredited: a publish raises some position.
bool PositionCredited(const Config& config, const State& before,
                      const Action& action, Outcome outcome,
                      const State& after) {
  if (!IsCommit(action) || outcome != Outcome::kPublished) return false;
  return PositionMoved(config, before, after, true);
}

// ReachPositionWithdrawn: a publish removes or lowers some position.
bool PositionWithdrawn(const Config& config, const State& before,
                       const Action& action, Outcome outcome,
                       const State& after) {
  if (!IsCommit(action) || outcome != Outcome::kPublished) return false;
  return PositionMoved(config, before, after, false);
}

// ReachSsTableRetired: some SSTable is retired (R11, or R13's Execute when it
// deletes).
bool SsTableRetired(const Config&, const State& before, const Action& action,
                    Outcome, const State& after) {
  const bool retire = std::holds_alternative<RetireSsTable>(action) ||
                      std::holds_alternative<RetireExecute>(action);
  return retire && before.retired != after.retired;
}

// ReachCommitRebased: a commit publishes with its read version below the head
// it built on.
bool CommitRebased(const Config&, const State& before, const Action& action,
                   Outcome outcome, const State&) {
  if (!IsCommit(action) || outcome != Outcome::kPublished) return false;
  const Txn& txn = before.inflight[std::get<Commit>(action).slot];
  return txn.read_version < Head(before).number;
}

// ReachRestoreOnActivatedTable: a Restore, published or refused, on a head with
// both bits.
bool RestoreOnActivatedTable(const Config&, const State& before,
                             const Action& action, Outcome, const State&) {
  return std::holds_alternative<Restore>(action) && HasBothBits(Head(before));
}

// ReachBitmapPrunedInPlace: a publish keeps a segment's uuid while shrinking
// its covers. A publish appends a version, so the uuids of `before` keep their
// canonical names in `after`.
bool BitmapPrunedInPlace(const Config& config, const State& before,
                         const Action& action, Outcome outcome,
                         const State& after) {
  if (!IsCommit(action) || outcome != Outcome::kPublished) return false;
  const Version& old_head = Head(before);
  const Version& new_head = Head(after);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (const Segment& was : old_head.segments[i]) {
      for (const Segment& is : new_head.segments[i]) {
        const bool same = was.uuid != 0 && was.uuid == is.uuid;
        if (same && (is.covers & ~was.covers) == 0 && is.covers != was.covers)
          return true;
      }
    }
  }
  return false;
}

// A goal the bounds make unreachable is not applicable (so a run at
// --indexes 0 does not fail on it): positions and segments need an index.
bool Always(const Config&) { return true; }
bool WithIndex(const Config& config) { return config.bounds.indexes > 0; }
bool WithPositions(const Config& config) {
  return config.protocol != Protocol::kLegacy && WithIndex(config);
}
bool WithBit(const Config& config) { return IsBitProtocol(config.protocol); }

constexpr std::array<Goal, 6> kGoals = {{
    {"ReachPositionCredited", PositionCredited, WithPositions},
    {"ReachPositionWithdrawn", PositionWithdrawn, WithPositions},
    {"ReachSsTableRetired", SsTableRetired, Always},
    {"ReachCommitRebased", CommitRebased, Always},
    {"ReachRestoreOnActivatedTable", RestoreOnActivatedTable, WithBit},
    {"ReachBitmapPrunedInPlace", BitmapPrunedInPlace, WithIndex},
}};

}  // namespace

std::span<const Goal> AllGoals() { return kGoals; }

}  // namespace memwal::model
