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
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "impl/directory_store.h"
#include "impl/world.h"
#include "inspect/inspect.h"

namespace memwal::inspect {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kFixtures = MEMWAL_FIXTURES_DIR;

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/inspect-reverse-XXXXXX";
    MEMWAL_ASSERT(mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

bool LanceDbAvailable() {
  return std::system("node --version > /dev/null 2>&1") == 0 &&
         fs::is_directory(kFixtures + "/node_modules/@lancedb/lancedb");
}

struct Opened {
  int code = -1;
  json description;  // open_table.mjs's stdout when code is 0
  std::string log;   // its stderr
};

// What LanceDB's own API says about the table in `dir` (open_table.mjs).
Opened OpenWithLanceDb(const std::string& dir, const std::string& scratch) {
  const std::string out = scratch + "/lancedb.json";
  const std::string log = scratch + "/lancedb.log";
  const std::string command = "cd '" + kFixtures +
                              "' && node open_table.mjs '" + dir +
                              "' idx_0 > '" + out + "' 2> '" + log + "'";
  Opened opened;
  opened.code = std::system(command.c_str());
  opened.description = ReadJson(out);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  opened.log = text.str();
  return opened;
}

// inspect --json at `version` (0 = newest).
json InspectJson(const std::string& dir, uint64_t version) {
  std::vector<std::string> args = {dir, "--json"};
  if (version != 0)
    args.insert(args.end(), {"--version", std::to_string(version)});
  std::ostringstream out, err;
  EXPECT_EQ(RunInspectCommand(args, out, err), 0) << err.str();
  return json::parse(out.str(), nullptr, false);
}

void Publish(impl::World* world, Status begun) {
  ASSERT_TRUE(begun.ok()) << begun.ToString();
  const Result<impl::Outcome> outcome =
      world->Commit(world->inflight_count() - 1);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world->last_reason();
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

TEST(ReverseDirection, LanceDbReadsVersionsRowCountsAndSchemaOfOurTable) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  TempDir scratch;
  const std::string dir =
      WriteTable(WrittenWorld(impl::Protocol::kLegacy), scratch.path() + "/t");
  const Opened opened = OpenWithLanceDb(dir, scratch.path());
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
  // Index i is on field i, named f<i> in the schema our manifests carry.
  ASSERT_EQ(lancedb["latest"]["schema"].size(), 1u);
  EXPECT_EQ(lancedb["latest"]["schema"][0]["name"], "f0");
  EXPECT_EQ(lancedb["latest"]["schema"][0]["type"], "Int64");
}

TEST(ReverseDirection, LanceDbRefusesToListIndexesOfOurMemWalTableAsOfItsOwn) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  TempDir scratch;
  const std::string dir =
      WriteTable(WrittenWorld(impl::Protocol::kLegacy), scratch.path() + "/t");
  const Opened opened = OpenWithLanceDb(dir, scratch.path());
  ASSERT_EQ(opened.code, 0) << opened.log;
  const json ours = opened.description["latest"]["indices"];
  const json own =
      ReadJson(kFixtures +
               "/tables/memwal_unsharded.expected.json")["latest"]["indices"];
  ASSERT_TRUE(own.contains("listIndicesError")) << own;
  ASSERT_TRUE(ours.contains("listIndicesError")) << ours;
  EXPECT_EQ(FirstLine(ours["listIndicesError"]),
            FirstLine(own["listIndicesError"]));
  // indexStats finds idx_0 by name in our index section and goes for the
  // index files of one of our segments (we write none).
  const json report = InspectJson(dir, 0);
  std::set<std::string> segment_uuids;
  for (const json& index : report["indexes"]) {
    if (index["name"] != "idx_0") continue;
    for (const json& segment : index["segments"])
      segment_uuids.insert(segment["uuid"].get<std::string>());
  }
  const std::string error = ours["stats"]["idx_0"]["error"];
  const auto at = error.find("/_indices/");
  ASSERT_NE(at, std::string::npos) << error;
  EXPECT_EQ(segment_uuids.count(error.substr(at + 10, 36)), 1u) << error;
}

TEST(ReverseDirection, LanceDbRefusesOurActivatedTableAsUnreadable) {
  if (!LanceDbAvailable()) GTEST_SKIP() << "run npm ci in " << kFixtures;
  TempDir scratch;
  const std::string dir =
      WriteTable(WrittenWorld(impl::Protocol::kDerived), scratch.path() + "/t");
  const Opened opened = OpenWithLanceDb(dir, scratch.path());
  EXPECT_NE(opened.code, 0);
  EXPECT_NE(opened.log.find("cannot be read by this version of Lance"),
            std::string::npos)
      << opened.log;
  EXPECT_NE(opened.log.find("Flags: 128"), std::string::npos) << opened.log;
}

}  // namespace
}  // namespace memwal::inspect
