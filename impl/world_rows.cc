// World::ReadRows: row identity read back from the table's bytes (impl/rows.h),
// for the checker's abstraction (rows per fragment, deleted rows).
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "impl/blob_cache.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

// One version's contribution to RowsView.
struct VersionRows {
  // The fragments a Delete transaction removed (their rows are looked up in
  // what the versions before said).
  std::vector<uint64_t> deleted_fragments;
  // A fragment that does not read (checked after the Delete's rows).
  Status status = Status::Ok();
  // Rows the fragments' deletion files delete.
  std::set<std::pair<uint32_t, uint64_t>> deleted;
  // Per fragment: the MemWAL rows it holds, not deleted.
  std::vector<std::pair<uint64_t, std::set<std::pair<uint32_t, uint64_t>>>>
      fragments;
};

Status ReadVersionRows(const MemoryStore& store, const std::string& root,
                       const ManifestFile& file,
                       const std::vector<std::string>& shard_uuids,
                       VersionRows* out) {
  // Lance: a stable row id names one row of the version [P §10.1]. (A
  // sorted vector: a version holds few rows.)
  std::vector<uint64_t> row_ids;
  for (const pb::DataFragment& fragment : file.manifest.fragments()) {
    MEMWAL_ASSIGN_OR_RETURN(
        const FragmentRows rows,
        ReadFragmentRows(store, root, file.manifest, fragment));
    for (const uint64_t id : rows.row_ids) {
      const auto at = std::lower_bound(row_ids.begin(), row_ids.end(), id);
      if (at == row_ids.end() || *at != id) {
        row_ids.insert(at, id);
      } else {
        return Status::Corruption(
            "version " + std::to_string(file.manifest.version()) + ": row id " +
            std::to_string(id) + " names two rows");
      }
    }
    std::set<std::pair<uint32_t, uint64_t>> held;
    for (uint64_t offset = 0; offset < rows.rows->size(); ++offset) {
      const RowKey& row = (*rows.rows)[offset];
      if (!row.memwal()) continue;
      const std::optional<uint32_t> shard =
          World::ShardNumberIn(shard_uuids, row.shard);
      if (!shard.has_value()) {
        return Status::Corruption("fragment " + std::to_string(fragment.id()) +
                                  " holds a row of unknown shard " +
                                  UuidHex(row.shard));
      }
      const std::pair<uint32_t, uint64_t> key{*shard, row.generation};
      if (rows.deleted.count(offset) != 0) {
        out->deleted.insert(key);
      } else {
        held.insert(key);
      }
    }
    out->fragments.emplace_back(fragment.id(), std::move(held));
  }
  return Status::Ok();
}

}  // namespace

// A clone names its source in its first version's transaction (Clone.ref_path);
// the source's history comes first. `depth` bounds a chain of clones.
Status World::ReadTableRows(const std::string& root, int depth,
                            RowsView* out) const {
  if (depth > 16) return Status::Corruption("a chain of clones too long");
  PrefixedStore table(const_cast<MemoryStore*>(&store_), root);
  PrefixedStore archive(const_cast<MemoryStore*>(&store_),
                        std::string(kArchivePrefix) + root);
  MEMWAL_ASSIGN_OR_RETURN(std::vector<uint64_t> versions, ListVersions(table));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> archived,
                          ListVersions(archive));
  versions.insert(versions.end(), archived.begin(), archived.end());
  std::sort(versions.begin(), versions.end());
  bool first = true;
  for (const uint64_t number : versions) {
    MEMWAL_RETURN_IF_ERROR(
        ReadVersionRowsInto(root, depth, first, number, table, archive, out));
    first = false;
  }
  return Status::Ok();
}

// One version's rows added to `out` (the versions before it already are).
Status World::ReadVersionRowsInto(const std::string& root, int depth,
                                  bool first, uint64_t number,
                                  const Store& table, const Store& archive,
                                  RowsView* out) const {
  MEMWAL_ASSIGN_OR_RETURN(const Snapshot snapshot,
                          LoadVersion(table, &archive, number, true));
  const ManifestFile& file = *snapshot.file;
  // A clone reads its source's history first, unless the source is the
  // table itself: a clone World wrote to a directory (WriteTo) and reopened
  // (OpenFrom) names its source by the writer's root, which is the reopened
  // table's own, and the directory holds the clone alone.
  if (first && file.transaction.has_value() && file.transaction->has_clone() &&
      !file.transaction->clone().ref_path().empty() &&
      file.transaction->clone().ref_path() != root) {
    MEMWAL_RETURN_IF_ERROR(
        ReadTableRows(file.transaction->clone().ref_path(), depth + 1, out));
  }
  if (depth > 0) {
    // A source table's version, for the checker's lineage (RowsView).
    std::string scratch;
    const bool retained = table.Get(VersionFileNameIn(number, &scratch)).ok();
    MEMWAL_ASSIGN_OR_RETURN(TableVersion version,
                            ToTableVersion(table, snapshot, retained));
    out->sources.push_back(std::move(version));
  }
  VersionRows rows;
  if (file.transaction.has_value() && file.transaction->has_delete_()) {
    for (const uint64_t id : file.transaction->delete_().deleted_fragment_ids())
      rows.deleted_fragments.push_back(id);
  }
  rows.status = ReadVersionRows(store_, root, file, shard_uuids_, &rows);
  // Rows of the fragments a Delete removed, as the versions before said.
  for (const uint64_t id : rows.deleted_fragments) {
    const auto it = out->fragments.find(id);
    if (it != out->fragments.end())
      out->deleted.insert(it->second.begin(), it->second.end());
  }
  MEMWAL_RETURN_IF_ERROR(rows.status);
  out->deleted.insert(rows.deleted.begin(), rows.deleted.end());
  for (auto& [id, held] : rows.fragments) out->fragments[id] = std::move(held);
  return Status::Ok();
}

