// Trace files (checker/report/trace.h).
//
// ITF encoding of a model state (one ITF state per step; ints are
// {"#bigint":"N"}, sets are
// {"#set":[...]}, records are objects, lists are arrays):
//   versions: list of {number, live: set, segments: list (per index) of list of
//             {uuid, covers: set}, compacted: list (per shard), catchup: list
//             (per index) of list (per shard), reader_bit, writer_bit,
//             retained: bool, op: string}
//   inflight: list of {kind: string, read_version, shard, generation, marker:
//   bool,
//             fragment, second_fragment, index, segment: {uuid, covers},
//             removed_uuid}
//   flushed: list per shard; retired: list per shard of set of generations;
//   pending: set of [shard, generation] tuples ({"#tup":[...]}); committed,
//   next_fragment; rows: list per fragment (0..next_fragment-1) of set of
//   tuples; deleted: set of tuples; retire_cover: list per shard of list per
//   generation of set of indexes; activated: bool.
#include "checker/report/trace.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/input_file.h"
#include "base/json_input.h"
#include "base/output_file.h"

namespace memwal::checker::report {
namespace {

using model::Bounds;
using model::Config;
using nlohmann::json;

Status Bad(std::string_view message) {
  return Status::InvalidArgument(message);
}

Result<int> IntField(const json& object, const char* key, int min, int max) {
  if (!object.contains(key))
    return Bad(std::string("missing field \"") + key + "\"");
  const json& value = object[key];
  if (!value.is_number_unsigned())
    return Bad(std::string("\"") + key + "\" must be an integer");
  const uint64_t n = value.get<uint64_t>();
  if (n < static_cast<uint64_t>(min) || n > static_cast<uint64_t>(max)) {
    return Bad(std::string("\"") + key + "\" out of range");
  }
  return static_cast<int>(n);
}

Result<std::string> StringField(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_string()) {
    return Bad(std::string("missing string field \"") + key + "\"");
  }
  return object[key].get<std::string>();
}

Status ExactKeys(const json& object, const std::vector<const char*>& keys,
                 std::string_view what) {
  if (!object.is_object()) return Bad(std::string(what) + " must be an object");
  for (const char* key : keys) {
    if (!object.contains(key)) {
      return Bad(std::string(what) + " is missing \"" + key + "\"");
    }
  }
  if (object.size() != keys.size())
    return Bad(std::string(what) + " has unexpected fields");
  return Status::Ok();
}

Status ExactKeys(const json& object, std::initializer_list<const char*> keys,
                 std::string_view what) {
  return ExactKeys(object, std::vector<const char*>(keys), what);
}

Result<Bounds> BoundsFromJson(const json& json_bounds) {
  // "reinstalls" is written only when set (R39), so older traces read as
  // before.
  if (json_bounds.is_object() && json_bounds.contains("reinstalls")) {
    MEMWAL_RETURN_IF_ERROR(
        ExactKeys(json_bounds,
                  {"shards", "generations", "fragments", "indexes", "commits",
                   "inflight", "reinstalls"},
                  "bounds"));
  } else {
    MEMWAL_RETURN_IF_ERROR(ExactKeys(json_bounds,
                                     {"shards", "generations", "fragments",
                                      "indexes", "commits", "inflight"},
                                     "bounds"));
  }
  Bounds b;
  MEMWAL_ASSIGN_OR_RETURN(b.shards, IntField(json_bounds, "shards", 0, 255));
  MEMWAL_ASSIGN_OR_RETURN(b.generations,
                          IntField(json_bounds, "generations", 0, 255));
  MEMWAL_ASSIGN_OR_RETURN(b.fragments,
                          IntField(json_bounds, "fragments", 0, 255));
  MEMWAL_ASSIGN_OR_RETURN(b.indexes, IntField(json_bounds, "indexes", 0, 255));
  MEMWAL_ASSIGN_OR_RETURN(b.commits, IntField(json_bounds, "commits", 0, 255));
  MEMWAL_ASSIGN_OR_RETURN(b.inflight,
                          IntField(json_bounds, "inflight", 0, 255));
  if (json_bounds.contains("reinstalls")) {
    MEMWAL_ASSIGN_OR_RETURN(b.reinstalls,
                            IntField(json_bounds, "reinstalls", 0, 255));
  }
  MEMWAL_RETURN_IF_ERROR(model::CheckBounds(b));
  return b;
}

json Int(int64_t n) { return json{{"#bigint", std::to_string(n)}}; }

json Set(uint8_t bits, int offset) {
  json items = json::array();
  for (int k = 0; k < 8; ++k) {
    if ((bits >> k) & 1) items.push_back(Int(k + offset));
  }
  return json{{"#set", items}};
}

json RowSetJson(model::RowSet rows) {
  json items = json::array();
  for (int bit = 0; bit < 8; ++bit) {
    if (!((rows >> bit) & 1)) continue;
    const int shard = bit / model::kGenerationsMax;
    const int generation = bit % model::kGenerationsMax + 1;
    items.push_back(json{{"#tup", json::array({Int(shard), Int(generation)})}});
  }
  return json{{"#set", items}};
}

json SegmentJson(const model::Segment& segment) {
  return json{{"uuid", Int(segment.uuid)}, {"covers", Set(segment.covers, 0)}};
}

json VersionJson(const Config& config, const model::Version& v) {
  json segments = json::array();
  json catchup = json::array();
  for (int i = 0; i < config.bounds.indexes; ++i) {
    json list = json::array();
    for (const model::Segment& s : v.segments[i]) {
      if (s.uuid != 0) list.push_back(SegmentJson(s));
    }
    segments.push_back(list);
    json per_shard = json::array();
    for (int s = 0; s < config.bounds.shards; ++s)
      per_shard.push_back(Int(v.catchup[i][s]));
    catchup.push_back(per_shard);
  }
  json compacted = json::array();
  for (int s = 0; s < config.bounds.shards; ++s)
    compacted.push_back(Int(v.compacted[s]));
  json out{{"number", Int(v.number)},
           {"live", Set(v.live, 0)},
           {"segments", segments},
           {"compacted", compacted},
           {"catchup", catchup},
           {"reader_bit", v.reader_bit},
           {"writer_bit", v.writer_bit},
           {"retained", v.retained},
           {"op", std::string(model::Name(v.op.kind))}};
  // R63: only on a version whose __lance_mem_wal was dropped.
  if (v.mem_wal_dropped) out["mem_wal_dropped"] = true;
  return out;
}

json TxnJson(const model::Txn& t) {
  json out{{"kind", std::string(model::Name(t.kind))},
           {"read_version", Int(t.read_version)},
           {"shard", Int(t.shard)},
           {"generation", Int(t.generation)},
           {"marker", t.marker},
           {"fragment", Int(t.fragment)},
           {"second_fragment", Int(t.second_fragment)},
           {"index", Int(t.index)},
           {"segment", SegmentJson(t.segment)},
           {"removed_uuid", Int(t.removed_uuid)}};
  // R61's caller offer + 1, only on transactions CallerAdvance began.
  if (t.advance != 0) out["advance"] = Int(t.advance);
  return out;
}

json StateJson(const Config& config, const model::State& state) {
  json versions = json::array();
  for (int v = 0; v < state.version_count; ++v) {
    versions.push_back(VersionJson(config, state.versions[v]));
  }
  json inflight = json::array();
  for (int t = 0; t < state.inflight_count; ++t)
    inflight.push_back(TxnJson(state.inflight[t]));
  json flushed = json::array();
  json retired = json::array();
  json cover = json::array();
  for (int s = 0; s < config.bounds.shards; ++s) {
    flushed.push_back(Int(state.flushed[s]));
    retired.push_back(Set(state.retired[s], 1));
    json per_generation = json::array();
    for (int g = 1; g <= config.bounds.generations; ++g) {
      per_generation.push_back(
          Set(state.retire_cover[s * model::kGenerationsMax + g - 1], 0));
    }
    cover.push_back(per_generation);
  }
  json rows = json::array();
  for (int f = 0; f < state.next_fragment; ++f)
    rows.push_back(RowSetJson(state.rows[f]));
  return json{{"versions", versions},
              {"inflight", inflight},
              {"flushed", flushed},
              {"retired", retired},
              {"pending", RowSetJson(state.pending)},
              {"committed", Int(state.committed)},
              {"next_fragment", Int(state.next_fragment)},
              {"rows", rows},
              {"deleted", RowSetJson(state.deleted)},
              {"retire_cover", cover},
              {"activated", state.activated}};
}

}  // namespace

