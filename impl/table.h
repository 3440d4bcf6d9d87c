// A table over a Store: loading decoded versions, and the abstract views of a
// version that the protocol rules are stated in (live fragments, segments per
// index name, compaction progress and catch-up positions per shard). Every view
// is computed from decoded bytes. Shards are identified by their raw 16-byte
// uuid; index names are Lance names ("idx_0").
#ifndef MEMWAL_IMPL_TABLE_H_
#define MEMWAL_IMPL_TABLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "impl/bitmap.h"
#include "impl/format.h"
#include "impl/memory_store.h"
#include "impl/store.h"

namespace memwal::impl {

// A Store seen through a path prefix (a table root inside a larger store).
class PrefixedStore final : public Store {
 public:
  PrefixedStore(Store* base, std::string prefix)
      : base_(base), prefix_(std::move(prefix)) {}
  Result<Blob> Get(const std::string& path) const override;
  Status PutIfAbsent(const std::string& path, std::string bytes) override;
  Result<Blob> PutIfAbsentBlob(const std::string& path,
                               std::string bytes) override;
  Status Put(const std::string& path, std::string bytes) override;
  Result<std::vector<std::string>> List(
      const std::string& prefix) const override;
  Status Delete(const std::string& path) override;

  Store* base() const { return base_; }
  const std::string& prefix() const { return prefix_; }

 private:
  Store* base_;
  std::string prefix_;
};

// One segment as the protocol sees it: identity and coverage [spec R2].
struct Segment {
  std::string uuid;
  Coverage covers;
  friend bool operator==(const Segment&, const Segment&) = default;
};
// User (non-system) segments by index name, each list in index-section order.
using Segments = std::map<std::string, std::vector<Segment>>;
// Per shard (raw uuid) a generation, in the order of the persisted list.
using ShardGenerations = std::vector<std::pair<std::string, uint64_t>>;
// Per index name its recorded positions.
using CatchupTable = std::map<std::string, ShardGenerations>;

// A decoded version.
// One decoded version. The decoding is shared: Lance keeps decoded manifests
// in its session's metadata cache, and so does LoadVersion (a stored manifest
// is immutable, so a blob decodes once per thread). Callers that build a new
// manifest copy *file. Only LoadVersion makes one, so its decoding passed
// CheckManifestFile (the views of read.h rely on it).
struct Snapshot {
  std::shared_ptr<const ManifestFile> file;
  uint64_t version() const { return file->manifest.version(); }
};

FragmentSet LiveFragments(const pb::Manifest& manifest);
Result<Segments> UserSegments(const pb::IndexSection& section);
// The MemWAL system index, or nullptr.
const pb::IndexMetadata* FindMemWalIndex(const pb::IndexSection& section);
pb::IndexMetadata* FindMemWalIndex(pb::IndexSection* section);
// The details of the system index; nullopt if the table has none.
Result<std::optional<pb::MemWalIndexDetails>> MemWalDetails(
    const pb::IndexSection& section);
ShardGenerations Generations(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& list);
CatchupTable Catchup(const pb::MemWalIndexDetails& details);
// First entry for `shard` (Lance: compacted_generation_for_shard), 0 if none.
uint64_t GenerationFor(const ShardGenerations& list, const std::string& shard);
void SetGenerations(
    const ShardGenerations& list,
    google::protobuf::RepeatedPtrField<pb::CompactedSsTable>* out);

// Versions whose manifest is in `table` (retained), ascending.
Result<std::vector<uint64_t>> ListVersions(const Store& table);
// The same for the table at `root` inside `store`, reading the store's
// objects in place.
Result<std::vector<uint64_t>> ListVersionsAt(const MemoryStore& store,
                                             const std::string& root);
// Decodes version `version` from `table`, or else from `archive` (versions that
// CleanupVersions removed), validating the feature-bit pairing as Lance does on
// load unless `allow_half_set`.
Result<Snapshot> LoadVersion(const Store& table, const Store* archive,
                             uint64_t version, bool allow_half_set = false);
// Decode-once: `file` is what DecodeManifestFile(*blob) gives (the writer kept
// it, EncodeManifestFileAsDecoded); this thread's loads of `blob` take it
// instead of decoding the bytes.
void SeedDecodedManifest(const Blob& blob,
                         std::shared_ptr<const ManifestFile> file);
Result<Snapshot> LoadHead(const Store& table);
// The transaction that produced `snapshot` (from its transaction_file).
Result<pb::Transaction> LoadTransaction(const Store& table,
                                        const Snapshot& snapshot);
// The same, shared: a transaction file decodes once per thread.
Result<std::shared_ptr<const pb::Transaction>> LoadSharedTransaction(
    const Store& table, const Snapshot& snapshot);
// Decode-once: `transaction` is what DecodeTransaction(*blob) gives (it
// passed CheckTransaction, and `blob` holds its EncodeTransaction bytes); this
// thread's loads of `blob` take it instead of decoding the bytes.
void SeedDecodedTransaction(const Blob& blob,
                            std::shared_ptr<const pb::Transaction> transaction);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_TABLE_H_
