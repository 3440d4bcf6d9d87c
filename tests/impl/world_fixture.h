// Test helpers for World-level tests: building worlds, reading the head,
// committing, and playing a foreign writer that publishes a hand-edited version
// (half-set bits, planted catch-up entries, a dropped system index): states no
// World action produces; and a rival writer that wins the race to publish the
// next version (RacingStore, Rival).
#ifndef MEMWAL_TESTS_IMPL_WORLD_FIXTURE_H_
#define MEMWAL_TESTS_IMPL_WORLD_FIXTURE_H_

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

#include "impl/commit.h"
#include "impl/format.h"
#include "impl/store.h"
#include "impl/table.h"
#include "impl/world.h"

namespace memwal::impl::testing {

inline World MakeWorld(Protocol protocol = Protocol::kDerived,
                       uint32_t shards = 1, uint32_t indexes = 1,
                       uint32_t bugs = 0, ReadMode read = ReadMode::kStrict,
                       GcMode gc = GcMode::kAtomic) {
  Result<World> world = World::Create(Options{.protocol = protocol,
                                              .read = read,
                                              .gc = gc,
                                              .bugs = bugs,
                                              .shards = shards,
                                              .indexes = indexes,
                                              .seed = 7});
  MEMWAL_ASSERT(world.ok());
  return std::move(world).value();
}

inline TableVersion Head(const World& world) {
  const auto versions = world.Versions();
  MEMWAL_ASSERT(versions.ok() && !versions->empty());
  auto version = world.ReadVersion(versions->back());
  MEMWAL_ASSERT(version.ok());
  return *version;
}

// Commits the oldest in-flight transaction.
inline Outcome CommitFirst(World& world) {
  auto outcome = world.Commit(0);
  MEMWAL_ASSERT(outcome.ok());
  return *outcome;
}

// Begins with `begin` and commits at once; asserts both steps worked and it
// published.
inline void Publish(World& world, const std::function<Status()>& begin) {
  const Status status = begin();
  MEMWAL_ASSERT(status.ok());
  MEMWAL_ASSERT(CommitFirst(world) == Outcome::kPublished);
}

// The World `options` make; they are valid.
inline World Created(const Options& options) {
  Result<World> world = World::Create(options);
  MEMWAL_ASSERT(world.ok());
  return std::move(world).value();
}

// Commits the newest in-flight transaction, which a Begin that returned
// `begun` made; fails the test, with the reason, unless both worked and it
// published.
inline void Publish(World& world, const Status& begun) {
  ASSERT_TRUE(begun.ok()) << begun.ToString();
  const auto outcome = world.Commit(world.inflight_count() - 1);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(*outcome, Outcome::kPublished) << world.last_reason();
}

// A foreign writer publishes head+1 = `edit`(copy of the head), recorded as an
// empty Append.
inline void PublishForeign(World& world,
                           const std::function<void(ManifestFile*)>& edit) {
  PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<std::vector<uint64_t>> versions = ListVersions(table);
  MEMWAL_ASSERT(versions.ok() && !versions->empty());
  Result<Snapshot> head =
      LoadVersion(table, nullptr, versions->back(), /*allow_half_set=*/true);
  MEMWAL_ASSERT(head.ok());
  ManifestFile file = *head->file;
  file.manifest.set_version(head->version() + 1);
  pb::Transaction transaction;
  transaction.set_read_version(head->version());
  transaction.mutable_append();
  const std::string name = TransactionFileName(head->version(), "foreign");
  file.manifest.set_transaction_file(name);
  file.transaction = transaction;
  edit(&file);
  MEMWAL_ASSERT(table
                    .PutIfAbsent(std::string(kTransactionsDir) + name,
                                 EncodeTransaction(transaction))
                    .ok());
  // Written raw (no apply_feature_flags), as a foreign writer with other rules
  // might.
  MEMWAL_ASSERT(table
                    .PutIfAbsent(VersionFileName(file.manifest.version()),
                                 EncodeManifestFile(file))
                    .ok());
}

// A Store that lets a rival writer publish `rival` (an edit of the head) just
// before our first attempt to publish a manifest, as a second process sharing
// the directory would.
class RacingStore final : public Store {
 public:
  RacingStore(Store* base, std::function<void(Store*)> rival)
      : base_(base), rival_(std::move(rival)) {}
  Result<Blob> Get(const std::string& path) const override {
    return base_->Get(path);
  }
  Status PutIfAbsent(const std::string& path, std::string bytes) override {
    if (!raced_ && path.rfind(std::string(kVersionsDir), 0) == 0) {
      raced_ = true;
      rival_(base_);
    }
    return base_->PutIfAbsent(path, std::move(bytes));
  }
  Status Put(const std::string& path, std::string bytes) override {
    return base_->Put(path, std::move(bytes));
  }
  Result<std::vector<std::string>> List(
      const std::string& prefix) const override {
    return base_->List(prefix);
  }
  Status Delete(const std::string& path) override {
    return base_->Delete(path);
  }

 private:
  Store* base_;
  std::function<void(Store*)> rival_;
  bool raced_ = false;
};

// The rival publishes head+1 recorded as `op`.
inline std::function<void(Store*)> Rival(pb::Transaction op) {
  return [op](Store* table) {
    Result<Snapshot> head = LoadHead(*table);
    MEMWAL_ASSERT(head.ok());
    ManifestFile file = CopyWithoutTransaction(*head->file);
    file.manifest.set_version(head->version() + 1);
    file.manifest.set_transaction_file("rival.txn");
    pb::Transaction t = op;
    t.set_read_version(head->version());
    file.transaction = t;
    const Result<Blob> blob = WriteTransactionFile(table, "rival.txn", t);
    MEMWAL_ASSERT(blob.ok());
    MEMWAL_ASSERT(WriteManifestFile(table, std::move(file), {}, *blob).ok());
  };
}

}  // namespace memwal::impl::testing

#endif  // MEMWAL_TESTS_IMPL_WORLD_FIXTURE_H_
