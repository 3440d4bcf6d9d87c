// Clones (Lance's Manifest::shallow_clone and deep clone [P §4.2]): a shallow
// clone names its source as a base path, which sets feature bit 16 in both
// words and points the index metadata at the source; a deep clone copies the
// manifest with its words and no base path.
#include <gtest/gtest.h>

#include "impl/feature_flags.h"
#include "impl/world.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::Head;
using testing::MakeWorld;
using testing::Publish;

Snapshot StrictHead(World& world) {
  PrefixedStore table(world.mutable_store(), world.table_root());
  Result<Snapshot> head = LoadHead(table);
  MEMWAL_ASSERT(head.ok());
  return *head;
}

World ActivatedWorld() {
  World world = MakeWorld();
  Publish(world, [&] { return world.BeginActivate(); });
  return world;
}

TEST(Clone, AShallowCloneSetsTheBasePathsBitInBothWords) {
  World world = ActivatedWorld();
  const std::string source = world.table_root();
  ASSERT_TRUE(world.ShallowClone().ok());
  const Snapshot head = StrictHead(world);
  const pb::Manifest& manifest = head.file->manifest;
  // And the stable-row-id bit: the fragments carry row ids (Lance's
  // apply_feature_flags step 4).
  EXPECT_EQ(manifest.reader_feature_flags(),
            kFlagBasePaths | kFlagStableRowIds | kFlagMemWalIndexCatchup);
  EXPECT_EQ(manifest.writer_feature_flags(),
            kFlagBasePaths | kFlagStableRowIds | kFlagMemWalIndexCatchup);
  ASSERT_EQ(manifest.base_paths_size(), 1);
  EXPECT_EQ(manifest.base_paths(0).path(), source);
  EXPECT_TRUE(manifest.base_paths(0).is_dataset_root());
}

TEST(Clone, AShallowClonesIndexesAndFilesPointAtTheSourceBase) {
  World world = ActivatedWorld();
  ASSERT_TRUE(world.ShallowClone().ok());
  const Snapshot head = StrictHead(world);
  const uint32_t base = head.file->manifest.base_paths(0).id();
  ASSERT_GE(head.file->index_section.indices_size(), 2);
  for (const pb::IndexMetadata& index : head.file->index_section.indices()) {
    ASSERT_TRUE(index.has_base_id()) << index.name();
    EXPECT_EQ(index.base_id(), base) << index.name();
  }
  for (const pb::DataFragment& fragment : head.file->manifest.fragments()) {
    for (const pb::DataFile& data : fragment.files())
      EXPECT_EQ(data.base_id(), base);
  }
}

TEST(Clone, ALaterCommitOnAShallowCloneKeepsTheBasePathsBit) {
  World world = ActivatedWorld();
  ASSERT_TRUE(world.ShallowClone().ok());
  Publish(world, [&] { return world.BeginAppend(); });
  const pb::Manifest manifest = StrictHead(world).file->manifest;
  EXPECT_NE(manifest.reader_feature_flags() & kFlagBasePaths, 0u);
  EXPECT_NE(manifest.writer_feature_flags() & kFlagBasePaths, 0u);
  // The appended fragment lives in the clone's own root.
  EXPECT_FALSE(
      manifest.fragments(manifest.fragments_size() - 1).files(0).has_base_id());
  EXPECT_TRUE(Head(world).reader_bit && Head(world).writer_bit);
}

// Found by lance-diff (LanceDB could not find the segment's files in the
// source): a segment the clone writes is the clone's own, so it names no base.
TEST(Clone, AnIndexSegmentOptimizedOnAShallowCloneIsTheClonesOwn) {
  World world = ActivatedWorld();
  ASSERT_TRUE(world.ShallowClone().ok());
  Publish(world, [&] { return world.BeginAppend(); });
  Publish(world, [&] { return world.BeginOptimizeIndex(0); });
  const Snapshot head = StrictHead(world);
  int own = 0;
  for (const pb::IndexMetadata& index : head.file->index_section.indices()) {
    if (index.name() != "idx_0") continue;
    if (!index.has_base_id()) ++own;
  }
  EXPECT_EQ(own, 1) << "the optimized segment names the source as its base";
}

TEST(Clone, ADeepCloneKeepsTheWordsAndHasNoBasePath) {
  World world = ActivatedWorld();
  const uint64_t source_head = Head(world).number;
  ASSERT_TRUE(world.DeepClone().ok());
  const Snapshot head = StrictHead(world);
  EXPECT_EQ(head.version(), source_head);
  EXPECT_EQ(head.file->manifest.base_paths_size(), 0);
  EXPECT_EQ(head.file->manifest.reader_feature_flags(),
            kFlagStableRowIds | kFlagMemWalIndexCatchup);
  EXPECT_EQ(head.file->manifest.writer_feature_flags(),
            kFlagStableRowIds | kFlagMemWalIndexCatchup);
  for (const pb::IndexMetadata& index : head.file->index_section.indices())
    EXPECT_FALSE(index.has_base_id());
  EXPECT_TRUE(world.HeadLoads().ok());
  Publish(world, [&] { return world.BeginAppend(); });
  EXPECT_EQ(Head(world).live, (std::set<uint64_t>{0, 1}));
}

}  // namespace
}  // namespace memwal::impl
