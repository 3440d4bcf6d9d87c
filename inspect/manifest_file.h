// Lance manifest files (`_versions/*.manifest`) and their names, as
// docs/lance-file-layout.md section 1 describes them from real LanceDB 0.31.0
// (Lance 8.0.0) bytes:
//   [u32 LE len][IndexSection]? [u32 LE len][Transaction]? [u32 LE
//   len][Manifest] footer: [u64 LE position of the Manifest's length
//   prefix][u16 0][u16 2]["LANC"]
// Manifest.index_section (6) and Manifest.transaction_section (21) hold the
// offsets of the optional blocks' length prefixes. Every offset and length is
// checked against the file size before it is used; a file that breaks the
// framing is Corruption with a one-line reason.
#ifndef MEMWAL_INSPECT_MANIFEST_FILE_H_
#define MEMWAL_INSPECT_MANIFEST_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "inspect/lance_messages.h"

namespace memwal::inspect {

inline constexpr size_t kFooterBytes = 16;

struct ManifestFile {
  Manifest manifest;
  std::vector<IndexMetadata> indices;  // Empty when there is no IndexSection.
  std::optional<Transaction>
      transaction;  // The embedded Transaction block, if any.
  uint64_t size_bytes = 0;
};

// Decodes a whole manifest file. `where` (the file's path) prefixes notes and
// errors.
Result<ManifestFile> DecodeManifestFile(std::string_view bytes,
                                        const std::string& where, Notes* notes);

// The version a `_versions/` file name encodes: Lance's V2 naming (u64::MAX -
// version, decimal, possibly zero-padded) for numbers above 2^63, its V1 naming
// (the version itself) below. nullopt if `name` is not "<digits>.manifest".
std::optional<uint64_t> VersionOfFileName(std::string_view name);

// The shard-manifest version a `_mem_wal/<shard>/manifest/` name encodes:
// Lance's 64 characters '0' and '1', least significant bit first, then
// ".binpb"; or impl/'s earlier form, 20 decimal digits of the bit-reversed
// version (then `*decimal` is set, if given). nullopt if it is neither.
std::optional<uint64_t> ShardVersionOfFileName(std::string_view name,
                                               bool* decimal = nullptr);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_MANIFEST_FILE_H_
