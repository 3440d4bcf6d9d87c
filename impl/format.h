// The on-store format of a table: manifest files, transaction files, shard
// manifests and their names, with validating decoders (every decode returns
// Corruption on bad bytes).
//
// Names [P §1, §3]: `_versions/{u64::MAX - version}.manifest` (Lance's V2
// naming, zero-padded to 20 digits so that the newest version sorts first),
// `_transactions/{read_version}-{uuid}.txn` (a serialized Transaction),
// `_mem_wal/{shard_uuid}/manifest/{name}.binpb` (a serialized ShardManifest;
// the name is the version's 64 bits as '0'/'1', least significant bit first,
// as observed in LanceDB 0.31.0 tables: version 1 = "1000...0").
//
// Manifest file layout. Known [P §1.4, §4.1]: the IndexSection message is
// written into the manifest file and Manifest.index_section holds its byte
// offset. The rest follows the bytes of real LanceDB 0.31.0 manifests
// (docs/lance-file-layout.md, tests/fixtures/lancedb):
//   [u32 LE n][IndexSection]  <- Manifest.index_section = 0 (absent: no index)
//   [u32 LE t][Transaction]   <- Manifest.transaction_section (the same bytes
//                                as the _transactions/ file)
//   [u32 LE m][Manifest]      <- manifest position P, ends at the footer
//   [u64 LE P][u16 LE major=0][u16 LE minor=2]["LANC"]   (16-byte footer)
#ifndef MEMWAL_IMPL_FORMAT_H_
#define MEMWAL_IMPL_FORMAT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "impl/proto/table.pb.h"
#include "impl/proto/transaction.pb.h"

namespace memwal::impl {

namespace pb = ::lance::table;

// Lance: MEM_WAL_INDEX_NAME, the system index holding MemWalIndexDetails [P
// §3].
inline constexpr std::string_view kMemWalIndexName = "__lance_mem_wal";
// The index_details type of a user index segment. Lance writes a scalar BTree
// index's details as this (empty) message; LanceDB derives the index type
// listIndices reports from the url (an index without it is skipped as
// "Unknown"). The model's indexes are abstract, so every one is a BTree.
inline constexpr std::string_view kBTreeIndexDetailsUrl =
    "/lance.table.BTreeIndexDetails";
inline constexpr std::string_view kVersionsDir = "_versions/";
inline constexpr std::string_view kTransactionsDir = "_transactions/";
inline constexpr std::string_view kMemWalDir = "_mem_wal/";
// transaction_properties key naming the index of an empty repair CreateIndex
// (our choice).
inline constexpr std::string_view kRepairIndexProperty = "memwal-check.index";
// The writer_version (version, then "-prerelease" if any) this
// implementation writes into every manifest it commits, as Lance's
// new_from_previous stamps the running library's; and the one an
// `unconditional`-era writer (Lance 12, PR 8680: the R64 foreign compactor)
// stamps. The checker tells the foreign compactor's commits by it.
inline constexpr std::string_view kWriterVersion = "11.0.0-beta.16";
inline constexpr std::string_view kUnconditionalWriterVersion = "12.0.0";
// A compaction data pass names the generation it merges, when a protocol
// variant needs it to (R65's fence), in the transaction property
// kMergesPropertyPrefix + the variant's name = "<shard uuid hex>:<generation>".
// Lockstep compares every such property of an in-flight transaction with the
// model's (checker/lockstep/inflight.cc).
inline constexpr std::string_view kMergesPropertyPrefix =
    "memwal-check.merges.";
// transaction_properties key of a fenced compaction data pass (spec R65, `fence
// data-pass`).
inline constexpr std::string_view kDataPassProperty =
    "memwal-check.merges.fence";

// An optional transaction with value semantics (std::optional's interface)
// whose copies share one message until one of them changes it: a version
// built from an in-flight transaction shares it instead of copying it, and a
// copy of a decoded file shares the decoding. Const access reads the shared
// message; non-const access gives this slot its own message first (a copy,
// unless it is the only owner of a message it made itself).
class TransactionSlot {
 public:
  TransactionSlot() = default;
  TransactionSlot(std::nullopt_t) {}            // NOLINT: as std::optional
  TransactionSlot(pb::Transaction transaction)  // NOLINT: as std::optional
      : shared_(std::make_shared<pb::Transaction>(std::move(transaction))),
        owned_(true) {}
  // Shares `transaction` (never changed through this slot: a change copies).
  explicit TransactionSlot(std::shared_ptr<const pb::Transaction> transaction)
      : shared_(std::move(transaction)) {}

