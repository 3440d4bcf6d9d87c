// Feature words at load and at write (Lance's can_read_dataset and
// can_write_dataset [P §2.3, §7]): a reader bit this implementation does not
// know keeps the table from loading; an unknown writer bit refuses writes.
#include <gtest/gtest.h>

#include "impl/feature_flags.h"
#include "impl/world.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::Head;
using testing::MakeWorld;
using testing::PublishForeign;

constexpr uint64_t kFutureBit = 1u << 12;  // Not a bit of this implementation.

TEST(FeatureWords, AnUnknownReaderBitFailsToLoadAndNothingBegins) {
  World world = MakeWorld();
  PublishForeign(world, [](ManifestFile* file) {
    file->manifest.set_reader_feature_flags(kFutureBit);
    file->manifest.set_writer_feature_flags(kFutureBit);
  });
  const Status loads = world.HeadLoads();
  EXPECT_EQ(loads.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(loads.message().find("does not support"), std::string::npos);
  EXPECT_FALSE(world.BeginAppend().ok());
}

TEST(FeatureWords, AnUnknownWriterBitLoadsButRefusesWrites) {
  World world = MakeWorld();
  ASSERT_TRUE(world.BeginAppend().ok());  // Read before the foreign writer.
  PublishForeign(world, [](ManifestFile* file) {
    file->manifest.set_writer_feature_flags(kFutureBit);
  });
  EXPECT_TRUE(world.HeadLoads().ok());
  const uint64_t head = Head(world).number;
  EXPECT_EQ(CommitFirst(world), Outcome::kRefused);
  EXPECT_NE(world.last_reason().find("cannot write"), std::string::npos);
  EXPECT_EQ(Head(world).number, head);
}

TEST(FeatureWords, EveryBitThisImplementationWritesIsKnown) {
  const uint64_t written =
      kFlagDeletionFiles | kFlagStableRowIds | kFlagTableConfig |
      kFlagBasePaths | kFlagDisableTransactionFile | kFlagMemWalIndexCatchup;
  EXPECT_TRUE(CanReadDataset(written));
  EXPECT_TRUE(CanWriteDataset(written));
  EXPECT_FALSE(CanReadDataset(kFutureBit));
  EXPECT_FALSE(CanWriteDataset(kFutureBit));
}

}  // namespace
}  // namespace memwal::impl
