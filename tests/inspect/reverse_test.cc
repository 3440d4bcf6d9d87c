// The reverse direction (tests/fixtures/lancedb/REVERSE.md): tables written by
// impl/'s World into our directory store, opened by LanceDB 0.31.0 through the
// fixture harness (open_table.mjs), must show LanceDB the versions, row counts,
// schema and indexes that inspect shows us. Runs only when Node and the
// harness's node_modules are present (./memwal test installs them).
//
// LanceDB 0.31.0 embeds Lance 8.0.0, which predates bit 128: an activated table
// is refused as unreadable (checked below), so the tables are written under the
// legacy protocol. Its listIndices also refuses any table holding
// `__lance_mem_wal` (the system index has no fragment bitmap, by Lance's own
// format), its own MemWAL tables included: the MemWAL table is held to that
// same refusal, and the index list is compared on a version of the table from
// before its MemWAL was installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "impl/directory_store.h"
#include "impl/world.h"
#include "inspect/inspect.h"
#include "support.h"

namespace memwal::inspect {
namespace {

using nlohmann::json;
using testing::CompareListedIndex;
using testing::InspectJson;
using testing::Publish;
using testing::ReadJson;
using testing::TempDir;
namespace fs = std::filesystem;

const std::string kFixtures = MEMWAL_FIXTURES_DIR;

// The LanceDB 0.39.0 harness (Lance 12.0.0, the unconditional protocol).
const std::string kLance12 = kFixtures + "/lance12";

bool HarnessAvailable(const std::string& harness) {
  return std::system("node --version > /dev/null 2>&1") == 0 &&
         fs::is_directory(harness + "/node_modules/@lancedb/lancedb");
}

bool LanceDbAvailable() { return HarnessAvailable(kFixtures); }

struct Opened {
  int code = -1;
  json description;  // open_table.mjs's stdout when code is 0
  std::string log;   // its stderr
};

// What LanceDB's own API says about the table in `dir` (the open_table.mjs of
// `harness`).
Opened OpenWithLanceDb(const std::string& dir, const std::string& scratch,
                       const std::string& harness = kFixtures) {
  const std::string out = scratch + "/lancedb.json";
  const std::string log = scratch + "/lancedb.log";
  const std::string command = "cd '" + harness + "' && node open_table.mjs '" +
                              dir + "' idx_0 > '" + out + "' 2> '" + log + "'";
  Opened opened;
  opened.code = std::system(command.c_str());
  opened.description = ReadJson(out);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  opened.log = text.str();
  return opened;
}

// Flush two generations, compact the first, append, delete fragment 0,
// repair idx_0: 5 versions whose row counts and coverage all differ.
impl::World WrittenWorld(impl::Protocol protocol) {
  Result<impl::World> created = impl::World::Create(
      impl::Options{.protocol = protocol, .shards = 1, .indexes = 1});
  MEMWAL_ASSERT(created.ok());
  impl::World world = std::move(*created);
  if (protocol == impl::Protocol::kDerived)
    Publish(&world, world.BeginActivate());
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  Publish(&world, world.BeginCompactSsTable(0, true));
  Publish(&world, world.BeginAppend());
  Publish(&world, world.BeginDeleteFragment(0));
  Publish(&world, world.BeginOptimizeIndex(0));
  return world;
}

// A plain table (no MemWAL, so LanceDB 0.31.0 can list its indexes): append,
// repair idx_0 (a delta segment), append again (unindexed rows).
impl::World PlainWorld() {
  Result<impl::World> created =
      impl::World::Create(impl::Options{.protocol = impl::Protocol::kLegacy,
                                        .shards = 0,
                                        .indexes = 1,
                                        .memwal = false});
  MEMWAL_ASSERT(created.ok());
  impl::World world = std::move(*created);
  Publish(&world, world.BeginAppend());
  Publish(&world, world.BeginOptimizeIndex(0));
  Publish(&world, world.BeginAppend());
  return world;
}

std::string WriteTable(const impl::World& world, const std::string& dir) {
  Result<impl::DirectoryStore> store = impl::DirectoryStore::Open(dir);
  MEMWAL_ASSERT(store.ok());
  const Status written = world.WriteTo(&*store);
  EXPECT_TRUE(written.ok()) << written.ToString();
  return dir;
}

// The message of a LanceDB error without its source locations.
std::string FirstLine(const std::string& error) {
  return error.substr(0, error.find(", /"));
}

// A table written by WrittenWorld(protocol) into a scratch directory, and what
// LanceDB said when it opened it.
struct Reversed {
  TempDir scratch;
  std::string dir;
  Opened opened;
};

std::unique_ptr<Reversed> WriteAndOpen(impl::Protocol protocol) {
  auto reversed = std::make_unique<Reversed>();
  reversed->dir =
      WriteTable(WrittenWorld(protocol), reversed->scratch.path() + "/t");
  reversed->opened = OpenWithLanceDb(reversed->dir, reversed->scratch.path());
  return reversed;
}

TEST(ReverseDirection, LanceDbReadsVersionsRowCountsAndSchemaOfOurTable) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  const std::unique_ptr<Reversed> table = WriteAndOpen(impl::Protocol::kLegacy);
  const Opened& opened = table->opened;
  const std::string& dir = table->dir;
  ASSERT_EQ(opened.code, 0) << opened.log;
  const json& lancedb = opened.description;
  const json latest = InspectJson(dir, 0);
  ASSERT_EQ(lancedb["versions"].size(), latest["versions"].size());
  EXPECT_EQ(lancedb["latest"]["version"], latest["latest_version"]);
  EXPECT_EQ(lancedb["latest"]["countRows"], latest["rows"]);
  for (size_t i = 0; i < latest["versions"].size(); ++i) {
    const json& ours = latest["versions"][i];
    const json& theirs = lancedb["versions"][i];
    const std::string at = "version " + ours["version"].dump();
    EXPECT_EQ(theirs["version"], ours["version"]) << at;
    EXPECT_EQ(theirs["countRows"], ours["rows"]) << at;
    const json& meta = theirs["metadata"];
    EXPECT_EQ(meta["total_fragments"], ours["fragments"].dump()) << at;
    EXPECT_EQ(meta["total_rows"], ours["rows"].dump()) << at;
    EXPECT_EQ(meta["total_data_files"], ours["data_files"].dump()) << at;
    EXPECT_EQ(meta["total_deletion_files"], ours["deletion_files"].dump())
        << at;
  }
  // Index i is on field i, named f<i> in the schema our manifests carry; then
  // the row's identity (impl/lance_export.h).
  ASSERT_EQ(lancedb["latest"]["schema"].size(), 4u);
  EXPECT_EQ(lancedb["latest"]["schema"][0]["name"], "f0");
  EXPECT_EQ(lancedb["latest"]["schema"][0]["type"], "Int64");
  EXPECT_EQ(lancedb["latest"]["schema"][1]["name"], "shard");
  EXPECT_EQ(lancedb["latest"]["schema"][2]["name"], "generation");
  EXPECT_EQ(lancedb["latest"]["schema"][3]["name"], "key");
}

TEST(ReverseDirection, LanceDbRefusesToListIndexesOfOurMemWalTableAsOfItsOwn) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  const std::unique_ptr<Reversed> table = WriteAndOpen(impl::Protocol::kLegacy);
  const Opened& opened = table->opened;
  const std::string& dir = table->dir;
  ASSERT_EQ(opened.code, 0) << opened.log;
  const json ours = opened.description["latest"]["indices"];
  const json own =
      ReadJson(kFixtures +
               "/tables/memwal_unsharded.expected.json")["latest"]["indices"];
  ASSERT_TRUE(own.contains("listIndicesError")) << own;
  ASSERT_TRUE(ours.contains("listIndicesError")) << ours;
  EXPECT_EQ(FirstLine(ours["listIndicesError"]),
            FirstLine(own["listIndicesError"]));
  // indexStats finds idx_0 by name in our index section and reads the BTree
  // files a table written to a directory has for each of its segments
  // (impl/lance_export.h).
  const json report = InspectJson(dir, 0);
  std::set<std::string> segment_uuids;
  for (const json& index : report["indexes"]) {
    if (index["name"] != "idx_0") continue;
    for (const json& segment : index["segments"])
      segment_uuids.insert(segment["uuid"].get<std::string>());
  }
  const json& stats = ours["stats"]["idx_0"];
  ASSERT_FALSE(stats.contains("error")) << stats;
  EXPECT_EQ(stats["indexType"], "BTREE") << stats;
  EXPECT_EQ(stats["numIndices"], segment_uuids.size()) << stats;
}

