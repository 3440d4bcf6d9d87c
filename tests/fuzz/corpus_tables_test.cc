// corpus --tables and --operations (checker/cli/corpus.h, fuzz/README.md
// "Operation lists"): every written table reads back with `inspect` (exit 0),
// and every operation list validates against fuzz/operations.schema.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/corpus.h"
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
// enum, required, properties, additionalProperties: false, items. Empty when
// `value` conforms, else where it does not.
std::string Violation(const json& schema, const json& value,
                      const std::string& where) {
  if (schema.contains("type")) {
    const std::string type = schema["type"];
    const bool ok = (type == "object" && value.is_object()) ||
                    (type == "array" && value.is_array()) ||
                    (type == "string" && value.is_string()) ||
                    (type == "integer" && value.is_number_integer()) ||
                    (type == "boolean" && value.is_boolean());
    if (!ok) return where + ": not " + type;
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& allowed : schema["enum"]) found |= allowed == value;
    if (!found) return where + ": " + value.dump() + " not in enum";
  }
  if (schema.contains("required")) {
    for (const json& key : schema["required"])
      if (!value.contains(key.get<std::string>()))
        return where + ": missing " + key.get<std::string>();
  }
  if (schema.contains("properties")) {
    for (const auto& [key, item] : value.items()) {
      if (!schema["properties"].contains(key)) {
        if (schema.value("additionalProperties", true) == false)
          return where + ": unexpected " + key;
        continue;
      }
      const std::string inner =
          Violation(schema["properties"][key], item, where + "." + key);
      if (!inner.empty()) return inner;
    }
  }
  if (schema.contains("items")) {
    for (std::size_t k = 0; k < value.size(); ++k) {
      const std::string inner = Violation(
          schema["items"], value[k], where + "[" + std::to_string(k) + "]");
      if (!inner.empty()) return inner;
    }
  }
  return "";
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
  std::size_t tables = 0, lists = 0, operations = 0;
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
    EXPECT_FALSE(list["operations"].empty());
    operations += list["operations"].size();
    ++lists;
  }
  EXPECT_EQ(tables, 50u);
  EXPECT_EQ(lists, 50u);
  EXPECT_GT(operations, 50u);
  fs::remove_all(dir);
}

TEST(CorpusTables, TheSchemaRefusesADocumentMissingItsOperations) {
  const json schema =
      ReadJson(fs::path(MEMWAL_SOURCE_DIR) / "fuzz/operations.schema.json");
  const json bad = {{"format", "memwal-check-operations"},
                    {"format_version", 1},
                    {"entry", "entry-0000"}};
  EXPECT_NE(Violation(schema, bad, "doc"), "");
  json wrong_op = bad;
  wrong_op["operations"] =
      json::array({json{{"version", 1},
                        {"read_version", 0},
                        {"operation", "merge"},
                        {"fields", json::object()},
                        {"transaction_properties", json::object()}}});
  EXPECT_NE(Violation(schema, wrong_op, "doc"), "");
}

}  // namespace
}  // namespace memwal::checker
