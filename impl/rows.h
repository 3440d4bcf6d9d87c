// Row identity in the store [P §10]: what a data file holds, the stable row ids
// of a fragment (DataFragment.inline_row_ids, a RowIdSequence) and its deleted
// offsets (DataFragment.deletion_file, a file under `_deletions/`).
//
// The model's rows are abstract (spec R2: the row (s,g) of SSTable generation g
// of shard s, and base rows that no MemWAL wrote), so a data file here is not
// Lance's columnar file: it is our row file (below), one row per entry, each
// naming where the row came from. Everything around it is Lance's: an SSTable's
// rows are in its generation's `data.lance`, a compaction writes them into the
// data file of the fragment it adds (`data/{uuid}.lance`, physical_rows = the
// row count), the commit gives new rows fresh stable row ids from
// Manifest.next_row_id, a RewriteFragments keeps them, and a deletion file
// names deleted offsets.
#ifndef MEMWAL_IMPL_ROWS_H_
#define MEMWAL_IMPL_ROWS_H_

#include <compare>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "impl/format.h"
#include "impl/store.h"

namespace memwal::impl {

// One row. A MemWAL row names its SSTable: the shard's raw uuid and the
// generation; a base row (Init, Append) has an empty shard and generation 0.
struct RowKey {
  std::string shard;
  uint64_t generation = 0;
  bool memwal() const { return !shard.empty(); }
  friend auto operator<=>(const RowKey&, const RowKey&) = default;
};

// The row file (our format): "MWROWS01", u32 LE row count, then per row a kind
// byte (0 base, 1 MemWAL) and, for a MemWAL row, the 16 uuid bytes and the
// generation as u64 LE. DecodeRowFile returns Corruption for anything else.
std::string EncodeRowFile(const std::vector<RowKey>& rows);
Result<std::vector<RowKey>> DecodeRowFile(std::string_view bytes);

// A serialized RowIdSequence [P §10.1]: each run of consecutive ids as a Range
// segment. Decoding accepts Range, RangeWithHoles, RangeWithBitmap and both
// arrays in every EncodedU64Array width, as Lance writes them.
std::string EncodeRowIdSequence(const std::vector<uint64_t>& ids);
Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes);

// `_deletions/{fragment}-{read_version}-{id}.{bin|arrow}` [P §10.2].
std::string DeletionFilePath(uint64_t fragment, const pb::DeletionFile& file);

// The directory a file of `manifest` lives under: `root`, or the base path
// its base id names (a path that holds nothing when no base path has that id).
std::string RootOf(const std::string& root, const pb::Manifest& manifest,
                   bool has_base, uint32_t base_id);

// A fragment's rows as its bytes say.
struct FragmentRows {
  // Physical rows, in row order: the row file's decoding, shared (a data file
  // decodes once per thread).
  std::shared_ptr<const std::vector<RowKey>> rows;
  std::vector<uint64_t> row_ids;  // empty: the fragment has no sequence
  std::set<uint64_t> deleted;     // offsets its deletion file names
};

// Reads `fragment` of `manifest` (a version of the table at `root` inside
// `store`): the rows from its first data file (the file a fragment is created
// with; a column rewrite adds files and keeps it), its row id sequence and its
// deletion file (a BITMAP file: a portable Roaring bitmap of offsets;
// ARROW_ARRAY files are refused (FailedPrecondition)). A file with a base_id is
// read under that base path. Checks that physical_rows, the row file, the
// sequence and num_deleted_rows agree. A blob decodes once per thread.
Result<FragmentRows> ReadFragmentRows(const Store& store,
                                      const std::string& root,
                                      const pb::Manifest& manifest,
                                      const pb::DataFragment& fragment);

// Writes `rows` into a new data file `data/{uuid_hex}.lance` of `table` and
// returns the fragment that holds them (one data file with every field,
// physical_rows = rows.size(), `row_ids` as its sequence unless empty: the
// commit assigns fresh ones then).
Result<pb::DataFragment> WriteDataFragment(
    Store* table, const std::string& uuid_hex, uint32_t fields,
    const std::vector<RowKey>& rows, const std::vector<uint64_t>& row_ids);

// The store path of a data file of `manifest` (table at `root`).
std::string DataFilePath(const std::string& root, const pb::Manifest& manifest,
                         const pb::DataFile& file);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_ROWS_H_
