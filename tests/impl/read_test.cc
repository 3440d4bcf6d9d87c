// Read side and retirement as pure functions (spec R12, R40), pinning lancedb's
// lsm.rs watermark tests (P §8) with our own setups.
#include "impl/read.h"

#include <gtest/gtest.h>

namespace memwal::impl {
namespace {

const std::string kShard(16, 'a');
const std::string kOther(16, 'b');

// Compacted to 5 on kShard; "fts" caught up to 2; "vec" present without an
// entry.
VersionView Lagging(bool both_bits = true) {
  VersionView view;
  view.compacted = {{kShard, 5}};
  view.catchup = {{"fts", {{kShard, 2}}}};
  view.indexes = {"fts", "vec"};
  view.both_bits = both_bits;
  return view;
}

uint64_t W(const VersionView& view, std::vector<std::string> query,
           ReadMode mode, Protocol protocol = Protocol::kDerived,
           BugSet bugs = {}) {
  return ExclusionWatermark(view, kShard, query, protocol, mode, bugs);
}

TEST(ReadSide, TheWatermarkGatesOnALaggingIndex) {
  EXPECT_EQ(W(Lagging(), {"fts"}, ReadMode::kStrict), 2u);
  EXPECT_EQ(W(Lagging(), {}, ReadMode::kStrict), 5u);
  EXPECT_EQ(W(Lagging(), {"vec"}, ReadMode::kStrict), 0u);
  EXPECT_EQ(W(Lagging(), {"fts", "vec"}, ReadMode::kStrict), 0u);
}

TEST(ReadSide, TheWatermarkTakesTheMinimumAcrossEveryIndexUsed) {
  VersionView view;
  view.compacted = {{kShard, 9}};
  view.catchup = {{"a", {{kShard, 7}}}, {"b", {{kShard, 4}}}};
  view.both_bits = true;
  EXPECT_EQ(W(view, {"a"}, ReadMode::kStrict), 7u);
  EXPECT_EQ(W(view, {"a", "b"}, ReadMode::kStrict), 4u);
  EXPECT_EQ(W(view, {"b", "a"}, ReadMode::kStrict), 4u);
}

TEST(ReadSide,
     AnUntrackedIndexRetainsEverythingOnlyForAStrictReaderOfACatchupTable) {
  EXPECT_EQ(W(Lagging(), {"vec"}, ReadMode::kStrict), 0u);
  EXPECT_EQ(W(Lagging(), {"vec"}, ReadMode::kMin), 5u);
  EXPECT_EQ(W(Lagging(false), {"vec"}, ReadMode::kStrict),
            5u);  // Legacy reading.
  EXPECT_EQ(
      W(Lagging(false), {"vec"}, ReadMode::kStrict, Protocol::kUnconditional),
      0u);
  EXPECT_EQ(W(Lagging(), {"vec"}, ReadMode::kStrict, Protocol::kLegacy), 5u);
}

TEST(ReadSide, ASingleIndexReaderLooksAtTheFirstIndexOnly) {
  EXPECT_EQ(W(Lagging(), {"fts", "vec"}, ReadMode::kSingleIndex), 2u);
  EXPECT_EQ(W(Lagging(), {"fts", "vec"}, ReadMode::kStrict, Protocol::kDerived,
              BugSet(BugBit(Bug::kSingleIndexWatermark))),
            2u);
}

TEST(ReadSide, AShardWithoutProgressHasNoWatermark) {
  EXPECT_EQ(ExclusionWatermark(Lagging(), kOther, {}, Protocol::kDerived,
                               ReadMode::kStrict, {}),
            0u);
}

TEST(Retirement, NeedsEveryRetainedVersionToHaveCompactedAndCaughtUp) {
  VersionView head;
  head.compacted = {{kShard, 3}};
  head.catchup = {{"idx_0", {{kShard, 3}}}};
  head.indexes = {"idx_0"};
  head.both_bits = true;
  EXPECT_TRUE(Retirable({head}, kShard, 3, Protocol::kDerived));
  EXPECT_FALSE(Retirable({head}, kShard, 4, Protocol::kDerived));
  VersionView older = head;
  older.compacted = {{kShard, 2}};
  EXPECT_FALSE(Retirable({older, head}, kShard, 3, Protocol::kDerived));
  VersionView lagging = head;
  lagging.catchup = {{"idx_0", {{kShard, 1}}}};
  EXPECT_FALSE(Retirable({lagging}, kShard, 2, Protocol::kDerived));
}

TEST(Retirement, AMissingEntryCountsAsCaughtUpOnlyOnALegacyReading) {
  VersionView view;
  view.compacted = {{kShard, 3}};
  view.indexes = {"idx_0"};
  view.both_bits = false;
  EXPECT_TRUE(Retirable({view}, kShard, 3, Protocol::kDerived));
  EXPECT_TRUE(Retirable({view}, kShard, 3, Protocol::kLegacy));
  EXPECT_FALSE(Retirable({view}, kShard, 3, Protocol::kUnconditional));
  view.both_bits = true;
  EXPECT_FALSE(Retirable({view}, kShard, 3, Protocol::kDerived));
}

}  // namespace
}  // namespace memwal::impl
