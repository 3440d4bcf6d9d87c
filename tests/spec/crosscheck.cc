// spec_crosscheck: replays ITF traces written by `quint run --mbt` on
// spec/memwal_catchup.qnt through the C++ model (model/) and requires equal
// states at every step.
//
// Each ITF state carries the action Quint took (mbt::actionTaken) and its
// nondet picks (mbt::nondetPicks), named like the parameters of our JSON trace
// actions, so a step reads as a model::Action. The model must find it enabled,
// reach the same outcome (publish, retry, refuse) and the same state. States
// are compared in one canonical JSON form built from both sides; Quint's uuids
// are plain fresh integers, so they are renumbered in the model's canonical
// order (R3) first, which makes the comparison "up to uuid renaming".
// Quint-only bookkeeping (nextUuid, lastOutcome, a transaction's advance) is
// not compared.

//
// Usage: spec_crosscheck PROTOCOL READ GC BUGS SHARDS GENERATIONS FRAGMENTS
// INDEXES COMMITS
//                        INFLIGHT TRACE.itf.json...
// (BUGS is a comma-separated list or "none"). Exit 0: every trace agrees; 1: a
// divergence (printed with both states); 2: bad usage or an unreadable trace.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::spec_crosscheck {
namespace {

using model::Config;
using model::State;
using nlohmann::json;

const json& Null() {
  static const json kNull;
  return kNull;
}

// object[key], or null when absent: never throws.
const json& Field(const json& object, const std::string& key) {
  if (!object.is_object()) return Null();
  auto it = object.find(key);
  return it == object.end() ? Null() : *it;
}

// Decodes ITF values into plain JSON: ints from {"#bigint"}, sets as sorted
// arrays, tuples as arrays, maps as sorted arrays of [key, value].
json Plain(const json& value) {
  if (value.is_array()) {
    json out = json::array();
    for (const json& item : value) out.push_back(Plain(item));
    return out;
  }
  if (!value.is_object()) return value;
  if (value.contains("#bigint")) {
    const json& digits = Field(value, "#bigint");
    if (!digits.is_string()) return Null();
    const long long number =
        std::strtoll(digits.get_ref<const std::string&>().c_str(), nullptr, 10);
    // Non-negative ints as unsigned: that is what the action parser accepts.
    return number >= 0 ? json(static_cast<uint64_t>(number)) : json(number);
  }
  if (value.contains("#set") || value.contains("#tup") ||
      value.contains("#map")) {
    const bool is_tuple = value.contains("#tup");
    const json& items = value.contains("#set")   ? Field(value, "#set")
                        : value.contains("#tup") ? Field(value, "#tup")
                                                 : Field(value, "#map");
    json out = Plain(items);
    if (!is_tuple && out.is_array()) std::sort(out.begin(), out.end());
    return out;
  }
  json out = json::object();
  for (const auto& [key, item] : value.items()) out[key] = Plain(item);
  return out;
}

// A Quint map decoded by Plain ([[key, value], ...]) as a std::map from the
// key's dump.
std::map<std::string, json> MapOf(const json& pairs) {
  std::map<std::string, json> out;
  if (!pairs.is_array()) return out;
  for (const json& pair : pairs) {
    if (pair.is_array() && pair.size() == 2) out[pair[0].dump()] = pair[1];
  }
  return out;
}

json MapGet(const json& pairs, const json& key, const json& fallback) {
  const std::map<std::string, json> map = MapOf(pairs);
  auto it = map.find(key.dump());
  return it == map.end() ? fallback : it->second;
}

int IntOr(const json& value, int fallback) {
  return value.is_number_integer() ? value.get<int>() : fallback;
}

// ---- Canonical form of a model::State
// ------------------------------------------------

json Bits(uint8_t set, int offset) {
  json out = json::array();
  for (int k = 0; k < 8; ++k) {
    if ((set >> k) & 1u) out.push_back(k + offset);
  }
  return out;
}

json Rows(model::RowSet rows) {
  json out = json::array();
  for (int s = 0; s < model::kShardsMax; ++s) {
    for (int g = 1; g <= model::kGenerationsMax; ++g) {
      if (rows & model::RowBit(s, g)) out.push_back(json::array({s, g}));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

json SegmentForm(int uuid, const json& covers) {
  return json::array({uuid, covers});
}

json ModelVersion(const Config& config, const model::Version& v) {
  json segments = json::array();
  json catchup = json::array();
  for (int i = 0; i < config.bounds.indexes; ++i) {
    json list = json::array();
    for (const model::Segment& segment : v.segments[i]) {
      if (segment.uuid != 0)
        list.push_back(SegmentForm(segment.uuid, Bits(segment.covers, 0)));
    }
    segments.push_back(list);
    json per_shard = json::array();
    for (int s = 0; s < config.bounds.shards; ++s)
      per_shard.push_back(v.catchup[i][s]);
    catchup.push_back(per_shard);
  }
  json compacted = json::array();
  for (int s = 0; s < config.bounds.shards; ++s)
    compacted.push_back(v.compacted[s]);
  return json{{"number", v.number},
              {"live", Bits(v.live, 0)},
              {"segments", segments},
              {"compacted", compacted},
              {"catchup", catchup},
              {"reader_bit", v.reader_bit},
              {"writer_bit", v.writer_bit},
              {"retained", v.retained},
              {"op", std::string(model::Name(v.op.kind))}};
}

json ModelTxn(const model::Txn& t) {
  return json{
      {"kind", std::string(model::Name(t.kind))},
      {"read_version", t.read_version},
      {"shard", t.shard},
      {"generation", t.generation},
      {"marker", t.marker},
      {"fragment", t.fragment},
      {"second_fragment", t.second_fragment},
      {"index", t.index},
      {"segment", SegmentForm(t.segment.uuid, Bits(t.segment.covers, 0))},
      {"removed_uuid", t.removed_uuid}};
}

json ModelState(const Config& config, const State& state) {
  json versions = json::array();
  for (int v = 0; v < state.version_count; ++v)
    versions.push_back(ModelVersion(config, state.versions[v]));
  json inflight = json::array();
  for (int t = 0; t < state.inflight_count; ++t)
    inflight.push_back(ModelTxn(state.inflight[t]));
  json flushed = json::array();
  json retired = json::array();
  json cover = json::array();
  for (int s = 0; s < config.bounds.shards; ++s) {
    flushed.push_back(state.flushed[s]);
    retired.push_back(Bits(state.retired[s], 1));
    json per_generation = json::array();
    for (int g = 1; g <= config.bounds.generations; ++g) {
      per_generation.push_back(
          Bits(state.retire_cover[s * model::kGenerationsMax + g - 1], 0));
    }
    cover.push_back(per_generation);
  }
  json rows = json::array();
  for (int f = 0; f < state.next_fragment; ++f)
    rows.push_back(Rows(state.rows[f]));
  return json{{"versions", versions},
              {"inflight", inflight},
              {"flushed", flushed},
              {"retired", retired},
              {"pending", Rows(state.pending)},
              {"committed", state.committed},
              {"next_fragment", state.next_fragment},
              {"rows", rows},
              {"deleted", Rows(state.deleted)},
              {"retire_cover", cover},
              {"activated", state.activated}};
}

// ---- Canonical form of a Quint state
// --------------------------------------------------

// Renumbers Quint's uuids 1, 2, ... in order of first appearance: versions
// oldest first, indexes in order, segments in order, then in-flight
// transactions (R3).
class UuidRenaming {
 public:
  int Of(int uuid) {
    if (uuid <= 0) return 0;
    auto [it, inserted] =
        names_.try_emplace(uuid, static_cast<int>(names_.size()) + 1);
    return it->second;
  }

 private:
  std::map<int, int> names_;
};

json QuintSegments(const json& segments, UuidRenaming* uuids) {
  json list = json::array();
  if (!segments.is_array()) return list;
  for (const json& segment : segments) {
    list.push_back(SegmentForm(uuids->Of(IntOr(Field(segment, "uuid"), 0)),
                               Field(segment, "covers")));
  }
  return list;
}

json QuintVersion(const Config& config, const json& v, UuidRenaming* uuids) {
  json segments = json::array();
  json catchup = json::array();
  for (int i = 0; i < config.bounds.indexes; ++i) {
    segments.push_back(
        QuintSegments(MapGet(Field(v, "segments"), i, json::array()), uuids));
    const json per_index = MapGet(Field(v, "catchup"), i, json::array());
    json per_shard = json::array();
    for (int s = 0; s < config.bounds.shards; ++s)
      per_shard.push_back(IntOr(MapGet(per_index, s, 0), 0));
    catchup.push_back(per_shard);
  }
  json compacted = json::array();
  for (int s = 0; s < config.bounds.shards; ++s)
    compacted.push_back(IntOr(MapGet(Field(v, "compacted"), s, 0), 0));
  return json{{"number", Field(v, "number")},
              {"live", Field(v, "live")},
              {"segments", segments},
              {"compacted", compacted},
              {"catchup", catchup},
              {"reader_bit", Field(v, "readerBit")},
              {"writer_bit", Field(v, "writerBit")},
              {"retained", Field(v, "retained")},
              {"op", Field(Field(v, "op"), "name")}};
}

// Quint marks unused transaction fields with -1 (NONE); the model with 0.
int Slot(const json& value) { return std::max(0, IntOr(value, 0)); }

json QuintTxn(const json& t, UuidRenaming* uuids) {
  const std::string kind =
      Field(t, "name").is_string() ? Field(t, "name").get<std::string>() : "";
  const json& added = Field(t, "newSegs");
  json segment = SegmentForm(0, json::array());
  if (added.is_array() && !added.empty()) {
    segment = SegmentForm(uuids->Of(IntOr(Field(added[0], "uuid"), 0)),
                          Field(added[0], "covers"));
  }
  int removed = 0;
  const json& removed_set = Field(t, "removed");
  if (kind == "OptimizeIndex" && removed_set.is_array() && !removed_set.empty())
    removed = uuids->Of(IntOr(removed_set[0], 0));
  return json{{"kind", kind},
              {"read_version", Field(t, "read")},
              {"shard", Slot(Field(t, "shard"))},
              {"generation", Slot(Field(t, "gen"))},
              {"marker", Field(t, "marker")},
              {"fragment", Slot(Field(t, "frag"))},
              {"second_fragment", Slot(Field(t, "frag2"))},
              {"index", Slot(Field(t, "index"))},
              {"segment", segment},
              {"removed_uuid", removed}};
}

// The variables of one ITF state, with the module qualifier stripped.
json Variables(const json& itf_state) {
  json out = json::object();
  for (const auto& [name, value] : itf_state.items()) {
    if (name == "#meta" || name.rfind("mbt::", 0) == 0) continue;
    const std::size_t cut = name.rfind("::");
    out[cut == std::string::npos ? name : name.substr(cut + 2)] = Plain(value);
  }
  return out;
}

json QuintState(const Config& config, const json& vars) {
  UuidRenaming uuids;
  json versions = json::array();
  for (const json& v : Field(vars, "versions"))
    versions.push_back(QuintVersion(config, v, &uuids));
  json inflight = json::array();
  for (const json& t : Field(vars, "inflight"))
    inflight.push_back(QuintTxn(t, &uuids));
  json flushed = json::array();
  json retired = json::array();
  json cover = json::array();
  for (int s = 0; s < config.bounds.shards; ++s) {
    flushed.push_back(IntOr(MapGet(Field(vars, "flushed"), s, 0), 0));
    retired.push_back(MapGet(Field(vars, "retired"), s, json::array()));
    json per_generation = json::array();
    for (int g = 1; g <= config.bounds.generations; ++g) {
      per_generation.push_back(MapGet(Field(vars, "retireCover"),
                                      json::array({s, g}), json::array()));
    }
    cover.push_back(per_generation);
  }
  json rows = json::array();
  const std::map<std::string, json> row_map = MapOf(Field(vars, "rows"));
  const int next_fragment = static_cast<int>(row_map.size());
  for (int f = 0; f < next_fragment; ++f)
    rows.push_back(MapGet(Field(vars, "rows"), f, Null()));
  return json{{"versions", versions},
              {"inflight", inflight},
              {"flushed", flushed},
              {"retired", retired},
              {"pending", Field(vars, "pending")},
              {"committed", Field(vars, "committed")},
              {"next_fragment", next_fragment},
              {"rows", rows},
              {"deleted", Field(vars, "deleted")},
              {"retire_cover", cover},
              {"activated", Field(vars, "activated")}};
}

// The model outcome Quint's lastOutcome.result stands for.
std::string ExpectedOutcome(const json& vars) {
  const json& result = Field(Field(vars, "lastOutcome"), "result");
  const std::string text = result.is_string() ? result.get<std::string>() : "";
  if (text == "publish") return "published";
  if (text == "retry") return "retry";
  if (text == "refuse") return "refused";
  return "done";
}

// The step's action as our JSON trace action: the kind Quint took plus its Some
// picks.
json StepAction(const json& itf_state) {
  json action = json::object();
  action["kind"] = Field(itf_state, "mbt::actionTaken");
  for (const auto& [name, pick] :
       Field(itf_state, "mbt::nondetPicks").items()) {
    if (Field(pick, "tag") != "Some") continue;
    action[name] = Plain(Field(pick, "value"));
  }
  return action;
}

// ---- Driver
// ---------------------------------------------------------------------------

Result<Config> ParseConfig(char** argv) {
  Config config;
  MEMWAL_ASSIGN_OR_RETURN(config.protocol, model::ParseProtocol(argv[0]));
  MEMWAL_ASSIGN_OR_RETURN(config.read, model::ParseReadMode(argv[1]));
  MEMWAL_ASSIGN_OR_RETURN(config.gc, model::ParseGcMode(argv[2]));
  std::string bugs = argv[3];
  if (bugs != "none") {
    std::stringstream list(bugs);
    for (std::string name; std::getline(list, name, ',');) {
      MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug, model::ParseBug(name));
      config.bugs |= model::BugBit(bug);
    }
  }
  int* bounds[] = {&config.bounds.shards,    &config.bounds.generations,
                   &config.bounds.fragments, &config.bounds.indexes,
                   &config.bounds.commits,   &config.bounds.inflight};
  for (int k = 0; k < 6; ++k) *bounds[k] = std::atoi(argv[4 + k]);
  MEMWAL_RETURN_IF_ERROR(model::CheckConfig(config));
  return config;
}

// Replays one trace; prints the first divergence. Returns false on a
// divergence.
bool Replay(const Config& config, const std::string& path, const json& trace,
            int* steps) {
  const json& states = Field(trace, "states");
  if (!states.is_array() || states.empty()) {
    std::cout << path << ": no states\n";
    return false;
  }
  State state = model::Init(config.bounds);
  for (std::size_t k = 0; k < states.size(); ++k) {
    const json vars = Variables(states[k]);
    std::string outcome = "done";
    json action = json{{"kind", "init"}};
    if (k > 0) {
      action = StepAction(states[k]);
      Result<model::Action> parsed = model::ActionFromJson(action);
      if (!parsed.ok()) {
        std::cout << path << " step " << k << ": " << parsed.status().ToString()
                  << "\n";
        return false;
      }
      if (!model::IsEnabled(config, state, *parsed)) {
        std::cout << path << " step " << k << ": the model does not enable "
                  << action.dump() << "\nmodel state before: "
                  << ModelState(config, state).dump() << "\n";
        return false;
      }
      model::Outcome result;
      state = model::Apply(config, state, *parsed, &result);
      outcome = std::string(model::Name(result));
      ++*steps;
    }
    const json expected = QuintState(config, vars);
    const json actual = ModelState(config, state);
    if (expected != actual || ExpectedOutcome(vars) != outcome) {
      std::cout << path << " step " << k << " " << action.dump()
                << ": states differ\n"
                << "quint (" << ExpectedOutcome(vars)
                << "): " << expected.dump() << "\n"
                << "model (" << outcome << "): " << actual.dump() << "\n";
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  if (argc < 12) {
    std::cerr << "usage: spec_crosscheck PROTOCOL READ GC BUGS SHARDS "
                 "GENERATIONS FRAGMENTS "
                 "INDEXES COMMITS INFLIGHT TRACE.itf.json...\n";
    return 2;
  }
  Result<Config> config = ParseConfig(argv + 1);
  if (!config.ok()) {
    std::cerr << "spec_crosscheck: " << config.status().ToString() << "\n";
    return 2;
  }
  int traces = 0;
  int steps = 0;
  for (int k = 11; k < argc; ++k) {
    std::ifstream in(argv[k]);
    std::stringstream text;
    text << in.rdbuf();
    const json trace =
        json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (!in || trace.is_discarded()) {
      std::cerr << "spec_crosscheck: cannot read " << argv[k] << "\n";
      return 2;
    }
    if (!Replay(*config, argv[k], trace, &steps)) return 1;
    ++traces;
  }
  std::cout << "spec_crosscheck: " << traces << " traces, " << steps
            << " steps: the model agrees with the Quint spec at every step\n";
  return 0;
}

}  // namespace
}  // namespace memwal::spec_crosscheck

int main(int argc, char** argv) {
  return memwal::spec_crosscheck::Main(argc, argv);
}
