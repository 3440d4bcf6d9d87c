// World: the decoded views of the persisted state, cached by the store's epoch
// (impl/memory_store.h). A World reads its head, its version list, its shard
// manifests and its versions' catch-up views many times between two writes
// (every Begin* reads the head; the checker's refusal tries run every action
// the model disables on copies of one World). Two stores with one epoch of a
// part hold the same objects in it (impl/memory_store.h), so a decoding of the
// table's objects is a function of (table epoch, what is decoded), one of a
// shard manifest of (WAL epoch, which shard), and the version list and
// the versions' views, which read only the `_versions/` objects, of (versions
// epoch, table root); the options that shape a decoding (the half-set switch)
// are part of the key.
// One cache per thread (impl/epoch_cache.h).
#include "impl/epoch_cache.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

using VersionList = std::shared_ptr<const std::vector<uint64_t>>;
using ViewList = std::shared_ptr<const RetainedViewList>;
using ShardManifestPtr = std::shared_ptr<const pb::ShardManifest>;

}  // namespace

Result<std::shared_ptr<const std::vector<uint64_t>>> World::ListedVersions(
    bool archived) const {
  thread_local EpochCache<Result<VersionList>> cache;
  return cache.Get(store_.versions_epoch(), table_root_, archived ? 1 : 0,
                   [&]() -> Result<VersionList> {
                     const std::string root =
                         archived ? std::string(kArchivePrefix) + table_root_
                                  : table_root_;
                     MEMWAL_ASSIGN_OR_RETURN(std::vector<uint64_t> versions,
                                             ListVersionsAt(store_, root));
                     return std::make_shared<const std::vector<uint64_t>>(
                         std::move(versions));
                   });
}

Result<Snapshot> World::HeadAs(bool allow_half_set) const {
  thread_local EpochCache<Result<Snapshot>> cache;
  return cache.Get(store_.versions_epoch(), table_root_, allow_half_set ? 1 : 0,
                   [&]() -> Result<Snapshot> {
                     MEMWAL_ASSIGN_OR_RETURN(const VersionList versions,
                                             ListedVersions(false));
                     if (versions->empty())
                       return Status::NotFound("table has no versions");
                     return LoadVersion(Table(), nullptr, versions->back(),
                                        allow_half_set);
                   });
}

Result<std::shared_ptr<const VersionView>> World::HeadView() const {
  thread_local EpochCache<Result<std::shared_ptr<const VersionView>>> cache;
  return cache.Get(store_.versions_epoch(), table_root_,
                   [&]() -> Result<std::shared_ptr<const VersionView>> {
                     MEMWAL_ASSIGN_OR_RETURN(const Snapshot head, HeadAs(true));
                     return SharedViewOf(head);
                   });
}

Result<std::shared_ptr<const RetainedViewList>> World::RetainedViews() const {
  thread_local EpochCache<Result<ViewList>> cache;
  return cache.Get(
      store_.versions_epoch(), table_root_, [&]() -> Result<ViewList> {
        MEMWAL_ASSIGN_OR_RETURN(const VersionList versions,
                                ListedVersions(false));
        RetainedViewList views;
        for (const uint64_t version : *versions) {
          MEMWAL_ASSIGN_OR_RETURN(const Snapshot snapshot,
                                  LoadVersion(Table(), nullptr, version, true));
          MEMWAL_ASSIGN_OR_RETURN(std::shared_ptr<const VersionView> view,
                                  SharedViewOf(snapshot));
          views.pointers.push_back(view.get());
          views.shared.push_back(std::move(view));
        }
        return std::make_shared<const RetainedViewList>(std::move(views));
      });
}

Result<std::shared_ptr<const pb::ShardManifest>> World::SharedShardManifest(
    uint32_t shard) const {
  if (shard >= shard_uuids_.size())
    return Status::InvalidArgument("no such shard");
  thread_local EpochCache<Result<ShardManifestPtr>> cache;
  // The shard's number is its tag: a World's shard uuids are fixed along its
  // lineage, which an epoch names.
  return cache.Get(store_.wal_epoch(), wal_root_, shard,
                   [&]() -> Result<ShardManifestPtr> {
                     return DecodeLatestShardManifest(shard);
                   });
}

}  // namespace memwal::impl
