// inspect on tables written by impl/'s World (our own directory store), driven
// through the protocol's actions so that the table has compaction progress,
// catch-up positions and the MemWAL bit: the read side (R40), retirement (R12)
// and the checks are exercised on data the LanceDB 0.31.0 fixtures cannot
// produce. One case uses a known bug switch to put a finding on disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "impl/directory_store.h"
#include "impl/world.h"
#include "inspect/inspect.h"
#include "support.h"

namespace memwal::inspect {
namespace {

namespace fs = std::filesystem;
using testing::Publish;
using testing::TempDir;

// Activate; flush generations 1 and 2; compact 1; repair idx_0 (credits
// position 1).
impl::World CaughtUpWorld(uint32_t bugs) {
  Result<impl::World> created =
      impl::World::Create(impl::Options{.protocol = impl::Protocol::kDerived,
                                        .bugs = bugs,
                                        .shards = 1,
                                        .indexes = 1});
  MEMWAL_ASSERT(created.ok());
  impl::World world = std::move(*created);
  Publish(&world, world.BeginActivate());
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  Publish(&world, world.BeginCompactSsTable(0, true));
  Publish(&world, world.BeginOptimizeIndex(0));
  return world;
}

Result<TableReport> InspectWorld(const impl::World& world, const TempDir& dir) {
  Result<impl::DirectoryStore> store = impl::DirectoryStore::Open(dir.path());
  MEMWAL_ASSERT(store.ok());
  MEMWAL_RETURN_IF_ERROR(world.WriteTo(&*store));
  return Inspect(dir.path(), std::nullopt);
}

std::map<std::string, uint64_t> WatermarksOf(const TableReport& report) {
  std::map<std::string, uint64_t> out;
  for (const Watermark& w : report.watermarks)
    out[w.shape + " " + w.mode] = w.generation;
  return out;
}

const Check& CheckNamed(const TableReport& report, const std::string& name) {
  for (const Check& check : report.checks) {
    if (check.name == name) return check;
  }
  ADD_FAILURE() << "no check " << name;
  return report.checks.front();
}

TEST(InspectWorldTables, ReadsProgressPositionsAndWatermarks) {
  impl::World world = CaughtUpWorld(0);
  TempDir dir;
  const Result<TableReport> report = InspectWorld(world, dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->protocol, impl::Protocol::kDerived)
      << report->protocol_reason;
  ASSERT_TRUE(report->head().memwal.has_value());
  ASSERT_EQ(report->head().memwal->compacted_sstables.size(), 1u);
  EXPECT_EQ(report->head().memwal->compacted_sstables[0].second, 1u);
  ASSERT_EQ(report->shards.size(), 1u);
  const std::map<std::string, uint64_t> w = WatermarksOf(*report);
  EXPECT_EQ(w.at("plain strict"), 1u);
  EXPECT_EQ(w.at("index:idx_0 strict"), 1u);
  EXPECT_EQ(w.at("all min"), 1u);
  for (const Check& check : report->checks) {
    EXPECT_TRUE(check.ok) << check.name << ": " << check.reason;
  }
  EXPECT_NE(
      CheckNamed(*report, "FeatureBitsArePaired").reason.find("both words"),
      std::string::npos);
}

TEST(InspectWorldTables, RetirementConsultsEveryRetainedVersion) {
  impl::World world = CaughtUpWorld(0);
  {
    TempDir dir;
    const Result<TableReport> report = InspectWorld(world, dir);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    std::map<uint64_t, Retirement> by_generation;
    for (const Retirement& r : report->retirements)
      by_generation[r.generation] = r;
    ASSERT_EQ(by_generation.size(), 2u);
    EXPECT_TRUE(by_generation[1].retirable_here);
    EXPECT_FALSE(by_generation[1].retirable) << by_generation[1].reason;
    EXPECT_NE(by_generation[1].reason.find("no compaction progress"),
              std::string::npos);
    EXPECT_FALSE(by_generation[2].retirable_here);
  }
  ASSERT_TRUE(world.CleanupVersions().ok());
  TempDir dir;
  const Result<TableReport> report = InspectWorld(world, dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->versions.size(), 1u);
  for (const Retirement& r : report->retirements) {
    EXPECT_EQ(r.retirable, r.generation == 1)
        << r.generation << ": " << r.reason;
  }
}

TEST(InspectWorldTables, StrictAndMinDifferOnAnIndexWithoutAnEntry) {
  // A second index created after the repair has no entry: strict retains
  // everything for it.
  Result<impl::World> created = impl::World::Create(impl::Options{
      .protocol = impl::Protocol::kDerived, .shards = 1, .indexes = 2});
  ASSERT_TRUE(created.ok());
  impl::World world = std::move(*created);
  Publish(&world, world.BeginActivate());
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(&world, world.BeginCompactSsTable(0, true));
  Publish(&world, world.BeginOptimizeIndex(0));
  TempDir dir;
  const Result<TableReport> report = InspectWorld(world, dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::map<std::string, uint64_t> w = WatermarksOf(*report);
  EXPECT_EQ(w.at("index:idx_0 strict"), 1u);
  EXPECT_EQ(w.at("index:idx_1 strict"), 0u);
  EXPECT_EQ(w.at("index:idx_1 min"), 1u);
  EXPECT_EQ(w.at("all strict"), 0u);
  EXPECT_EQ(w.at("all min"), 1u);
}

TEST(InspectWorldTables,
     AttributesAnUncoveredFragmentToTheGenerationItsCommitCompacted) {
  // Generation 2 is compacted into a fragment idx_0 does not cover; the
  // position stays 1, and the fragment's commit says it holds generation 2
  // only, so coverage is not in doubt.
  impl::World world = CaughtUpWorld(0);
  Publish(&world, world.BeginCompactSsTable(0, true));
  TempDir dir;
  const Result<TableReport> report = InspectWorld(world, dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::map<std::string, uint64_t> w = WatermarksOf(*report);
  EXPECT_EQ(w.at("plain strict"), 2u);
  EXPECT_EQ(w.at("index:idx_0 strict"), 1u);
  const Check& coverage = CheckNamed(*report, "CatchupWithinCoverage");
  EXPECT_TRUE(coverage.ok) << coverage.reason;
}

TEST(InspectWorldTables, ReportsACatchupPositionPastCoverageAsAFinding) {
  // claim-past-read-version: a repair that read compacted = 1 commits after
  // generation 2 was compacted into a fragment it does not cover, and
  // credits 2.
  impl::World world =
      CaughtUpWorld(impl::BugBit(impl::Bug::kClaimPastReadVersion));
  Publish(&world, world.BeginAppend());
  ASSERT_TRUE(world.BeginOptimizeIndex(0)
                  .ok());  // Reads compacted = 1, covers the append.
  Publish(&world, world.BeginCompactSsTable(
                      0, true));  // Generation 2, a fragment not covered.
  ASSERT_EQ(*world.Commit(0), impl::Outcome::kPublished) << world.last_reason();
  TempDir dir;
  const Result<TableReport> report = InspectWorld(world, dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const Check& coverage = CheckNamed(*report, "CatchupWithinCoverage");
  EXPECT_FALSE(coverage.ok) << coverage.reason;
  EXPECT_NE(coverage.reason.find("compacting generation 2"), std::string::npos)
      << coverage.reason;
}

}  // namespace
}  // namespace memwal::inspect
