// Table loading and abstract views; see table.h.
#include "impl/table.h"

#include <algorithm>
#include <array>

#include "impl/blob_cache.h"
#include "impl/feature_flags.h"

namespace memwal::impl {

Result<Blob> PrefixedStore::Get(const std::string& path) const {
  // The full path in a per-thread buffer: a read is the commonest store call
  // and the concatenation allocated each time. One buffer per nesting depth
  // (a store under this one may be, or call, another prefixed store while
  // this call's buffer is still its `path`); deeper, a new string.
  constexpr int kDepths = 4;
  thread_local std::array<std::string, kDepths> buffers;
  thread_local int depth = 0;
  if (depth == kDepths) return base_->Get(prefix_ + path);
  std::string& full = buffers[depth++];
  full.assign(prefix_);
  full.append(path);
  Result<Blob> blob = base_->Get(full);
  --depth;
  return blob;
}

Status PrefixedStore::PutIfAbsent(const std::string& path, std::string bytes) {
  return base_->PutIfAbsent(prefix_ + path, std::move(bytes));
}

Result<Blob> PrefixedStore::PutIfAbsentBlob(const std::string& path,
                                            std::string bytes) {
  return base_->PutIfAbsentBlob(prefix_ + path, std::move(bytes));
}

Status PrefixedStore::Put(const std::string& path, std::string bytes) {
  return base_->Put(prefix_ + path, std::move(bytes));
}

Result<std::vector<std::string>> PrefixedStore::List(
    const std::string& prefix) const {
  MEMWAL_ASSIGN_OR_RETURN(std::vector<std::string> paths,
                          base_->List(prefix_ + prefix));
  for (std::string& path : paths) {
    MEMWAL_ASSERT(path.compare(0, prefix_.size(), prefix_) == 0);
    path.erase(0, prefix_.size());
  }
  return paths;
}

Status PrefixedStore::Delete(const std::string& path) {
  return base_->Delete(prefix_ + path);
}

FragmentSet LiveFragments(const pb::Manifest& manifest) {
  FragmentSet live;
  for (const pb::DataFragment& fragment : manifest.fragments())
    live.insert(fragment.id());
  return live;
}

Result<Segments> UserSegments(const pb::IndexSection& section) {
  Segments segments;
  for (const pb::IndexMetadata& index : section.indices()) {
    if (IsMemWalIndex(index)) continue;
    MEMWAL_ASSIGN_OR_RETURN(Coverage covers,
                            DecodeFragmentBitmap(index.fragment_bitmap()));
    segments[index.name()].push_back(
        Segment{index.uuid().uuid(), std::move(covers)});
  }
  return segments;
}

const pb::IndexMetadata* FindMemWalIndex(const pb::IndexSection& section) {
  for (const pb::IndexMetadata& index : section.indices()) {
    if (IsMemWalIndex(index)) return &index;
  }
  return nullptr;
}

pb::IndexMetadata* FindMemWalIndex(pb::IndexSection* section) {
  for (pb::IndexMetadata& index : *section->mutable_indices()) {
    if (IsMemWalIndex(index)) return &index;
  }
  return nullptr;
}

Result<std::optional<pb::MemWalIndexDetails>> MemWalDetails(
    const pb::IndexSection& section) {
  const pb::IndexMetadata* index = FindMemWalIndex(section);
  if (index == nullptr) return std::optional<pb::MemWalIndexDetails>();
  MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(*index));
  return std::optional<pb::MemWalIndexDetails>(std::move(details));
}

ShardGenerations Generations(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& list) {
  ShardGenerations out;
  for (const pb::CompactedSsTable& entry : list) {
    out.emplace_back(entry.shard_id().uuid(), entry.generation());
  }
  return out;
}

CatchupTable Catchup(const pb::MemWalIndexDetails& details) {
  CatchupTable table;
  for (const pb::IndexCatchupProgress& progress : details.index_catchup()) {
    table[progress.index_name()] =
        Generations(progress.caught_up_generations());
  }
  return table;
}

uint64_t GenerationFor(const ShardGenerations& list, const std::string& shard) {
  for (const auto& [id, generation] : list) {
    if (id == shard) return generation;
  }
  return 0;
}

void SetGenerations(
    const ShardGenerations& list,
    google::protobuf::RepeatedPtrField<pb::CompactedSsTable>* out) {
  MEMWAL_ASSERT(out != nullptr);
  out->Clear();
  for (const auto& [shard, generation] : list) {
    pb::CompactedSsTable* entry = out->Add();
    entry->mutable_shard_id()->set_uuid(shard);
    entry->set_generation(generation);
  }
}

