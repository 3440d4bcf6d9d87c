// TableReport: everything `memwal-check inspect` learns from one Lance table
// directory, as values. Inspect() (inspect.h) fills it from disk; judge.cc adds
// the read-side view (R40 exclusion watermarks, R12 retirement) and the checks
// of design section 3 that one table on disk can answer; render.h prints it as
// text or JSON.
#ifndef MEMWAL_INSPECT_REPORT_H_
#define MEMWAL_INSPECT_REPORT_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "impl/catchup.h"
#include "inspect/lance_messages.h"
#include "inspect/manifest_file.h"

namespace memwal::inspect {

// One version of a Lance dataset (a base table or an SSTable), decoded.
struct DatasetVersion {
  uint64_t version = 0;  // From the file name.
  std::string file;  // Relative to the dataset root: "_versions/….manifest".
  ManifestFile contents;
  // The MemWAL system index's details, when this version has `__lance_mem_wal`.
  std::optional<MemWalIndexDetails> memwal;
  std::string memwal_uuid;  // Raw; empty without the system index.
};

// One logical index (segments sharing a name) of a version, against its live
// fragments.
struct IndexSummary {
  std::string name;
  std::vector<std::string> columns;  // Schema names of the segments' field ids.
  std::vector<const IndexMetadata*> segments;
  bool system = false;         // `__lance_mem_wal`.
  bool coverage_known = true;  // Every segment has a fragment bitmap.
  std::set<uint64_t>
      covered;  // Union of the segments' bitmaps (all ids, live or not).
  std::vector<uint64_t> uncovered_live;
  uint64_t indexed_rows = 0;    // Rows of live fragments some segment covers.
  uint64_t unindexed_rows = 0;  // Rows of live fragments no segment covers.
};

// An SSTable listed by a shard manifest, and what its own dataset says.
struct SsTableReport {
  uint64_t generation = 0;
  std::string
      path;  // Relative to the table: "_mem_wal/<shard>/<8 hex>_gen_<G>".
  bool exists = false;
  // The manifest's path is absolute or climbs out of the shard directory
  // ("../"): never read, reported by ShardManifestsAreConsistent.
  bool outside = false;
  std::optional<DatasetVersion>
      latest;  // The SSTable dataset's newest version.
};

struct ShardReport {
  std::string uuid;           // Directory name (uuid text).
  std::string raw_uuid;       // 16 bytes, as the MemWAL details name the shard.
  std::string manifest_file;  // Relative path of the newest shard manifest;
                              // empty if none.
  size_t manifest_versions = 0;
  std::optional<uint64_t> version_hint;
  std::optional<ShardManifest> manifest;
  std::vector<SsTableReport> sstables;
  size_t wal_entries = 0;
  // Generations of the <8 hex>_gen_<G> directories in the shard directory.
  std::vector<uint64_t> generation_dirs;
};

// R40 for one shard, query shape and read mode; 0 = no watermark (every SSTable
// is read).
struct Watermark {
  std::string shard;  // Uuid text.
  std::string shape;  // "plain", "index:<name>", "all".
  std::string mode;   // "strict", "min", "single-index".
  uint64_t generation = 0;
};

// R12 for one listed SSTable.
struct Retirement {
  std::string shard;
  uint64_t generation = 0;
  bool retirable_here = false;  // On the inspected version alone.
  bool retirable =
      false;  // On every version in _versions/ (every retained version).
  std::string reason;
};

// One check: ok, or a finding with its reason.
struct Check {
  std::string name;  // Invariant names of spec section 9 where one applies.
  bool ok = true;
  std::string reason;
};

struct TableReport {
  std::string table_dir;
  std::vector<DatasetVersion>
      versions;          // Every manifest in _versions/, ascending.
  size_t inspected = 0;  // Index into `versions`.
  impl::Protocol protocol = impl::Protocol::kLegacy;
  std::string protocol_reason;
  bool protocol_given = false;  // --protocol overrode the inference.
  std::vector<ShardReport> shards;
  // Why _mem_wal/ exists but cannot be listed ("a regular file, not a
  // directory", "a symlink loop", "permission denied"); empty when it is a
  // directory or absent.
  std::string memwal_dir_problem;
  std::vector<Watermark> watermarks;
  std::vector<Retirement> retirements;
  std::vector<Check> checks;
  Notes notes;

  const DatasetVersion& head() const { return versions[inspected]; }
};

// Row and index figures of one version.
uint64_t CountRows(const Manifest& manifest);
std::set<uint64_t> LiveFragments(const Manifest& manifest);
// Logical indexes in first-appearance order (system index included).
std::vector<IndexSummary> SummarizeIndexes(const DatasetVersion& version);
// "legacy", "advance", "derived", "unconditional".
std::string ProtocolName(impl::Protocol protocol);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_REPORT_H_
