// World::ReadRows: row identity read back from the table's bytes (impl/rows.h),
// for the checker's abstraction (rows per fragment, deleted rows).
#include <algorithm>

#include "impl/world.h"

namespace memwal::impl {

// A clone names its source in its first version's transaction (Clone.ref_path);
// the source's history comes first. `depth` bounds a chain of clones.
Status World::ReadTableRows(const std::string& root, int depth,
                            RowsView* out) const {
  if (depth > 16) return Status::Corruption("a chain of clones too long");
  PrefixedStore table(const_cast<MemoryStore*>(&store_), root);
  PrefixedStore archive(const_cast<MemoryStore*>(&store_),
                        std::string(kArchivePrefix) + root);
  std::vector<uint64_t> versions;
  if (root == table_root_) {
    // This World's own table: its listings are cached by epoch.
    MEMWAL_ASSIGN_OR_RETURN(const auto retained, ListedVersions(false));
    MEMWAL_ASSIGN_OR_RETURN(const auto archived, ListedVersions(true));
    versions = *retained;
    versions.insert(versions.end(), archived->begin(), archived->end());
  } else {
    MEMWAL_ASSIGN_OR_RETURN(versions, ListVersions(table));
    MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> archived,
                            ListVersions(archive));
    versions.insert(versions.end(), archived.begin(), archived.end());
  }
  std::sort(versions.begin(), versions.end());
  bool first = true;
  for (const uint64_t number : versions) {
    MEMWAL_ASSIGN_OR_RETURN(const Snapshot snapshot,
                            LoadVersion(table, &archive, number, true));
    const ManifestFile& file = *snapshot.file;
    if (first && file.transaction.has_value() &&
        file.transaction->has_clone() &&
        !file.transaction->clone().ref_path().empty()) {
      MEMWAL_RETURN_IF_ERROR(
          ReadTableRows(file.transaction->clone().ref_path(), depth + 1, out));
    }
    first = false;
    if (depth > 0) {
      // A source table's version, for the checker's lineage (RowsView).
      std::string scratch;
      const bool retained = table.Get(VersionFileNameIn(number, &scratch)).ok();
      MEMWAL_ASSIGN_OR_RETURN(TableVersion version,
                              ToTableVersion(table, snapshot, retained));
      out->sources.push_back(std::move(version));
    }
    // Rows of the fragments a Delete removed, as the versions before said.
    if (file.transaction.has_value() && file.transaction->has_delete_()) {
      for (const uint64_t id :
           file.transaction->delete_().deleted_fragment_ids()) {
        const auto it = out->fragments.find(id);
        if (it != out->fragments.end())
          out->deleted.insert(it->second.begin(), it->second.end());
      }
    }
    // Lance: a stable row id names one row of the version [P §10.1]. (A
    // sorted vector: a version holds few rows, and this runs per new table.)
    std::vector<uint64_t> row_ids;
    for (const pb::DataFragment& fragment : file.manifest.fragments()) {
      MEMWAL_ASSIGN_OR_RETURN(
          const FragmentRows rows,
          ReadFragmentRows(store_, root, file.manifest, fragment));
      for (const uint64_t id : rows.row_ids) {
        const auto at = std::lower_bound(row_ids.begin(), row_ids.end(), id);
        if (at == row_ids.end() || *at != id) {
          row_ids.insert(at, id);
        } else {
          return Status::Corruption("version " + std::to_string(number) +
                                    ": row id " + std::to_string(id) +
                                    " names two rows");
        }
      }
      std::set<std::pair<uint32_t, uint64_t>> held;
      for (uint64_t offset = 0; offset < rows.rows->size(); ++offset) {
        const RowKey& row = (*rows.rows)[offset];
        if (!row.memwal()) continue;
        const std::optional<uint32_t> shard = ShardNumber(row.shard);
        if (!shard.has_value()) {
          return Status::Corruption(
              "fragment " + std::to_string(fragment.id()) +
              " holds a row of unknown shard " + UuidHex(row.shard));
        }
        const std::pair<uint32_t, uint64_t> key{*shard, row.generation};
        if (rows.deleted.count(offset) != 0) {
          out->deleted.insert(key);
        } else {
          held.insert(key);
        }
      }
      out->fragments[fragment.id()] = std::move(held);
    }
  }
  return Status::Ok();
}

Result<RowsView> World::ReadRows() const {
  RowsView out;
  MEMWAL_RETURN_IF_ERROR(ReadTableRows(table_root_, 0, &out));
  return out;
}

}  // namespace memwal::impl
