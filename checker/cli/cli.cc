// Command-line parsing and help texts (checker/cli.h).
#include "checker/cli/cli.h"

#include <sstream>
#include <utility>

#include "base/output_file.h"

namespace memwal::checker::cli {
namespace {

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

Result<int> ParseBound(std::string_view flag, std::string_view text) {
  MEMWAL_ASSIGN_OR_RETURN(const uint64_t value, ParseUnsigned(flag, text));
  if (value > 255) return Usage(std::string(flag) + " is out of range");
  return static_cast<int>(value);
}

// A flag whose value `parse` turns into *field.
template <typename T, typename Parse>
Flag Parsed(std::string name, T* field, Parse parse) {
  return Valued(std::move(name), [field, parse](std::string_view value) {
    MEMWAL_ASSIGN_OR_RETURN(*field, parse(std::string(value)));
    return Status::Ok();
  });
}

// An unsigned flag within [low, high].
template <typename T>
Flag Number(std::string name, T* field, uint64_t low, uint64_t high,
            std::string range) {
  return Valued(
      name, [name, field, low, high, range](std::string_view value) -> Status {
        MEMWAL_ASSIGN_OR_RETURN(const uint64_t number,
                                ParseUnsigned(name, value));
        if (number < low || number > high)
          return Usage(name + " must be " + range);
        *field = static_cast<T>(number);
        return Status::Ok();
      });
}

Result<Command> ParseCheck(const std::vector<std::string>& args) {
  CheckFlagSet set;
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("check", args, set.Flags()));
  if (parsed.help) return Command{.kind = Command::Kind::kCheckHelp};
  MEMWAL_RETURN_IF_ERROR(set.Finish());
  return Command{
      .kind = Command::Kind::kCheck, .check = set.check, .run = set.run};
}

Result<Command> ParseReplay(const std::vector<std::string>& args) {
  Command command{.kind = Command::Kind::kReplay};
  const std::vector<Flag> flags = {
      Switch("--json", [&command] { command.replay.json = true; })};
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("replay", args, flags, 1));
  if (parsed.help) return Command{.kind = Command::Kind::kReplayHelp};
  if (parsed.positional.empty()) return Usage("replay needs a TRACE file");
  command.replay.trace_path = parsed.positional[0];
  return command;
}

}  // namespace

