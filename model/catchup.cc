// R33 (the derivation) and R34 (the explicit advance).
#include "model/catchup.h"

#include <algorithm>

#include "model/read.h"

namespace memwal::model {
namespace {

// R33: what the commit may credit shard s of a proven index with: the read
// version's progress (the head's under claim-past-read-version), never past
// this commit's own progress.
int Credit(const Config& config, const Version& read, const Version& head,
           const Version& next, int shard) {
  const int progress = Has(config, Bug::kClaimPastReadVersion)
                           ? head.compacted[shard]
                           : read.compacted[shard];
  return std::min(progress, static_cast<int>(next.compacted[shard]));
}

// R33 `proven(i)`: the read state is available, the read version has a live
// fragment, and i's segments after the operation cover every fragment live at
// the read version. Every model segment has known covers.
bool Proven(const Config& config, const Version& read, const Version& next,
            int index) {
  const bool read_available =
      config.protocol == Protocol::kUnconditional || read.reader_bit;
  if (!read_available || read.live == 0) return false;
  return (read.live & ~CoveredBy(next, index)) == 0;
}

FragmentSet UnionOf(const Segments& segments) {
  FragmentSet covers = 0;
  for (const Segment& segment : segments) covers |= segment.covers;
  return covers;
}

// The set of uuids of `segments` equals that of `other` (order-insensitive, as
// Lance dedupes).
bool SameUuids(const Segments& segments, const Segments& other) {
  auto has = [](const Segments& list, uint8_t uuid) {
    for (const Segment& s : list) {
      if (s.uuid == uuid) return true;
    }
    return false;
  };
  for (const Segment& s : segments) {
    if (s.uuid != 0 && !has(other, s.uuid)) return false;
  }
  for (const Segment& s : other) {
    if (s.uuid != 0 && !has(segments, s.uuid)) return false;
  }
  return true;
}

// R34 validity of the advance for index i in the build of `next` on `head`.
bool AdvanceIsValid(const Config& config, const Advance& advance,
                    const Version& read, const Version& head,
                    const Version& next,
                    const std::array<uint8_t, kShardsMax>& claim) {
  if (!RequiresCatchup(config, head)) return false;
  if (next.mem_wal_dropped) return false;  // R63: no system index
  const Segments& after = next.segments[advance.index];
  if (!SameUuids(after, advance.expected)) return false;
  const FragmentSet covers = UnionOf(after);
  if (covers != UnionOf(advance.expected)) return false;
  const FragmentSet inspected =
      Has(config, Bug::kRepairSpansLiveAtCommit) ? head.live : read.live;
  if ((inspected & ~covers) != 0) return false;
  for (int s = 0; s < config.bounds.shards; ++s) {
    if (claim[s] == 0) continue;
    if (next.compacted[s] == 0 || claim[s] > next.compacted[s]) return false;
  }
  return true;
}

}  // namespace

bool SegmentsUnchanged(const Config& config, const Segments& before,
                       const Segments& after) {
  if (!Has(config, Bug::kUnchangedByUuidOnly)) return before == after;
  for (int k = 0; k < kSegmentsMax; ++k) {
    if (before[k].uuid != after[k].uuid) return false;
  }
  return true;
}

void Derive(const Config& config, const Version& read, const Version& head,
            Version* next) {
  MEMWAL_ASSERT(RequiresCatchup(config, head));
  for (int i = 0; i < kIndexesMax; ++i) {
    auto& positions = next->catchup[i];
    if (!IsPresent(*next, i)) {
      positions = {};  // a dropped index loses its entry
      continue;
    }
    const bool proven = Proven(config, read, *next, i);
    const bool unchanged =
        SegmentsUnchanged(config, head.segments[i], next->segments[i]);
    for (int s = 0; s < kShardsMax; ++s) {
      const int credit = proven ? Credit(config, read, head, *next, s) : 0;
      const int carried = std::min(head.catchup[i][s], next->compacted[s]);
      positions[s] =
          static_cast<uint8_t>(unchanged ? std::max(carried, credit) : credit);
    }
  }
}

bool ApplyAdvance(const Config& config, const Advances& advances,
                  const Version& read, const Version& head, Version* next) {
  const Version& claim_source =
      Has(config, Bug::kAdvanceBoundAtCommit) ? head : read;
  std::array<std::array<uint8_t, kShardsMax>, kIndexesMax> claims{};
  IndexSet claimed = 0;
  for (const Advance* advance : {&advances.own, &advances.other}) {
    if (advance->index < 0) continue;
    std::array<uint8_t, kShardsMax> claim{};
    for (int s = 0; s < kShardsMax; ++s) {
      claim[s] = claim_source.compacted[s];
      // R61: the caller's cut of the claim.
      if (advance->cut == 1 && claim[s] > 0) claim[s] = 1;  // kOldest
      if (advance->cut == 2 && s > 0) claim[s] = 0;         // kFirstShard
    }
    if (!AdvanceIsValid(config, *advance, read, head, *next, claim))
      return false;
    claims[advance->index] = claim;
    claimed |= IndexSet(1u << advance->index);
  }
  if (!RequiresCatchup(config, head))
    return true;  // a legacy table keeps (no) positions
  for (int i = 0; i < kIndexesMax; ++i) {
    auto& positions = next->catchup[i];
    const bool unchanged =
        SegmentsUnchanged(config, head.segments[i], next->segments[i]);
    if (!IsPresent(*next, i)) {
      positions = {};
    } else if (Contains(claimed, i)) {
      for (int s = 0; s < kShardsMax; ++s) {
        positions[s] = unchanged ? std::max(head.catchup[i][s], claims[i][s])
                                 : claims[i][s];
      }
    } else if (!unchanged) {
      positions = {};
    }
  }
  return true;
}

}  // namespace memwal::model
