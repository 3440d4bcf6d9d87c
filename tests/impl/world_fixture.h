// Test helpers for World-level tests: building worlds, reading the head,
// committing, and playing a foreign writer that publishes a hand-edited version
// (half-set bits, planted catch-up entries, a dropped system index): states no
// World action produces.
#ifndef MEMWAL_TESTS_IMPL_WORLD_FIXTURE_H_
#define MEMWAL_TESTS_IMPL_WORLD_FIXTURE_H_

#include <gtest/gtest.h>

#include <functional>

#include "impl/commit.h"
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

}  // namespace memwal::impl::testing

#endif  // MEMWAL_TESTS_IMPL_WORLD_FIXTURE_H_
