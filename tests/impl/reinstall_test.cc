// Re-installing the MemWAL (spec R39): a CreateIndex that installs
// `__lance_mem_wal` on a table that has one replaces it, a rebase over a
// progress commit keeps that progress, and a published version always loads.
#include <gtest/gtest.h>

#include "impl/world.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::Publish;

// The head's index section, loaded as Lance loads it (refusals included).
Result<Snapshot> StrictHead(World& world) {
  PrefixedStore table(world.mutable_store(), world.table_root());
  return LoadHead(table);
}

int SystemIndexCount(const pb::IndexSection& section) {
  int count = 0;
  for (const auto& index : section.indices()) count += IsMemWalIndex(index);
  return count;
}

// A table under `unconditional` whose shard 0 has generation 1 compacted.
World CompactedWorld() {
  World world = MakeWorld(Protocol::kUnconditional);
  EXPECT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  return world;
}

TEST(Reinstall, ReplacesTheSystemIndexSoThePublishedVersionLoads) {
  World world = CompactedWorld();
  const std::string before = Head(world).mem_wal_index_uuid;
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_TRUE(world.HeadLoads().ok()) << world.HeadLoads().ToString();
  const Result<Snapshot> head = StrictHead(world);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(SystemIndexCount(head->file->index_section), 1);
  const TableVersion view = Head(world);
  EXPECT_NE(view.mem_wal_index_uuid, before);  // The installer's entry.
  EXPECT_EQ(view.compacted.at(0), 1u);         // Its details were the head's.
}

TEST(Reinstall, RebasedOverAProgressCommitIsCompatibleAndKeepsThatProgress) {
  World world = MakeWorld(Protocol::kUnconditional);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  // The data pass of a two-pass compaction, then the installer reads the table.
  Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_TRUE(world.BeginRecordProgress(0).ok());
  ASSERT_EQ(world.Commit(1).value(), Outcome::kPublished);
  const uint64_t progress_version = Head(world).number;
  ASSERT_EQ(Head(world).compacted.at(0), 1u);
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_TRUE(world.HeadLoads().ok()) << world.HeadLoads().ToString();
  ASSERT_EQ(Head(world).compacted.count(0), 1u);
  EXPECT_EQ(Head(world).compacted.at(0), 1u);
  // Lance re-mints the merged entry at the head it rebased onto.
  const Result<Snapshot> head = StrictHead(world);
  ASSERT_TRUE(head.ok());
  const pb::IndexMetadata* system = FindMemWalIndex(head->file->index_section);
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->dataset_version(), progress_version);
}

TEST(Reinstall, WithoutARebaseKeepsTheInstallersEntryAndVersion) {
  World world = CompactedWorld();
  const uint64_t read = Head(world).number;
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  const Result<Snapshot> head = StrictHead(world);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(FindMemWalIndex(head->file->index_section)->dataset_version(),
            read);
}

TEST(Reinstall, TwoConcurrentInstallsConflictAsRetryable) {
  World world = CompactedWorld();
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_EQ(CommitFirst(world), Outcome::kRetry);
  EXPECT_TRUE(world.HeadLoads().ok());
}

TEST(Reinstall, ANewerProgressCommitRebasedOverAnInstallIsRetryable) {
  World world = MakeWorld(Protocol::kUnconditional);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
  Publish(world, [&] { return world.BeginRecordProgress(0); });
  Publish(world, [&] { return world.BeginCompactSsTable(0, false); });
  // It proposes generation 2; the install it meets carries generation 1.
  ASSERT_TRUE(world.BeginRecordProgress(0).ok());
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_EQ(world.Commit(1).value(), Outcome::kPublished);
  EXPECT_EQ(CommitFirst(world), Outcome::kRetry);
  EXPECT_EQ(Head(world).compacted.at(0), 1u);
}

// Lance's resolver lets a MemWAL install rebase over a merge-insert Update and
// merges only UpdateMemWalState progress, so the installed details replace the
// Update's progress: compacted_sstables moves backward (spec R39, the finding
// in docs/findings.md). The implementation follows Lance; this pins that
// outcome.
TEST(Reinstall, RebasedOverACompactionWithTheMarkerReplacesThatProgress) {
  World world = MakeWorld(Protocol::kUnconditional);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_EQ(world.Commit(1).value(), Outcome::kPublished);
  ASSERT_EQ(Head(world).compacted.at(0), 1u);
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  EXPECT_TRUE(world.HeadLoads().ok());
  EXPECT_EQ(Head(world).compacted.count(0), 0u);
}

}  // namespace
}  // namespace memwal::impl