std::vector<Flag> CheckFlagSet::Flags() {
  model::Config& config = check.config;
  std::vector<Flag> flags = {
      // The configuration (spec sections 1 and 8).
      Parsed("--protocol", &config.protocol, model::ParseProtocol),
      Parsed("--read", &config.read, model::ParseReadMode),
      Parsed("--gc", &config.gc, model::ParseGcMode),
      Parsed("--env", &config.env, model::ParseEnv),
      Parsed("--fence", &config.fence, model::ParseFence),
      Valued("--bug",
             [&config](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug,
                                       model::ParseBug(std::string(value)));
               config.bugs |= model::BugBit(bug);
               return Status::Ok();
             }),
      Valued("--impl-bug",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug,
                                       model::ParseBug(std::string(value)));
               run.impl_only_bugs |= model::BugBit(bug);
               return Status::Ok();
             }),
      // The bounds (spec section 2).
      Parsed("--preset", &config.bounds, model::ParsePreset),
      Parsed("--shards", &overrides_.shards,
             [](const std::string& v) { return ParseBound("--shards", v); }),
      Parsed(
          "--generations", &overrides_.generations,
          [](const std::string& v) { return ParseBound("--generations", v); }),
      Parsed("--fragments", &overrides_.fragments,
             [](const std::string& v) { return ParseBound("--fragments", v); }),
      Parsed("--indexes", &overrides_.indexes,
             [](const std::string& v) { return ParseBound("--indexes", v); }),
      Parsed("--commits", &overrides_.commits,
             [](const std::string& v) { return ParseBound("--commits", v); }),
      Parsed("--inflight", &overrides_.inflight,
             [](const std::string& v) { return ParseBound("--inflight", v); }),
      Parsed(
          "--reinstalls", &overrides_.reinstalls,
          [](const std::string& v) { return ParseBound("--reinstalls", v); }),
      // The run.
      Switch("--model-only", [this] { check.model_only = true; }),
      Switch("--json", [this] { check.json = true; }),
      // 0 is refused, not read as "no limit": omit the flag for none.
      Valued("--max-states",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t number,
                                       ParseUnsigned("--max-states", value));
               if (number < 1) return Usage("--max-states must be at least 1");
               check.explore.max_states = number;
               check.explore.liveness_max_states = number;
               return Status::Ok();
             }),
      Number("--time-limit", &check.explore.time_limit_s, 1, UINT64_MAX,
             "at least 1"),
      Number("--seed", &check.seed, 0, UINT64_MAX, "a non-negative integer"),
      Valued("--out",
             [this](std::string_view value) -> Status {
               if (value.empty()) return Usage("--out needs a directory");
               check.out_dir = value;
               return Status::Ok();
             }),
      // The search (checker/engine/search.h) and lockstep.
      Valued("--mode",
             [this](std::string_view value) -> Status {
               if (value == "bfs") {
                 run.order = engine::Order::kBfs;
               } else if (value == "dfs") {
                 run.order = engine::Order::kDfs;
               } else if (value == "random") {
                 run.order = engine::Order::kRandom;
               } else {
                 return Usage("--mode must be bfs, dfs or random");
               }
               return Status::Ok();
             }),
      Number("--threads", &run.threads, 1, 256, "1..256"),
      Valued("--walks",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(run.walks,
                                       ParseUnsigned("--walks", value));
               if (run.walks < 1) return Usage("--walks must be at least 1");
               run.walks_given = true;
               return Status::Ok();
             }),
      Valued("--depth",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t depth,
                                       ParseUnsigned("--depth", value));
               if (depth < 1 || depth > 10000)
                 return Usage("--depth must be 1..10000");
               run.depth = static_cast<int>(depth);
               run.walks_given = true;
               return Status::Ok();
             }),
      Number("--memory-limit", &run.memory_limit_mb, 1, UINT64_MAX,
             "at least 1 (MB)"),
      Switch("--continue", [this] { run.keep_going = true; }),
      Switch("--liveness", [this] { run.liveness = true; }),
      Switch("--no-liveness", [this] { run.liveness = false; }),
      Switch("--symmetry", [this] { run.symmetry = true; }),
      Switch("--no-symmetry", [this] { run.symmetry = false; }),
      Switch("--no-layers", [this] { run.layered = false; }),
      Valued("--storage",
             [this](std::string_view value) -> Status {
               if (value == "fingerprint") {
                 run.storage = engine::Storage::kFingerprint;
               } else if (value == "exact") {
                 run.storage = engine::Storage::kExact;
               } else {
                 return Usage("--storage must be fingerprint or exact");
               }
               return Status::Ok();
             }),
      Valued("--html",
             [this](std::string_view value) -> Status {
               if (value.empty()) return Usage("--html needs a directory");
               run.html_dir = value;
               return Status::Ok();
             }),
  };
  // --distributed, --checkpoint, --checkpoint-every, --resume and the
  // bench's --rederive-moved (the level engine's own parser,
  // checker/engine/distributed.h).
  for (const auto& [name, valued] : {std::pair{"--distributed", false},
                                     {"--checkpoint", true},
                                     {"--checkpoint-every", true},
                                     {"--resume", true},
                                     {"--pause-after-snapshot", true},
                                     {"--rederive-moved", false}}) {
    flags.push_back(
        Flag{.name = name,
             .takes_value = valued,
             .apply = [this, flag = std::string(name)](std::string_view value) {
               return engine::ParseScaleOutFlag(
                          flag,
                          [value](std::string_view) -> Result<std::string> {
                            return std::string(value);
                          },
                          &run.scale_out)
                   .status();
             }});
  }
  return flags;
}

Status CheckFlagSet::Finish() {
  model::Bounds& b = check.config.bounds;
  for (auto [field, value] : {std::pair{&b.shards, overrides_.shards},
                              {&b.generations, overrides_.generations},
                              {&b.fragments, overrides_.fragments},
                              {&b.indexes, overrides_.indexes},
                              {&b.commits, overrides_.commits},
                              {&b.inflight, overrides_.inflight},
                              {&b.reinstalls, overrides_.reinstalls}}) {
    if (value >= 0) *field = value;
  }
  return model::CheckConfig(check.config);
}

Result<Command> ParseCommandLine(const std::vector<std::string>& argv) {
  if (argv.empty()) return Usage("missing command (see memwal-check --help)");
  const std::string& command = argv[0];
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  if (command == "--help" || command == "-h" || command == "help")
    return Command{};
  if (command == "check") return ParseCheck(args);
  if (command == "replay") return ParseReplay(args);
  return Usage("unknown command '" + Escaped(command) +
               "' (see memwal-check --help)");
}

std::string MainHelp() {
  return "memwal-check: a model checker for Lance's MemWAL index catch-up "
         "protocol\n"
         "\n"
         "usage: memwal-check COMMAND [options]\n"
         "\n"
         "commands:\n"
         "  check     explore every interleaving within bounds; report the "
         "first broken\n"
         "            invariant with a shortest trace (see check --help)\n"
         "  replay    re-execute a trace on the model and the implementation "
         "(replay --help)\n"
         "  variants  every protocol, read mode, gc mode and known bug side by "
         "side\n"
         "  minimize  delta-debug a counterexample trace (model + "
         "implementation re-check)\n"
         "  compare   run two switch sets side by side (compare --help)\n"
         "  corpus    write interleavings as a fuzzing corpus (corpus --help)\n"
         "  report    render a trace as a self-contained HTML page (report "
         "--help)\n"
         "  bench     SPIN's pan against our search on the same model (bench "
         "--help)\n"
         "  inspect   read a Lance table directory: manifests, indexes, MemWAL "
         "state, findings\n"
         "\n"
         "exit codes: 0 ok, 1 violation or missed goal, 2 bad usage or input, "
         "3 budget ran out\n";
}

