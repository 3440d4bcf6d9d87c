// World: the facade the checker drives. One table (plus its MemWAL shards and
// in-flight transactions) in an in-memory store, with one method per spec
// action (R4-R38) and decoded views of the persisted state. Copyable and cheap
// to copy: the store shares immutable blobs. Deterministic: uuids come from a
// counter-driven PRNG seeded by Options::seed, so the same options and the same
// sequence of calls give byte-identical stores.
//
// Numbering: the model's shard s is the World's s-th shard uuid (minted at
// Create); index i is the Lance index "idx_i" on field id i. Begin* methods
// return FailedPrecondition when the implementation's own view of the table
// says the action cannot start; Commit and Restore report protocol outcomes as
// values (Outcome), never as errors.
//
// Exact spellings (the brief's facade): as listed below; additionally WriteTo
// copies the table (and the shard directories it references) into a
// DirectoryStore, OpenFrom reads one back, last_reason() explains the last
// refusal, and mutable_store() lets tests play a foreign writer.
#ifndef MEMWAL_IMPL_WORLD_H_
#define MEMWAL_IMPL_WORLD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "impl/bugs.h"
#include "impl/catchup.h"
#include "impl/commit.h"
#include "impl/directory_store.h"
#include "impl/memory_store.h"
#include "impl/read.h"
#include "impl/rows.h"
#include "impl/switches.h"

namespace memwal::impl {

namespace wire {
class WorldState;
}  // namespace wire

enum class GcMode { kAtomic, kStaleRead, kRecheck };

// Where CleanupVersions keeps the manifests it removes from the table (so the
// checker can still read every version): this prefix + the table root.
inline constexpr std::string_view kArchivePrefix = "archive/";

struct Options {
  Protocol protocol = Protocol::kDerived;
  ReadMode read = ReadMode::kStrict;
  GcMode gc = GcMode::kAtomic;
  // The values of the switch options registered without a typed field
  // (impl/switches.h), by slot; 0 = today's protocol.
  SwitchSlots switches{};
  uint32_t bugs = 0;  // Set of BugBit(Bug).
  uint32_t shards = 1;
  uint32_t indexes = 1;
  uint64_t seed = 0;
  // false: a plain Lance table, created without `__lance_mem_wal` (shards must
  // be 0), as a table is before its MemWAL is installed. Every MemWAL action
  // then fails or refuses; the model always installs it at Init (R4).
  bool memwal = true;

