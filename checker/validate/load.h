// The table `validate` reads: every retained version of a Lance table
// directory with the operation its transaction names (read by inspect/, the
// same reader `memwal-check inspect` uses) and, where the implementation's
// reader can decode it, the version in the terms lockstep abstracts
// (impl::TableVersion, through impl::World::OpenFrom on an in-memory copy of
// the directory), the rows of every fragment and the WAL as the newest shard
// manifests say.
//
// The copy is made by walking the directory without following symlinks: a
// symlink anywhere in the table is skipped with a note, so nothing outside
// the table directory is read by this walk.
#ifndef MEMWAL_CHECKER_VALIDATE_LOAD_H_
#define MEMWAL_CHECKER_VALIDATE_LOAD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "impl/world.h"
#include "model/config.h"

namespace memwal::checker::validate {

struct LoadedVersion {
  uint64_t number = 0;
  // The transaction's operation ("Append", "CreateIndex", "UpdateConfig",
  // ...), or "no transaction" when the manifest names none.
  std::string operation;
  bool has_transaction = false;
  uint64_t read_version = 0;
  uint64_t restore_version = 0;  // Restore only.
  // The compaction progress the transaction carries (Update's or
  // UpdateMemWalState's compacted_sstables), by shard number; an entry for a
  // shard the table does not know is kept as shard UINT32_MAX.
  std::map<uint32_t, uint64_t> progress;
  // The manifest's feature words, as inspect/ decodes them (read even where
  // the implementation's reader refuses the version).
  uint64_t reader_flags = 0;
  uint64_t writer_flags = 0;
  // The version as the implementation's reader decodes it; nullopt with the
  // reason when it cannot (an index the model does not name, a shard it does
  // not know, ...).
  std::optional<impl::TableVersion> table;
  std::string unreadable;
};

struct LoadedTable {
  std::string dir;
  std::vector<LoadedVersion> versions;  // ascending by number
  model::Protocol protocol = model::Protocol::kDerived;
  std::string protocol_reason;
  uint32_t shards = 0;
  // The shards' uuids in impl::World::OpenFrom's order (by raw uuid).
  std::vector<std::string> shard_uuids;
  uint32_t indexes = 0;  // user indexes idx_0..idx_{indexes-1}
  // Rows per fragment (all versions) and the WAL's final state; nullopt with
  // the reason when the implementation's reader cannot read them.
  std::optional<impl::RowsView> rows;
  std::string rows_problem;
  std::optional<impl::WalState> wal;
  std::string wal_problem;
  // What the readers noted (files skipped, symlinks, unknown fields), one line
  // each.
  std::vector<std::string> notes;
};

// Reads `dir`. Errors (the directory is missing, a manifest is corrupt) are
// one line, as `inspect`'s.
Result<LoadedTable> LoadTable(const std::string& dir,
                              std::optional<model::Protocol> protocol);

model::Protocol ToModel(impl::Protocol protocol);

}  // namespace memwal::checker::validate

#endif  // MEMWAL_CHECKER_VALIDATE_LOAD_H_
