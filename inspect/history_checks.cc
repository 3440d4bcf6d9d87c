// Checks over consecutive versions of the table's history (spec section 9:
// "last commit" is a version and its predecessor). Every pair of versions found
// in _versions/ is judged; a gap (versions removed by cleanup) pairs the
// versions on either side of it, and the reason says so, because the commits in
// between are not on disk.
#include <algorithm>

#include "inspect/checks.h"

namespace memwal::inspect {
namespace {

using SegmentList =
    std::vector<std::pair<std::string, std::string>>;  // (uuid, bitmap)

std::map<std::string, SegmentList> UserSegments(const DatasetVersion& version) {
  std::map<std::string, SegmentList> out;
  for (const IndexMetadata& index : version.contents.indices) {
    if (index.name == "__lance_mem_wal") continue;
    out[index.name].emplace_back(index.uuid, index.fragment_bitmap);
  }
  return out;
}

std::string Pair(const DatasetVersion& before, const DatasetVersion& after) {
  std::string text =
      VersionName(before) + " -> " + std::to_string(after.version);
  if (after.version != before.version + 1)
    text += " (versions in between are not on disk)";
  return text;
}

void CompactionNeverRegresses(const DatasetVersion& before,
                              const DatasetVersion& after, Reasons* findings) {
  if (OperationOf(after) == kOpRestore) return;
  const auto old_compacted = CompactedByShard(before);
  const auto new_compacted = CompactedByShard(after);
  for (const auto& [shard, generation] : old_compacted) {
    const auto it = new_compacted.find(shard);
    const uint64_t now = it == new_compacted.end() ? 0 : it->second;
    if (now < generation) {
      findings->push_back(Pair(before, after) + ": shard " + UuidText(shard) +
                          " compacted_sstables went from " +
                          std::to_string(generation) + " to " +
                          std::to_string(now));
    }
  }
}

void UnchangedPositionsNeverDrop(const DatasetVersion& before,
                                 const DatasetVersion& after,
                                 Reasons* findings) {
  if (OperationOf(after) == kOpRestore || IsActivation(after)) return;
  const auto old_segments = UserSegments(before);
  const auto new_segments = UserSegments(after);
  const auto old_catchup = CatchupByIndex(before);
  const auto new_catchup = CatchupByIndex(after);
  for (const auto& [name, shards] : old_catchup) {
    const auto old_it = old_segments.find(name);
    const auto new_it = new_segments.find(name);
    if (old_it == old_segments.end() || new_it == new_segments.end()) continue;
    if (old_it->second != new_it->second)
      continue;  // Segments changed: may be withdrawn.
    const auto now_it = new_catchup.find(name);
    for (const auto& [shard, position] : shards) {
      uint64_t now = 0;
      if (now_it != new_catchup.end() && now_it->second.contains(shard)) {
        now = now_it->second.at(shard);
      }
      if (now < position) {
        findings->push_back(Pair(before, after) + ": index " + name +
                            " kept its segments but its position for shard " +
                            UuidText(shard) + " fell from " +
                            std::to_string(position) + " to " +
                            std::to_string(now));
      }
    }
  }
}

bool NeitherBit(const DatasetVersion& version) {
  const Manifest& m = version.contents.manifest;
  return ((m.reader_feature_flags | m.writer_feature_flags) & 128) == 0;
}

void LegacyTablesAreUntouched(const DatasetVersion& before,
                              const DatasetVersion& after, Reasons* findings) {
  if (!NeitherBit(before) || IsActivation(after)) return;
  if (CatchupByIndex(before) != CatchupByIndex(after)) {
    findings->push_back(
        Pair(before, after) +
        ": index_catchup changed on a version without the bit, by a " +
        OperationName(OperationOf(after)) + " commit");
  }
}

// The judgeable part of NoRowIsLost: metadata-only commits keep the fragment
// list.
void NoRowIsLost(const DatasetVersion& before, const DatasetVersion& after,
                 Reasons* findings) {
  const uint32_t op = OperationOf(after);
  if (op != kOpCreateIndex && op != kOpUpdateMemWalState) return;
  if (LiveFragments(before.contents.manifest) !=
      LiveFragments(after.contents.manifest)) {
    findings->push_back(Pair(before, after) + ": the " + OperationName(op) +
                        " commit changed the live fragments");
  }
}

}  // namespace

void AddHistoryChecks(TableReport* report) {
  Reasons regress, drop, legacy, lost;
  const std::vector<DatasetVersion>& versions = report->versions;
  size_t unknown_ops = 0;
  for (size_t i = 1; i < versions.size(); ++i) {
    if (OperationOf(versions[i]) == 0) ++unknown_ops;
    CompactionNeverRegresses(versions[i - 1], versions[i], &regress);
    UnchangedPositionsNeverDrop(versions[i - 1], versions[i], &drop);
    if (IsBitProtocol(report->protocol))
      LegacyTablesAreUntouched(versions[i - 1], versions[i], &legacy);
    NoRowIsLost(versions[i - 1], versions[i], &lost);
  }
  const std::string pairs =
      std::to_string(versions.size() > 0 ? versions.size() - 1 : 0) +
      " consecutive version pairs";
  const std::string caveat =
      unknown_ops == 0 ? ""
                       : " (" + std::to_string(unknown_ops) +
                             " versions have no readable transaction; judged "
                             "as ordinary commits)";
  AddCheck(report, "CompactionNeverRegresses", regress,
           "compacted_sstables never shrinks outside a Restore over " + pairs +
               caveat);
  AddCheck(
      report, "UnchangedPositionsNeverDrop", drop,
      "no index with unchanged segments lost position over " + pairs + caveat);
  AddCheck(report, "LegacyTablesAreUntouched", legacy,
           IsBitProtocol(report->protocol)
               ? "no commit on a version without the bit changed index_catchup "
                 "over " +
                     pairs
               : "not applicable: protocol " + ProtocolName(report->protocol) +
                     " has no bit");
  AddCheck(
      report, "NoRowIsLost", lost,
      "every CreateIndex and UpdateMemWalState commit kept the fragment list "
      "over " +
          pairs +
          " (rows inside fragments are not on disk in a form inspect reads)");
}

}  // namespace memwal::inspect