Result<RowsView> World::ReadRows() const {
  MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const RowsView> rows,
                          SharedRows());
  return *rows;
}

// The table's own versions fold one at a time into RowsView, and the fold
// after a version is a function of the fold before it and of the version's
// manifest blob (immutable; a blob CleanupVersions archives is shared, so a
// version keeps its blob): kept per thread by (the fold before, the blob), a
// new table whose versions are its parent's and one more reads one version.
// The first fold checks the root and the shard uuids, as one thread serves
// several tables and runs; the later ones follow from it.
Result<std::shared_ptr<const RowsView>> World::SharedRows() const {
  struct Fold {
    std::shared_ptr<const Fold> before;  // keeps the key's address alive
    Blob blob;                           // likewise
    std::string root;
    std::vector<std::string> shard_uuids;
    std::shared_ptr<const RowsView> rows;
  };
  thread_local TwoGenerations<std::string, std::shared_ptr<const Fold>, 200'000>
      memo;
  MEMWAL_ASSIGN_OR_RETURN(const auto retained, ListedVersions(false));
  MEMWAL_ASSIGN_OR_RETURN(const auto archived, ListedVersions(true));
  std::vector<uint64_t> versions = *retained;
  versions.insert(versions.end(), archived->begin(), archived->end());
  std::sort(versions.begin(), versions.end());
  PrefixedStore table(const_cast<MemoryStore*>(&store_), table_root_);
  const std::string archive_root = std::string(kArchivePrefix) + table_root_;
  PrefixedStore archive(const_cast<MemoryStore*>(&store_), archive_root);
  const auto& objects = store_.objects();
  std::shared_ptr<const Fold> fold;
  std::string path;
  std::string scratch;
  std::string key;
  for (std::size_t k = 0; k < versions.size(); ++k) {
    const std::string& name = VersionFileNameIn(versions[k], &scratch);
    path.assign(table_root_).append(name);
    auto it = objects.find(path);
    if (it == objects.end()) it = objects.find(archive_root + name);
    if (it == objects.end()) {
      // Not listed where it was listed: the slow path says why.
      auto out = std::make_shared<RowsView>();
      MEMWAL_RETURN_IF_ERROR(ReadTableRows(table_root_, 0, out.get()));
      return std::shared_ptr<const RowsView>(std::move(out));
    }
    const Fold* const before = fold.get();
    const std::string* const blob = it->second.get();
    key.assign(reinterpret_cast<const char*>(&before), sizeof(before));
    key.append(reinterpret_cast<const char*>(&blob), sizeof(blob));
    if (const std::shared_ptr<const Fold>* hit = memo.Find(key);
        hit != nullptr &&
        (before != nullptr || ((*hit)->root == table_root_ &&
                               (*hit)->shard_uuids == shard_uuids_))) {
      fold = *hit;
      continue;
    }
    auto rows = before == nullptr ? std::make_shared<RowsView>()
                                  : std::make_shared<RowsView>(*before->rows);
    MEMWAL_RETURN_IF_ERROR(ReadVersionRowsInto(
        table_root_, 0, k == 0, versions[k], table, archive, rows.get()));
    auto next = std::make_shared<const Fold>(
        Fold{fold, it->second, table_root_, shard_uuids_, std::move(rows)});
    memo.Put(key, next);
    fold = std::move(next);
  }
  if (fold == nullptr) return std::make_shared<const RowsView>();
  return fold->rows;
}

// One more fold of SharedRows' (a version after those `before` holds, so not
// the first one; its clone source, if any, is already in `before`).
Result<std::shared_ptr<const RowsView>> World::SharedRowsAfter(
    const RowsView& before, uint64_t number) const {
  PrefixedStore table(const_cast<MemoryStore*>(&store_), table_root_);
  PrefixedStore archive(const_cast<MemoryStore*>(&store_),
                        std::string(kArchivePrefix) + table_root_);
  auto rows = std::make_shared<RowsView>(before);
  MEMWAL_RETURN_IF_ERROR(ReadVersionRowsInto(
      table_root_, 0, /*first=*/false, number, table, archive, rows.get()));
  return std::shared_ptr<const RowsView>(std::move(rows));
}

}  // namespace memwal::impl