json ConfigToJson(const Config& config) {
  json bugs = json::array();
  for (const model::BugInfo& info : model::AllBugs()) {
    if (model::Has(config, info.bug)) bugs.push_back(std::string(info.name));
  }
  const Bounds& b = config.bounds;
  json out{{"bugs", bugs},
           {"bounds", json{{"shards", b.shards},
                           {"generations", b.generations},
                           {"fragments", b.fragments},
                           {"indexes", b.indexes},
                           {"commits", b.commits},
                           {"inflight", b.inflight}}}};
  if (b.reinstalls != 0) out["bounds"]["reinstalls"] = b.reinstalls;
  // Every registered switch (model/switches.h); env, fence and the later ones
  // only when set, so that traces written before they existed read as before.
  for (const model::Switch& variant : model::AllSwitches()) {
    if (variant.info().always_shown || !variant.IsDefault(config))
      out[std::string(variant.info().name)] =
          std::string(variant.Spelling(config));
  }
  return out;
}

Result<Config> ConfigFromJson(const json& object) {
  const std::vector<model::Switch> switches = model::AllSwitches();
  std::vector<std::string> names;  // the switches this config names
  for (const model::Switch& variant : switches) {
    const std::string name(variant.info().name);
    if (variant.info().always_shown ||
        (object.is_object() && object.contains(name)))
      names.push_back(name);
  }
  std::vector<const char*> keys;
  for (const std::string& name : names) keys.push_back(name.c_str());
  keys.push_back("bugs");
  keys.push_back("bounds");
  MEMWAL_RETURN_IF_ERROR(ExactKeys(object, keys, "config"));
  Config config;
  for (const model::Switch& variant : switches) {
    const std::string name(variant.info().name);
    if (!object.contains(name)) continue;
    MEMWAL_ASSIGN_OR_RETURN(const std::string value,
                            StringField(object, name.c_str()));
    MEMWAL_ASSIGN_OR_RETURN(const uint8_t index, variant.Parse(value));
    variant.Set(&config, index);
  }
  if (!object["bugs"].is_array()) return Bad("\"bugs\" must be an array");
  config.bugs = 0;
  for (const json& name : object["bugs"]) {
    if (!name.is_string()) return Bad("\"bugs\" must hold strings");
    MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug,
                            model::ParseBug(name.get<std::string>()));
    config.bugs |= model::BugBit(bug);
  }
  MEMWAL_ASSIGN_OR_RETURN(config.bounds, BoundsFromJson(object["bounds"]));
  return config;
}

