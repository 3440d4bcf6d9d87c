// LoadTable; see load.h.
#include "checker/validate/load.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>

#include "checker/lockstep/lockstep.h"
#include "impl/memory_store.h"
#include "inspect/files.h"
#include "inspect/inspect.h"

namespace memwal::checker::validate {
namespace {

// Copies every regular file under `dir` (relative path `prefix`) into
// `store`, refusing to follow symlinks (each is a note).
Status CopyTree(const std::string& dir, const std::string& prefix,
                impl::MemoryStore* store, std::vector<std::string>* notes,
                int depth) {
  if (depth > 16) {
    notes->push_back(dir + ": deeper than 16 directories; not read");
    return Status::Ok();
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<inspect::DirEntry> entries,
                          inspect::ListDirectory(dir));
  for (const inspect::DirEntry& entry : entries) {
    const std::string path = dir + "/" + entry.name;
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0) continue;
    if (S_ISLNK(info.st_mode)) {
      notes->push_back(path + ": a symlink; not followed");
      continue;
    }
    const std::string relative =
        prefix.empty() ? entry.name : prefix + "/" + entry.name;
    if (S_ISDIR(info.st_mode)) {
      MEMWAL_RETURN_IF_ERROR(CopyTree(path, relative, store, notes, depth + 1));
      continue;
    }
    if (!S_ISREG(info.st_mode)) continue;
    // Temporary files, and Lance's version hints (a reader's shortcut to the
    // newest version, never part of a commit).
    if (entry.name.starts_with(".tmp-") || entry.name == "version_hint.json" ||
        entry.name == "latest_version_hint.json")
      continue;
    MEMWAL_ASSIGN_OR_RETURN(std::string bytes, inspect::ReadWholeFile(path));
    MEMWAL_RETURN_IF_ERROR(store->Put(relative, std::move(bytes)));
  }
  return Status::Ok();
}

// N of a user index named "idx_N" (the names impl/ and the model use).
std::optional<uint32_t> UserIndexNumber(std::string_view name) {
  if (!name.starts_with("idx_") || name.size() > 8) return std::nullopt;
  uint32_t number = 0;
  const char* begin = name.data() + 4;
  const char* end = name.data() + name.size();
  const auto [ptr, error] = std::from_chars(begin, end, number);
  if (error != std::errc() || ptr != end) return std::nullopt;
  return number;
}

// The shards' uuids, sorted: shard s is the s-th (as impl::World::OpenFrom
// numbers them, by raw uuid).
std::vector<std::string> ShardUuids(const inspect::TableReport& report) {
  std::vector<std::string> uuids;
  for (const inspect::ShardReport& shard : report.shards) {
    if (shard.manifest.has_value()) uuids.push_back(shard.manifest->shard_id);
  }
  std::sort(uuids.begin(), uuids.end());
  return uuids;
}

// One more than the highest N of a user index idx_N any version names.
uint32_t UserIndexCount(const inspect::TableReport& report) {
  uint32_t indexes = 0;
  for (const inspect::DatasetVersion& version : report.versions) {
    for (const inspect::IndexMetadata& index : version.contents.indices) {
      if (const std::optional<uint32_t> n = UserIndexNumber(index.name))
        indexes = std::max(indexes, *n + 1);
    }
  }
  return indexes;
}

// The table's files opened as the implementation opens its own (`store`
// holds them).
Result<impl::World> OpenCopy(const impl::MemoryStore& store,
                             const inspect::TableReport& report,
                             const LoadedTable& table) {
  impl::Options world_options;
  world_options.protocol = report.protocol;
  world_options.shards = table.shards;
  world_options.indexes = std::max<uint32_t>(table.indexes, 1);
  world_options.memwal = table.shards > 0;
  return impl::World::OpenFrom(store, world_options);
}

// A version as its manifest and transaction file say, and as the
// implementation's reader reads it (or why it cannot).
LoadedVersion LoadVersion(const inspect::DatasetVersion& version,
                          const std::vector<std::string>& shard_uuids,
                          const Result<impl::World>& world) {
  LoadedVersion loaded;
  loaded.number = version.version;
  const std::optional<inspect::Transaction>& txn = version.contents.transaction;
  loaded.has_transaction = txn.has_value();
  loaded.reader_flags = version.contents.manifest.reader_feature_flags;
  loaded.writer_flags = version.contents.manifest.writer_feature_flags;
  loaded.operation = txn.has_value() ? inspect::OperationName(txn->operation)
                                     : std::string("no transaction");
  if (txn.has_value()) {
    loaded.read_version = txn->read_version;
    loaded.restore_version = txn->restore_version;
    for (const auto& [uuid, generation] : txn->compacted_sstables) {
      const auto it = std::find(shard_uuids.begin(), shard_uuids.end(), uuid);
      const uint32_t shard =
          it == shard_uuids.end()
              ? UINT32_MAX
              : static_cast<uint32_t>(it - shard_uuids.begin());
      loaded.progress.emplace(shard, generation);
    }
  }
  if (!world.ok()) {
    loaded.unreadable = "the implementation's reader cannot open the table: " +
                        world.status().message();
    return loaded;
  }
  Result<impl::TableVersion> table = world->ReadVersion(version.version);
  if (table.ok()) {
    loaded.table = std::move(*table);
    return loaded;
  }
  loaded.unreadable = table.status().message();
  if (loaded.unreadable.starts_with("unexpected index name")) {
    loaded.unreadable +=
        " (the model's user indexes are idx_0, idx_1, idx_2 on field "
        "ids 0, 1, 2, as impl/ names them)";
  }
  return loaded;
}

// The rows and the WAL as the implementation reads them, or why it cannot.
void LoadRowsAndWal(const Result<impl::World>& world, LoadedTable* out) {
  if (!world.ok()) {
    out->rows_problem = out->wal_problem = world.status().message();
    return;
  }
  Result<impl::RowsView> rows = world->ReadRows();
  if (rows.ok()) {
    out->rows = std::move(*rows);
  } else {
    out->rows_problem = rows.status().message();
  }
  Result<impl::WalState> wal = world->ReadWal();
  if (wal.ok()) {
    out->wal = std::move(*wal);
  } else {
    out->wal_problem = wal.status().message();
  }
}

}  // namespace

