// Lance data and index files for a table written to a directory; see
// lance_export.h.
#include "impl/lance_export.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "impl/bitmap.h"
#include "impl/feature_flags.h"
#include "impl/format.h"
#include "impl/lance_file.h"
#include "impl/lance_sstable.h"
#include "impl/rows.h"

namespace memwal::impl {
namespace {

// Rows a BTree page holds (Lance's default batch size, recorded in the
// lookup file's metadata as Lance records it).
constexpr uint64_t kBTreePageRows = 4096;

struct Fragment {
  pb::DataFragment fragment;
  bool stable_row_ids = false;
};

// A fragment's rows with the values its columns hold.
struct RowValues {
  int64_t shard = -1;
  int64_t generation = 0;
  int64_t key = 0;
  uint64_t id = 0;  // the id a BTree index names the row by
};

// The rows of `fragment` as the row file at data/`path` (any of its data
// files under this table: each holds the fragment's rows) has them.
Result<std::vector<RowValues>> ValuesOf(
    const Store& table, const Fragment& fragment, const std::string& path,
    const std::map<std::string, uint32_t>& shard_numbers) {
  const pb::DataFragment& f = fragment.fragment;
  MEMWAL_ASSIGN_OR_RETURN(const Blob blob, table.Get("data/" + path));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<RowKey> rows, DecodeRowFile(*blob));
  std::vector<uint64_t> row_ids;
  if (f.has_inline_row_ids()) {
    MEMWAL_ASSIGN_OR_RETURN(row_ids, DecodeRowIdSequence(f.inline_row_ids()));
  }
  std::vector<RowValues> out;
  for (size_t k = 0; k < rows.size(); ++k) {
    RowValues values;
    const uint64_t address = f.id() << 32 | k;
    const uint64_t row_id = k < row_ids.size() ? row_ids[k] : address;
    values.id = fragment.stable_row_ids ? row_id : address;
    if (rows[k].memwal()) {
      const auto number = shard_numbers.find(rows[k].shard);
      if (number == shard_numbers.end())
        return Status::Corruption("a row of a shard this table does not have");
      values.shard = number->second;
      values.generation = static_cast<int64_t>(rows[k].generation);
      values.key = RowKeyValue(number->second, rows[k].generation);
    } else {
      values.key = static_cast<int64_t>(row_id);
    }
    out.push_back(values);
  }
  return out;
}

std::string FieldName(const pb::Manifest& manifest, int32_t id) {
  for (const lance::file::Field& field : manifest.fields()) {
    if (field.id() == id) return field.name();
  }
  return "";
}

// The Lance file of data file `file` of `fragment`.
Result<std::string> DataFileBytes(
    const Store& table, const pb::Manifest& manifest, const Fragment& fragment,
    const pb::DataFile& file,
    const std::map<std::string, uint32_t>& shard_numbers) {
  MEMWAL_ASSIGN_OR_RETURN(const Blob blob, table.Get("data/" + file.path()));
  // The row file the data file is made from: itself, or, in a table written
  // before (a copy written again), the one its Lance file keeps.
  std::string row_file = *blob;
  if (blob->ends_with("LANC")) {
    MEMWAL_ASSIGN_OR_RETURN(const auto metadata, LanceFileMetadata(*blob));
    const auto kept = metadata.find(std::string(kRowFileMetadata));
    if (kept == metadata.end())
      return Status::Corruption("a Lance data file without its row file");
    row_file = kept->second;
  }
  MEMWAL_ASSIGN_OR_RETURN(
      const std::vector<RowValues> rows,
      ValuesOf(table, fragment, file.path(), shard_numbers));
  // Columns in column_indices order. A tombstoned field (-2: a column
  // rewrite moved the field to another file) keeps its column, as the file
  // Lance wrote before the rewrite does.
  std::map<int32_t, LanceColumn> by_index;
  for (int k = 0; k < file.fields_size(); ++k) {
    const int32_t index =
        k < file.column_indices_size() ? file.column_indices(k) : k;
    const bool tombstone = file.fields(k) < 0;
    LanceColumn column{
        .name = tombstone
                    ? std::string("tombstone").append(std::to_string(index))
                    : FieldName(manifest, file.fields(k)),
        .id = tombstone ? -1 : file.fields(k),
        .logical_type = "int64",
        .nullable = false,
        .values = {}};
    for (const RowValues& row : rows) {
      int64_t value = row.key;
      if (column.name == kShardColumn) value = row.shard;
      if (column.name == kGenerationColumn) value = row.generation;
      column.values.push_back(static_cast<uint64_t>(value));
    }
    by_index.emplace(index, std::move(column));
  }
  std::vector<LanceColumn> columns;
  for (auto& [index, column] : by_index) columns.push_back(std::move(column));
  return EncodeLanceFile(
      columns, {{std::string(kRowFileMetadata), std::move(row_file)}});
}

// page_data.lance and page_lookup.lance of a BTree segment over `rows`.
std::pair<std::string, std::string> BTreeFiles(
    const std::vector<RowValues>& rows) {
  std::vector<std::pair<int64_t, uint64_t>> entries;
  entries.reserve(rows.size());
  for (const RowValues& row : rows) entries.emplace_back(row.key, row.id);
  return BTreeIndexFiles(std::move(entries));
}

}  // namespace

