// R12 retention and R40 watermarks.
#include "model/read.h"

#include <algorithm>

namespace memwal::model {
namespace {

// R40: the indexes that lower the watermark; single-index readers look at the
// smallest.
IndexSet CappingIndexes(const Config& config, IndexSet uses) {
  const bool single = config.read == ReadMode::kSingleIndex ||
                      Has(config, Bug::kSingleIndexWatermark);
  if (!single || uses == 0) return uses;
  return static_cast<IndexSet>(uses & (~uses + 1));  // lowest set bit
}

// R40: a missing entry lowers the watermark to 0 only for the strict reader on
// a table that requires catch-up. Under reader-ignores-bit the strict reader of
// a bit protocol never does.
bool MissingEntryCaps(const Config& config, const Version& head) {
  if (config.read != ReadMode::kStrict) return false;
  if (Has(config, Bug::kReaderIgnoresBit) && IsBitProtocol(config.protocol))
    return false;
  return RequiresCatchup(config, head);
}

// R12 for one retained version.
bool RetirableIn(const Config& config, const Version& v, int shard,
                 int generation) {
  if (generation > v.compacted[shard]) return false;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (!IsPresent(v, i)) continue;
    const int position = v.catchup[i][shard];
    if (position >= generation) continue;
    const bool missing_reads_caught_up =
        position == 0 && !RequiresCatchup(config, v);
    if (!missing_reads_caught_up) return false;
  }
  return true;
}

}  // namespace

QueryShapes AllQueryShapes(const Config& config, const State& state) {
  QueryShapes out;
  const IndexSet present = PresentIndexes(Head(state), config.bounds.indexes);
  out.shapes[out.count++] = QueryShape{.uses = 0};
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (Contains(present, i))
      out.shapes[out.count++] = QueryShape{.uses = IndexSet(1u << i)};
  }
  out.shapes[out.count++] = QueryShape{.uses = present};
  MEMWAL_ASSERT(out.count <= static_cast<int>(out.shapes.size()));
  return out;
}

bool RequiresCatchup(const Config& config, const Version& version) {
  switch (config.protocol) {
    case Protocol::kUnconditional:
      return true;
    case Protocol::kLegacy:
      return false;
    case Protocol::kDerived:
    case Protocol::kAdvance:
      return HasBothBits(version);
  }
  MEMWAL_ASSERT(false && "protocol out of range");
  return false;
}

int Watermark(const Config& config, const State& state, QueryShape shape,
              int shard) {
  MEMWAL_ASSERT(shard >= 0 && shard < config.bounds.shards);
  const Version& head = Head(state);
  int watermark = head.compacted[shard];
  if (watermark == 0) return 0;
  const IndexSet capping = CappingIndexes(config, shape.uses);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (!Contains(capping, i)) continue;
    const int position = head.catchup[i][shard];
    if (position > 0) {
      watermark = std::min(watermark, position);
    } else if (MissingEntryCaps(config, head)) {
      watermark = 0;
    }
  }
  MEMWAL_ASSERT(watermark >= 0 && watermark <= head.compacted[shard]);
  return watermark;
}

bool Served(const Config& config, const State& state, QueryShape shape,
            int shard, int generation) {
  return ServedAbove(state, Watermark(config, state, shape, shard), shard,
                     generation);
}

ReaderWatermarks ModelWatermarks(const Config& config, const State& state) {
  ReaderWatermarks out;
  const QueryShapes shapes = AllQueryShapes(config, state);
  for (int q = 0; q < shapes.count; ++q) {
    for (int s = 0; s < config.bounds.shards; ++s)
      out.of[q][s] = Watermark(config, state, shapes.shapes[q], s);
  }
  return out;
}

bool ServedAbove(const State& state, int watermark, int shard, int generation) {
  MEMWAL_ASSERT(generation >= 1 && generation <= kGenerationsMax);
  if (generation > state.flushed[shard]) return false;
  if (Contains(state.retired[shard], generation - 1)) return false;
  return generation > watermark;
}

bool Retirable(const Config& config, const State& state, int shard,
               int generation) {
  MEMWAL_ASSERT(shard >= 0 && shard < config.bounds.shards);
  MEMWAL_ASSERT(generation >= 1 && generation <= config.bounds.generations);
  for (int v = 0; v < state.version_count; ++v) {
    const Version& version = state.versions[v];
    if (version.retained && !RetirableIn(config, version, shard, generation))
      return false;
  }
  return true;
}

int RetirableThrough(const Config& config, const Version& version, int shard) {
  int g = 0;
  while (g < config.bounds.generations &&
         RetirableIn(config, version, shard, g + 1))
    ++g;
  return g;
}

IndexSet CoveringIndexes(const Config& config, const State& state, int shard,
                         int generation) {
  const Version& head = Head(state);
  const RowSet row = RowBit(shard, generation);
  IndexSet covering = 0;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (!IsPresent(head, i)) covering |= IndexSet(1u << i);
    const FragmentSet covered = CoveredBy(head, i) & head.live;
    for (int f = 0; f < kFragmentsMax; ++f) {
      if (Contains(covered, f) && (state.rows[f] & row))
        covering |= IndexSet(1u << i);
    }
  }
  return covering;
}

}  // namespace memwal::model
