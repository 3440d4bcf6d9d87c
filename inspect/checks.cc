// The checks inspect can answer from one table on disk (spec section 9
// invariants, judged on the persisted versions, plus the consistency of the
// MemWAL layout); see judge.h. Invariants that need the model's ghost state
// (which rows a fragment holds, what was deleted) are judged only as far as the
// files allow, and the reason says so.
#include "inspect/checks.h"

#include <algorithm>
#include <map>
#include <set>

#include "impl/feature_flags.h"
#include "inspect/judge.h"

namespace memwal::inspect {

void AddCheck(TableReport* report, std::string name, const Reasons& findings,
              std::string ok_reason) {
  Check check{std::move(name), findings.empty(), std::move(ok_reason)};
  if (!findings.empty()) {
    check.reason = findings.front();
    for (size_t i = 1; i < findings.size(); ++i)
      check.reason += "; " + findings[i];
  }
  report->checks.push_back(std::move(check));
}

bool IsBitProtocol(impl::Protocol protocol) {
  return protocol == impl::Protocol::kDerived ||
         protocol == impl::Protocol::kAdvance;
}

std::string VersionName(const DatasetVersion& version) {
  return "version " + std::to_string(version.version);
}

uint32_t OperationOf(const DatasetVersion& version) {
  return version.contents.transaction ? version.contents.transaction->operation
                                      : 0;
}

bool IsActivation(const DatasetVersion& version) {
  return OperationOf(version) == kOpUpdateMemWalState &&
         version.contents.transaction->require_index_catchup;
}

std::map<std::string, uint64_t> CompactedByShard(
    const DatasetVersion& version) {
  std::map<std::string, uint64_t> out;
  if (!version.memwal) return out;
  for (const auto& [shard, generation] : version.memwal->compacted_sstables) {
    out.emplace(shard, generation);
  }
  return out;
}

std::map<std::string, std::map<std::string, uint64_t>> CatchupByIndex(
    const DatasetVersion& version) {
  std::map<std::string, std::map<std::string, uint64_t>> out;
  if (!version.memwal) return out;
  for (const IndexCatchupProgress& progress : version.memwal->index_catchup) {
    auto& shards = out[progress.index_name];
    for (const auto& [shard, generation] : progress.caught_up_generations) {
      shards.emplace(shard, generation);
    }
  }
  return out;
}

namespace {

std::pair<bool, bool> Bits(const DatasetVersion& version) {
  const Manifest& m = version.contents.manifest;
  return {(m.reader_feature_flags & impl::kFlagMemWalIndexCatchup) != 0,
          (m.writer_feature_flags & impl::kFlagMemWalIndexCatchup) != 0};
}

void CheckFeatureBits(TableReport* report) {
  if (!IsBitProtocol(report->protocol)) {
    const std::string na = "not applicable: protocol " +
                           ProtocolName(report->protocol) +
                           " has no MemWAL feature bit";
    AddCheck(report, "FeatureBitsArePaired", {}, na);
    AddCheck(report, "ActivationIsPermanent", {}, na);
    return;
  }
  Reasons paired;
  Reasons permanent;
  const DatasetVersion* activated = nullptr;
  for (const DatasetVersion& version : report->versions) {
    const auto [reader, writer] = Bits(version);
    if (reader != writer) {
      paired.push_back(VersionName(version) + " has bit 128 only in its " +
                       (reader ? "reader" : "writer") + " word");
    }
    if (activated != nullptr && !(reader && writer)) {
      permanent.push_back(VersionName(version) + " lacks bit 128 although " +
                          VersionName(*activated) +
                          " carried it in both words");
    }
    if (activated == nullptr && reader && writer) activated = &version;
  }
  AddCheck(report, "FeatureBitsArePaired", paired,
           "every one of " + std::to_string(report->versions.size()) +
               " versions has bit 128 in both words or in neither");
  AddCheck(report, "ActivationIsPermanent", permanent,
           activated ? "every version from " + VersionName(*activated) +
                           " on carries both bits"
                     : "no version carries the bit");
}

void CheckCatchupWithinCompaction(TableReport* report) {
  const DatasetVersion& head = report->head();
  Reasons findings;
  const std::map<std::string, uint64_t> compacted = CompactedByShard(head);
  size_t positions = 0;
  if (head.memwal) {
    for (const IndexCatchupProgress& progress : head.memwal->index_catchup) {
      for (const auto& [shard, position] : progress.caught_up_generations) {
        ++positions;
        const auto it = compacted.find(shard);
        const std::string at =
            "index " + progress.index_name + " shard " + UuidText(shard);
        if (position == 0)
          findings.push_back(at + ": position 0 recorded (never written)");
        if (it == compacted.end()) {
          findings.push_back(at + ": position " + std::to_string(position) +
                             " for a shard without compaction progress");
        } else if (position > it->second) {
          findings.push_back(at + ": position " + std::to_string(position) +
                             " exceeds compacted_sstables " +
                             std::to_string(it->second));
        }
      }
    }
  }
  AddCheck(report, "CatchupWithinCompaction", findings,
           positions == 0
               ? "no catch-up positions recorded"
               : "all " + std::to_string(positions) +
                     " positions lie within their shard's compaction progress");
}

std::string FragmentList(const std::vector<uint64_t>& ids) {
  std::string text = "{";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(ids[i]);
  }
  return text + "}";
}

// The judgeable part of CatchupWithinCoverage: which fragment holds which
// generation is not on disk, so a position is proven only when the index covers
// every live fragment.
void CheckCatchupWithinCoverage(TableReport* report) {
  const DatasetVersion& head = report->head();
  Reasons findings;
  size_t positions = 0;
  const std::vector<IndexSummary> indexes = SummarizeIndexes(head);
  for (const IndexCatchupProgress& progress :
       head.memwal ? head.memwal->index_catchup
                   : std::vector<IndexCatchupProgress>{}) {
    const auto it = std::find_if(
        indexes.begin(), indexes.end(), [&](const IndexSummary& i) {
          return i.name == progress.index_name && !i.system;
        });
    for (const auto& [shard, position] : progress.caught_up_generations) {
      if (position == 0) continue;
      ++positions;
      const std::string at = "index " + progress.index_name +
                             " at generation " + std::to_string(position) +
                             " of shard " + UuidText(shard);
      if (it == indexes.end()) {
        findings.push_back(at + ": the index has no segments in this version");
      } else if (!it->coverage_known) {
        findings.push_back(
            at + ": a segment has no fragment bitmap (unknown coverage)");
      } else if (!it->uncovered_live.empty()) {
        findings.push_back(
            at + ": live fragments " + FragmentList(it->uncovered_live) +
            " are not covered; rows of generations up to the position may be "
            "there");
      }
    }
  }
  AddCheck(report, "CatchupWithinCoverage", findings,
           positions == 0
               ? "no catch-up positions recorded"
               : "every index with a position covers every live fragment");
}

}  // namespace

void AddChecks(TableReport* report) {
  CheckFeatureBits(report);
  CheckCatchupWithinCompaction(report);
  CheckCatchupWithinCoverage(report);
  AddHistoryChecks(report);
  AddLayoutChecks(report);
}

}  // namespace memwal::inspect
