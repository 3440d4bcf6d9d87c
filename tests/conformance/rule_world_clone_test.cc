// Clones as Lance lays them out, along a chain the random walk of
// rule_world_layout_test.cc reaches only by chance (a clone of a clone, and a
// deep clone of a shallow one):
//
// - a shallow clone adds one base path for its source, with Lance's id: the
//   largest id of the source's base paths + 1, or 0 for the first (a file's
//   base_id is optional: 0 names a base like any other id); every data
//   file of the clone without a base of its own names it, and each data file
//   is found under the root its base path names (or the clone's own root);
//   every index names the base its files are under;
// - a deep clone owns a copy of every file: its manifest has no base paths
//   and no data file or index names one, and each data file is under its
//   own root.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/rows.h"
#include "impl/table.h"
#include "impl/world.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

using impl::World;

using impl::testing::Publish;

impl::Snapshot HeadOf(World& world) {
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  Result<impl::Snapshot> head = impl::LoadHead(table);
  MEMWAL_ASSERT(head.ok());
  return *head;
}

// Every data file of the head is where its base path (or the table's own
// root) says.
void ExpectEveryDataFileFound(World& world) {
  const impl::Snapshot head = HeadOf(world);
  const impl::pb::Manifest& manifest = head.file->manifest;
  for (const impl::pb::DataFragment& fragment : manifest.fragments()) {
    for (const impl::pb::DataFile& data : fragment.files()) {
      const std::string root =
          data.has_base_id()
              ? impl::RootOf(world.table_root(), manifest, true, data.base_id())
              : world.table_root();
      EXPECT_EQ(
          world.mutable_store()->objects().count(root + "data/" + data.path()),
          1u)
          << "fragment " << fragment.id() << "'s " << data.path() << " under '"
          << root << "'";
    }
  }
}

TEST(RuleFunctions, ACloneOfACloneNamesEachSourceByItsOwnBasePath) {
  Result<World> created = World::Create(impl::Options{.shards = 1, .seed = 2});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  Publish(world, world.BeginAppend());
  const std::string first_root = world.table_root();
  ASSERT_TRUE(world.ShallowClone().ok());
  Publish(world, world.BeginAppend());
  const std::string second_root = world.table_root();
  ASSERT_TRUE(world.ShallowClone().ok());
  const impl::Snapshot head = HeadOf(world);
  const impl::pb::Manifest& manifest = head.file->manifest;
  ASSERT_EQ(manifest.base_paths_size(), 2);
  // Lance (do_commit_new_dataset at beta.16): a clone's base id is its
  // source's largest base id + 1, or 0 where the source has none.
  std::map<std::string, uint32_t> ids;
  for (const impl::pb::BasePath& base : manifest.base_paths())
    ids.emplace(base.path(), base.id());
  EXPECT_EQ(ids, (std::map<std::string, uint32_t>{{first_root, 0},
                                                  {second_root, 1}}));
  for (const impl::pb::DataFragment& fragment : manifest.fragments()) {
    for (const impl::pb::DataFile& data : fragment.files())
      EXPECT_TRUE(data.has_base_id()) << data.path();
  }
  for (const impl::pb::IndexMetadata& index :
       head.file->index_section.indices())
    EXPECT_TRUE(index.has_base_id()) << index.name();
  ExpectEveryDataFileFound(world);
  // A deep clone of it owns every file.
  ASSERT_TRUE(world.DeepClone().ok());
  const impl::Snapshot deep = HeadOf(world);
  EXPECT_EQ(deep.file->manifest.base_paths_size(), 0);
  for (const impl::pb::DataFragment& fragment :
       deep.file->manifest.fragments()) {
    for (const impl::pb::DataFile& data : fragment.files())
      EXPECT_FALSE(data.has_base_id()) << data.path();
  }
  for (const impl::pb::IndexMetadata& index :
       deep.file->index_section.indices())
    EXPECT_FALSE(index.has_base_id()) << index.name();
  ExpectEveryDataFileFound(world);
}

// A RewriteFragments moves rows with their stable row ids into a fragment
// with a higher id than a fragment holding later rows: the rows read back
// the same (row ids need not ascend with fragment ids).
TEST(RuleFunctions, RowsMovedByARewriteBelowLaterRowsReadTheSame) {
  Result<World> created = World::Create(impl::Options{.shards = 1, .seed = 8});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  Publish(world, world.BeginAppend());
  Publish(world, world.BeginAppend());
  const auto before = world.ReadRows();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  std::set<std::pair<uint32_t, uint64_t>> rows;
  for (const auto& [id, held] : before->fragments)
    rows.insert(held.begin(), held.end());
  const impl::TableVersion current =
      world.ReadVersion(world.Versions()->back()).value();
  const std::vector<uint64_t> live(current.live.begin(), current.live.end());
  ASSERT_GE(live.size(), 3u);
  Publish(world, world.BeginRewriteFragments(live[0], live[1]));
  const auto after = world.ReadRows();
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  const impl::TableVersion head = *world.ReadVersion(world.Versions()->back());
  std::set<std::pair<uint32_t, uint64_t>> now;
  for (const uint64_t id : head.live) {
    const auto& held = after->fragments.at(id);
    now.insert(held.begin(), held.end());
  }
  EXPECT_EQ(now, rows);
}

}  // namespace
}  // namespace memwal
