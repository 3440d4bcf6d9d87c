// A flushed generation (SSTable) as Lance 12 writes one, so that LanceDB
// 0.39's MemWAL-aware query serves its rows (docs/lance-data-files.md).
//
// The store keeps a flushed generation as a row file,
// `_mem_wal/{shard}/{random8}_gen_{g}/data.lance` (rows.h), read on every
// transition. A table written to a directory gets, beside it, the dataset
// Lance opens at that directory: `_versions/{u64::MAX - 1}.manifest` (version
// 1: the base table's schema plus `_tombstone`, one fragment of one data file
// under `data/`), the data file (lance_file.h), and the primary-key BTree
// `_pk_index/page_data.lance`, `page_lookup.lance` over the `key` column, which
// Lance 12's query refuses to go without. Lance ignores the row file beside
// them, and World::OpenFrom reads it back.
//
// Not written: `bloom_filter.bin` (LanceDB 0.39's queries, point lookups
// included, serve a generation without one: probed on the Lance 12 fixture)
// and a generation's own copies of the maintained indexes (a generation
// whose manifest lists none is scanned).
#ifndef MEMWAL_IMPL_LANCE_SSTABLE_H_
#define MEMWAL_IMPL_LANCE_SSTABLE_H_

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "impl/format.h"
#include "impl/store.h"

namespace memwal::impl {

// The Lance column Lance 12 adds to a flushed generation's schema.
inline constexpr std::string_view kTombstoneColumn = "_tombstone";

// Writes, in the table at the root of `table`, the dataset of every flushed
// generation under `_mem_wal/` whose row file is present, with the schema of
// `head` (the base table's newest manifest). `shard_numbers` maps raw shard
// uuids to their numbers.
Status WriteLanceSsTables(Store* table, const pb::Manifest& head,
                          const std::map<std::string, uint32_t>& shard_numbers);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_LANCE_SSTABLE_H_