  // Whether `option` is set to anything but today's protocol.
  bool On(const SwitchOption& option) const {
    return option.slot() >= 0
               ? switches[static_cast<std::size_t>(option.slot())] != 0
               : option.Get(*this) != 0;
  }
};

// The operation that produced a version, from its transaction file.
enum class OpKind {
  kInit,  // Overwrite: the table's first version.
  kAppend,
  kDeleteFragment,
  kCompactSsTable,  // Update with new fragments (merge-insert of an SSTable).
  kUpdateColumns,   // Update REWRITE_COLUMNS.
  kRewriteFragments,
  kCreateIndex,  // Any user CreateIndex: create, optimize, drop, empty repair.
  kRecordProgress,  // UpdateMemWalState without activation.
  kActivate,        // UpdateMemWalState{require_index_catchup = true}.
  kRestore,
  kShallowClone,
};

struct SegmentView {
  std::string uuid;  // 16 raw bytes.
  std::optional<std::set<uint64_t>> covers;
  friend bool operator==(const SegmentView&, const SegmentView&) = default;
};

// The read-side views of the retained versions, oldest first: shared with
// the per-manifest cache (impl/read.h SharedViewOf), and as the pointers
// impl::Retirable reads.
struct RetainedViewList {
  std::vector<std::shared_ptr<const VersionView>> shared;
  std::vector<const VersionView*> pointers;
};

// One decoded version in the model's terms (spec R2).
struct TableVersion {
  uint64_t number = 0;
  std::set<uint64_t> live;
  std::map<uint32_t, std::vector<SegmentView>>
      segments;  // Index number -> segments.
  // Shard -> generation: every persisted entry (the first one per shard),
  // zero-valued ones included.
  std::map<uint32_t, uint64_t> compacted;
  std::map<uint32_t, std::map<uint32_t, uint64_t>>
      catchup;  // Index -> shard -> position, zero-valued ones included.
  bool reader_bit = false;
  bool writer_bit = false;
  bool retained = false;
  OpKind op = OpKind::kInit;
  std::string mem_wal_index_uuid;  // The system index's uuid (changes on every
                                   // rewrite).
  // The version's transaction file, decoded (shared with the per-blob cache).
  std::shared_ptr<const pb::Transaction> transaction;
  uint64_t max_fragment_id = 0;  // The manifest's high-water mark.
  // The manifest's writer_version, "version-prerelease": which Lance code
  // wrote it (impl/format.h kWriterVersion for this implementation's own
  // commits).
  std::string writer;
};

// Row identity as the table's bytes say (impl/rows.h), in model terms: a row
// is (shard number, generation).
struct RowsView {
  // Every fragment some version of the table (or of the table it was cloned
  // from) lists: the MemWAL rows its data holds and its deletion file does not
  // delete, as the newest version listing it says.
  std::map<uint64_t, std::set<std::pair<uint32_t, uint64_t>>> fragments;
  // Rows a commit deleted: those of the fragments a Delete transaction removed
  // and those at the offsets a deletion file names.
  std::set<std::pair<uint32_t, uint64_t>> deleted;
  // The versions of the tables this one was shallow-cloned from (a chain of
  // clones: the first source first), oldest first; empty for a table that is
  // not a clone. The last one of each source is the version its clone copied.
  std::vector<TableVersion> sources;
};

struct WalState {
  std::vector<uint64_t>
      flushed;  // Per shard: generations 1..flushed[s] flushed.
  std::vector<std::set<uint64_t>>
      retired;  // Per shard: deleted SSTable generations.
};

class World {
 public:
  // R4: version 1 with fragment 0; idx_0.. each one segment covering {0}; the
  // MemWAL system index installed with `shards` shards; no progress; bits
  // clear.
  static Result<World> Create(const Options& options);
  // Reopens a table written by WriteTo (shard numbering from the MemWAL index
  // order), from any Store laid out as WriteTo lays it out (a DirectoryStore,
  // or a MemoryStore a reader filled).
  static Result<World> OpenFrom(const Store& directory, const Options& options);

  Status FlushMemTable(uint32_t shard);                                // R10
  Status RetireSsTable(uint32_t shard, uint64_t generation);           // R11
  Status RetireDecide(uint32_t shard, uint64_t generation);            // R13
  Result<Outcome> RetireExecute(uint32_t shard, uint64_t generation);  // R13

  Status BeginAppend();                                           // R20
  Status BeginDeleteFragment(uint64_t fragment);                  // R21
  Status BeginCompactSsTable(uint32_t shard, bool marker);        // R22
  Status BeginUpdateColumns(uint64_t fragment, uint32_t index);   // R23
  Status BeginRewriteFragments(uint64_t first, uint64_t second);  // R24
  Status BeginCreateIndex(uint32_t index);                        // R25
  Status BeginOptimizeIndex(uint32_t index);                      // R26
  Status BeginDropIndex(uint32_t index);                          // R27
  Status BeginRecordProgress(uint32_t shard);                     // R28
  Status BeginActivate();                                         // R29
  // R39: a CreateIndex installing a fresh `__lance_mem_wal` whose details are
  // the read version's (as initialize_mem_wal writes one, with no
  // removed_indices; lance #9335 re-installs to replace the maintained-index
  // set, carrying the progress). The commit replaces the head's system index.
  Status BeginReinstallMemWal();
  // R30: commits the slot-th in-flight transaction (begin order); it leaves the
  // list whatever the outcome (kPublished, kRetry or kRefused).
  Result<Outcome> Commit(size_t slot);
  Result<Outcome> Restore(uint64_t version);  // R36
  // R37. Lance: Manifest::shallow_clone: the source root becomes a base path
  // (feature bit 16 in both words), and data files, deletion files and every
  // index (the system index too) point at it.
  Status ShallowClone();
  // Lance's deep clone (not a model action): the head's manifest copied into a
  // new table that all later steps act on, feature words kept, no base paths.
  // Its version reads back as OpKind::kShallowClone (the Clone operation).
  Status DeepClone();
  Status CleanupVersions();  // R38

