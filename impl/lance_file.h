// Lance's v2 file format, version 2.1, for columns of fixed-width integers
// (docs/lance-data-files.md): what a data file of a fragment and a BTree
// index's page files hold when a table is written for Lance to read.
//
// Layout (facts from Lance's protos/file2.proto and its file-format docs):
// the pages' buffers (each starting at a multiple of 64), global buffer 0 (a
// lance.file.FileDescriptor: the schema and the row count), one
// lance.file.v2.ColumnMetadata per column, the column metadata offset table
// (u64 position, u64 size per column), the global buffer offset table (same
// shape), and a 40-byte footer: u64 first column metadata, u64 offset table,
// u64 global buffer table, u32 global buffers, u32 columns, u16 major 2,
// u16 minor 1, "LANC". Every integer little-endian.
//
// A column is one page in the mini-block layout without levels (all values
// valid): buffer 0 holds one u16 per chunk, ((chunk bytes / 8 - 1) << 4) |
// log2(values in the chunk) (0 for the last chunk, whose count is what is
// left); buffer 1 the chunks, each a u16 level count (0), a u16 value-bytes
// size, padding to 8 bytes, then the values, padded to 8 bytes.
#ifndef MEMWAL_IMPL_LANCE_FILE_H_
#define MEMWAL_IMPL_LANCE_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace memwal::impl {

struct LanceColumn {
  std::string name;
  int32_t id = 0;
  std::string logical_type;  // "int64", "uint64" or "uint32"
  bool nullable = false;
  std::vector<uint64_t> values;  // the values' bits; uint32 keeps the low 32
};

// Bits per value of a logical type LanceColumn allows; 0 for any other.
int BitsOf(std::string_view logical_type);

// The bytes of a Lance 2.1 file holding `columns` (each with the same number
// of values), with `metadata` as the schema's metadata.
std::string EncodeLanceFile(const std::vector<LanceColumn>& columns,
                            const std::map<std::string, std::string>& metadata);

// The columns of a file EncodeLanceFile wrote (for tests and lance-diff's own
// checks): Corruption for a footer, table or page this writer does not write.
Result<std::vector<LanceColumn>> DecodeLanceFile(std::string_view bytes);

// The schema metadata of a Lance file (of any writer), or Corruption.
Result<std::map<std::string, std::string>> LanceFileMetadata(
    std::string_view bytes);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_LANCE_FILE_H_
