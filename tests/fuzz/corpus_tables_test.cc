// corpus --tables and --operations (checker/cli/corpus.h, fuzz/README.md
// "Operation lists"): every written table reads back with `inspect` (exit 0),
// and every operation list validates against fuzz/operations.schema.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/corpus.h"
#include "checker/cli/operations_schema.h"
#include "impl/format.h"
#include "inspect/inspect.h"

namespace memwal::checker {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

// The subset of JSON Schema that fuzz/operations.schema.json uses: type,
// enum, const, pattern, required, properties, additionalProperties (false or
// a schema), items, oneOf and $ref into the root's $defs. Empty when `value`
// conforms, else where it does not.
std::string Violation(const json& root, const json& schema, const json& value,
                      const std::string& where) {
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"];
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root["$defs"].contains(ref.substr(8)))
      return where + ": unresolved " + ref;
    return Violation(root, root["$defs"][ref.substr(prefix.size())], value,
                     where);
  }
  if (schema.contains("type")) {
    const std::string type = schema["type"];
    const bool ok = (type == "object" && value.is_object()) ||
                    (type == "array" && value.is_array()) ||
                    (type == "string" && value.is_string()) ||
                    (type == "integer" && value.is_number_integer()) ||
                    (type == "number" && value.is_number()) ||
                    (type == "boolean" && value.is_boolean());
    if (!ok) return where + ": not " + type;
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& allowed : schema["enum"]) found |= allowed == value;
    if (!found) return where + ": " + value.dump() + " not in enum";
  }
  if (schema.contains("const") && schema["const"] != value)
    return where + ": " + value.dump() + " is not " + schema["const"].dump();
  if (schema.contains("pattern") && value.is_string() &&
      !std::regex_search(value.get<std::string>(),
                         std::regex(schema["pattern"].get<std::string>())))
    return where + ": " + value.dump() + " does not match its pattern";
  if (schema.contains("required")) {
    for (const json& key : schema["required"])
      if (!value.contains(key.get<std::string>()))
        return where + ": missing " + key.get<std::string>();
  }
  if (schema.contains("properties") ||
      schema.contains("additionalProperties")) {
    const json properties = schema.value("properties", json::object());
    const json extra = schema.value("additionalProperties", json(true));
    for (const auto& [key, item] : value.items()) {
      std::string inner;
      if (properties.contains(key)) {
        inner = Violation(root, properties[key], item, where + "." + key);
      } else if (extra == false) {
        inner = where + ": unexpected " + key;
      } else if (extra.is_object()) {
        inner = Violation(root, extra, item, where + "." + key);
      }
      if (!inner.empty()) return inner;
    }
  }
  if (schema.contains("items")) {
    for (std::size_t k = 0; k < value.size(); ++k) {
      const std::string inner =
          Violation(root, schema["items"], value[k],
                    where + "[" + std::to_string(k) + "]");
      if (!inner.empty()) return inner;
    }
  }
  if (schema.contains("oneOf")) {
    int matches = 0;
    std::string first;
    for (const json& variant : schema["oneOf"]) {
      const std::string inner = Violation(root, variant, value, where);
      if (inner.empty()) ++matches;
      if (!inner.empty() && first.empty()) first = inner;
    }
    if (matches != 1)
      return where + ": matches " + std::to_string(matches) + " of oneOf (" +
             first + ")";
  }
  return "";
}
std::string Violation(const json& schema, const json& value,
                      const std::string& where) {
  return Violation(schema, schema, value, where);
}

TEST(CorpusTables, EveryTableReadsBackAndEveryOperationListFitsTheSchema) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("memwal-corpus-tables-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::ostringstream out, err;
  ASSERT_EQ(cli::RunCorpusCommand({"--out", dir.string(), "--count", "50",
                                   "--tables", "--operations"},
                                  out, err),
            0)
      << err.str();
  const json schema =
      ReadJson(fs::path(MEMWAL_SOURCE_DIR) / "fuzz/operations.schema.json");
  std::size_t tables = 0, lists = 0, operations = 0, left_out = 0;
  for (const auto& entry : fs::directory_iterator(dir / "json")) {
    const std::string name = entry.path().stem().string();
    const fs::path table = dir / "tables" / name;
    ASSERT_TRUE(fs::is_directory(table)) << table;
    std::ostringstream inspect_out, inspect_err;
    EXPECT_EQ(
        inspect::RunInspectCommand({table.string()}, inspect_out, inspect_err),
        0)
        << name << ": " << inspect_err.str();
    ++tables;
    const json list = ReadJson(dir / "operations" / (name + ".json"));
    EXPECT_EQ(Violation(schema, list, name), "");
    EXPECT_EQ(list["entry"], name);
    EXPECT_EQ(list["table_dir"], "tables/" + name);
    // One operation per retained version, but those whose read version a
    // CleanupVersions removed (counted in left_out).
    const json& retained = list["retained_versions"];
    EXPECT_EQ(list["operations"].size() + list["left_out"].get<std::size_t>(),
              retained.size())
        << name;
    for (const json& version : retained) {
      EXPECT_TRUE(fs::is_regular_file(
          table / impl::VersionFileName(version.get<uint64_t>())))
          << name << ": version " << version;
    }
    for (const json& operation : list["operations"]) {
      // Each operation names its .txn file, which the table holds, and reads
      // a version the table retains (Init reads none).
      EXPECT_TRUE(fs::is_regular_file(
          table / operation["transaction_file"].get<std::string>()))
          << name << ": " << operation["transaction_file"];
      const json& read = operation["read_version"];
      EXPECT_TRUE(read == 0 || std::find(retained.begin(), retained.end(),
                                         read) != retained.end())
          << name << ": read version " << read << " is not retained";
    }
    operations += list["operations"].size();
    left_out += list["left_out"].get<std::size_t>();
    ++lists;
  }
  EXPECT_EQ(tables, 50u);
  EXPECT_EQ(lists, 50u);
  // Every retained version is listed or left out; at these bounds some are
  // listed (29 of 50 entries' versions, 2026-12-05).
  EXPECT_GT(operations, 0u);
  EXPECT_GE(operations + left_out, 50u);
  fs::remove_all(dir);
}