TEST(ReverseDirection, LanceDbListsTheIndexesOfOurPlainTableAsInspectDoes) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  TempDir scratch;
  const std::string dir = WriteTable(PlainWorld(), scratch.path() + "/t");
  const Opened opened = OpenWithLanceDb(dir, scratch.path());
  ASSERT_EQ(opened.code, 0) << opened.log;
  const json& versions = opened.description["versions"];
  ASSERT_EQ(versions.size(), 4u);
  for (const json& version : versions) {
    const std::string at = "version " + version["version"].dump();
    const json report = InspectJson(dir, version["version"].get<uint64_t>());
    EXPECT_EQ(version["countRows"], report["rows"]) << at;
    ASSERT_TRUE(version["indices"].contains("list")) << at << version;
    ASSERT_EQ(version["indices"]["list"].size(), 1u) << at;
    const json& listed = version["indices"]["list"][0];
    EXPECT_EQ(listed["name"], "idx_0") << at;
    EXPECT_EQ(listed["indexType"], "BTree") << at;
    CompareListedIndex(listed, report, at);
  }
  // Version 4: the base segment and the repair's delta cover 2 of 3 rows.
  const json& last = versions[3]["indices"]["list"][0];
  EXPECT_EQ(last["numSegments"], 2);
  EXPECT_EQ(last["numIndexedRows"], 2);
  EXPECT_EQ(last["numUnindexedRows"], 1);
}

