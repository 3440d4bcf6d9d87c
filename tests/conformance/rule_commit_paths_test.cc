// The commit path's rebase and its conflict rows where the bounded search and
// the table of one representative per operation (rule_lance_conflicts_test.cc,
// rule_conflict_cells_test.cc) do not look:
//
// - the compacted-SSTables check of a pending UpdateMemWalState against each
//   committed kind that carries progress (an UpdateMemWalState, a merge-insert
//   Update with the marker, a MemWAL install): a committed generation below
//   the proposed one retries, at or above it is incompatible (Lance's "Stale
//   SSTable compaction"), another shard is compatible (docs/conflicts.md);
// - a pending Update against a committed DataOverlay of its fragment: an
//   in-place column rewrite and an Update that moved rows retry, an Update
//   that moves no row does not (impl/conflicts.cc UpdateRow);
// - config keys: a config replaced wholesale meets every key the other side
//   upserts (incompatible); two DataReplacements retry only on the same
//   fragment and field; two UpdateBases meet on a name only when both name
//   one (an empty name is a name);
// - a repair that only records catch-up names its index (a transaction
//   property): it retries against another build or repair of that index, not
//   of another;
// - a MemWAL install rebased over a committed progress record keeps the
//   progress of every shard (also one it did not read) and is re-minted at
//   the head it rebased onto; rebased over a commit without progress it keeps
//   the entry and the read version it was built with; a shard it carries takes
//   the higher generation; the installed version removes the system index it
//   replaces, once;
// - stable row ids, once a table has them, stay on when its last fragment is
//   deleted (Lance asks write_manifest_file for them while the reader word
//   has the bit);
// - a commit whose read version no longer decodes fails with that error
//   instead of publishing without it.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/commit.h"
#include "impl/conflicts.h"
#include "impl/feature_flags.h"
#include "impl/table.h"
#include "impl/world.h"
#include "tests/impl/lance_conflict_table.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

namespace table = impl::lance_conflicts;
using impl::World;
using impl::pb::Transaction;

const std::string kShardA(16, 'A');
const std::string kShardB(16, 'B');

void AddEntry(
    const std::string& shard, uint64_t generation,
    google::protobuf::RepeatedPtrField<impl::pb::CompactedSsTable>* list) {
  impl::pb::CompactedSsTable* entry = list->Add();
  entry->mutable_shard_id()->set_uuid(shard);
  entry->set_generation(generation);
}

Transaction ProgressOf(const std::string& shard, uint64_t generation) {
  Transaction t;
  t.set_read_version(3);
  AddEntry(shard, generation,
           t.mutable_update_mem_wal_state()->mutable_compacted_sstables());
  return t;
}

// A merge-insert Update that carries the compaction marker.
Transaction MarkedUpdateOf(const std::string& shard, uint64_t generation) {
  Transaction t;
  t.set_read_version(3);
  t.mutable_update()->add_new_fragments()->set_id(9);
  AddEntry(shard, generation, t.mutable_update()->mutable_compacted_sstables());
  return t;
}

Transaction InstallOf(const std::string& shard, uint64_t generation) {
  table::Targets targets = table::TargetsOf(false, true);
  targets.shard = shard;
  targets.generation = generation;
  return table::Representative(table::kMemWalInstall, targets);
}

Transaction UpdateOf(uint64_t fragment, bool new_fragments,
                     Transaction::Update::UpdateMode mode) {
  Transaction t;
  t.set_read_version(3);
  t.mutable_update()->add_updated_fragments()->set_id(fragment);
  if (new_fragments) t.mutable_update()->add_new_fragments()->set_id(9);
  t.mutable_update()->set_update_mode(mode);
  t.mutable_update()->add_fields_modified(0);
  return t;
}

// A repair that only records catch-up for `index` (world_repair.cc).
Transaction RepairOf(const std::string& index) {
  Transaction t;
  t.set_read_version(3);
  t.mutable_create_index();
  (*t.mutable_transaction_properties())[std::string(
      impl::kRepairIndexProperty)] = index;
  return t;
}

Transaction BuildOf(const std::string& index) {
  table::Targets targets = table::TargetsOf(false, true);
  targets.index = index;
  return table::Representative(table::kIndexBuild, targets);
}

// An UpdateConfig upserting `key`, replacing the whole config if `replace`.
Transaction ConfigUpserting(const std::string& key, bool replace) {
  Transaction t;
  t.set_read_version(3);
  auto* updates = t.mutable_update_config()->mutable_config_updates();
  updates->set_replace(replace);
  auto* entry = updates->add_update_entries();
  entry->set_key(key);
  entry->set_value("v");
  return t;
}

