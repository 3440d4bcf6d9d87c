// A table written for Lance to read (issue 39, docs/lance-data-files.md): the
// store keeps its own row files (rows.h) so that every transition reads them
// cheaply, and a table written to a directory (World::WriteTo) gets, in their
// place, Lance 2.1 data files (lance_file.h) and, for every user index
// segment, a BTree index (`_indices/{uuid}/page_data.lance`,
// `page_lookup.lance`) over the key column of exactly the fragments its bitmap
// names.
//
// Columns: the schema's fields f0, f1, ... (index i is on f<i>) and `key`
// hold the row's key; `shard` and `generation` its identity: the shard's
// number and the SSTable generation of a MemWAL row, -1 and 0 for a base row.
// A MemWAL row's key is RowKeyValue(shard, generation); a base row's is its
// stable row id (its row address without stable row ids).
#ifndef MEMWAL_IMPL_LANCE_EXPORT_H_
#define MEMWAL_IMPL_LANCE_EXPORT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "impl/store.h"

namespace memwal::impl {

// The schema fields after the index fields, in order.
inline constexpr std::string_view kShardColumn = "shard";
inline constexpr std::string_view kGenerationColumn = "generation";
inline constexpr std::string_view kKeyColumn = "key";
inline constexpr uint32_t kIdentityColumns = 3;

// The key of MemWAL row (shard, generation) (shard numbered from 0).
inline int64_t RowKeyValue(uint32_t shard, uint64_t generation) {
  return static_cast<int64_t>((uint64_t{shard} + 1) << 32 | generation);
}

// The schema metadata key under which a Lance data file keeps the row file it
// was made from, so that World::OpenFrom reads the rows back.
inline constexpr std::string_view kRowFileMetadata = "memwal.rows";

// page_data.lance and page_lookup.lance of a BTree index over (key, row id)
// entries (any order): the shape Lance 12 writes for a BTree on an int64
// column (docs/lance-data-files.md).
std::pair<std::string, std::string> BTreeIndexFiles(
    std::vector<std::pair<int64_t, uint64_t>> entries);

// Rewrites, in the table at the root of `table`, every data file a retained
// manifest names (under the table itself, not under a base path) from a row
// file into a Lance file, writes each user index segment's BTree files, and
// writes every flushed generation whose row file is present as the Lance
// dataset Lance 12 reads (lance_sstable.h). `shard_uuids` (raw) numbers the
// shards. A BTree names a row as the table reads it: by its row address, or
// by its stable row id when the manifest's flags say stable row ids (the
// implementation's do whenever its fragments carry row ids, feature_flags.h).
Status WriteLanceFiles(Store* table,
                       const std::vector<std::string>& shard_uuids);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_LANCE_EXPORT_H_
