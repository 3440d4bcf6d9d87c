// JSON rendering of a TableReport; see render.h. Shard and segment uuids are
// text.
#include <ctime>

#include "impl/bitmap.h"
#include "inspect/render.h"

namespace memwal::inspect {

using nlohmann::json;

std::string TimestampText(const Manifest& manifest) {
  if (!manifest.timestamp_seconds) return "";
  const std::time_t seconds =
      static_cast<std::time_t>(*manifest.timestamp_seconds);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) return "";
  char text[96];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour,
                utc.tm_min, utc.tm_sec,
                static_cast<int>(manifest.timestamp_nanos / 1000000));
  return text;
}

namespace {

json VersionSummary(const DatasetVersion& version) {
  const Manifest& m = version.contents.manifest;
  uint64_t data_files = 0, data_file_rows = 0, deletion_files = 0, deleted = 0,
           bytes = 0;
  for (const DataFragment& fragment : m.fragments) {
    data_files += fragment.files.size();
    data_file_rows += fragment.physical_rows;
    for (const DataFile& file : fragment.files) bytes += file.file_size_bytes;
    if (fragment.deletion_file) {
      ++deletion_files;
      deleted += fragment.deletion_file->num_deleted_rows;
    }
  }
  json indexes = json::array();
  for (const IndexSummary& index : SummarizeIndexes(version))
    indexes.push_back(index.name);
  const auto& txn = version.contents.transaction;
  return {{"version", version.version},
          {"file", version.file},
          {"timestamp", TimestampText(m)},
          {"operation", txn ? OperationName(txn->operation) : ""},
          {"read_version", txn ? json(txn->read_version) : json(nullptr)},
          {"fragments", m.fragments.size()},
          {"rows", CountRows(m)},
          {"data_files", data_files},
          {"data_file_rows", data_file_rows},
          {"deletion_files", deletion_files},
          {"deletion_file_rows", deleted},
          {"files_size_bytes", bytes},
          {"reader_feature_flags", m.reader_feature_flags},
          {"writer_feature_flags", m.writer_feature_flags},
          {"indexes", indexes}};
}

json ManifestJson(const Manifest& m) {
  json schema = json::array();
  for (const SchemaField& field : m.fields) {
    schema.push_back({{"name", field.name},
                      {"id", field.id},
                      {"type", field.logical_type},
                      {"nullable", field.nullable},
                      {"metadata", field.metadata}});
  }
  return {{"writer", m.writer_library + " " + m.writer_version},
          {"data_format", m.data_format},
          {"reader_feature_flags", m.reader_feature_flags},
          {"writer_feature_flags", m.writer_feature_flags},
          {"max_fragment_id",
           m.max_fragment_id ? json(*m.max_fragment_id) : json(nullptr)},
          {"transaction_file", m.transaction_file},
          {"config", m.config},
          {"schema", schema}};
}

json FragmentsJson(const Manifest& m) {
  json out = json::array();
  for (const DataFragment& f : m.fragments) {
    out.push_back({{"id", f.id},
                   {"physical_rows", f.physical_rows},
                   {"deleted_rows",
                    f.deletion_file ? f.deletion_file->num_deleted_rows : 0},
                   {"rows", f.rows()},
                   {"data_files", f.files.size()}});
  }
  return out;
}

json SegmentJson(const IndexMetadata& segment) {
  const Result<impl::Coverage> coverage =
      impl::DecodeFragmentBitmap(segment.fragment_bitmap);
  json covers = nullptr;
  if (coverage.ok() && coverage->has_value()) covers = **coverage;
  return {{"uuid", UuidText(segment.uuid)},
          {"dataset_version", segment.dataset_version},
          {"index_version", segment.index_version ? json(*segment.index_version)
                                                  : json(nullptr)},
          {"type_url",
           segment.index_details ? segment.index_details->type_url : ""},
          {"files", segment.file_count},
          {"covers", covers}};
}

json IndexesJson(const DatasetVersion& version) {
  json out = json::array();
  for (const IndexSummary& index : SummarizeIndexes(version)) {
    json segments = json::array();
    for (const IndexMetadata* segment : index.segments)
      segments.push_back(SegmentJson(*segment));
    out.push_back({{"name", index.name},
                   {"system", index.system},
                   {"columns", index.columns},
                   {"segments", segments},
                   {"coverage_known", index.coverage_known},
                   {"indexed_rows", index.indexed_rows},
                   {"unindexed_rows", index.unindexed_rows},
                   {"uncovered_live_fragments", index.uncovered_live}});
  }
  return out;
}

json Positions(const std::vector<ShardGeneration>& list) {
  json out = json::array();
  for (const auto& [shard, generation] : list) {
    out.push_back({{"shard", UuidText(shard)}, {"generation", generation}});
  }
  return out;
}

json MemWalJson(const DatasetVersion& version) {
  if (!version.memwal) return nullptr;
  const MemWalIndexDetails& d = *version.memwal;
  json specs = json::array();
  for (const ShardingSpec& spec : d.sharding_specs) {
    json fields = json::array();
    for (const ShardingField& f : spec.fields) {
      fields.push_back({{"field_id", f.field_id},
                        {"source_ids", f.source_ids},
                        {"transform", f.transform},
                        {"expression", f.expression},
                        {"result_type", f.result_type},
                        {"parameters", f.parameters}});
    }
    specs.push_back({{"spec_id", spec.spec_id}, {"fields", fields}});
  }
  json catchup = json::array();
  for (const IndexCatchupProgress& p : d.index_catchup) {
    catchup.push_back({{"index", p.index_name},
                       {"positions", Positions(p.caught_up_generations)}});
  }
  return {{"uuid", UuidText(version.memwal_uuid)},
          {"num_shards", d.num_shards},
          {"snapshot_ts_millis", d.snapshot_ts_millis},
          {"inline_snapshots", d.has_inline_snapshots},
          {"sharding_specs", specs},
          {"maintained_indexes", d.maintained_indexes},
          {"compacted_sstables", Positions(d.compacted_sstables)},
          {"index_catchup", catchup},
          {"writer_config_defaults", d.writer_config_defaults}};
}

json SsTableJson(const SsTableReport& sstable) {
  json out = {{"generation", sstable.generation},
              {"path", sstable.path},
              {"exists", sstable.exists}};
  if (!sstable.latest) return out;
  const DatasetVersion& latest = *sstable.latest;
  out["version"] = latest.version;
  out["rows"] = CountRows(latest.contents.manifest);
  out["fragments"] = latest.contents.manifest.fragments.size();
  out["indexes"] = IndexesJson(latest);
  return out;
}

json ShardJson(const ShardReport& shard) {
  json out = {{"uuid", shard.uuid},
              {"manifest", shard.manifest_file},
              {"manifest_versions", shard.manifest_versions},
              {"version_hint",
               shard.version_hint ? json(*shard.version_hint) : json(nullptr)},
              {"wal_entries", shard.wal_entries}};
  json sstables = json::array();
  for (const SsTableReport& sstable : shard.sstables)
    sstables.push_back(SsTableJson(sstable));
  out["sstables"] = sstables;
  if (!shard.manifest) return out;
  const ShardManifest& m = *shard.manifest;
  out["version"] = m.version;
  out["writer_epoch"] = m.writer_epoch;
  out["replay_after_wal_entry_position"] = m.replay_after_wal_entry_position;
  out["wal_entry_position_last_seen"] = m.wal_entry_position_last_seen;
  out["current_generation"] = m.current_generation;
  out["shard_spec_id"] = m.shard_spec_id;
  out["status"] = m.status == 0   ? "ACTIVE"
                  : m.status == 1 ? "SEALED"
                                  : std::to_string(m.status);
  return out;
}

}  // namespace