  // Section 10 (env foreign): writers outside this protocol version's path.
  // R60: a foreign commit of the head with bit 128 in the reader word only
  // (written as Lance would see it: an empty CreateIndex, and no
  // apply_feature_flags, which would drop the half-set bit).
  Status ForeignHalfSet();
  // R61 (advance): BeginOptimizeIndex(index) with the caller-supplied advance
  // `offer` (model::AdvanceOffer: 0 other-index, 1 oldest, 2 first-shard).
  Status BeginCallerAdvance(uint32_t index, uint32_t offer);
  // R62: commits a CreateIndex replacing __lance_mem_wal with its details
  // minus compacted_sstables and index_catchup, through the commit path.
  Status ResetMemWal();
  // R63: commits a CreateIndex removing __lance_mem_wal (lancedb's
  // unset_lsm_write_spec after draining), through the commit path.
  Status DropMemWal();
  // R64 (bit protocols): an `unconditional`-era compactor's merge-insert of the
  // shard's next generation with the marker, committed through the commit path
  // as protocol `unconditional` (no bit; the derivation runs).
  Status ForeignCompaction(uint32_t shard);

  // Persisted state, decoded from the store on every call.
  Result<std::vector<uint64_t>> Versions() const;
  Result<TableVersion> ReadVersion(uint64_t version) const;
  // Ok if the head loads as Lance loads a version to read or write it (no
  // half-set pair, one system index, known feature bits); the refusal if not.
  Status HeadLoads() const;
  Result<WalState> ReadWal() const;
  // Every version's fragments read through impl/rows.h (world_rows.cc).
  Result<RowsView> ReadRows() const;
  // The same, shared with this thread's cache (a table read once per thread).
  Result<std::shared_ptr<const RowsView>> SharedRows() const;
  // The rows after version `number`, when `before` holds the rows of every
  // version of this table older than it (a fold of SharedRows' own).
  Result<std::shared_ptr<const RowsView>> SharedRowsAfter(
      const RowsView& before, uint64_t number) const;
  // R40 on the head: per shard, 0 = no watermark. Query index numbers in any
  // order.
  Result<std::vector<uint64_t>> Watermarks(
      const std::vector<uint32_t>& query_indexes) const;
  // R12 on the head and every retained version.
  Result<bool> Retirable(uint32_t shard, uint64_t generation) const;

  size_t inflight_count() const { return inflight_.size(); }
  // The begun, uncommitted transactions in begin order, as they will be
  // committed (the checker compares their contents with the model's). A
  // begun transaction never changes, so World copies share them.
  const std::vector<std::shared_ptr<const pb::Transaction>>& inflight() const {
    return inflight_;
  }
  // Tests only: plant a difference in the slot-th in-flight transaction (to
  // show that lockstep compares their contents); this World gets its own copy.
  pb::Transaction* mutable_inflight_for_testing(size_t slot);
  const std::set<std::pair<uint32_t, uint64_t>>& pending() const {
    return pending_;
  }
  const std::string& last_reason() const { return last_reason_; }
  const Options& options() const { return options_; }
  const std::string& shard_uuid(uint32_t shard) const;
  // The position of `uuid` in `shard_uuids`: the World's ShardNumber for a
  // list read without a World (ReadVersionRows).
  static std::optional<uint32_t> ShardNumberIn(
      const std::vector<std::string>& shard_uuids, const std::string& uuid);

  // What a caller decoded from this World's persisted state, kept with it
  // (the lockstep checker's decoded table, checker/lockstep/refinement.cc):
  // shared by copies and never read by World itself; the caller tells by its
  // own key (a store epoch) whether it still describes this World, and may
  // build the next one from it. `owner` tags whose it is (an address the
  // caller owns), so that two callers never misread each other's.
  struct Annotation {
    const void* owner = nullptr;
    std::shared_ptr<const void> value;
  };
  const Annotation& annotation() const { return annotation_; }
  void set_annotation(Annotation annotation) {
    annotation_ = std::move(annotation);
  }

  const MemoryStore& store() const { return store_; }
  MemoryStore* mutable_store() { return &store_; }
  // Store paths of the current table root and of the shard directories' root.
  const std::string& table_root() const { return table_root_; }
  const std::string& wal_root() const { return wal_root_; }
  // Copies the current table (and the shard directories) into `directory`.
  Status WriteTo(DirectoryStore* directory) const;

