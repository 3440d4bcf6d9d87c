// `bench --distributed` (checker/cli/scale_bench.h).
#include "checker/cli/scale_bench.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "base/escape.h"
#include "base/json_input.h"
#include "checker/cli/commands.h"
#include "checker/lockstep/lockstep.h"
#include "model/actions.h"
#include "model/bounds.h"

namespace memwal::checker::cli {
namespace {

using nlohmann::json;

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Run {
  bool ok = false;
  double wall_s = 0;
  json report;
};

// One child run of `check --distributed` under mpirun -np `ranks`.
Run RunRanks(int ranks, const std::string& bounds, std::ostream& err) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string out_dir =
      (std::filesystem::temp_directory_path() /
       ("memwal-scale-bench-" + std::to_string(getpid())))
          .string();
  std::string command = "mpirun --oversubscribe ";
  if (geteuid() == 0) command += "--allow-run-as-root ";
  command += "-np " + std::to_string(ranks) + " '" + self +
             "' check --distributed --threads 1 --no-liveness --json --out '" +
             out_dir + "' " + bounds + " 2>/dev/null";
  Run run;
  const double began = Now();
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
    text.append(buffer, n);
  pclose(pipe);
  run.wall_s = Now() - began;
  std::error_code ignored;
  std::filesystem::remove_all(out_dir, ignored);
  const Result<json> report = ParseJsonInput(text);
  run.report = report.ok() ? *report : json(json::value_t::discarded);
  run.ok = run.report.is_object() && run.report.contains("distributed");
  if (!run.ok) err << "memwal-check bench: no report from: " << command << "\n";
  return run;
}

json Row(const Run& run) {
  const json& levels = run.report["distributed"];
  return json{
      {"ranks", levels["ranks"]},
      {"states", run.report["states_distinct"]},
      {"transitions", run.report["transitions"]},
      {"verdict", run.report["verdict"]},
      {"seconds", run.report["seconds"]},
      {"wall_seconds", run.wall_s},
      {"states_per_second_per_rank", levels["states_per_second_per_rank"]},
      {"bytes_exchanged_per_state", levels["bytes_exchanged_per_state"]},
      {"cpu_seconds", levels["cpu_seconds"]},
      {"worlds_shipped", levels["worlds_shipped"]},
      {"ship_seconds", levels["ship_seconds"]},
      {"worlds_rederived", levels["worlds_rederived"]},
      {"rederive_seconds", levels["rederive_seconds"]}};
}

// Lockstep states that move: shipping the World (impl::World::Serialize, and
// Deserialize on the receiver) against replaying the path from Init on the
// implementation. Sampled on seeded
// random walks of `depth` steps.
json ShipOrRederive(const model::Config& config, int walks, int depth) {
  const lockstep::LockstepSetup setup{.config = config};
  uint64_t random = 0x9e3779b97f4a7c15ULL;
  double ship_s = 0;
  double rederive_s = 0;
  uint64_t ship_bytes = 0;
  uint64_t steps = 0;
  std::vector<model::Action> actions;
  for (int w = 0; w < walks; ++w) {
    model::State state = model::Init(config.bounds);
    Result<impl::World> world = lockstep::InitWorld(setup);
    MEMWAL_ASSERT(world.ok());
    std::vector<model::Action> path;
    for (int k = 0; k < depth; ++k) {
      model::EnabledActions(config, state, &actions);
      if (actions.empty()) break;
      random = random * 6364136223846793005ULL + 1442695040888963407ULL;
      const model::Action action = actions[(random >> 33) % actions.size()];
      model::Outcome outcome;
      state = model::Apply(config, state, action, &outcome);
      if (!lockstep::ApplyToWorld(action, &*world).ok()) break;
      path.push_back(action);
    }
    steps += path.size();
    // Shipping: World::Serialize here, World::Deserialize on the receiver.
    double began = Now();
    const std::string wire = world->Serialize();
    Result<impl::World> received =
        impl::World::Deserialize(wire, lockstep::ImplOptions(setup));
    MEMWAL_ASSERT(received.ok());
    ship_s += Now() - began;
    ship_bytes += wire.size();
    // Re-deriving: Init, then the path on the implementation.
    began = Now();
    Result<impl::World> again = lockstep::InitWorld(setup);
    MEMWAL_ASSERT(again.ok());
    for (const model::Action& action : path)
      MEMWAL_ASSERT(lockstep::ApplyToWorld(action, &*again).ok());
    rederive_s += Now() - began;
  }
  return json{
      {"worlds", walks},
      {"mean_path_steps", static_cast<double>(steps) / walks},
      {"ship_bytes_per_world", static_cast<double>(ship_bytes) / walks},
      {"ship_us_per_world", ship_s * 1e6 / walks},
      {"rederive_us_per_world", rederive_s * 1e6 / walks},
      {"rederive_bytes_per_world", 2.0 * static_cast<double>(steps) / walks}};
}

struct Case {
  const char* name;
  const char* bounds;
  bool lockstep;
};

bool SameAnswer(const Run& a, const Run& b) {
  return a.report["states_distinct"] == b.report["states_distinct"] &&
         a.report["transitions"] == b.report["transitions"] &&
         a.report["verdict"] == b.report["verdict"];
}

// The case on 1 and 2 ranks (and, for lockstep, the same 2-rank run again,
// right after, re-deriving the Worlds of moved states instead of shipping
// them); nullopt when a run failed (said on `err`).
std::optional<json> RunCase(const Case& c, std::ostream& err) {
  const Run one = RunRanks(1, c.bounds, err);
  const Run two = RunRanks(2, c.bounds, err);
  if (!one.ok || !two.ok) return std::nullopt;
  const Run rederive =
      c.lockstep ? RunRanks(2, std::string(c.bounds) + " --rederive-moved", err)
                 : Run{};
  if (c.lockstep && !rederive.ok) return std::nullopt;
  const double rate1 = one.report["distributed"]["states_per_second_per_rank"];
  const double rate2 = two.report["distributed"]["states_per_second_per_rank"];
  json row = {{"case", c.name},
              {"bounds", c.bounds},
              {"one_rank", Row(one)},
              {"two_ranks", Row(two)},
              // Rate at 2 ranks over twice the rate at 1: 1.0 is linear.
              {"scaling_efficiency", rate1 > 0 ? rate2 / rate1 : 0.0},
              {"same_answer", SameAnswer(one, two)}};
  if (c.lockstep) {
    row["two_ranks_rederive"] = Row(rederive);
    row["same_answer"] =
        row["same_answer"].get<bool>() && SameAnswer(rederive, two);
  }
  return row;
}

// One line of a case's run on `key` ("one_rank", ...).
std::string RankLine(const json& r, std::string_view key) {
  char line[512];
  std::snprintf(
      line, sizeof(line),
      "  %d rank(s)%s: %llu states in %.2f s (wall %.2f s, CPU %.2f s), "
      "%.0f "
      "states/s per rank, %.1f bytes exchanged per state, %llu Worlds "
      "shipped (%.2f s), %llu re-derived (%.2f s)\n",
      r["ranks"].get<int>(),
      key == "two_ranks_rederive" ? " --rederive-moved" : "",
      static_cast<unsigned long long>(r["states"].get<uint64_t>()),
      r["seconds"].get<double>(), r["wall_seconds"].get<double>(),
      r["cpu_seconds"].get<double>(),
      r["states_per_second_per_rank"].get<double>(),
      r["bytes_exchanged_per_state"].get<double>(),
      static_cast<unsigned long long>(r["worlds_shipped"].get<uint64_t>()),
      r["ship_seconds"].get<double>(),
      static_cast<unsigned long long>(r["worlds_rederived"].get<uint64_t>()),
      r["rederive_seconds"].get<double>());
  return line;
}

void PrintScaleText(const json& document, std::ostream& out) {
  char line[512];
  for (const json& row : document["cases"]) {
    out << "distributed bfs, " << row["case"].get<std::string>() << ":\n";
    for (const char* key : {"one_rank", "two_ranks", "two_ranks_rederive"}) {
      if (row.contains(key)) out << RankLine(row[key], key);
    }
    std::snprintf(line, sizeof(line),
                  "  scaling efficiency at 2 ranks: %.2f (same answer: %s)\n",
                  row["scaling_efficiency"].get<double>(),
                  row["same_answer"].get<bool>() ? "yes" : "NO");
    out << line;
  }
  const json& s = document["ship_or_rederive"];
  std::snprintf(
      line, sizeof(line),
      "lockstep World of a moved state (tiny, %d walks of 10 steps, mean %.1f "
      "steps): ship (Serialize + Deserialize) %.0f bytes, %.0f us; re-derive "
      "from path %.0f "
      "bytes, %.0f us\n",
      s["worlds"].get<int>(), s["mean_path_steps"].get<double>(),
      s["ship_bytes_per_world"].get<double>(),
      s["ship_us_per_world"].get<double>(),
      s["rederive_bytes_per_world"].get<double>(),
      s["rederive_us_per_world"].get<double>());
  out << line;
}

}  // namespace

int RunScaleBench(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  bool json_out = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json_out = true;
    } else if (arg != "--distributed") {
      return Fail(
          err, "bench",
          "--distributed takes --json only, not '" + Escaped(arg) + "'");
    }
  }
  const Case cases[] = {
      {"model-only small", "--preset small --model-only", false},
      {"lockstep tiny --commits 3 --inflight 1",
       "--preset tiny --commits 3 --inflight 1", true}};
  json document = {{"cases", json::array()}};
  for (const Case& c : cases) {
    std::optional<json> row = RunCase(c, err);
    if (!row.has_value()) return 2;
    document["cases"].push_back(std::move(*row));
  }
  model::Config config;
  config.bounds = *model::ParsePreset("tiny");
  document["ship_or_rederive"] = ShipOrRederive(config, 200, 10);
  if (json_out) {
    out << document.dump() << "\n";
  } else {
    PrintScaleText(document, out);
  }
  return 0;
}

}  // namespace memwal::checker::cli