std::string CheckHelp() {
  std::ostringstream help;
  help << "usage: memwal-check check [options]\n\n"
          "switches (spec/protocol.md sections 1 and 8):\n"
          "  --protocol P     derived (default), advance, unconditional, "
          "legacy\n"
          "  --read R         strict (default), min, single-index\n"
          "  --gc G           atomic (default), stale-read, recheck\n"
          "  --env E          none (default), foreign: add the environment "
          "actions of\n"
          "                   spec section 10 (ForeignHalfSet, CallerAdvance, "
          "ResetMemWal,\n"
          "                   DropMemWal, ForeignCompaction)\n"
          "  --bug NAME       switch on a known bug (repeatable); see the list "
          "below\n"
          "bounds (spec section 2):\n"
          "  --preset NAME    tiny, small (default), medium, large, gate (tiny "
          "with 2 shards\n"
          "                   and 2 indexes: what ./memwal check runs)\n"
          "  --shards N --generations N --fragments N --indexes N --commits N "
          "--inflight N\n"
          "                   override single bounds of the preset\n"
          "  --reinstalls N   at most N MemWAL re-installs (R39) per run "
          "(gate: 1, others: 0)\n"
          "run:\n"
          "  (lockstep, modes, threads, liveness: see the options after the "
          "bug list)\n"
          "  --max-states N   stop (exit 3) after N distinct states (default: "
          "50,000,000 in\n"
          "                   the search, none in the liveness pass)\n"
          "  --time-limit S   stop (exit 3) after S seconds\n"
          "  --seed N         the run's seed (printed; recorded in traces)\n"
          "  --out DIR        where counterexamples go (default memwal-out/)\n"
          "  --json           one JSON object on stdout instead of text\n"
          "\nknown bugs:\n";
  for (const model::BugInfo& info : model::AllBugs()) {
    help << "  " << info.name << " [" << info.protocols << "]\n      "
         << info.description << "\n      "
         << (info.in_model ? "model: expect "
                           : "not in the model (impl only): ")
         << info.reason << "\n";
    if (model::RequiredEnv(info.bug) == model::Env::kForeign)
      help << "      reached in lockstep with --env foreign (switched on "
              "automatically)\n";
  }
  return help.str();
}

std::string ReplayHelp() {
  return "usage: memwal-check replay TRACE [--json]\n\n"
         "Re-executes a memwal-check trace (TRACE.trace.json) on the model "
         "under the trace's\n"
         "config, checks that every step is enabled, and reports the first "
         "broken invariant.\n"
         "Exit 1 if an invariant breaks, 0 if none does, 2 if the trace is "
         "unreadable or a\n"
         "step is not enabled.\n";
}

std::string CheckCommandLine(const CheckOptions& options) {
  const model::Config& c = options.config;
  std::ostringstream line;
  line << "memwal-check check --model-only --protocol "
       << model::Name(c.protocol) << " --read " << model::Name(c.read)
       << " --gc " << model::Name(c.gc);
  if (model::IsForeign(c)) line << " --env " << model::Name(c.env);
  if (c.fence != model::Fence::kNone)
    line << " --fence " << model::Name(c.fence);
  for (const model::BugInfo& info : model::AllBugs()) {
    if (model::Has(c, info.bug)) line << " --bug " << info.name;
  }
  const std::string_view preset = model::PresetName(c.bounds);
  if (preset != "custom") {
    line << " --preset " << preset;
  } else {
    line << " --shards " << c.bounds.shards << " --generations "
         << c.bounds.generations << " --fragments " << c.bounds.fragments
         << " --indexes " << c.bounds.indexes << " --commits "
         << c.bounds.commits << " --inflight " << c.bounds.inflight;
    if (c.bounds.reinstalls != 0)
      line << " --reinstalls " << c.bounds.reinstalls;
  }
  line << " --seed " << options.seed;
  return line.str();
}

std::string EnableRequiredEnv(model::Config* config, uint32_t impl_bugs) {
  if (model::IsForeign(*config)) return "";
  std::string names;
  for (const model::BugInfo& info : model::AllBugs()) {
    const bool on = model::Has(*config, info.bug) ||
                    (impl_bugs & model::BugBit(info.bug)) != 0;
    if (!on || model::RequiredEnv(info.bug) != model::Env::kForeign) continue;
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  }
  if (names.empty()) return "";
  config->env = model::Env::kForeign;
  return "env foreign switched on: " + names +
         " needs the environment actions of spec section 10";
}

Status CheckBugsApply(const model::Config& config, uint32_t impl_bugs) {
  for (const model::BugInfo& info : model::AllBugs()) {
    const bool on = model::Has(config, info.bug) ||
                    (impl_bugs & model::BugBit(info.bug)) != 0;
    if (!on || model::BugApplies(info, config.protocol)) continue;
    return Status::InvalidArgument(
        "bug " + std::string(info.name) + " does not apply to protocol " +
        std::string(model::Name(config.protocol)) + " (it applies to " +
        std::string(info.protocols == "bit" ? "derived, advance"
                                            : info.protocols) +
        ")");
  }
  return Status::Ok();
}

}  // namespace memwal::checker::cli