model::Protocol ToModel(impl::Protocol protocol) {
  switch (protocol) {
    case impl::Protocol::kDerived:
      return model::Protocol::kDerived;
    case impl::Protocol::kAdvance:
      return model::Protocol::kAdvance;
    case impl::Protocol::kUnconditional:
      return model::Protocol::kUnconditional;
    case impl::Protocol::kLegacy:
      return model::Protocol::kLegacy;
  }
  return model::Protocol::kDerived;
}

Result<LoadedTable> LoadTable(const std::string& dir,
                              std::optional<model::Protocol> protocol) {
  inspect::InspectOptions options;
  if (protocol.has_value())
    options.protocol = lockstep::ImplProtocol(*protocol);
  MEMWAL_ASSIGN_OR_RETURN(inspect::TableReport report,
                          inspect::Inspect(dir, options));
  LoadedTable out;
  out.dir = dir;
  out.protocol = ToModel(report.protocol);
  out.protocol_reason = report.protocol_reason;
  for (const inspect::Note& note : report.notes)
    out.notes.push_back(note.where + ": " + note.what);
  out.shard_uuids = ShardUuids(report);
  out.shards = static_cast<uint32_t>(out.shard_uuids.size());
  out.indexes = UserIndexCount(report);
  impl::MemoryStore store;
  {
    // Every read of the copy is opened beneath the table (issue 42): the
    // lstat above each read says what to skip, the confinement makes sure a
    // symlink swapped in after it cannot lead a read outside.
    const inspect::TableConfinement confinement(dir);
    MEMWAL_RETURN_IF_ERROR(CopyTree(dir, "", &store, &out.notes, 0));
  }
  const Result<impl::World> world = OpenCopy(store, report, out);
  for (const inspect::DatasetVersion& version : report.versions)
    out.versions.push_back(LoadVersion(version, out.shard_uuids, world));
  LoadRowsAndWal(world, &out);
  return out;
}

}  // namespace memwal::checker::validate
