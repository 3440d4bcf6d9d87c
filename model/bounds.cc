// Bounds checks and presets (spec/protocol.md section 2).
#include "model/bounds.h"

#include <string>

namespace memwal::model {
namespace {

Status CheckOne(std::string_view name, int value, int min, int max) {
  if (value >= min && value <= max) return Status::Ok();
  return Status::InvalidArgument(
      std::string(name) + " must be in " + std::to_string(min) + ".." +
      std::to_string(max) + ", not " + std::to_string(value));
}

}  // namespace

Status CheckBounds(const Bounds& bounds) {
  MEMWAL_RETURN_IF_ERROR(CheckOne("shards", bounds.shards, 1, kShardsMax));
  MEMWAL_RETURN_IF_ERROR(
      CheckOne("generations", bounds.generations, 1, kGenerationsMax));
  MEMWAL_RETURN_IF_ERROR(
      CheckOne("fragments", bounds.fragments, 1, kFragmentsMax));
  MEMWAL_RETURN_IF_ERROR(CheckOne("indexes", bounds.indexes, 0, kIndexesMax));
  MEMWAL_RETURN_IF_ERROR(CheckOne("commits", bounds.commits, 0, kCommitsMax));
  MEMWAL_RETURN_IF_ERROR(
      CheckOne("inflight", bounds.inflight, 0, kInflightMax));
  MEMWAL_RETURN_IF_ERROR(
      CheckOne("reinstalls", bounds.reinstalls, 0, kReinstallsMax));
  return Status::Ok();
}

// The smallest bounds under which every goal of the default config is
// reachable.
Bounds TinyBounds() {
  return Bounds{.shards = 1,
                .generations = 1,
                .fragments = 2,
                .indexes = 1,
                .commits = 4,
                .inflight = 2};
}

// The default run (about 280k states): adds a second generation and a third
// fragment, so RewriteFragments and multi-generation progress appear.
Bounds SmallBounds() {
  return Bounds{.shards = 1,
                .generations = 2,
                .fragments = 3,
                .indexes = 1,
                .commits = 4,
                .inflight = 2};
}

// About 1.2M states: two indexes, so query shapes over several indexes appear.
Bounds MediumBounds() {
  return Bounds{.shards = 1,
                .generations = 2,
                .fragments = 3,
                .indexes = 2,
                .commits = 4,
                .inflight = 2};
}

// About 3.8M states (20 s, 0.7 GB): two shards and two indexes. A fifth commit
// makes it about 36M states and 10 GB before the stale-data-pass counterexample
// (see the tests).
Bounds LargeBounds() {
  return Bounds{.shards = 2,
                .generations = 2,
                .fragments = 3,
                .indexes = 2,
                .commits = 4,
                .inflight = 2};
}

// The default gate of ./memwal check (about 512k states with symmetry): tiny's
// bounds with two shards and two indexes, so that a position looked up for the
// wrong shard and a watermark taking the wrong index's position are in reach,
// and one MemWAL re-install (R39), so the default check explores it.
Bounds GateBounds() {
  return Bounds{.shards = 2,
                .generations = 1,
                .fragments = 2,
                .indexes = 2,
                .commits = 4,
                .inflight = 2,
                .reinstalls = 1};
}

Result<Bounds> ParsePreset(std::string_view name) {
  if (name == "tiny") return TinyBounds();
  if (name == "small") return SmallBounds();
  if (name == "medium") return MediumBounds();
  if (name == "large") return LargeBounds();
  if (name == "gate") return GateBounds();
  return Status::InvalidArgument(
      "unknown preset '" + std::string(name) +
      "' (expected tiny, small, medium, large or gate)");
}

std::string_view PresetName(const Bounds& bounds) {
  if (bounds == TinyBounds()) return "tiny";
  if (bounds == SmallBounds()) return "small";
  if (bounds == MediumBounds()) return "medium";
  if (bounds == LargeBounds()) return "large";
  if (bounds == GateBounds()) return "gate";
  return "custom";
}

}  // namespace memwal::model
