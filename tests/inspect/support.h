// Helpers shared by the inspect tests: a temporary directory, inspect's JSON
// through the CLI entry point, and publishing a World transaction.
#ifndef MEMWAL_TESTS_INSPECT_SUPPORT_H_
#define MEMWAL_TESTS_INSPECT_SUPPORT_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/assert.h"
#include "impl/world.h"
#include "inspect/inspect.h"

namespace memwal::inspect::testing {

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/inspect-test-XXXXXX";
    MEMWAL_ASSERT(mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The file's JSON, or a discarded value when it is missing or malformed.
inline nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr,
                               /*allow_exceptions=*/false);
}

// inspect --json at `version` (0 = newest), through the CLI entry point.
inline nlohmann::json InspectJson(const std::string& dir, uint64_t version) {
  std::vector<std::string> args = {dir, "--json"};
  if (version != 0)
    args.insert(args.end(), {"--version", std::to_string(version)});
  std::ostringstream out, err;
  const int code = RunInspectCommand(args, out, err);
  EXPECT_EQ(code, 0) << err.str();
  return nlohmann::json::parse(out.str(), nullptr, false);
}

inline const nlohmann::json* FindIndex(const nlohmann::json& report,
                                       const std::string& name) {
  for (const nlohmann::json& index : report["indexes"]) {
    if (index["name"] == name) return &index;
  }
  return nullptr;
}

// LanceDB's listIndices() entry against inspect's index of the same name.
inline void CompareListedIndex(const nlohmann::json& listed,
                               const nlohmann::json& report,
                               const std::string& at) {
  const nlohmann::json* ours = FindIndex(report, listed["name"]);
  ASSERT_NE(ours, nullptr) << at << " index " << listed["name"];
  EXPECT_EQ((*ours)["columns"], listed["columns"]) << at;
  EXPECT_EQ((*ours)["indexed_rows"], listed["numIndexedRows"]) << at;
  EXPECT_EQ((*ours)["unindexed_rows"], listed["numUnindexedRows"]) << at;
  EXPECT_EQ((*ours)["segments"].size(), listed["numSegments"]) << at;
  EXPECT_EQ((*ours)["segments"][0]["uuid"], listed["indexUuid"]) << at;
  EXPECT_EQ((*ours)["segments"][0]["type_url"], listed["typeUrl"]) << at;
  EXPECT_EQ((*ours)["segments"][0]["index_version"], listed["indexVersion"])
      << at;
}

// Commits the transaction `begun` just started; it must publish.
inline void Publish(impl::World* world, const Status& begun) {
  ASSERT_TRUE(begun.ok()) << begun.ToString();
  const Result<impl::Outcome> outcome =
      world->Commit(world->inflight_count() - 1);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world->last_reason();
}

}  // namespace memwal::inspect::testing

#endif  // MEMWAL_TESTS_INSPECT_SUPPORT_H_