// A DataReplacement of `field` in `fragment`.
Transaction ReplacementOf(uint64_t fragment, int32_t field) {
  Transaction t;
  t.set_read_version(3);
  auto* group = t.mutable_data_replacement()->add_replacements();
  group->set_fragment_id(fragment);
  group->mutable_new_file()->add_fields(field);
  return t;
}

// UpdateBases adding base `id` at `path`, with `name` when it has a value.
Transaction BaseOf(uint32_t id, std::optional<std::string> name,
                   const std::string& path) {
  Transaction t;
  t.set_read_version(3);
  auto* base = t.mutable_update_bases()->add_new_bases();
  base->set_id(id);
  if (name.has_value()) base->set_name(*name);
  base->set_path(path);
  return t;
}

struct Cell {
  std::string what;
  Transaction pending;
  Transaction committed;
  char want;
};

TEST(RuleFunctions, TheCommitPathsConflictRowsAnswerAsDocumented) {
  constexpr auto kRows = Transaction::Update::REWRITE_ROWS;
  constexpr auto kColumns = Transaction::Update::REWRITE_COLUMNS;
  const Transaction overlay =
      table::Representative(table::kDataOverlay, table::TargetsOf(true, true));
  std::vector<Cell> cells = {
      {"progress 2 against committed progress 1", ProgressOf(kShardA, 2),
       ProgressOf(kShardA, 1), 'R'},
      {"progress 2 against committed progress 2", ProgressOf(kShardA, 2),
       ProgressOf(kShardA, 2), 'I'},
      {"progress 2 against committed progress 3", ProgressOf(kShardA, 2),
       ProgressOf(kShardA, 3), 'I'},
      {"progress 2 against another shard's progress", ProgressOf(kShardA, 2),
       ProgressOf(kShardB, 5), 'C'},
      {"progress 2 against a marked Update of 1", ProgressOf(kShardA, 2),
       MarkedUpdateOf(kShardA, 1), 'R'},
      {"progress 2 against a marked Update of 2", ProgressOf(kShardA, 2),
       MarkedUpdateOf(kShardA, 2), 'I'},
      {"progress 2 against a marked Update of 3", ProgressOf(kShardA, 2),
       MarkedUpdateOf(kShardA, 3), 'I'},
      {"progress 2 against a marked Update of another shard",
       ProgressOf(kShardA, 2), MarkedUpdateOf(kShardB, 5), 'C'},
      {"progress 2 against an install carrying 1", ProgressOf(kShardA, 2),
       InstallOf(kShardA, 1), 'R'},
      {"progress 2 against an install carrying 3", ProgressOf(kShardA, 2),
       InstallOf(kShardA, 3), 'I'},
      {"a column rewrite against an overlay of its fragment",
       UpdateOf(1, false, kColumns), overlay, 'R'},
      {"a column rewrite against an overlay of another fragment",
       UpdateOf(2, false, kColumns), overlay, 'C'},
      {"an Update moving rows against an overlay of its fragment",
       UpdateOf(1, true, kRows), overlay, 'R'},
      {"an Update moving no rows against an overlay of its fragment",
       UpdateOf(1, false, kRows), overlay, 'C'},
      {"a repair of idx_0 against a build of idx_0", RepairOf("idx_0"),
       BuildOf("idx_0"), 'R'},
      {"a build of idx_0 against a repair of idx_0", BuildOf("idx_0"),
       RepairOf("idx_0"), 'R'},
      {"a repair of idx_0 against a repair of idx_0", RepairOf("idx_0"),
       RepairOf("idx_0"), 'R'},
      {"a repair of idx_0 against a build of idx_1", RepairOf("idx_0"),
       BuildOf("idx_1"), 'C'},
      {"a config replaced wholesale against an upsert of another key",
       ConfigUpserting("k", true), ConfigUpserting("j", false), 'I'},
      {"an upsert against a config replaced wholesale with another key",
       ConfigUpserting("j", false), ConfigUpserting("k", true), 'I'},
      {"upserts of two other keys", ConfigUpserting("j", false),
       ConfigUpserting("k", false), 'C'},
      {"a replacement against one of the same field in another fragment",
       ReplacementOf(1, 0), ReplacementOf(2, 0), 'C'},
      {"a replacement against one of the same fragment and field",
       ReplacementOf(1, 0), ReplacementOf(1, 0), 'R'},
      {"a replacement against one of another field in its fragment",
       ReplacementOf(1, 0), ReplacementOf(1, 1), 'C'},
      {"a base named \"\" against an unnamed base", BaseOf(5, "", "p"),
       BaseOf(6, std::nullopt, "q"), 'C'},
      {"an unnamed base against a base named \"\"",
       BaseOf(5, std::nullopt, "p"), BaseOf(6, "", "q"), 'C'},
      {"two bases named \"\"", BaseOf(5, "", "p"), BaseOf(6, "", "q"), 'I'},
  };
  for (Cell& cell : cells) {
    const Result<impl::ConflictClass> got =
        impl::ClassifyConflict(&cell.pending, cell.committed);
    const char ours = got.ok() ? table::Letter(*got) : '?';
    EXPECT_EQ(ours, cell.want) << cell.what;
  }
}

