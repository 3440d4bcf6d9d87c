// No input crashes inspect: random byte edits of real files (a manifest with an
// index section and a transaction block, a shard manifest, and the MemWAL
// details inside the manifest) either decode or come back as Corruption; the
// whole command then exits 0 or 2.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "inspect/inspect.h"
#include "inspect/manifest_file.h"

namespace memwal::inspect {
namespace {

namespace fs = std::filesystem;

const std::string kTables = std::string(MEMWAL_FIXTURES_DIR) + "/tables/";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Applies (position, value) edits, then truncates to `keep` bytes when it is
// smaller.
std::string Mutate(std::string bytes,
                   const std::vector<std::pair<uint32_t, uint8_t>>& edits,
                   uint32_t keep) {
  for (const auto& [position, value] : edits) {
    if (!bytes.empty())
      bytes[position % bytes.size()] = static_cast<char>(value);
  }
  if (keep < bytes.size()) bytes.resize(keep);
  return bytes;
}

void ExpectDecodesOrCorruption(const Status& status) {
  RC_ASSERT(status.ok() || status.code() == StatusCode::kCorruption);
}

RC_GTEST_PROP(InspectMutations, ADamagedManifestDecodesOrIsCorruption,
              (const std::vector<std::pair<uint32_t, uint8_t>>& edits,
               uint32_t keep)) {
  static const std::string manifest = ReadBytes(
      kTables + "memwal_bucket.lance/_versions/18446744073709551611.manifest");
  Notes notes;
  const Result<ManifestFile> file =
      DecodeManifestFile(Mutate(manifest, edits, keep), "m", &notes);
  ExpectDecodesOrCorruption(file.status());
  if (!file.ok()) return;
  for (const IndexMetadata& index : file->indices) {
    if (!index.index_details) continue;
    ExpectDecodesOrCorruption(
        DecodeMemWalIndexDetails(index.index_details->value, "d", &notes)
            .status());
  }
}

RC_GTEST_PROP(InspectMutations, ADamagedShardManifestDecodesOrIsCorruption,
              (const std::vector<std::pair<uint32_t, uint8_t>>& edits,
               uint32_t keep)) {
  static const std::string shard =
      ReadBytes(kTables +
                "memwal_unsharded.lance/_mem_wal/"
                "aa48498d-ac91-59e2-8452-69f46010ace2/manifest/" +
                "1010" + std::string(60, '0') + ".binpb");
  Notes notes;
  ExpectDecodesOrCorruption(
      DecodeShardManifest(Mutate(shard, edits, keep), "s", &notes).status());
}

TEST(InspectMutations, TheWholeCommandExitsZeroOrTwoOnDamagedTables) {
  // Deterministic sweep: every 7th byte of the newest bucket manifest flipped
  // in turn.
  char pattern[] = "/tmp/inspect-mutation-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = std::string(pattern) + "/t.lance";
  fs::copy(kTables + "memwal_bucket.lance", dir, fs::copy_options::recursive);
  const std::string name = dir + "/_versions/18446744073709551611.manifest";
  const std::string original = ReadBytes(name);
  for (size_t at = 0; at < original.size(); at += 7) {
    std::string damaged = original;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    std::ofstream(name, std::ios::binary | std::ios::trunc) << damaged;
    std::ostringstream out, err;
    const int code = RunInspectCommand({dir, "--json"}, out, err);
    EXPECT_TRUE(code == 0 || code == 2) << at;
    const std::string message = err.str();
    if (code == 2) {
      EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << at;
    }
  }
  std::error_code error;
  fs::remove_all(pattern, error);
}

}  // namespace
}  // namespace memwal::inspect
