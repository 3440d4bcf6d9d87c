// inspect on real Lance tables (tests/fixtures/lancedb/tables/, written by
// LanceDB 0.31.0) against what LanceDB's own API reported for the same tables
// (<name>.expected.json): versions, row counts, fragment statistics, indexes
// with their coverage, schema, and for MemWAL tables the shards, SSTable
// generations and maintained indexes. When Node and the fixture generator's
// node_modules are present, fresh tables are generated into a temporary
// directory and compared the same way.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "inspect/inspect.h"
#include "inspect/render.h"
#include "support.h"

namespace memwal::inspect {
namespace {

using nlohmann::json;
using testing::CompareListedIndex;
using testing::FindIndex;
using testing::InspectJson;
using testing::ReadJson;
namespace fs = std::filesystem;

const std::string kFixtures = MEMWAL_FIXTURES_DIR;
const char* const kTables[] = {"plain", "memwal_unsharded", "memwal_bucket"};
// Written by LanceDB 0.39.0 (Lance 12.0.0) with lance12/generate.mjs.
const char* const kLance12Tables[] = {"lance12_memwal_bucket"};

// indexStats(name) entries (the only index view LanceDB gives on MemWAL
// tables).
void CompareIndexStats(const json& stats, const json& report,
                       const std::string& at) {
  for (const auto& [name, stat] : stats.items()) {
    const json* ours = FindIndex(report, name);
    if (stat.is_null()) {
      EXPECT_EQ(ours, nullptr)
          << at << " index " << name << " should not exist";
      continue;
    }
    ASSERT_NE(ours, nullptr) << at << " index " << name;
    if (stat.contains("error")) {
      EXPECT_TRUE((*ours)["system"].get<bool>())
          << at << " " << name << ": " << stat;
      EXPECT_FALSE((*ours)["coverage_known"].get<bool>()) << at << " " << name;
      continue;
    }
    EXPECT_EQ((*ours)["indexed_rows"], stat["numIndexedRows"])
        << at << " " << name;
    EXPECT_EQ((*ours)["unindexed_rows"], stat["numUnindexedRows"])
        << at << " " << name;
    EXPECT_EQ((*ours)["segments"].size(), stat["numIndices"])
        << at << " " << name;
  }
}

void CompareVersion(const json& expected, const json& summary,
                    const json& report) {
  const std::string at = "version " + expected["version"].dump();
  EXPECT_EQ(summary["rows"], expected["countRows"]) << at;
  EXPECT_EQ(report["rows"], expected["countRows"]) << at;
  EXPECT_EQ(summary["timestamp"], expected["timestamp"]) << at;
  const json& meta = expected["metadata"];
  EXPECT_EQ(std::to_string(summary["fragments"].get<uint64_t>()),
            meta["total_fragments"])
      << at;
  EXPECT_EQ(std::to_string(summary["rows"].get<uint64_t>()), meta["total_rows"])
      << at;
  EXPECT_EQ(std::to_string(summary["data_files"].get<uint64_t>()),
            meta["total_data_files"])
      << at;
  EXPECT_EQ(std::to_string(summary["data_file_rows"].get<uint64_t>()),
            meta["total_data_file_rows"])
      << at;
  EXPECT_EQ(std::to_string(summary["deletion_files"].get<uint64_t>()),
            meta["total_deletion_files"])
      << at;
  EXPECT_EQ(std::to_string(summary["deletion_file_rows"].get<uint64_t>()),
            meta["total_deletion_file_rows"])
      << at;
  const json& indices = expected["indices"];
  if (indices.contains("list")) {
    std::set<std::string> listed;
    for (const json& index : indices["list"]) {
      CompareListedIndex(index, report, at);
      listed.insert(index["name"].get<std::string>());
    }
    // listIndices lists user indexes only (Lance 12 leaves __lance_mem_wal
    // out; Lance 8 refuses to list a table that has it).
    std::set<std::string> ours;
    for (const json& index : report["indexes"]) {
      if (!index["system"].get<bool>())
        ours.insert(index["name"].get<std::string>());
    }
    EXPECT_EQ(ours, listed) << at;
  }
  CompareIndexStats(indices["stats"], report, at);
}

void CompareLatest(const json& expected, const json& report) {
  const json& latest = expected["latest"];
  EXPECT_EQ(report["version"], latest["version"]);
  EXPECT_EQ(report["latest_version"], latest["version"]);
  EXPECT_EQ(report["rows"], latest["countRows"]);
  ASSERT_EQ(report["manifest"]["schema"].size(), latest["schema"].size());
  for (size_t i = 0; i < latest["schema"].size(); ++i) {
    EXPECT_EQ(report["manifest"]["schema"][i]["name"],
              latest["schema"][i]["name"]);
    EXPECT_EQ(report["manifest"]["schema"][i]["nullable"],
              latest["schema"][i]["nullable"]);
    EXPECT_EQ(report["manifest"]["schema"][i]["metadata"],
              latest["schema"][i]["metadata"]);
  }
  if (!latest["stats"].contains("ok")) return;
  const json& stats = latest["stats"]["ok"];
  EXPECT_EQ(report["fragments"].size(), stats["fragmentStats"]["numFragments"]);
  EXPECT_EQ(report["rows"], stats["numRows"]);
  uint64_t shortest = UINT64_MAX, longest = 0;
  for (const json& fragment : report["fragments"]) {
    shortest = std::min(shortest, fragment["rows"].get<uint64_t>());
    longest = std::max(longest, fragment["rows"].get<uint64_t>());
  }
  EXPECT_EQ(shortest, stats["fragmentStats"]["lengths"]["min"]);
  EXPECT_EQ(longest, stats["fragmentStats"]["lengths"]["max"]);
}

// "_mem_wal/<shard>/<dir>" keys of expected.sstables against inspect's shards.
void CompareMemWal(const json& expected, const json& report) {
  ASSERT_FALSE(report["memwal"].is_null());
  const json& spec = expected["lsmWriteSpec"];
  EXPECT_EQ(report["memwal"]["maintained_indexes"], spec["maintainedIndexes"]);
  EXPECT_EQ(report["memwal"]["num_shards"], spec.value("numBuckets", 1));
  std::map<std::string, json> ours;  // path -> sstable
  std::set<std::string> shards;
  for (const json& shard : report["shards"]) {
    shards.insert(shard["uuid"].get<std::string>());
    for (const json& sstable : shard["sstables"])
      ours[sstable["path"]] = sstable;
  }
  std::set<std::string> expected_shards;
  for (const auto& [path, sstable] : expected["sstables"].items()) {
    expected_shards.insert(path.substr(9, 36));
    ASSERT_TRUE(ours.contains(path)) << path;
    const json& mine = ours[path];
    EXPECT_EQ(std::to_string(mine["generation"].get<uint64_t>()),
              path.substr(path.rfind("_gen_") + 5))
        << path;
    EXPECT_EQ(mine["rows"], sstable["latest"]["countRows"]) << path;
    EXPECT_EQ(mine["version"], sstable["latest"]["version"]) << path;
    for (const json& index : sstable["latest"]["indices"]["list"]) {
      CompareListedIndex(index, mine, path);
    }
  }
  EXPECT_EQ(ours.size(), expected["sstables"].size());
  EXPECT_EQ(shards, expected_shards);
}

void CompareTable(const std::string& tables_dir, const std::string& name) {
  SCOPED_TRACE(tables_dir + "/" + name);
  const json expected = ReadJson(tables_dir + "/" + name + ".expected.json");
  ASSERT_FALSE(expected.is_discarded());
  const std::string dir = tables_dir + "/" + name + ".lance";
  const json latest = InspectJson(dir, 0);
  ASSERT_FALSE(latest.is_discarded());
  CompareLatest(expected, latest);
  ASSERT_EQ(latest["versions"].size(), expected["versions"].size());
  for (size_t i = 0; i < expected["versions"].size(); ++i) {
    const uint64_t version = expected["versions"][i]["version"];
    EXPECT_EQ(latest["versions"][i]["version"], version);
    CompareVersion(expected["versions"][i], latest["versions"][i],
                   InspectJson(dir, version));
  }
  if (expected.contains("lsmWriteSpec")) CompareMemWal(expected, latest);
  for (const json& check : latest["checks"]) {
    EXPECT_EQ(check["status"], "ok")
        << check["name"] << ": " << check["reason"];
  }
}

TEST(InspectFixtures, MatchesLanceDbOnEveryCommittedTable) {
  for (const char* name : kTables) CompareTable(kFixtures + "/tables", name);
}

TEST(InspectFixtures, MatchesLanceDbOnEveryCommittedLance12Table) {
  for (const char* name : kLance12Tables)
    CompareTable(kFixtures + "/tables", name);
}

TEST(InspectFixtures, MatchesLanceDbOnFreshlyGeneratedLance12Tables) {
  const std::string harness = kFixtures + "/lance12";
  ASSERT_TRUE(fs::is_directory(harness + "/node_modules/@lancedb/lancedb"))
      << "run npm ci in " << harness << " (./memwal test does)";
  char pattern[] = "/tmp/inspect-lance12-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string out = std::string(pattern) + "/tables";
  const std::string command = "cd '" + harness + "' && node generate.mjs '" +
                              out + "' > '" + std::string(pattern) +
                              "/log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "see " << pattern << "/log";
  for (const char* name : kLance12Tables) CompareTable(out, name);
  std::error_code error;
  fs::remove_all(pattern, error);
}

TEST(InspectFixtures, MatchesLanceDbOnFreshlyGeneratedTables) {
  if (std::system("node --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "node not found";
  if (!fs::is_directory(kFixtures + "/node_modules/@lancedb/lancedb")) {
    GTEST_SKIP() << "run npm ci in tests/fixtures/lancedb first";
  }
  char pattern[] = "/tmp/inspect-fixtures-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string out = std::string(pattern) + "/tables";
  const std::string command = "cd '" + kFixtures + "' && node generate.mjs '" +
                              out + "' > '" + std::string(pattern) +
                              "/log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "see " << pattern << "/log";
  for (const char* name : kTables) CompareTable(out, name);
  std::error_code error;
  fs::remove_all(pattern, error);
}

TEST(InspectFixtures, ReportsMemWalShardsGenerationsAndWatermarks) {
  const Result<TableReport> report =
      Inspect(kFixtures + "/tables/memwal_bucket.lance", std::nullopt);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->shards.size(), 2u);
  std::map<std::string, std::vector<uint64_t>> generations;
  for (const ShardReport& shard : report->shards) {
    for (const SsTableReport& s : shard.sstables)
      generations[shard.uuid].push_back(s.generation);
  }
  EXPECT_EQ(generations["4a388480-a25b-59a8-b058-24217f980256"],
            (std::vector<uint64_t>{1}));
  EXPECT_EQ(generations["8e131bde-8368-54ff-89d9-c2e1cc781b29"],
            (std::vector<uint64_t>{1, 2, 3}));
  // No compaction progress: no watermark anywhere, nothing retirable (R40,
  // R12).
  EXPECT_EQ(report->protocol, impl::Protocol::kLegacy);
  EXPECT_FALSE(report->watermarks.empty());
  for (const Watermark& w : report->watermarks)
    EXPECT_EQ(w.generation, 0u) << w.shape;
  ASSERT_EQ(report->retirements.size(), 4u);
  for (const Retirement& r : report->retirements) {
    EXPECT_FALSE(r.retirable);
    EXPECT_NE(r.reason.find("no compaction progress"), std::string::npos)
        << r.reason;
  }
}

}  // namespace
}  // namespace memwal::inspect