json ReportToJson(const TableReport& report) {
  const DatasetVersion& head = report.head();
  json out = {{"table", report.table_dir},
              {"version", head.version},
              {"latest_version", report.versions.back().version},
              {"protocol", ProtocolName(report.protocol)},
              {"protocol_reason", report.protocol_reason}};
  out["versions"] = json::array();
  for (const DatasetVersion& version : report.versions)
    out["versions"].push_back(VersionSummary(version));
  out["manifest"] = ManifestJson(head.contents.manifest);
  out["fragments"] = FragmentsJson(head.contents.manifest);
  out["rows"] = CountRows(head.contents.manifest);
  out["indexes"] = IndexesJson(head);
  out["memwal"] = MemWalJson(head);
  out["shards"] = json::array();
  for (const ShardReport& shard : report.shards)
    out["shards"].push_back(ShardJson(shard));
  out["watermarks"] = json::array();
  for (const Watermark& w : report.watermarks) {
    out["watermarks"].push_back({{"shard", w.shard},
                                 {"shape", w.shape},
                                 {"mode", w.mode},
                                 {"generation", w.generation}});
  }
  out["retirements"] = json::array();
  for (const Retirement& r : report.retirements) {
    out["retirements"].push_back({{"shard", r.shard},
                                  {"generation", r.generation},
                                  {"retirable_here", r.retirable_here},
                                  {"retirable", r.retirable},
                                  {"reason", r.reason}});
  }
  out["checks"] = json::array();
  for (const Check& c : report.checks) {
    out["checks"].push_back({{"name", c.name},
                             {"status", c.ok ? "ok" : "finding"},
                             {"reason", c.reason}});
  }
  out["notes"] = json::array();
  for (const Note& n : report.notes)
    out["notes"].push_back({{"where", n.where}, {"what", n.what}});
  return out;
}

void RenderJson(const TableReport& report, std::ostream& out) {
  // Names and paths come from untrusted bytes: invalid UTF-8 is replaced, never
  // thrown on.
  out << ReportToJson(report).dump(2, ' ', false,
                                   nlohmann::json::error_handler_t::replace)
      << "\n";
}

}  // namespace memwal::inspect
