// Checks on the implementation's decoded bytes
// (checker/lockstep/bytes_checks.h).
#include "checker/lockstep/bytes_checks.h"

#include <algorithm>
#include <string>

#include "base/assert.h"

namespace memwal::checker::lockstep {

std::optional<Finding> CheckZeroEntries(const model::Config& config,
                                        const impl::TableVersion& head) {
  (void)config;
  const std::string label = "version " + std::to_string(head.number);
  for (const auto& [shard, generation] : head.compacted) {
    if (generation != 0) continue;
    return Finding{std::string(kImplementationMatchesModel),
                   label +
                       " persists a compacted_sstables entry of 0 for "
                       "shard " +
                       std::to_string(shard) +
                       " (no writer writes one; the model has no entry)"};
  }
  for (const auto& [index, positions] : head.catchup) {
    bool all_zero = true;
    for (const auto& [shard, position] : positions) {
      if (position != 0) all_zero = false;
      const auto it = head.compacted.find(shard);
      const uint64_t compacted = it == head.compacted.end() ? 0 : it->second;
      if (position > compacted) {
        return Finding{"CatchupWithinCompaction",
                       "broken on the implementation's persisted head: " +
                           label + " idx_" + std::to_string(index) +
                           " position " + std::to_string(position) +
                           " on shard " + std::to_string(shard) +
                           " is past compacted " + std::to_string(compacted)};
      }
    }
    if (all_zero) {
      return Finding{"CatchupWithinCompaction",
                     "broken on the implementation's persisted head: " + label +
                         " persists an index_catchup entry for idx_" +
                         std::to_string(index) +
                         " whose every position is 0 (0 < p fails; Lance "
                         "omits an all-zero entry)"};
    }
  }
  return std::nullopt;
}

std::vector<uint8_t> SystemIndexUuidKept(const std::vector<VersionPtr>& impl) {
  std::vector<uint8_t> kept(impl.size(), 2);
  for (std::size_t k = 1; k < impl.size(); ++k) {
    if (impl[k]->op == impl::OpKind::kRestore) continue;
    kept[k] =
        impl[k]->mem_wal_index_uuid == impl[k - 1]->mem_wal_index_uuid ? 1 : 0;
  }
  return kept;
}

std::vector<std::string> SystemIndexUuidDiff(
    const std::vector<VersionPtr>& impl, const std::vector<uint8_t>& kept,
    const model::State& model) {
  MEMWAL_ASSERT(kept.size() == impl.size());
  std::vector<std::string> lines;
  const std::size_t count =
      std::min<std::size_t>(impl.size(), model.version_count);
  for (std::size_t k = 1; k < count; ++k) {
    if (kept[k] == 2) continue;  // a Restore
    const model::Version& before = model.versions[k - 1];
    const model::Version& after = model.versions[k];
    if (before.mem_wal_dropped || after.mem_wal_dropped) continue;
    // A MemWAL (re)install writes a new system index (R39), so its uuid
    // changes whatever the progress.
    const bool model_same = !model::InstallsMemWal(after.op.kind) &&
                            before.compacted == after.compacted &&
                            before.catchup == after.catchup;
    const bool impl_same = kept[k] == 1;
    if (model_same == impl_same) continue;
    lines.push_back("version " + std::to_string(impl[k]->number) +
                    ": the system index uuid " +
                    (impl_same ? "is kept" : "changes") +
                    " (impl) while its progress " +
                    (model_same ? "is unchanged" : "changes") + " (model)");
  }
  return lines;
}

}  // namespace memwal::checker::lockstep