World Created(const impl::Options& options) {
  Result<World> world = World::Create(options);
  MEMWAL_ASSERT(world.ok());
  return std::move(world).value();
}

void Publish(World& world, const Status& begun) {
  ASSERT_TRUE(begun.ok()) << begun.ToString();
  const auto outcome = world.Commit(world.inflight_count() - 1);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world.last_reason();
}

uint64_t HeadNumber(const World& world) { return world.Versions()->back(); }

// The head as Lance loads it.
impl::Snapshot HeadOf(World& world) {
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  Result<impl::Snapshot> head = impl::LoadHead(table);
  MEMWAL_ASSERT(head.ok());
  return *head;
}

TEST(RuleFunctions, AnInstallRebasedOverProgressKeepsEveryShardsAndIsReMinted) {
  World world = Created(impl::Options{
      .protocol = impl::Protocol::kUnconditional, .shards = 2, .seed = 9});
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.FlushMemTable(1).ok());
  Publish(world, world.BeginCompactSsTable(0, true));
  Publish(world, world.BeginCompactSsTable(1, false));  // the data pass only
  std::set<std::string> system_uuids;
  const std::vector<uint64_t> before = world.Versions().value();
  for (const uint64_t number : before)
    system_uuids.insert(world.ReadVersion(number).value().mem_wal_index_uuid);
  // The installer reads shard 0's progress; shard 1's is recorded after.
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  Publish(world, world.BeginRecordProgress(1));
  const uint64_t progress_version = HeadNumber(world);
  system_uuids.insert(world.ReadVersion(progress_version)->mem_wal_index_uuid);
  const auto outcome = world.Commit(0);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world.last_reason();
  const impl::TableVersion head = *world.ReadVersion(HeadNumber(world));
  EXPECT_EQ(head.compacted, (std::map<uint32_t, uint64_t>{{0, 1}, {1, 1}}));
  EXPECT_EQ(system_uuids.count(head.mem_wal_index_uuid), 0u);
  const impl::pb::IndexMetadata* system =
      impl::FindMemWalIndex(HeadOf(world).file->index_section);
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->dataset_version(), progress_version);
}

TEST(RuleFunctions, AnInstallRebasedOverNewerProgressOfItsShardTakesIt) {
  World world = Created(impl::Options{
      .protocol = impl::Protocol::kUnconditional, .shards = 1, .seed = 9});
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginCompactSsTable(0, true));   // generation 1
  Publish(world, world.BeginCompactSsTable(0, false));  // 2's data pass
  // The installer carries generation 1; generation 2 is recorded after.
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  Publish(world, world.BeginRecordProgress(0));
  ASSERT_EQ(world.ReadVersion(HeadNumber(world))->compacted.at(0), 2u);
  const auto outcome = world.Commit(0);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world.last_reason();
  EXPECT_EQ(world.ReadVersion(HeadNumber(world))->compacted.at(0), 2u);
}

TEST(RuleFunctions, AnInstallRemovesTheSystemIndexItReplacesOnce) {
  World world = Created(impl::Options{
      .protocol = impl::Protocol::kUnconditional, .shards = 1, .seed = 9});
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginCompactSsTable(0, true));
  const std::string replaced =
      world.ReadVersion(HeadNumber(world))->mem_wal_index_uuid;
  Publish(world, world.BeginReinstallMemWal());
  const impl::TableVersion head = *world.ReadVersion(HeadNumber(world));
  ASSERT_TRUE(head.transaction != nullptr);
  ASSERT_TRUE(head.transaction->has_create_index());
  std::vector<std::string> removed;
  for (const auto& index : head.transaction->create_index().removed_indices())
    removed.push_back(index.uuid().uuid());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed.front(), replaced);
  EXPECT_NE(head.mem_wal_index_uuid, replaced);
  // A foreign writer's reset names the index it replaces itself: still once.
  ASSERT_TRUE(world.ResetMemWal().ok());
  const impl::TableVersion reset = *world.ReadVersion(HeadNumber(world));
  ASSERT_TRUE(reset.transaction != nullptr);
  ASSERT_TRUE(reset.transaction->has_create_index());
  removed.clear();
  for (const auto& index : reset.transaction->create_index().removed_indices())
    removed.push_back(index.uuid().uuid());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed.front(), head.mem_wal_index_uuid);
}

