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

// The version that first holds fragment `id`, if the history on disk shows its
// creation.
const DatasetVersion* CreatorOf(const TableReport& report, uint64_t id) {
  for (size_t i = 0; i < report.versions.size(); ++i) {
    if (!LiveFragments(report.versions[i].contents.manifest).contains(id))
      continue;
    const bool first_on_disk = i == 0;
    if (first_on_disk && report.versions[i].version != 1)
      return nullptr;  // Created earlier.
    return &report.versions[i];
  }
  return nullptr;
}

// Why an uncovered live fragment may hold rows of `shard` up to `position`;
// empty when its creating commit shows it cannot: a plain append or create
// holds base rows only, and a compaction commit names the generation it copied
// (R20, R22).
std::string MayHoldCaughtUpRows(const TableReport& report, uint64_t fragment,
                                const std::string& shard, uint64_t position) {
  const DatasetVersion* creator = CreatorOf(report, fragment);
  const std::string at =
      "live fragment " + std::to_string(fragment) + " is not covered";
  if (creator == nullptr)
    return at + " and was created before the oldest version on disk";
  const uint32_t op = OperationOf(*creator);
  const std::string by =
      " (created by " + OperationName(op) + " in " + VersionName(*creator);
  if (op == kOpAppend || op == kOpOverwrite) return "";
  if (op != kOpUpdate ||
      creator->contents.transaction->compacted_sstables.empty()) {
    return at + by + ", which does not say which generations it holds)";
  }
  for (const auto& [compacted_shard, generation] :
       creator->contents.transaction->compacted_sstables) {
    if (compacted_shard == shard && generation <= position) {
      return at + by + ", compacting generation " + std::to_string(generation) +
             ")";
    }
  }
  return "";
}

// The judgeable part of CatchupWithinCoverage: which rows a fragment holds is
// not on disk, so every live fragment the index does not cover is attributed
// through the commit that created it; one that may hold rows up to the position
// is a finding.
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
        continue;
      }
      if (!it->coverage_known) {
        findings.push_back(
            at + ": a segment has no fragment bitmap (unknown coverage)");
        continue;
      }
      for (const uint64_t fragment : it->uncovered_live) {
        const std::string why =
            MayHoldCaughtUpRows(*report, fragment, shard, position);
        if (!why.empty()) findings.push_back(at + ": " + why);
      }
    }
  }
  AddCheck(
      report, "CatchupWithinCoverage", findings,
      positions == 0
          ? "no catch-up positions recorded"
          : "every live fragment an index with a position does not cover was "
            "created by an append or by compacting a later generation");
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