  bool has_value() const { return shared_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const pb::Transaction& value() const;
  pb::Transaction& value() { return *Mutable(); }
  const pb::Transaction& operator*() const { return value(); }
  pb::Transaction& operator*() { return value(); }
  const pb::Transaction* operator->() const { return &value(); }
  pb::Transaction* operator->() { return Mutable(); }
  // An empty message of this slot's own (a former one's storage reused when
  // this slot owns it alone), or a copy of `transaction`.
  pb::Transaction& emplace();
  pb::Transaction& emplace(const pb::Transaction& transaction);
  void reset() { shared_.reset(); }
  // The message, shared (null when empty).
  const std::shared_ptr<const pb::Transaction>& shared() const {
    return shared_;
  }

 private:
  pb::Transaction* Mutable();
  std::shared_ptr<const pb::Transaction> shared_;
  // Whether this slot's lineage made the message (so that it is not const
  // and may change in place when no other slot shares it).
  bool owned_ = false;
};

struct ManifestFile {
  pb::Manifest manifest;
  pb::IndexSection index_section;
  // The transaction that produced this version, embedded in the file (and
  // written to _transactions/ too).
  TransactionSlot transaction;
};

// `file`'s manifest and index section with `transaction` (nullptr: none) in
// place of its own: the start of a new version, which carries a transaction of
// its own (so the old one is not copied only to be replaced). The copy reuses
// the storage of a decoding this thread let go (ShareManifestFile).
ManifestFile CopyWithTransaction(const ManifestFile& file,
                                 const pb::Transaction* transaction);
// The same, sharing `transaction` instead of copying it.
ManifestFile CopyWithSharedTransaction(
    const ManifestFile& file,
    std::shared_ptr<const pb::Transaction> transaction);
ManifestFile CopyWithoutTransaction(const ManifestFile& file);

// `file` shared, as the decode caches keep it: when its last owner lets go,
// this thread keeps its messages (a few dozen) for the next copy or decode to
// reuse their allocations, as protobuf's Clear keeps repeated elements and
// strings. What a copy or a decode gives is the same either way.
std::shared_ptr<const ManifestFile> ShareManifestFile(ManifestFile file);

// Encodes the layout above; sets manifest.index_section and
// transaction_section to their blocks' offsets (clears them when absent).
std::string EncodeManifestFile(const ManifestFile& file);
// Decode-once: encodes *file as above and leaves in *file what
// DecodeManifestFile gives for the bytes when CheckManifestFile(*file) is ok
// (the section offsets set, an index section without indices cleared), so a
// writer can keep the decoding it has in hand.
std::string EncodeManifestFileAsDecoded(ManifestFile* file);
// The same with the transaction section's bytes in hand: `transaction_bytes`
// is EncodeTransaction(*file->transaction) (the bytes of its .txn file, which
// the section repeats), empty when file->transaction is absent.
std::string EncodeManifestFileAsDecoded(ManifestFile* file,
                                        std::string_view transaction_bytes);
// Structural decode and validation (framing, ids, uuids, bitmaps, MemWAL
// details). Does not check the feature-bit pairing; loaders do that
// (ValidateMemWalIndexCatchupFlags).
Result<ManifestFile> DecodeManifestFile(std::string_view bytes);
// The validation DecodeManifestFile runs after parsing (ids, uuids, bitmaps,
// MemWAL details).
Status CheckManifestFile(const ManifestFile& file);

// "_versions/<20 digits>.manifest" relative to the table root.
std::string VersionFileName(uint64_t version);
// The same without a copy: the name from a table formatted once (the first
// 256 versions, which tables keep), or else formatted into `scratch`.
const std::string& VersionFileNameIn(uint64_t version, std::string* scratch);
// The version a `_versions/` file name encodes; nullopt if the name is not one.
std::optional<uint64_t> ParseVersionFileName(std::string_view name);
// "{read_version}-{uuid}.txn" (Manifest.transaction_file holds this name).
std::string TransactionFileName(uint64_t read_version, std::string_view uuid);

std::string EncodeTransaction(const pb::Transaction& transaction);
// Lance: an explicit require_index_catchup = false is invalid input [P §1.3].
Result<pb::Transaction> DecodeTransaction(std::string_view bytes);
// The validation DecodeTransaction runs after parsing (an operation, no
// explicit require_index_catchup = false).
Status CheckTransaction(const pb::Transaction& transaction);

// "_mem_wal/{shard_uuid_hex}/manifest/{bit_reversed_version}.binpb".
std::string ShardManifestPath(std::string_view shard_uuid_raw,
                              uint64_t version);
std::string ShardManifestDir(std::string_view shard_uuid_raw);
// The version a shard manifest file name encodes; nullopt if it is not one.
std::optional<uint64_t> ParseShardManifestName(std::string_view path);
std::string EncodeShardManifest(const pb::ShardManifest& manifest);
Result<pb::ShardManifest> DecodeShardManifest(std::string_view bytes);
// The validation DecodeShardManifest runs after parsing (a shard uuid,
// generations from 1, every SSTable's generation below the current one).
Status CheckShardManifest(const pb::ShardManifest& manifest);

// Lowercase 8-4-4-4-12 hex of 16 raw bytes.
std::string UuidHex(std::string_view raw);

bool IsMemWalIndex(const pb::IndexMetadata& index);
// The MemWalIndexDetails in index_details (type_url must end with
// "MemWalIndexDetails").
Result<pb::MemWalIndexDetails> UnpackMemWalDetails(
    const pb::IndexMetadata& index);
void PackMemWalDetails(const pb::MemWalIndexDetails& details,
                       pb::IndexMetadata* index);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_FORMAT_H_