std::pair<std::string, std::string> BTreeIndexFiles(
    std::vector<std::pair<int64_t, uint64_t>> entries) {
  std::sort(entries.begin(), entries.end());
  LanceColumn values{.name = "values",
                     .id = 0,
                     .logical_type = "int64",
                     .nullable = true,
                     .values = {}};
  LanceColumn ids{.name = "ids",
                  .id = 1,
                  .logical_type = "uint64",
                  .nullable = false,
                  .values = {}};
  LanceColumn min{.name = "min",
                  .id = 0,
                  .logical_type = "int64",
                  .nullable = true,
                  .values = {}};
  LanceColumn max{.name = "max",
                  .id = 1,
                  .logical_type = "int64",
                  .nullable = true,
                  .values = {}};
  LanceColumn nulls{.name = "null_count",
                    .id = 2,
                    .logical_type = "uint32",
                    .nullable = false,
                    .values = {}};
  LanceColumn pages{.name = "page_idx",
                    .id = 3,
                    .logical_type = "uint32",
                    .nullable = false,
                    .values = {}};
  for (size_t start = 0; start < entries.size(); start += kBTreePageRows) {
    const size_t end = std::min(entries.size(), start + kBTreePageRows);
    min.values.push_back(static_cast<uint64_t>(entries[start].first));
    max.values.push_back(static_cast<uint64_t>(entries[end - 1].first));
    nulls.values.push_back(0);
    pages.values.push_back(start / kBTreePageRows);
  }
  for (const auto& [key, id] : entries) {
    values.values.push_back(static_cast<uint64_t>(key));
    ids.values.push_back(id);
  }
  return {EncodeLanceFile({values, ids}, {}),
          EncodeLanceFile({min, max, nulls, pages},
                          {{"batch_size", std::to_string(kBTreePageRows)},
                           {"range_partitioned", "false"}})};
}

namespace {

Result<std::vector<ManifestFile>> ReadManifests(const Store& table) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                          table.List("_versions/"));
  std::vector<ManifestFile> files;
  for (const std::string& path : paths) {
    if (!ParseVersionFileName(path.substr(path.rfind('/') + 1))) continue;
    MEMWAL_ASSIGN_OR_RETURN(const Blob blob, table.Get(path));
    MEMWAL_ASSIGN_OR_RETURN(ManifestFile file, DecodeManifestFile(*blob));
    files.push_back(std::move(file));
  }
  return files;
}

// A data file of the table's own and the manifest that first names it.
struct NamedDataFile {
  const ManifestFile* file;
  uint64_t fragment;
  pb::DataFile data;
};

// Every fragment any version names (ids are never reused), and which
// manifest first names each data file.
void CollectFragments(const std::vector<ManifestFile>& files,
                      std::map<uint64_t, Fragment>* fragments,
                      std::map<std::string, NamedDataFile>* data_files) {
  for (const ManifestFile& file : files) {
    const bool stable = UsesStableRowIds(file.manifest);
    for (const pb::DataFragment& fragment : file.manifest.fragments()) {
      if (fragment.files_size() == 0) continue;
      fragments->emplace(fragment.id(), Fragment{fragment, stable});
      for (const pb::DataFile& data : fragment.files()) {
        if (!data.has_base_id())
          data_files->emplace(data.path(),
                              NamedDataFile{&file, fragment.id(), data});
      }
    }
  }
}