  // Everything this World holds, as bytes (impl/proto/world.proto), for the
  // distributed search to ship a World to another rank instead of replaying
  // its path there (impl/world_serialize.cc).
  std::string Serialize() const;
  // The World that Serialize wrote: the same objects, roots, counters, shard
  // uuids, in-flight transactions, pending decisions and last refusal, so the
  // same answers and next steps. `options` are the receiver's:
  // InvalidArgument unless they are the sender's; Corruption for bytes that
  // Serialize did not write (truncated, flipped, foreign).
  static Result<World> Deserialize(std::string_view bytes,
                                   const Options& options);

 private:
  World() = default;
  std::string NewUuid();
  UuidSource UuidFn();
  PrefixedStore Table() const;
  PrefixedStore Archive() const;
  PrefixedStore Wal() const;
  Result<Snapshot> Head() const;
  // Cached by the store's epoch (impl/world_cache.cc): the version numbers
  // listed in the table (or, `archived`, in its archive), oldest first; the
  // head as a writer (allow_half_set false) or a reader loads it; the
  // catch-up views of the retained versions, oldest first; the latest
  // manifest of a shard.
  Result<std::shared_ptr<const std::vector<uint64_t>>> ListedVersions(
      bool archived) const;
  Result<Snapshot> HeadAs(bool allow_half_set) const;
  Result<std::shared_ptr<const RetainedViewList>> RetainedViews() const;
  Result<std::shared_ptr<const VersionView>> HeadView() const;
  Result<std::shared_ptr<const pb::ShardManifest>> SharedShardManifest(
      uint32_t shard) const;
  Result<std::shared_ptr<const pb::ShardManifest>> DecodeLatestShardManifest(
      uint32_t shard) const;
  Status Begin(pb::Transaction transaction);
  Status InitTable();
  // Copies the data and deletion files `manifest` keeps under its base paths
  // into `root` (a deep clone's table).
  Status CopyBasedFiles(const pb::Manifest& manifest, const std::string& root);
  Status InitShards();
  Status RebuildStore(const wire::WorldState& state);
  Result<pb::ShardManifest> LatestShardManifest(uint32_t shard) const;
  Status WriteShardManifest(uint32_t shard, pb::ShardManifest manifest);
  Status Retire(uint32_t shard, uint64_t generation);
  Status RetireGuard(uint32_t shard, uint64_t generation) const;
  Result<pb::Transaction> OptimizeTransaction(const Snapshot& read,
                                              uint32_t index);
  Result<bool> RepairWouldAdvance(const Snapshot& head) const;
  Result<std::optional<pb::Transaction::CreateIndex::IndexCatchupAdvance>>
  BuildAdvance(const Snapshot& read, const std::string& name,
               const pb::Transaction::CreateIndex& op) const;
  // Commits an env action's transaction (R62-R64) through the commit path as
  // `protocol` with `bugs`; anything but a publish is an error, as the model
  // publishes them always.
  // `writer`: the committing writer's writer_version (impl/format.h); a
  // `protocol` other than the run's is the `unconditional`-era writer's.
  Status CommitForeign(pb::Transaction transaction, Protocol protocol,
                       BugSet bugs, std::string_view writer = kWriterVersion);
  // `table`: the store of the table `snapshot` belongs to (its transaction
  // file's).
  Result<TableVersion> ToTableVersion(const Store& table,
                                      const Snapshot& snapshot,
                                      bool retained) const;
  std::optional<uint32_t> ShardNumber(const std::string& uuid) const;
  Status ReadTableRows(const std::string& root, int depth, RowsView* out) const;
  Status ReadVersionRowsInto(const std::string& root, int depth, bool first,
                             uint64_t number, const Store& table,
                             const Store& archive, RowsView* out) const;

  Options options_;
  BugSet bugs_;
  MemoryStore store_;
  std::string table_root_;
  std::string wal_root_;
  uint32_t tables_created_ = 0;
  uint64_t uuid_counter_ = 0;
  std::vector<std::string> shard_uuids_;
  std::vector<std::shared_ptr<const pb::Transaction>> inflight_;
  std::set<std::pair<uint32_t, uint64_t>> pending_;
  std::string last_reason_;
  Annotation annotation_;
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_WORLD_H_
