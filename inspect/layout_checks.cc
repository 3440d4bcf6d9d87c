// Checks of the MemWAL layout on disk: the system index against the shard
// directories, the MemWAL details' lists, each shard manifest against its
// directory and SSTables, and the part of ReadsMissNoRows one table can answer
// (an SSTable a query still serves must exist).
#include <algorithm>
#include <set>

#include "inspect/checks.h"

namespace memwal::inspect {
namespace {

void SystemIndexPresent(TableReport* report) {
  Reasons findings;
  const bool has_index =
      report->head().memwal.has_value() || !report->head().memwal_uuid.empty();
  if (!has_index && !report->shards.empty()) {
    findings.push_back(std::to_string(report->shards.size()) +
                       " shard directories exist under _mem_wal/ but version " +
                       std::to_string(report->head().version) +
                       " has no __lance_mem_wal index");
  }
  AddCheck(report, "SystemIndexPresent", findings,
           has_index ? "__lance_mem_wal is installed"
                     : "not a MemWAL table (no system index, no shards)");
}

void ListsAreUnique(TableReport* report) {
  Reasons findings;
  if (report->head().memwal) {
    const MemWalIndexDetails& details = *report->head().memwal;
    std::set<std::string> shards;
    for (const auto& [shard, generation] : details.compacted_sstables) {
      if (!shards.insert(shard).second) {
        findings.push_back("compacted_sstables names shard " + UuidText(shard) +
                           " twice");
      }
      if (generation == 0)
        findings.push_back("compacted_sstables records generation 0");
    }
    std::set<std::string> names;
    for (const IndexCatchupProgress& progress : details.index_catchup) {
      if (!names.insert(progress.index_name).second) {
        findings.push_back("index_catchup names index " + progress.index_name +
                           " twice");
      }
      std::set<std::string> seen;
      for (const auto& [shard, generation] : progress.caught_up_generations) {
        if (!seen.insert(shard).second) {
          findings.push_back("index_catchup[" + progress.index_name +
                             "] names shard " + UuidText(shard) + " twice");
        }
      }
    }
  }
  AddCheck(
      report, "MemWalListsAreUnique", findings,
      "no shard or index appears twice in compacted_sstables or index_catchup");
}

const ShardReport* FindShard(const TableReport& report,
                             const std::string& raw) {
  for (const ShardReport& shard : report.shards) {
    if (shard.raw_uuid == raw) return &shard;
  }
  return nullptr;
}

// The newest generation a shard manifest says was flushed.
uint64_t FlushedThrough(const ShardManifest& manifest) {
  uint64_t newest =
      manifest.current_generation > 0 ? manifest.current_generation - 1 : 0;
  for (const SsTable& sstable : manifest.sstables)
    newest = std::max(newest, sstable.generation);
  return newest;
}

void CompactionWithinFlushed(TableReport* report) {
  Reasons findings;
  for (const auto& [raw, generation] : CompactedByShard(report->head())) {
    const ShardReport* shard = FindShard(*report, raw);
    if (shard == nullptr || !shard->manifest) {
      findings.push_back(
          "shard " + UuidText(raw) + " has compaction progress " +
          std::to_string(generation) + " but no shard manifest on disk");
    } else if (generation > FlushedThrough(*shard->manifest)) {
      findings.push_back("shard " + shard->uuid + " compacted to generation " +
                         std::to_string(generation) +
                         " but flushed only through " +
                         std::to_string(FlushedThrough(*shard->manifest)));
    }
  }
  AddCheck(report, "CompactionWithinFlushed", findings,
           "every shard's compaction progress names a generation its manifest "
           "flushed");
}

void CheckShard(const ShardReport& shard, Reasons* findings) {
  if (!shard.manifest) {
    findings->push_back("shard " + shard.uuid + " has no shard manifest");
    return;
  }
  const ShardManifest& manifest = *shard.manifest;
  if (!manifest.shard_id.empty() && manifest.shard_id != shard.raw_uuid) {
    findings->push_back("shard " + shard.uuid +
                        ": its manifest names shard_id " +
                        UuidText(manifest.shard_id));
  }
  if (shard.version_hint && *shard.version_hint > manifest.version) {
    findings->push_back("shard " + shard.uuid + ": version_hint.json says " +
                        std::to_string(*shard.version_hint) +
                        ", newest manifest is " +
                        std::to_string(manifest.version));
  }
  for (const SsTableReport& sstable : shard.sstables) {
    if (!sstable.outside) continue;
    findings->push_back("shard " + shard.uuid + " lists generation " +
                        std::to_string(sstable.generation) + " at " +
                        sstable.path +
                        ", outside the shard directory; not read");
  }
  std::set<uint64_t> generations;
  for (const SsTable& sstable : manifest.sstables) {
    if (!generations.insert(sstable.generation).second) {
      findings->push_back("shard " + shard.uuid + " lists generation " +
                          std::to_string(sstable.generation) + " twice");
    }
    if (sstable.generation == 0 ||
        sstable.generation >= manifest.current_generation) {
      findings->push_back("shard " + shard.uuid + " lists generation " +
                          std::to_string(sstable.generation) + " outside 1.." +
                          std::to_string(manifest.current_generation) + "-1");
    }
  }
  for (uint64_t generation : shard.generation_dirs) {
    if (generations.contains(generation) ||
        generation >= manifest.current_generation)
      continue;
    findings->push_back(
        "shard " + shard.uuid + " has a directory for generation " +
        std::to_string(generation) +
        " that its manifest does not list (a manifest that lost entries, or "
        "a directory retirement left behind)");
  }
}

void ShardManifestsAreConsistent(TableReport* report) {
  Reasons findings;
  if (!report->memwal_dir_problem.empty()) {
    const uint64_t named =
        report->head().memwal ? report->head().memwal->num_shards : 0;
    findings.push_back(
        "_mem_wal is " + report->memwal_dir_problem + "; no shard can be read" +
        (named > 0
             ? " (the MemWAL details name " + std::to_string(named) + " shards)"
             : std::string()));
  }
  for (const ShardReport& shard : report->shards) CheckShard(shard, &findings);
  AddCheck(report, "ShardManifestsAreConsistent", findings,
           std::to_string(report->shards.size()) +
               " shard manifests name their own shard and list distinct "
               "flushed generations");
}

void MaintainedIndexesExist(TableReport* report) {
  Reasons findings;
  if (report->head().memwal) {
    std::set<std::string> present;
    for (const IndexMetadata& index : report->head().contents.indices)
      present.insert(index.name);
    for (const std::string& name : report->head().memwal->maintained_indexes) {
      if (!present.contains(name))
        findings.push_back("maintained index " + name + " has no segments");
    }
  }
  AddCheck(report, "MaintainedIndexesExist", findings,
           "every maintained index exists in the table");
}

// A listed SSTable whose directory is gone can only be fine if no query serves
// it any more.
void ReadsMissNoRows(TableReport* report) {
  Reasons findings;
  size_t missing = 0;
  for (const ShardReport& shard : report->shards) {
    uint64_t lowest =
        UINT64_MAX;  // The lowest strict watermark over every query shape.
    for (const Watermark& w : report->watermarks) {
      if (w.shard == shard.uuid && w.mode == "strict")
        lowest = std::min(lowest, w.generation);
    }
    if (lowest == UINT64_MAX) lowest = 0;
    for (const SsTableReport& sstable : shard.sstables) {
      if (sstable.exists || sstable.outside) continue;
      ++missing;
      if (sstable.generation > lowest) {
        findings.push_back("shard " + shard.uuid + " generation " +
                           std::to_string(sstable.generation) + " (" +
                           sstable.path +
                           ") is missing but still served (strict watermark " +
                           std::to_string(lowest) + ")");
      }
    }
  }
  AddCheck(
      report, "ReadsMissNoRows", findings,
      missing == 0
          ? "every listed SSTable is on disk (rows held by fragments are not "
            "judged: that needs the writer's record of which rows each holds)"
          : "every missing SSTable is below every query's watermark");
}

}  // namespace

void AddLayoutChecks(TableReport* report) {
  SystemIndexPresent(report);
  ListsAreUnique(report);
  CompactionWithinFlushed(report);
  ShardManifestsAreConsistent(report);
  MaintainedIndexesExist(report);
  ReadsMissNoRows(report);
}

}  // namespace memwal::inspect
