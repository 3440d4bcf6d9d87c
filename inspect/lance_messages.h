// Lance's table-format messages as inspect/ reads them: plain structs decoded
// from the wire with the field numbers of docs/lance-facts.md
// section 1 (Lance 8.0.0 through v11.0.0), and a Note for every field a decoder
// does not know. A known field with the wrong wire type is Corruption; an
// unknown field is never an error, so a manifest from a newer Lance is read as
// far as it can be.
#ifndef MEMWAL_INSPECT_LANCE_MESSAGES_H_
#define MEMWAL_INSPECT_LANCE_MESSAGES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace memwal::inspect {

// Something the reader saw and did not understand (or chose to point out);
// never an error.
struct Note {
  std::string where;  // File, then message path: "_versions/….manifest:
                      // Manifest.fragments[0]".
  std::string what;
  friend bool operator==(const Note&, const Note&) = default;
};
using Notes = std::vector<Note>;

// lance.file.Field (a schema column).
struct SchemaField {
  std::string name;
  int64_t id = 0;
  int64_t parent_id = 0;
  std::string logical_type;
  bool nullable = false;
  std::map<std::string, std::string> metadata;
};

struct DataFile {
  std::string path;
  std::vector<int64_t> fields;
  uint64_t file_size_bytes = 0;
  uint64_t file_major_version = 0;
  uint64_t file_minor_version = 0;
};

struct DeletionFile {
  uint64_t file_type = 0;  // 0 = ARROW_ARRAY, 1 = BITMAP.
  uint64_t read_version = 0;
  uint64_t id = 0;
  uint64_t num_deleted_rows = 0;
};

struct DataFragment {
  uint64_t id = 0;
  std::vector<DataFile> files;
  std::optional<DeletionFile> deletion_file;
  uint64_t physical_rows = 0;
  // Rows a scan returns: physical rows minus deleted ones.
  uint64_t rows() const;
};

// google.protobuf.Any.
struct AnyMessage {
  std::string type_url;
  std::string value;
};

struct IndexMetadata {
  std::string uuid;  // Raw 16 bytes.
  std::vector<int64_t> fields;
  std::string name;
  uint64_t dataset_version = 0;
  std::string
      fragment_bitmap;  // Portable Roaring bytes; empty = unknown coverage.
  std::optional<AnyMessage> index_details;
  std::optional<int64_t> index_version;
  std::optional<uint64_t> created_at_ms;
  size_t file_count = 0;
};

struct ShardingField {
  std::string field_id;
  std::vector<int64_t> source_ids;
  std::string transform;
  std::string expression;
  std::string result_type;
  std::map<std::string, std::string> parameters;
};

struct ShardingSpec {
  uint64_t spec_id = 0;
  std::vector<ShardingField> fields;
};

// CompactedSsTable: a shard (raw uuid) and a generation.
using ShardGeneration = std::pair<std::string, uint64_t>;

struct IndexCatchupProgress {
  std::string index_name;
  std::vector<ShardGeneration> caught_up_generations;
};

struct MemWalIndexDetails {
  int64_t snapshot_ts_millis = 0;
  uint64_t num_shards = 0;
  bool has_inline_snapshots = false;
  std::vector<ShardingSpec> sharding_specs;
  std::vector<std::string> maintained_indexes;
  std::vector<ShardGeneration> compacted_sstables;
  std::vector<IndexCatchupProgress> index_catchup;
  std::map<std::string, std::string> writer_config_defaults;
};

struct Manifest {
  std::vector<SchemaField> fields;
  std::vector<DataFragment> fragments;
  uint64_t version = 0;
  std::optional<uint64_t> index_section;
  std::optional<int64_t> timestamp_seconds;
  int64_t timestamp_nanos = 0;
  std::string tag;
  uint64_t reader_feature_flags = 0;
  uint64_t writer_feature_flags = 0;
  std::optional<uint64_t> max_fragment_id;
  std::string transaction_file;
  std::string writer_library;
  std::string
      writer_version;  // Including "-prerelease" if the writer recorded one.
  std::string data_format;  // "lance 2.1".
  std::optional<uint64_t> transaction_section;
  std::map<std::string, std::string> config;
};

// The parts of a Transaction inspect reports: what kind of commit produced a
// version.
struct Transaction {
  uint64_t read_version = 0;
  std::string uuid;
  uint32_t operation =
      0;  // The oneof tag: 100 append ... 112 update_mem_wal_state.
  std::vector<ShardGeneration>
      compacted_sstables;              // Update (5) or UpdateMemWalState (1).
  bool require_index_catchup = false;  // UpdateMemWalState (2).
  uint64_t restore_version = 0;        // Restore (1).
};
// "Append", "Delete", ..., or "operation <tag>" for a tag this reader does not
// know.
std::string OperationName(uint32_t operation);

struct SsTable {
  uint64_t generation = 0;
  std::string path;
  std::optional<uint64_t> physical_rows;
};

struct ShardManifest {
  uint64_t version = 0;
  uint64_t writer_epoch = 0;
  uint64_t replay_after_wal_entry_position = 0;
  uint64_t wal_entry_position_last_seen = 0;
  uint64_t current_generation = 0;
  std::vector<SsTable> sstables;
  uint64_t shard_spec_id = 0;
  std::string shard_id;  // Raw 16 bytes; empty if absent.
  uint64_t status = 0;   // 0 = ACTIVE, 1 = SEALED.
};

// Each decoder reads one serialized message; `where` names it in notes and
// errors.
Result<Manifest> DecodeManifest(std::string_view bytes,
                                const std::string& where, Notes* notes);
Result<std::vector<IndexMetadata>> DecodeIndexSection(std::string_view bytes,
                                                      const std::string& where,
                                                      Notes* notes);
Result<MemWalIndexDetails> DecodeMemWalIndexDetails(std::string_view bytes,
                                                    const std::string& where,
                                                    Notes* notes);
Result<Transaction> DecodeTransaction(std::string_view bytes,
                                      const std::string& where, Notes* notes);
Result<ShardManifest> DecodeShardManifest(std::string_view bytes,
                                          const std::string& where,
                                          Notes* notes);

// Lowercase 8-4-4-4-12 text of 16 raw bytes; hex of whatever is there
// otherwise.
std::string UuidText(std::string_view raw);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_LANCE_MESSAGES_H_