// The rows a segment covering `covers` indexes: those of each covered
// fragment's own data file (one under a base path is the source's to index).
Result<std::vector<RowValues>> SegmentRows(
    const Store& table, const Coverage& covers,
    const std::map<uint64_t, Fragment>& fragments,
    const std::map<std::string, uint32_t>& shard_numbers) {
  std::vector<RowValues> rows;
  for (uint64_t id : covers.value_or(FragmentSet{})) {
    const auto fragment = fragments.find(id);
    if (fragment == fragments.end()) continue;
    const pb::DataFile* own = nullptr;
    for (const pb::DataFile& data : fragment->second.fragment.files()) {
      if (!data.has_base_id() && own == nullptr) own = &data;
    }
    if (own == nullptr) continue;
    MEMWAL_ASSIGN_OR_RETURN(
        const std::vector<RowValues> values,
        ValuesOf(table, fragment->second, own->path(), shard_numbers));
    rows.insert(rows.end(), values.begin(), values.end());
  }
  return rows;
}

// Each user index segment of the table's own, once: its BTree files.
Status WriteIndexSegments(
    Store* table, const std::vector<ManifestFile>& files,
    const std::map<uint64_t, Fragment>& fragments,
    const std::map<std::string, uint32_t>& shard_numbers) {
  std::set<std::string> segments;
  for (const ManifestFile& file : files) {
    for (const pb::IndexMetadata& index : file.index_section.indices()) {
      if (IsMemWalIndex(index) || index.has_base_id() ||
          !segments.insert(index.uuid().uuid()).second)
        continue;
      MEMWAL_ASSIGN_OR_RETURN(const Coverage covers,
                              DecodeFragmentBitmap(index.fragment_bitmap()));
      MEMWAL_ASSIGN_OR_RETURN(
          const std::vector<RowValues> rows,
          SegmentRows(*table, covers, fragments, shard_numbers));
      auto [data, lookup] = BTreeFiles(rows);
      const std::string dir = "_indices/" + UuidHex(index.uuid().uuid()) + "/";
      MEMWAL_RETURN_IF_ERROR(
          table->Put(dir + "page_data.lance", std::move(data)));
      MEMWAL_RETURN_IF_ERROR(
          table->Put(dir + "page_lookup.lance", std::move(lookup)));
    }
  }
  return Status::Ok();
}

}  // namespace

Status WriteLanceFiles(Store* table,
                       const std::vector<std::string>& shard_uuids) {
  std::map<std::string, uint32_t> shard_numbers;
  for (uint32_t s = 0; s < shard_uuids.size(); ++s)
    shard_numbers.emplace(shard_uuids[s], s);
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<ManifestFile> files,
                          ReadManifests(*table));
  std::map<uint64_t, Fragment> fragments;
  std::map<std::string, NamedDataFile> data_files;
  CollectFragments(files, &fragments, &data_files);
  // Index segments first: they read the row files the data files replace.
  MEMWAL_RETURN_IF_ERROR(
      WriteIndexSegments(table, files, fragments, shard_numbers));
  std::map<std::string, std::string> written;
  for (const auto& [path, named] : data_files) {
    MEMWAL_ASSIGN_OR_RETURN(
        std::string bytes,
        DataFileBytes(*table, named.file->manifest,
                      fragments.at(named.fragment), named.data, shard_numbers));
    written.emplace(path, std::move(bytes));
  }
  for (auto& [path, bytes] : written)
    MEMWAL_RETURN_IF_ERROR(table->Put("data/" + path, std::move(bytes)));
  // Flushed generations with the newest version's schema.
  const ManifestFile* head = nullptr;
  for (const ManifestFile& file : files) {
    if (head == nullptr || file.manifest.version() > head->manifest.version())
      head = &file;
  }
  if (head == nullptr) return Status::Ok();
  return WriteLanceSsTables(table, head->manifest, shard_numbers);
}

}  // namespace memwal::impl
