// Flushed generations as Lance datasets; see lance_sstable.h.
#include "impl/lance_sstable.h"

#include <string_view>
#include <utility>
#include <vector>

#include "impl/format.h"
#include "impl/lance_export.h"
#include "impl/lance_file.h"
#include "impl/rows.h"

namespace memwal::impl {
namespace {

// A flushed generation's directory ends in `_gen_{g}/`; its row file is
// `data.lance` there (world_wal.cc).
constexpr std::string_view kRowFileName = "data.lance";
// The dataset's one data file, under `data/`.
constexpr std::string_view kDataFileName = "generation.lance";

bool IsGenerationRowFile(std::string_view path) {
  if (path.size() <= kRowFileName.size() ||
      path.substr(path.size() - kRowFileName.size()) != kRowFileName)
    return false;
  path.remove_suffix(kRowFileName.size());
  if (path.empty() || path.back() != '/') return false;
  path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  const std::string_view dir =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  return dir.find("_gen_") != std::string_view::npos;
}

// One generation's dataset at `dir` (ending in '/') from its rows.
Status WriteGeneration(Store* table, const std::string& dir,
                       const std::vector<RowKey>& rows,
                       const pb::Manifest& head,
                       const std::map<std::string, uint32_t>& shard_numbers) {
  std::vector<int64_t> shards;
  std::vector<int64_t> generations;
  std::vector<int64_t> keys;
  for (const RowKey& row : rows) {
    const auto number = shard_numbers.find(row.shard);
    if (!row.memwal() || number == shard_numbers.end())
      return Status::Corruption("a flushed generation's row of no shard");
    shards.push_back(number->second);
    generations.push_back(static_cast<int64_t>(row.generation));
    keys.push_back(RowKeyValue(number->second, row.generation));
  }
  pb::Manifest manifest;
  pb::DataFragment* fragment = manifest.add_fragments();
  fragment->set_id(0);
  fragment->set_physical_rows(rows.size());
  pb::DataFile* file = fragment->add_files();
  file->set_path(std::string(kDataFileName));
  file->set_file_major_version(2);
  file->set_file_minor_version(1);
  std::vector<LanceColumn> columns;
  int32_t next_id = 0;
  for (const lance::file::Field& field : head.fields()) {
    *manifest.add_fields() = field;
    next_id = std::max(next_id, field.id() + 1);
    LanceColumn column{.name = field.name(),
                       .id = field.id(),
                       .logical_type = "int64",
                       .nullable = false,
                       .values = {}};
    const std::vector<int64_t>& source = field.name() == kShardColumn ? shards
                                         : field.name() == kGenerationColumn
                                             ? generations
                                             : keys;
    for (const int64_t value : source)
      column.values.push_back(static_cast<uint64_t>(value));
    file->add_fields(field.id());
    file->add_column_indices(static_cast<int32_t>(columns.size()));
    columns.push_back(std::move(column));
  }
  std::string data = EncodeLanceFile(columns, {});
  file->set_file_size_bytes(data.size());
  manifest.set_version(1);
  manifest.set_max_fragment_id(0);
  *manifest.mutable_writer_version() = head.writer_version();
  *manifest.mutable_data_format() = head.data_format();
  ManifestFile manifest_file;
  manifest_file.manifest = std::move(manifest);
  MEMWAL_RETURN_IF_ERROR(
      table->Put(dir + "data/" + std::string(kDataFileName), std::move(data)));
  // The primary-key BTree over the one fragment's row addresses (fragment 0:
  // the offsets).
  std::vector<std::pair<int64_t, uint64_t>> entries;
  for (size_t k = 0; k < keys.size(); ++k) entries.emplace_back(keys[k], k);
  auto [page_data, page_lookup] = BTreeIndexFiles(std::move(entries));
  MEMWAL_RETURN_IF_ERROR(
      table->Put(dir + "_pk_index/page_data.lance", std::move(page_data)));
  MEMWAL_RETURN_IF_ERROR(
      table->Put(dir + "_pk_index/page_lookup.lance", std::move(page_lookup)));
  return table->Put(dir + VersionFileName(1),
                    EncodeManifestFile(manifest_file));
}

}  // namespace

Status WriteLanceSsTables(
    Store* table, const pb::Manifest& head,
    const std::map<std::string, uint32_t>& shard_numbers) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                          table->List(std::string(kMemWalDir)));
  for (const std::string& path : paths) {
    if (!IsGenerationRowFile(path)) continue;
    MEMWAL_ASSIGN_OR_RETURN(const Blob blob, table->Get(path));
    MEMWAL_ASSIGN_OR_RETURN(const std::vector<RowKey> rows,
                            DecodeRowFile(*blob));
    MEMWAL_RETURN_IF_ERROR(WriteGeneration(
        table, path.substr(0, path.size() - kRowFileName.size()), rows, head,
        shard_numbers));
  }
  return Status::Ok();
}

}  // namespace memwal::impl
