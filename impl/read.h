// Read side and SSTable retirement [spec R12, R40; P §7, §8]: the exclusion
// watermark a query uses to skip SSTables the base table already holds, and the
// rule under which garbage collection may delete an SSTable. Both are evaluated
// on decoded manifests only.
#ifndef MEMWAL_IMPL_READ_H_
#define MEMWAL_IMPL_READ_H_

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "impl/bugs.h"
#include "impl/catchup.h"
#include "impl/table.h"

namespace memwal::impl {

enum class ReadMode { kStrict, kMin, kSingleIndex };

// What the read side needs from one version.
struct VersionView {
  ShardGenerations compacted;
  CatchupTable catchup;
  std::set<std::string> indexes;  // User index names present.
  bool both_bits = false;
};
Result<VersionView> ViewOf(const Snapshot& snapshot);
// The same, shared: a decoded manifest's view is computed once per thread.
Result<std::shared_ptr<const VersionView>> SharedViewOf(
    const Snapshot& snapshot);

// R40 (lancedb exclusion_watermarks): 0 = no watermark (every flushed SSTable
// is read). `query` are the index names the query relies on, sorted
// (single-index uses the first). Bug single-index-watermark: the reader caps by
// the first index only. Bug reader-ignores-bit: the strict reader treats a
// missing entry as no cap on bit tables.
uint64_t ExclusionWatermark(const VersionView& head, const std::string& shard,
                            const std::vector<std::string>& query,
                            Protocol protocol, ReadMode mode, BugSet bugs);

// R12: may SSTable (shard, generation) be deleted, given every retained
// version?
bool Retirable(const std::vector<const VersionView*>& retained,
               const std::string& shard, uint64_t generation,
               Protocol protocol);
bool Retirable(const std::vector<VersionView>& retained,
               const std::string& shard, uint64_t generation,
               Protocol protocol);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_READ_H_
