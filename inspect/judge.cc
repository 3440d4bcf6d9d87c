// Protocol inference, feature-bit notes, watermarks and retirement; see
// judge.h.
#include "inspect/judge.h"

#include <algorithm>
#include <cstdio>

#include "impl/feature_flags.h"

namespace memwal::inspect {
namespace {

struct LanceVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::optional<int> beta;  // "-beta.N"; another prerelease counts as beta 0.
};

std::optional<LanceVersion> ParseLanceVersion(const std::string& text) {
  LanceVersion version;
  char rest[32] = {0};
  const int parsed = std::sscanf(text.c_str(), "%d.%d.%d%31s", &version.major,
                                 &version.minor, &version.patch, rest);
  if (parsed < 3) return std::nullopt;
  if (parsed == 4) {
    int beta = 0;
    version.beta = std::sscanf(rest, "-beta.%d", &beta) == 1 ? beta : 0;
  }
  return version;
}

impl::Protocol ProtocolOfLance(const LanceVersion& v, std::string* reason) {
  if (v.major < 11 || (v.major == 11 && v.minor == 0 && v.patch == 0 &&
                       v.beta && *v.beta < 4)) {
    *reason =
        "predates the catch-up bit (Lance < v11.0.0-beta.4): a missing entry "
        "reads as "
        "caught up";
    return impl::Protocol::kLegacy;
  }
  const bool beta_of_11 =
      v.major == 11 && v.minor == 0 && v.patch == 0 && v.beta.has_value();
  if (beta_of_11 && *v.beta <= 5) {
    *reason = "Lance v11.0.0-beta.4/5: explicit catch-up advances (PR 8263)";
    return impl::Protocol::kAdvance;
  }
  if (beta_of_11 && *v.beta <= 17) {
    *reason =
        "Lance v11.0.0-beta.6..17: catch-up derived at commit behind bit 128 "
        "(PR 8481)";
    return impl::Protocol::kDerived;
  }
  *reason =
      "Lance after v11.0.0-beta.17: catch-up unconditional, no bit (PR 8680)";
  return impl::Protocol::kUnconditional;
}

bool HasBit(const DatasetVersion& version, uint64_t bit) {
  const Manifest& m = version.contents.manifest;
  return ((m.reader_feature_flags | m.writer_feature_flags) & bit) != 0;
}

}  // namespace

void InferProtocol(std::optional<impl::Protocol> given, TableReport* report) {
  const Manifest& head = report->head().contents.manifest;
  const std::string writer = head.writer_library + " " + head.writer_version;
  const std::optional<LanceVersion> lance =
      head.writer_library == "lance" ? ParseLanceVersion(head.writer_version)
                                     : std::nullopt;
  if (lance.has_value()) {
    report->protocol = ProtocolOfLance(*lance, &report->protocol_reason);
    report->protocol_reason =
        "writer " + writer + ": " + report->protocol_reason;
  } else {
    const bool any_bit =
        std::any_of(report->versions.begin(), report->versions.end(),
                    [](const auto& v) { return HasBit(v, 128); });
    report->protocol =
        any_bit ? impl::Protocol::kDerived : impl::Protocol::kLegacy;
    report->protocol_reason =
        (head.writer_library.empty() ? std::string("no writer_version recorded")
                                     : "writer " + writer + " is not Lance") +
        (any_bit ? "; bit 128 is set, read as the MemWAL catch-up bit"
                 : "; no version carries bit 128");
  }
  if (given.has_value()) {
    report->protocol_reason = "given by --protocol (inferred " +
                              ProtocolName(report->protocol) + ": " +
                              report->protocol_reason + ")";
    report->protocol = *given;
    report->protocol_given = true;
  }
}

