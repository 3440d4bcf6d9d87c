// R10-R13 (flushing and retiring SSTables under each gc mode) and R40
// (watermarks, served).
#include <gtest/gtest.h>

#include "model/read.h"
#include "tests/model/scenario.h"

namespace memwal::model {
namespace {

using testing::Activated;
using testing::Compacted;
using testing::Scenario;
using testing::TestConfig;

// Generation 1 compacted and credited to idx_0; older versions cleaned up.
Scenario RetirableTable(Config config) {
  Scenario s(config);
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  s.Do(CleanupVersions{});
  return s;
}

TEST(Wal, FlushMemTableStopsAtTheGenerationBound) {
  Config config = TestConfig();
  config.bounds.generations = 1;
  Scenario s(config);
  s.Do(FlushMemTable{0});
  EXPECT_EQ(s.state().flushed[0], 1);
  EXPECT_FALSE(s.Enabled(FlushMemTable{0}));
  EXPECT_FALSE(s.Enabled(FlushMemTable{1}));  // no shard 1 in these bounds
}

TEST(Wal, AnSsTableIsRetirableOnlyWhenEveryRetainedVersionCompactedIt) {
  Scenario s(TestConfig());
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  EXPECT_FALSE(Retirable(s.config(), s.state(), 0,
                         1));  // v1..v3 are retained, progress 0
  s.Do(CleanupVersions{});
  EXPECT_TRUE(Retirable(s.config(), s.state(), 0, 1));
}

TEST(Wal, AnIndexWithoutAnEntryBlocksRetirementOnlyWhenCatchUpIsRequired) {
  Scenario strict(TestConfig());
  Activated(&strict);
  Compacted(&strict);
  strict.Do(CleanupVersions{});
  EXPECT_FALSE(Retirable(strict.config(), strict.state(), 0, 1));
  Scenario legacy(TestConfig(Protocol::kLegacy));
  Compacted(&legacy);
  legacy.Do(CleanupVersions{});
  EXPECT_TRUE(Retirable(legacy.config(), legacy.state(), 0, 1));
}

TEST(Wal, RetireSsTableRecordsWhichIndexesCoveredTheRow) {
  Scenario s = RetirableTable(TestConfig());
  s.Do(RetireSsTable{0, 1});
  EXPECT_TRUE(Contains(s.state().retired[0], 0));
  EXPECT_EQ(s.state().retire_cover[0], 0b1);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Wal, StaleReadRetiresWhatTheHeadNoLongerAllows) {
  Config config = TestConfig();
  config.gc = GcMode::kStaleRead;
  Scenario s = RetirableTable(config);
  EXPECT_FALSE(s.Enabled(RetireSsTable{0, 1}));
  s.Do(RetireDecide{0, 1});
  s.Run(UpdateColumns{1, 0});  // withdraws the position: no longer retirable
  EXPECT_FALSE(Retirable(s.config(), s.state(), 0, 1));
  s.Do(RetireExecute{0, 1});
  EXPECT_TRUE(Contains(s.state().retired[0], 0));
  EXPECT_EQ(s.Broken(), "ReadsMissNoRows");
}

TEST(Wal, RecheckDropsADecisionTheHeadNoLongerSupports) {
  Config config = TestConfig();
  config.gc = GcMode::kRecheck;
  Scenario s = RetirableTable(config);
  s.Do(RetireDecide{0, 1});
  s.Run(UpdateColumns{1, 0});
  s.Do(RetireExecute{0, 1});
  EXPECT_FALSE(Contains(s.state().retired[0], 0));
  EXPECT_EQ(s.state().pending, 0);
  EXPECT_EQ(s.Broken(), "");
}

TEST(Read, TheWatermarkIsTheMinimumOverTheQueryIndexes) {
  Scenario s(TestConfig(Protocol::kDerived, 1, 2));
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  const QueryShape plain{0}, first{0b01}, second{0b10}, both{0b11};
  EXPECT_EQ(Watermark(s.config(), s.state(), plain, 0), 1);
  EXPECT_EQ(Watermark(s.config(), s.state(), first, 0), 1);
  EXPECT_EQ(Watermark(s.config(), s.state(), second, 0),
            0);  // strict: missing entry
  EXPECT_EQ(Watermark(s.config(), s.state(), both, 0), 0);
  EXPECT_FALSE(Served(s.config(), s.state(), first, 0, 1));
  EXPECT_TRUE(Served(s.config(), s.state(), both, 0, 1));
}

TEST(Read, TheMinReaderLetsAMissingEntryCapNothing) {
  Config config = TestConfig(Protocol::kDerived, 1, 2);
  config.read = ReadMode::kMin;
  Scenario s(config);
  Activated(&s);
  Compacted(&s);
  EXPECT_EQ(Watermark(s.config(), s.state(), QueryShape{0b10}, 0), 1);
  EXPECT_EQ(s.Broken(), "ReadsMissNoRows");
}

TEST(Read, TheSingleIndexReaderLooksAtTheSmallestIndexOnly) {
  Config config = TestConfig(Protocol::kDerived, 1, 2);
  config.read = ReadMode::kSingleIndex;
  Scenario s(config);
  Activated(&s);
  Compacted(&s);
  s.Run(OptimizeIndex{0});
  EXPECT_EQ(Watermark(s.config(), s.state(), QueryShape{0b11}, 0), 1);
}

TEST(Read, WithoutProgressEveryFlushedSsTableIsServed) {
  Scenario s(TestConfig());
  s.Do(FlushMemTable{0});
  EXPECT_EQ(Watermark(s.config(), s.state(), QueryShape{0b1}, 0), 0);
  EXPECT_TRUE(Served(s.config(), s.state(), QueryShape{0b1}, 0, 1));
  EXPECT_FALSE(
      Served(s.config(), s.state(), QueryShape{0b1}, 0, 2));  // not flushed
}

TEST(Read, ALegacyMinReaderSeesACompactedRowOnlyThroughTheBaseTable) {
  Scenario s(TestConfig(Protocol::kLegacy));
  Compacted(&s);
  EXPECT_FALSE(Served(s.config(), s.state(), QueryShape{0b1}, 0, 1));
  EXPECT_EQ(s.Broken(), "ReadsMissNoRows");  // idx_0 does not cover fragment 1
}

}  // namespace
}  // namespace memwal::model