TEST(RuleFunctions, AnInstallRebasedOverAnAppendKeepsItsReadVersion) {
  World world = Created(impl::Options{
      .protocol = impl::Protocol::kUnconditional, .shards = 1, .seed = 9});
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginCompactSsTable(0, true));
  const uint64_t read = HeadNumber(world);
  ASSERT_TRUE(world.BeginReinstallMemWal().ok());
  Publish(world, world.BeginAppend());
  const auto outcome = world.Commit(0);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world.last_reason();
  const impl::pb::IndexMetadata* system =
      impl::FindMemWalIndex(HeadOf(world).file->index_section);
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->dataset_version(), read);
  EXPECT_EQ(world.ReadVersion(HeadNumber(world))->compacted.at(0), 1u);
}

TEST(RuleFunctions, StableRowIdsStayOnWhenTheLastFragmentIsDeleted) {
  World world = Created(impl::Options{.shards = 1, .seed = 4});
  Publish(world, world.BeginAppend());
  const uint64_t first = HeadNumber(world);
  ASSERT_NE(HeadOf(world).file->manifest.reader_feature_flags() &
                impl::kFlagStableRowIds,
            0u);
  const std::set<uint64_t> live = world.ReadVersion(first).value().live;
  for (const uint64_t fragment : live)
    Publish(world, world.BeginDeleteFragment(fragment));
  ASSERT_TRUE(world.ReadVersion(HeadNumber(world))->live.empty());
  Publish(world, world.BeginAppend());
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  for (uint64_t number = first; number <= HeadNumber(world); ++number) {
    const Result<impl::Snapshot> version =
        impl::LoadVersion(table, nullptr, number, true);
    ASSERT_TRUE(version.ok());
    const impl::pb::Manifest& manifest = version->file->manifest;
    EXPECT_NE(manifest.reader_feature_flags() & impl::kFlagStableRowIds, 0u)
        << "version " << number << " (" << manifest.fragments_size()
        << " fragments)";
    EXPECT_NE(manifest.writer_feature_flags() & impl::kFlagStableRowIds, 0u)
        << "version " << number;
  }
}

TEST(RuleFunctions, ACommitOverAReadVersionThatNoLongerDecodesFails) {
  World world = Created(impl::Options{.shards = 1, .seed = 4});
  Publish(world, world.BeginAppend());
  const uint64_t read = HeadNumber(world);
  ASSERT_TRUE(world.BeginAppend().ok());
  Publish(world, world.BeginAppend());
  // A foreign hand overwrites the read version's manifest with garbage.
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  ASSERT_TRUE(
      table.Put(impl::VersionFileName(read), std::string(64, '\x7f')).ok());
  const uint64_t head = HeadNumber(world);
  const auto outcome = world.Commit(0);
  EXPECT_FALSE(outcome.ok() && *outcome == impl::Outcome::kPublished);
  EXPECT_EQ(HeadNumber(world), head);
}

// Lance's can_write_dataset: a head whose writer word carries a bit this
// implementation does not know is not written over, even when its reader
// word is readable.
TEST(RuleFunctions, ACommitOverAHeadWithAnUnknownWriterBitIsRefused) {
  World world = Created(impl::Options{.shards = 1, .seed = 4});
  impl::testing::PublishForeign(world, [](impl::ManifestFile* file) {
    file->manifest.set_writer_feature_flags(
        file->manifest.writer_feature_flags() | impl::kFlagUnknown);
  });
  const uint64_t head = HeadNumber(world);
  ASSERT_TRUE(world.BeginAppend().ok());
  const auto outcome = world.Commit(0);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, impl::Outcome::kRefused);
  EXPECT_EQ(HeadNumber(world), head);
}

// A head whose system index details do not decode stops a commit that
// records progress with that error, not as a protocol refusal.
TEST(RuleFunctions, ACommitOverUndecodableSystemIndexDetailsFails) {
  World world = Created(impl::Options{.shards = 1, .seed = 4});
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  impl::testing::PublishForeign(world, [](impl::ManifestFile* file) {
    impl::pb::IndexMetadata* system =
        impl::FindMemWalIndex(&file->index_section);
    MEMWAL_ASSERT(system != nullptr);
    system->mutable_index_details()->set_value(std::string(5, '\xff'));
  });
  const uint64_t head = HeadNumber(world);
  const auto outcome = world.Commit(0);
  EXPECT_FALSE(outcome.ok() && *outcome == impl::Outcome::kRefused)
      << "refused: " << world.last_reason();
  EXPECT_FALSE(outcome.ok() && *outcome == impl::Outcome::kPublished);
  EXPECT_EQ(HeadNumber(world), head);
}

}  // namespace
}  // namespace memwal
