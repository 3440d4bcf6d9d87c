// Actions in our JSON trace format:
// {"kind":"CompactSsTable","shard":0,"marker":true}. Parsing is strict (unknown
// kind, missing, extra or mistyped field: InvalidArgument) and never throws: it
// only uses nlohmann::json's non-throwing accessors.
#include <array>
#include <string>

#include "model/actions.h"

namespace memwal::model {
namespace {

// The parameter names of each kind, in the order of the struct's fields.
struct KindFields {
  std::string_view kind;
  std::array<std::string_view, 2> fields;
  int count;
};

constexpr std::array<KindFields, kActionKinds> kFields = {{
    {"FlushMemTable", {"shard", ""}, 1},
    {"RetireSsTable", {"shard", "generation"}, 2},
    {"RetireDecide", {"shard", "generation"}, 2},
    {"RetireExecute", {"shard", "generation"}, 2},
    {"Append", {"", ""}, 0},
    {"DeleteFragment", {"fragment", ""}, 1},
    {"CompactSsTable", {"shard", "marker"}, 2},
    {"UpdateColumns", {"fragment", "index"}, 2},
    {"RewriteFragments", {"first", "second"}, 2},
    {"CreateIndex", {"index", ""}, 1},
    {"OptimizeIndex", {"index", ""}, 1},
    {"DropIndex", {"index", ""}, 1},
    {"RecordProgress", {"shard", ""}, 1},
    {"Activate", {"", ""}, 0},
    {"Commit", {"slot", ""}, 1},
    {"Restore", {"version", ""}, 1},
    {"ShallowClone", {"", ""}, 0},
    {"CleanupVersions", {"", ""}, 0},
    {"ForeignHalfSet", {"", ""}, 0},
    {"CallerAdvance", {"index", "offer"}, 2},
    {"ResetMemWal", {"", ""}, 0},
    {"DropMemWal", {"", ""}, 0},
    {"ForeignCompaction", {"shard", ""}, 1},
    {"ReinstallMemWal", {"", ""}, 0},
}};

Result<int> ParseField(const nlohmann::json& json, std::string_view kind,
                       std::string_view field) {
  const std::string key(field);
  const std::string where = std::string(kind) + "." + key;
  if (!json.contains(key))
    return Status::InvalidArgument("action " + where + " is missing");
  const nlohmann::json& value = json[key];
  if (field == "marker") {
    if (!value.is_boolean())
      return Status::InvalidArgument(where + " must be true or false");
    return value.get<bool>() ? 1 : 0;
  }
  if (!value.is_number_unsigned() || value.get<uint64_t>() > 255) {
    return Status::InvalidArgument(where + " must be an integer in 0..255");
  }
  return static_cast<int>(value.get<uint64_t>());
}

}  // namespace

nlohmann::json ToJson(const Action& action) {
  const KindFields& kind = kFields[action.index()];
  const std::array<int, 2> values = ActionParams(action);
  nlohmann::json json = nlohmann::json::object();
  json["kind"] = std::string(kind.kind);
  for (int k = 0; k < kind.count; ++k) {
    if (kind.fields[k] == "marker") {
      json[std::string(kind.fields[k])] = values[k] != 0;
    } else {
      json[std::string(kind.fields[k])] = static_cast<uint64_t>(values[k]);
    }
  }
  return json;
}

Result<Action> ActionFromJson(const nlohmann::json& json) {
  if (!json.is_object())
    return Status::InvalidArgument("an action must be a JSON object");
  if (!json.contains("kind") || !json["kind"].is_string()) {
    return Status::InvalidArgument("an action needs a string \"kind\"");
  }
  const std::string& name = json["kind"].get_ref<const std::string&>();
  for (int kind = 0; kind < kActionKinds; ++kind) {
    const KindFields& fields = kFields[kind];
    if (fields.kind != name) continue;
    if (json.size() != static_cast<std::size_t>(fields.count) + 1) {
      return Status::InvalidArgument("action " + name +
                                     " has unexpected fields");
    }
    std::array<int, 2> values{};
    for (int k = 0; k < fields.count; ++k) {
      MEMWAL_ASSIGN_OR_RETURN(values[k],
                              ParseField(json, name, fields.fields[k]));
    }
    return MakeAction(kind, values);
  }
  return Status::InvalidArgument("unknown action kind '" + name + "'");
}

}  // namespace memwal::model