json TraceToJson(const Trace& trace) {
  json steps = json::array();
  for (const model::Action& action : trace.steps) {
    steps.push_back(json{{"action", model::ToJson(action)}});
  }
  json out{{"format", std::string(kTraceFormat)},  {"version", kTraceVersion},
           {"config", ConfigToJson(trace.config)}, {"seed", trace.seed},
           {"invariant", trace.invariant},         {"steps", steps}};
  if (trace.loop) out["loop"] = *trace.loop;
  if (trace.window) out["window"] = *trace.window;
  return out;
}

Result<Trace> TraceFromJson(const json& object) {
  if (!object.is_object()) return Bad("a trace must be a JSON object");
  MEMWAL_ASSIGN_OR_RETURN(const std::string format,
                          StringField(object, "format"));
  if (format != kTraceFormat)
    return Bad("not a memwal-check trace (format \"" + format + "\")");
  if (!object.contains("version") || !object["version"].is_number_unsigned() ||
      object["version"].get<uint64_t>() != kTraceVersion) {
    return Bad("unsupported trace version (this build reads version 1)");
  }
  Trace trace;
  json rest = object;
  if (const auto loop = rest.find("loop"); loop != rest.end()) {
    if (!loop->is_number_unsigned())
      return Bad("\"loop\" must be an unsigned integer");
    trace.loop = loop->get<uint64_t>();
    rest.erase("loop");
  }
  if (const auto window = rest.find("window"); window != rest.end()) {
    if (!window->is_number_unsigned() || !trace.loop ||
        window->get<uint64_t>() > *trace.loop)
      return Bad("\"window\" must be an unsigned integer at most \"loop\"");
    trace.window = window->get<uint64_t>();
    rest.erase("window");
  }
  MEMWAL_RETURN_IF_ERROR(ExactKeys(
      rest, {"format", "version", "config", "seed", "invariant", "steps"},
      "trace"));
  MEMWAL_ASSIGN_OR_RETURN(trace.config, ConfigFromJson(object["config"]));
  if (!object["seed"].is_number_unsigned())
    return Bad("\"seed\" must be an unsigned integer");
  trace.seed = object["seed"].get<uint64_t>();
  MEMWAL_ASSIGN_OR_RETURN(trace.invariant, StringField(object, "invariant"));
  if (!object["steps"].is_array()) return Bad("\"steps\" must be an array");
  for (const json& step : object["steps"]) {
    MEMWAL_RETURN_IF_ERROR(ExactKeys(step, {"action"}, "step"));
    auto action = model::ActionFromJson(step["action"]);
    if (!action.ok()) {
      return Bad("step " + std::to_string(trace.steps.size() + 1) + ": " +
                 action.status().message());
    }
    trace.steps.push_back(*action);
  }
  // (The lockstep reader parses the steps apart and checks it after them.)
  if (trace.loop && !trace.steps.empty() && *trace.loop > trace.steps.size()) {
    return Bad("\"loop\" is " + std::to_string(*trace.loop) +
               ", not one of the " + std::to_string(trace.steps.size()) +
               " steps");
  }
  return trace;
}