TEST(ReverseDirection, LanceDbRefusesOurActivatedTableAsUnreadable) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  const std::unique_ptr<Reversed> table =
      WriteAndOpen(impl::Protocol::kDerived);
  const Opened& opened = table->opened;
  EXPECT_NE(opened.code, 0);
  EXPECT_NE(opened.log.find("cannot be read by this version of Lance"),
            std::string::npos)
      << opened.log;
  // 128 and the stable-row-id bit 2 (LanceDB 0.31 reads bit 2; 128 it does
  // not know).
  EXPECT_NE(opened.log.find("Flags: 130"), std::string::npos) << opened.log;
}

// Lance 12 (LanceDB 0.39.0) runs the unconditional protocol: it opens a table
// our implementation wrote under `unconditional`, MemWAL index and catch-up
// positions included, and sees the versions and rows inspect sees.
TEST(ReverseDirection, Lance12ReadsOurUnconditionalTableAsInspectDoes) {
  ASSERT_TRUE(HarnessAvailable(kLance12))
      << "run npm ci in " << kLance12 << " (./memwal test does)";
  TempDir scratch;
  const std::string dir = WriteTable(
      WrittenWorld(impl::Protocol::kUnconditional), scratch.path() + "/t");
  const Opened opened = OpenWithLanceDb(dir, scratch.path(), kLance12);
  ASSERT_EQ(opened.code, 0) << opened.log;
  const json& lancedb = opened.description;
  const json latest = InspectJson(dir, 0);
  ASSERT_FALSE(latest["memwal"].is_null());
  ASSERT_EQ(lancedb["versions"].size(), latest["versions"].size());
  EXPECT_EQ(lancedb["latest"]["version"], latest["latest_version"]);
  EXPECT_EQ(lancedb["latest"]["countRows"], latest["rows"]);
  for (size_t i = 0; i < latest["versions"].size(); ++i) {
    const json& ours = latest["versions"][i];
    const json& theirs = lancedb["versions"][i];
    const std::string at = "version " + ours["version"].dump();
    EXPECT_EQ(theirs["version"], ours["version"]) << at;
    EXPECT_EQ(theirs["countRows"], ours["rows"]) << at;
    EXPECT_EQ(theirs["metadata"]["total_fragments"], ours["fragments"].dump())
        << at;
  }
}

}  // namespace
}  // namespace memwal::inspect