TEST(CorpusTables, OperationListsWithoutTablesKeepTheirTransactionFiles) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("memwal-corpus-operations-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::ostringstream out, err;
  ASSERT_EQ(cli::RunCorpusCommand({"--out", dir.string(), "--count", "10",
                                   "--preset", "tiny", "--operations"},
                                  out, err),
            0)
      << err.str();
  EXPECT_FALSE(fs::exists(dir / "tables"));
  std::size_t linked = 0;
  for (const auto& entry : fs::directory_iterator(dir / "json")) {
    const std::string name = entry.path().stem().string();
    const json list = ReadJson(dir / "operations" / (name + ".json"));
    EXPECT_EQ(list["table_dir"], "operations/" + name);
    const fs::path kept = dir / list["table_dir"].get<std::string>();
    // The table's transaction files alone.
    for (const auto& item : fs::directory_iterator(kept))
      EXPECT_EQ(item.path().filename(), "_transactions") << name;
    for (const json& operation : list["operations"]) {
      EXPECT_TRUE(fs::is_regular_file(
          kept / operation["transaction_file"].get<std::string>()))
          << name << ": " << operation["transaction_file"];
      ++linked;
    }
  }
  EXPECT_GT(linked, 10u);
  fs::remove_all(dir);
}

TEST(CorpusTables, TheSchemaRefusesADocumentMissingItsOperations) {
  const json schema =
      ReadJson(fs::path(MEMWAL_SOURCE_DIR) / "fuzz/operations.schema.json");
  const json bad = {{"format", "memwal-check-operations"},
                    {"format_version", cli::kOperationsFormatVersion},
                    {"lance_version", "lance 11.0.0-beta.16"},
                    {"table_dir", "tables/entry-0000"},
                    {"retained_versions", json::array({1})},
                    {"left_out", 0},
                    {"entry", "entry-0000"}};
  EXPECT_NE(Violation(schema, bad, "doc"), "");
  json wrong_op = bad;
  wrong_op["operations"] =
      json::array({json{{"version", 1},
                        {"read_version", 0},
                        {"operation", "no_such_operation"},
                        {"transaction_file", "_transactions/0-x.txn"},
                        {"fields", json::object()},
                        {"transaction_properties", json::object()}}});
  EXPECT_NE(Violation(schema, wrong_op, "doc"), "");
  // A field an operation does not have, or of the wrong type, is refused.
  json typed = wrong_op;
  typed["operations"][0]["operation"] = "append";
  EXPECT_EQ(Violation(schema, typed, "doc"), "");
  typed["operations"][0]["fields"] = {{"fragments", "not a list"}};
  EXPECT_NE(Violation(schema, typed, "doc"), "");
  typed["operations"][0]["fields"] = {{"no_such_field", 1}};
  EXPECT_NE(Violation(schema, typed, "doc"), "");
}

TEST(CorpusTables, ResumeAndForceAcceptADirectoryWrittenWithTablesAndLists) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("memwal-corpus-tables-resume-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::vector<std::string> args = {"--out",    dir.string(),  "--count",
                                         "12",       "--preset",    "tiny",
                                         "--tables", "--operations"};
  std::ostringstream out, err;
  ASSERT_EQ(cli::RunCorpusCommand(args, out, err), 0) << err.str();
  // What tables/ holds: the tables and a shallow clone's sources.
  const auto listing = [&] {
    std::set<std::string> names;
    for (const auto& item : fs::recursive_directory_iterator(dir / "tables"))
      names.insert(fs::relative(item.path(), dir).string());
    return names;
  };
  const std::set<std::string> first = listing();
  EXPECT_TRUE(std::any_of(first.begin(), first.end(), [](const auto& name) {
    return name.ends_with(".sources");
  })) << "no entry of these 12 is a shallow clone";
  for (const char* mode : {"--resume", "--force"}) {
    std::vector<std::string> again = args;
    again.push_back(mode);
    std::ostringstream out2, err2;
    EXPECT_EQ(cli::RunCorpusCommand(again, out2, err2), 0)
        << mode << ": " << err2.str();
    EXPECT_EQ(listing(), first) << mode;
    EXPECT_TRUE(fs::is_regular_file(dir / "operations" / "entry-0000.json"))
        << mode;
  }
  fs::remove_all(dir);
}

TEST(CorpusTables, TheCommittedSchemaIsTheOneTheDescriptorsGive) {
  EXPECT_EQ(
      ReadJson(fs::path(MEMWAL_SOURCE_DIR) / "fuzz/operations.schema.json"),
      cli::OperationsSchema())
      << "regenerate: memwal-check corpus --operations-schema > "
         "fuzz/operations.schema.json";
}

}  // namespace
}  // namespace memwal::checker