Result<Trace> ParseTrace(std::string_view text) {
  Result<json> object = ParseJsonInput(text);
  if (!object.ok()) return Bad("the trace: " + object.status().message());
  return TraceFromJson(*object);
}

json ToItf(const Config& config, std::string_view invariant,
           const std::vector<model::Action>& trace,
           const std::vector<model::State>& states,
           std::optional<std::size_t> loop) {
  MEMWAL_ASSERT(states.size() == trace.size() + 1);
  json vars = json::array({"versions", "inflight", "flushed", "retired",
                           "pending", "committed", "next_fragment", "rows",
                           "deleted", "retire_cover", "activated",
                           "mbt::actionTaken", "mbt::nondetPicks"});
  json itf_states = json::array();
  for (std::size_t k = 0; k < states.size(); ++k) {
    json state = StateJson(config, states[k]);
    state["#meta"] = json{{"index", k}};
    json picks = json::object();
    std::string taken = "init";
    if (k > 0) {
      const json action = model::ToJson(trace[k - 1]);
      taken = action["kind"].get<std::string>();
      for (const auto& [key, value] : action.items()) {
        if (key == "kind") continue;
        picks[key] = value.is_boolean() ? value : Int(value.get<int64_t>());
      }
    }
    state["mbt::actionTaken"] = taken;
    state["mbt::nondetPicks"] = picks;
    itf_states.push_back(state);
  }
  // ITF's loop: the last state equals states[loop] (the cycle closes), so
  // the loop index is that of the state the cycle's first step leaves.
  json document =
      json{{"#meta",
            {{"format", "ITF"},
             {"format-description",
              "https://apalache-mc.org/docs/adr/015adr-trace.html"},
             {"source", "memwal-check model"},
             {"status", "violation"},
             {"description", "violation of " + std::string(invariant) +
                                 " under " + model::ToString(config)}}},
           {"vars", vars},
           {"states", itf_states}};
  if (loop) document["loop"] = *loop;
  return document;
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  return WriteOutputFile(path, contents);
}

Result<std::string> ReadFile(const std::string& path) {
  // Trace files and variants rows are small (a step is a few dozen bytes); a
  // bound keeps an untrusted path (a huge file) from exhausting memory, and
  // the shared reader refuses a FIFO or a device without blocking.
  constexpr std::size_t kTraceFileBytesMax = std::size_t{64} << 20;
  return ReadInputFile(path, kTraceFileBytesMax);
}

json BugNames(uint32_t bugs) {
  json names = json::array();
  for (const model::BugInfo& info : model::AllBugs()) {
    if (bugs & model::BugBit(info.bug)) names.push_back(std::string(info.name));
  }
  return names;
}

std::string LockstepTraceText(const LockstepTrace& trace) {
  json document = TraceToJson(trace.trace);
  document["version"] = static_cast<uint64_t>(kLockstepTraceVersion);
  document["lockstep"] = trace.lockstep;
  document["impl_bugs"] = BugNames(trace.impl_only_bugs);
  document["step"] = trace.step;
  document["detail"] = trace.detail;
  document["implementation_state"] = trace.implementation_state;
  return document.dump(2);
}

}  // namespace memwal::checker::report