namespace {

bool IsBitProtocol(impl::Protocol protocol) {
  return protocol == impl::Protocol::kDerived ||
         protocol == impl::Protocol::kAdvance;
}

std::string BitList(uint64_t bits) {
  std::string text;
  for (int bit = 0; bit < 64; ++bit) {
    if ((bits >> bit & 1) == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::to_string(uint64_t{1} << bit);
  }
  return text;
}

void NoteFeatureBits(const TableReport& report, const DatasetVersion& version,
                     Notes* notes) {
  const Manifest& m = version.contents.manifest;
  const std::string where = report.table_dir + "/" + version.file;
  const uint64_t unknown = (m.reader_feature_flags | m.writer_feature_flags) &
                           ~(impl::kFlagUnknown - 1);
  if (unknown != 0) {
    notes->push_back(Note{
        where, "feature bit(s) " + BitList(unknown) +
                   " not understood (bits from 256 up are unknown to "
                   "Lance beta.16; the manifest is read as far as it can be)"});
  }
  if (!HasBit(version, impl::kFlagMemWalIndexCatchup) ||
      IsBitProtocol(report.protocol))
    return;
  notes->push_back(Note{
      where, report.protocol == impl::Protocol::kUnconditional
                 ? "bit 128 is covering-index metadata in Lance v11.0.0 and "
                   "later, not the "
                   "MemWAL catch-up bit; not judged as one"
                 : "bit 128 is unknown to a " + ProtocolName(report.protocol) +
                       " writer (MemWAL catch-up in v11.0.0-beta.4..17)"});
}

std::string ModeName(impl::ReadMode mode) {
  switch (mode) {
    case impl::ReadMode::kStrict:
      return "strict";
    case impl::ReadMode::kMin:
      return "min";
    case impl::ReadMode::kSingleIndex:
      return "single-index";
  }
  return "?";
}

// Every shard the table knows: shard directories, then shards only the details
// name.
std::vector<std::pair<std::string, std::string>> KnownShards(
    const TableReport& report) {
  std::vector<std::pair<std::string, std::string>> shards;  // (uuid text, raw)
  for (const ShardReport& shard : report.shards)
    shards.emplace_back(shard.uuid, shard.raw_uuid);
  if (!report.head().memwal) return shards;
  for (const ShardGeneration& entry :
       report.head().memwal->compacted_sstables) {
    const bool known =
        std::any_of(shards.begin(), shards.end(),
                    [&](const auto& s) { return s.second == entry.first; });
    if (!known) shards.emplace_back(UuidText(entry.first), entry.first);
  }
  return shards;
}

void AddWatermarks(TableReport* report) {
  if (!report->head().memwal) return;
  const impl::VersionView head = ViewOf(report->head());
  std::vector<std::pair<std::string, std::vector<std::string>>> shapes = {
      {"plain", {}}};
  const std::vector<std::string> all(head.indexes.begin(), head.indexes.end());
  for (const std::string& name : all)
    shapes.push_back({"index:" + name, {name}});
  if (!all.empty()) shapes.push_back({"all", all});
  for (const auto& [text, raw] : KnownShards(*report)) {
    for (const auto& [shape, query] : shapes) {
      for (const impl::ReadMode mode :
           {impl::ReadMode::kStrict, impl::ReadMode::kMin,
            impl::ReadMode::kSingleIndex}) {
        const uint64_t generation = impl::ExclusionWatermark(
            head, raw, query, report->protocol, mode, impl::BugSet());
        report->watermarks.push_back(
            Watermark{text, shape, ModeName(mode), generation});
      }
    }
  }
}

}  // namespace

impl::VersionView ViewOf(const DatasetVersion& version) {
  impl::VersionView view;
  const Manifest& m = version.contents.manifest;
  view.both_bits =
      (m.reader_feature_flags & impl::kFlagMemWalIndexCatchup) != 0 &&
      (m.writer_feature_flags & impl::kFlagMemWalIndexCatchup) != 0;
  for (const IndexMetadata& index : version.contents.indices) {
    if (index.name != "__lance_mem_wal") view.indexes.insert(index.name);
  }
  if (!version.memwal) return view;
  view.compacted = version.memwal->compacted_sstables;
  for (const IndexCatchupProgress& progress : version.memwal->index_catchup) {
    view.catchup.emplace(progress.index_name,
                         progress.caught_up_generations);  // First wins.
  }
  return view;
}

namespace {

bool MissingMeansCaughtUp(const impl::VersionView& view,
                          impl::Protocol protocol) {
  if (protocol == impl::Protocol::kLegacy) return true;
  if (protocol == impl::Protocol::kUnconditional) return false;
  return !view.both_bits;
}

// Why R12 refuses (shard, generation) on `version`; empty if it allows it.
std::string BlockingReason(const DatasetVersion& version,
                           const std::string& shard, uint64_t generation,
                           impl::Protocol protocol) {
  const impl::VersionView view = ViewOf(version);
  const std::string at = "version " + std::to_string(version.version) + ": ";
  const uint64_t compacted = impl::GenerationFor(view.compacted, shard);
  if (generation > compacted) {
    return at + (compacted == 0 ? "the shard has no compaction progress"
                                : "compacted only to generation " +
                                      std::to_string(compacted));
  }
  for (const std::string& name : view.indexes) {
    const auto entry = view.catchup.find(name);
    const uint64_t position = entry == view.catchup.end()
                                  ? 0
                                  : impl::GenerationFor(entry->second, shard);
    if (position >= generation) continue;
    if (position == 0 && MissingMeansCaughtUp(view, protocol)) continue;
    return at + "index " + name +
           (position == 0
                ? " has no catch-up entry for the shard (not caught up)"
                : " caught up only to generation " + std::to_string(position));
  }
  return "";
}

Retirement JudgeRetirement(const TableReport& report, const ShardReport& shard,
                           uint64_t generation) {
  Retirement out{shard.uuid, generation, false, false, ""};
  std::vector<impl::VersionView> all;
  for (const DatasetVersion& version : report.versions)
    all.push_back(ViewOf(version));
  out.retirable_here = impl::Retirable({ViewOf(report.head())}, shard.raw_uuid,
                                       generation, report.protocol);
  out.retirable =
      impl::Retirable(all, shard.raw_uuid, generation, report.protocol);
  const std::string here = BlockingReason(report.head(), shard.raw_uuid,
                                          generation, report.protocol);
  MEMWAL_ASSERT(here.empty() == out.retirable_here);
  out.reason = here;
  for (size_t i = 0; out.reason.empty() && i < report.versions.size(); ++i) {
    out.reason = BlockingReason(report.versions[i], shard.raw_uuid, generation,
                                report.protocol);
  }
  MEMWAL_ASSERT(out.reason.empty() == out.retirable);
  if (out.retirable) {
    out.reason = "compacted, and every index caught up, in all " +
                 std::to_string(report.versions.size()) + " retained versions";
  }
  return out;
}

void AddRetirements(TableReport* report) {
  for (const ShardReport& shard : report->shards) {
    for (const SsTableReport& sstable : shard.sstables) {
      // Generation 0 is no generation (ShardManifestsAreConsistent reports it);
      // R12 is stated for generations from 1.
      if (sstable.generation == 0) continue;
      report->retirements.push_back(
          JudgeRetirement(*report, shard, sstable.generation));
    }
  }
}

}  // namespace

void Judge(TableReport* report) {
  for (const DatasetVersion& version : report->versions) {
    NoteFeatureBits(*report, version, &report->notes);
  }
  AddWatermarks(report);
  AddRetirements(report);
  AddChecks(report);
}

}  // namespace memwal::inspect