namespace {

// The version of each name (relative to the table root), ascending;
// Corruption for a name that is not a version file.
template <typename Names>
Result<std::vector<uint64_t>> VersionsOf(const Names& names) {
  std::vector<uint64_t> versions;
  versions.reserve(names.size());
  for (const std::string_view name : names) {
    const std::optional<uint64_t> version = ParseVersionFileName(name);
    if (!version.has_value())
      return Status::Corruption("unexpected file " + std::string(name));
    versions.push_back(*version);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

}  // namespace

Result<std::vector<uint64_t>> ListVersions(const Store& table) {
  // A table inside a MemoryStore (every World's) is listed in place, as
  // ListVersionsAt does, without copying each path.
  if (const auto* prefixed = dynamic_cast<const PrefixedStore*>(&table)) {
    if (const auto* memory = dynamic_cast<const MemoryStore*>(prefixed->base()))
      return ListVersionsAt(*memory, prefixed->prefix());
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<std::string> names,
                          table.List(std::string(kVersionsDir)));
  return VersionsOf(names);
}

Result<std::vector<uint64_t>> ListVersionsAt(const MemoryStore& store,
                                             const std::string& root) {
  // ListVersions(PrefixedStore(store, root)) without copying the paths.
  const std::string prefix = root + std::string(kVersionsDir);
  thread_local std::vector<std::string_view> names;  // no re-entry
  names.clear();
  const auto& objects = store.objects();
  for (auto it = objects.lower_bound(prefix);
       it != objects.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    names.push_back(std::string_view(it->first).substr(root.size()));
  }
  return VersionsOf(names);
}

namespace {

// The decoded manifests of this thread (impl/blob_cache.h).
using ManifestCache = BlobCache<ManifestFile, 40'000>;

ManifestCache& ThreadManifests() {
  thread_local ManifestCache cache;
  return cache;
}

Result<std::shared_ptr<const ManifestFile>> DecodeManifestCached(
    const Blob& blob) {
  // IdentityCache::Get, with the decoding shared as ShareManifestFile shares
  // it, so that its messages are reused once the cache lets it go.
  ManifestCache& cache = ThreadManifests();
  if (std::shared_ptr<const ManifestFile> hit = cache.Find(blob)) return hit;
  MEMWAL_ASSIGN_OR_RETURN(ManifestFile decoded, DecodeManifestFile(*blob));
  std::shared_ptr<const ManifestFile> file =
      ShareManifestFile(std::move(decoded));
  cache.Add(blob, file);
  return file;
}

}  // namespace

void SeedDecodedManifest(const Blob& blob,
                         std::shared_ptr<const ManifestFile> file) {
  ThreadManifests().Add(blob, std::move(file));
}

Result<Snapshot> LoadVersion(const Store& table, const Store* archive,
                             uint64_t version, bool allow_half_set) {
  std::string scratch;
  const std::string& name = VersionFileNameIn(version, &scratch);
  Result<Blob> blob = table.Get(name);
  if (!blob.ok() && blob.status().code() == StatusCode::kNotFound &&
      archive != nullptr) {
    blob = archive->Get(name);
  }
  if (!blob.ok()) return blob.status();
  MEMWAL_ASSIGN_OR_RETURN(std::shared_ptr<const ManifestFile> file,
                          DecodeManifestCached(*blob));
  if (file->manifest.version() != version) {
    return Status::Corruption(name + " holds version " +
                              std::to_string(file->manifest.version()));
  }
  if (!allow_half_set) {
    // Lance: a half-set manifest is refused on load [P §2.3], and so is one
    // with a reader bit this build does not know (can_read_dataset).
    MEMWAL_RETURN_IF_ERROR(ValidateMemWalIndexCatchupFlags(file->manifest));
    if (!CanReadDataset(file->manifest.reader_feature_flags())) {
      return Status::FailedPrecondition(
          name + ": reader feature flags " +
          std::to_string(file->manifest.reader_feature_flags()) +
          " name a feature this implementation does not support");
    }
  }
  return Snapshot{std::move(file)};
}

Result<Snapshot> LoadHead(const Store& table) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> versions,
                          ListVersions(table));
  if (versions.empty()) return Status::NotFound("table has no versions");
  return LoadVersion(table, nullptr, versions.back());
}

namespace {

// The decoded transaction files of this thread (impl/blob_cache.h).
using TransactionCache = BlobCache<pb::Transaction, 40'000>;

TransactionCache& ThreadTransactions() {
  thread_local TransactionCache cache;
  return cache;
}

}  // namespace

void SeedDecodedTransaction(
    const Blob& blob, std::shared_ptr<const pb::Transaction> transaction) {
  ThreadTransactions().Add(blob, std::move(transaction));
}

Result<std::shared_ptr<const pb::Transaction>> LoadSharedTransaction(
    const Store& table, const Snapshot& snapshot) {
  const std::string& name = snapshot.file->manifest.transaction_file();
  if (name.empty())
    return Status::Corruption("version has no transaction file");
  MEMWAL_ASSIGN_OR_RETURN(const Blob blob,
                          table.Get(std::string(kTransactionsDir) + name));
  return ThreadTransactions().Get(
      blob, [](const std::string& bytes) { return DecodeTransaction(bytes); });
}

Result<pb::Transaction> LoadTransaction(const Store& table,
                                        const Snapshot& snapshot) {
  MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const pb::Transaction> shared,
                          LoadSharedTransaction(table, snapshot));
  return *shared;
}

}  // namespace memwal::impl
