// The read side and the retention rule (spec/protocol.md R12 and R40):
// exclusion watermarks per query shape, which SSTables a query is served, and
// which SSTables GC may retire.
//
// These are pure functions of the head (Retirable: of every retained version).
// The invariants use them, and the checker reports them next to the
// implementation's answers.
#ifndef MEMWAL_MODEL_READ_H_
#define MEMWAL_MODEL_READ_H_

#include <array>

#include "model/config.h"
#include "model/state.h"

namespace memwal::model {

// A query shape (R40): the set U of indexes it uses. plain = {}, index(i) =
// {i}, all = every present index.
struct QueryShape {
  IndexSet uses = 0;
  friend bool operator==(const QueryShape&, const QueryShape&) = default;
};

// The shapes of R40 on the head, in the order plain, index(0), index(1), ...,
// all.
struct QueryShapes {
  std::array<QueryShape, kIndexesMax + 2> shapes{};
  int count = 0;
};
QueryShapes AllQueryShapes(const Config& config, const State& state);

// `version` requires catch-up: a missing index_catchup entry means "not caught
// up" (unconditional always; bit protocols when both bits are set; legacy
// never).
bool RequiresCatchup(const Config& config, const Version& version);

// R40: the exclusion watermark W of `shape` on shard s at the head; 0 = none.
int Watermark(const Config& config, const State& state, QueryShape shape,
              int shard);

// R40: SSTable (s,g) is served to `shape`: flushed, not retired, and above the
// watermark.
bool Served(const Config& config, const State& state, QueryShape shape,
            int shard, int generation);

// A reader's answers: the exclusion watermark of each shape of
// AllQueryShapes (same order) on each shard; 0 = none. The model's reader
// (ModelWatermarks) is Watermark; the checker fills one from the
// implementation's reader, so that ReadsMissNoRows can be decided by it.
struct ReaderWatermarks {
  std::array<std::array<int, kShardsMax>, kIndexesMax + 2> of{};  // [q][s]
};
ReaderWatermarks ModelWatermarks(const Config& config, const State& state);

// SSTable (s,g) is served by a reader whose watermark on shard s is
// `watermark`: flushed, not retired, and above it.
bool ServedAbove(const State& state, int watermark, int shard, int generation);

// R12: GC may retire SSTable (s,g): every retained version compacted it and
// every index present in it is caught up to g there (or reads a missing entry
// as caught up).
bool Retirable(const Config& config, const State& state, int shard,
               int generation);

// The largest g (0 for none) such that R12 holds in `version` alone for every
// generation 1..g of `shard`. R12 in one version is downward closed in g, so
// this number says all it says about the shard.
int RetirableThrough(const Config& config, const Version& version, int shard);

// What retire_cover records when (s,g) is retired (R11): the indexes whose
// segments, at the head, cover a live fragment holding row (s,g), plus every
// index absent from the head. Decision (not in the spec's text): an index
// created after the retirement is treated like one that covered the row, since
// its later lack of coverage is the base table's own fast_search limitation,
// exactly as for a covering index that is later replaced. Without it,
// DropIndex; compact; retire; CreateIndex (read before the compaction) breaks
// ReadsMissNoRows under the default config.
IndexSet CoveringIndexes(const Config& config, const State& state, int shard,
                         int generation);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_READ_H_
