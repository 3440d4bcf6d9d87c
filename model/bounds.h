// Bounds of the model's state space (spec/protocol.md section 2) and their
// named presets.
//
// A Bounds value says how many shards, generations, fragments, indexes, commits
// and in-flight transactions one exploration allows. The State is made of
// fixed-size arrays, so every bound has a compile-time maximum (kShardsMax,
// ...); Fits() says whether a Bounds value respects them. The preset state
// counts are pinned in tests/model/state_count_test.cc.
#ifndef MEMWAL_MODEL_BOUNDS_H_
#define MEMWAL_MODEL_BOUNDS_H_

#include <string_view>

#include "base/status.h"

namespace memwal::model {

inline constexpr int kShardsMax = 2;
inline constexpr int kGenerationsMax = 4;
inline constexpr int kFragmentsMax = 8;
inline constexpr int kIndexesMax = 3;
inline constexpr int kCommitsMax =
    7;  // so that a history holds at most 8 versions
inline constexpr int kInflightMax = 3;
inline constexpr int kVersionsMax = kCommitsMax + 1;
inline constexpr int kSegmentsMax = 2;  // segments per index (R2)
inline constexpr int kReinstallsMax = 2;

struct Bounds {
  int shards = 1;
  int generations = 1;
  int fragments = 1;
  int indexes = 1;
  int commits = 1;
  int inflight = 1;
  // R39: MemWAL re-installs (ReinstallMemWal) in flight plus published in the
  // history at most this many; 0 switches the action off. Only `gate` sets it
  // (to 1), so tiny..large and their SPIN rendition explore as before.
  int reinstalls = 0;

  friend bool operator==(const Bounds&, const Bounds&) = default;
};

// OK when shards, generations and fragments are at least 1, indexes, commits
// and inflight at least 0, and every bound at most its maximum; else
// InvalidArgument naming the first bad one.
Status CheckBounds(const Bounds& bounds);

// The presets. Their approximate model-only BFS state counts under the default
// config are in the comments of bounds.cc; exact counts are pinned in tests.
Bounds TinyBounds();
Bounds SmallBounds();
Bounds MediumBounds();
Bounds LargeBounds();
Bounds GateBounds();

// "tiny", "small", "medium", "large", "gate" -> the preset; anything else is
// InvalidArgument.
Result<Bounds> ParsePreset(std::string_view name);
// The preset name whose bounds equal `bounds`, or "custom".
std::string_view PresetName(const Bounds& bounds);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_BOUNDS_H_
