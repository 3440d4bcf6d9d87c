// Plain-text rendering of a TableReport; see render.h. One section per topic,
// one line per item, so that a reader can grep for a shard, an index or a check
// name.
#include "base/escape.h"
#include "impl/bitmap.h"
#include "inspect/render.h"

namespace memwal::inspect {
namespace {

// A string read from the table (a name, a path, a note quoting one) made safe
// for a terminal (base/escape.h): one line, no escape sequence.
std::string Shown(std::string_view text) {
  return Escaped(text, EscapeFor::kTerminal, kEscapeNoLimit);
}

std::string Join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += ", ";
    text += Shown(item);
  }
  return text;
}

std::string Ids(const std::vector<uint64_t>& ids) {
  std::string text;
  for (const uint64_t id : ids) {
    if (!text.empty()) text += ",";
    text += std::to_string(id);
  }
  text.insert(0, 1, '{');
  return text + "}";
}

std::string Covers(const IndexMetadata& segment) {
  const Result<impl::Coverage> coverage =
      impl::DecodeFragmentBitmap(segment.fragment_bitmap);
  if (!coverage.ok() || !coverage->has_value()) return "unknown";
  return Ids(std::vector<uint64_t>((*coverage)->begin(), (*coverage)->end()));
}

void RenderVersions(const TableReport& report, std::ostream& out) {
  out << "versions (" << report.versions.size() << "):\n";
  for (const DatasetVersion& v : report.versions) {
    const Manifest& m = v.contents.manifest;
    std::vector<std::string> names;
    for (const IndexSummary& index : SummarizeIndexes(v))
      names.push_back(index.name);
    out << "  " << (v.version == report.head().version ? "* " : "  ")
        << v.version << "  " << TimestampText(m) << "  "
        << (v.contents.transaction
                ? OperationName(v.contents.transaction->operation)
                : "?")
        << "  fragments " << m.fragments.size() << "  rows " << CountRows(m)
        << "  flags " << m.reader_feature_flags << "/" << m.writer_feature_flags
        << "  indexes [" << Join(names) << "]\n";
  }
}

void RenderFragmentsAndIndexes(const TableReport& report, std::ostream& out) {
  const Manifest& m = report.head().contents.manifest;
  out << "fragments (" << m.fragments.size() << ", " << CountRows(m)
      << " rows):\n";
  for (const DataFragment& f : m.fragments) {
    out << "  " << f.id << ": " << f.rows() << " rows (" << f.physical_rows
        << " physical, "
        << (f.deletion_file ? f.deletion_file->num_deleted_rows : 0)
        << " deleted), " << f.files.size() << " data files\n";
  }
  const std::vector<IndexSummary> indexes = SummarizeIndexes(report.head());
  out << "indexes (" << indexes.size() << "):\n";
  for (const IndexSummary& index : indexes) {
    out << "  " << Shown(index.name) << (index.system ? " (system)" : "")
        << " on [" << Join(index.columns) << "]: " << index.segments.size()
        << " segment(s), indexed rows " << index.indexed_rows
        << ", unindexed rows " << index.unindexed_rows
        << (index.coverage_known ? "" : ", coverage unknown") << "\n";
    for (const IndexMetadata* segment : index.segments) {
      out << "    segment " << UuidText(segment->uuid) << " built on version "
          << segment->dataset_version << " covers " << Covers(*segment) << "\n";
    }
  }
}

std::string PositionList(const std::vector<ShardGeneration>& list) {
  std::vector<std::string> items;
  for (const auto& [shard, g] : list)
    items.push_back(UuidText(shard) + "=" + std::to_string(g));
  std::string text = "[";
  text += Join(items);
  return text + "]";
}

void RenderMemWal(const TableReport& report, std::ostream& out) {
  const DatasetVersion& head = report.head();
  if (!head.memwal) {
    out << "memwal: none (no __lance_mem_wal details)\n";
    return;
  }
  const MemWalIndexDetails& d = *head.memwal;
  out << "memwal: system index " << UuidText(head.memwal_uuid) << ", "
      << d.num_shards << " shard(s), maintained indexes ["
      << Join(d.maintained_indexes) << "]\n";
  for (const ShardingSpec& spec : d.sharding_specs) {
    for (const ShardingField& f : spec.fields) {
      out << "  sharding spec " << spec.spec_id << ": " << f.field_id << " "
          << Shown(f.transform) << " -> " << Shown(f.result_type) << "\n";
    }
  }
  out << "  compacted_sstables " << PositionList(d.compacted_sstables) << "\n";
  for (const IndexCatchupProgress& p : d.index_catchup) {
    out << "  index_catchup " << Shown(p.index_name) << " "
        << PositionList(p.caught_up_generations) << "\n";
  }
}

void RenderShards(const TableReport& report, std::ostream& out) {
  out << "shards (" << report.shards.size() << "):\n";
  for (const ShardReport& shard : report.shards) {
    out << "  " << shard.uuid << ": ";
    if (!shard.manifest) {
      out << "no shard manifest\n";
      continue;
    }
    const ShardManifest& m = *shard.manifest;
    out << "manifest v" << m.version << " (" << shard.manifest_versions
        << " on disk), epoch " << m.writer_epoch << ", current generation "
        << m.current_generation << ", replay after "
        << m.replay_after_wal_entry_position << ", " << shard.wal_entries
        << " WAL entries\n";
    for (const SsTableReport& s : shard.sstables) {
      out << "    generation " << s.generation << " " << Shown(s.path);
      if (!s.exists) {
        out << (s.outside ? " (outside the shard directory; not read)\n"
                          : " (missing)\n");
        continue;
      }
      if (!s.latest) {
        out << " (not a Lance dataset)\n";
        continue;
      }
      out << ": " << CountRows(s.latest->contents.manifest) << " rows\n";
    }
  }
}

void RenderJudgement(const TableReport& report, std::ostream& out) {
  if (!report.watermarks.empty()) out << "exclusion watermarks (0 = none):\n";
  for (const Watermark& w : report.watermarks) {
    out << "  " << w.shard << " " << w.shape << " " << w.mode << ": "
        << w.generation << "\n";
  }
  if (!report.retirements.empty()) out << "retirement (R12):\n";
  for (const Retirement& r : report.retirements) {
    out << "  " << r.shard << " generation " << r.generation << ": "
        << (r.retirable ? "retirable" : "retained") << " (this version alone: "
        << (r.retirable_here ? "retirable" : "retained")
        << "): " << Shown(r.reason) << "\n";
  }
  out << "checks:\n";
  for (const Check& c : report.checks) {
    out << "  " << c.name << ": " << (c.ok ? "ok: " : "finding: ")
        << Shown(c.reason) << "\n";
  }
  if (!report.notes.empty()) out << "notes:\n";
  for (const Note& n : report.notes)
    out << "  " << Shown(n.where) << ": " << Shown(n.what) << "\n";
}

}  // namespace

void RenderText(const TableReport& report, std::ostream& out) {
  const Manifest& m = report.head().contents.manifest;
  out << "table " << Shown(report.table_dir) << " version "
      << report.head().version << " of " << report.versions.back().version
      << "\n";
  out << "writer " << Shown(m.writer_library) << " " << Shown(m.writer_version)
      << ", format " << Shown(m.data_format) << ", protocol "
      << ProtocolName(report.protocol) << " (" << Shown(report.protocol_reason)
      << ")\n";
  RenderVersions(report, out);
  RenderFragmentsAndIndexes(report, out);
  RenderMemWal(report, out);
  RenderShards(report, out);
  RenderJudgement(report, out);
}

}  // namespace memwal::inspect
