// Command-line parsing and help texts (checker/cli.h).
#include "checker/cli/cli.h"

#include <sstream>

#include "base/output_file.h"

namespace memwal::checker::cli {
namespace {

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

Result<uint64_t> ParseUnsigned(std::string_view flag, std::string_view text) {
  const bool digits =
      !text.empty() && text.find_first_not_of("0123456789") == text.npos;
  if (!digits) {
    return Usage(std::string(flag) + " needs a non-negative integer, not '" +
                 Escaped(text, 40) + "'");
  }
  // 18 digits always fit; longer numbers are refused as out of range, not as
  // "not an integer".
  if (text.size() > 18) {
    return Usage(std::string(flag) +
                 " is out of range (at most 18 digits, not '" +
                 Escaped(text, 40) + "')");
  }
  uint64_t value = 0;
  for (char c : text) value = value * 10 + static_cast<uint64_t>(c - '0');
  return value;
}

Result<int> ParseBound(std::string_view flag, std::string_view text) {
  MEMWAL_ASSIGN_OR_RETURN(const uint64_t value, ParseUnsigned(flag, text));
  if (value > 255) return Usage(std::string(flag) + " is out of range");
  return static_cast<int>(value);
}

// Walks argv with one-argument lookahead for flag values.
class Args {
 public:
  explicit Args(const std::vector<std::string>& args) : args_(args) {}
  bool Done() const { return next_ >= args_.size(); }
  const std::string& Next() { return args_[next_++]; }
  Result<std::string> Value(std::string_view flag) {
    if (Done()) return Usage(std::string(flag) + " needs a value");
    return Next();
  }

 private:
  const std::vector<std::string>& args_;
  std::size_t next_ = 0;
};

// Sets one bound flag ("--shards" ...) on `bounds`; false when `flag` is not a
// bound flag.
Result<bool> ParseBoundFlag(std::string_view flag, Args* args,
                            model::Bounds* bounds) {
  int* field = nullptr;
  if (flag == "--shards") field = &bounds->shards;
  if (flag == "--generations") field = &bounds->generations;
  if (flag == "--fragments") field = &bounds->fragments;
  if (flag == "--indexes") field = &bounds->indexes;
  if (flag == "--commits") field = &bounds->commits;
  if (flag == "--inflight") field = &bounds->inflight;
  if (field == nullptr) return false;
  MEMWAL_ASSIGN_OR_RETURN(const std::string value, args->Value(flag));
  MEMWAL_ASSIGN_OR_RETURN(*field, ParseBound(flag, value));
  return true;
}

// Parses one switch flag of `check`; false when `flag` is not a switch flag.
Result<bool> ParseSwitchFlag(std::string_view flag, Args* args,
                             CheckOptions* options) {
  model::Config& config = options->config;
  if (flag == "--model-only") {
    options->model_only = true;
    return true;
  }
  if (flag == "--json") {
    options->json = true;
    return true;
  }
  if (flag != "--protocol" && flag != "--read" && flag != "--gc" &&
      flag != "--env" && flag != "--fence" && flag != "--bug") {
    return false;
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::string value, args->Value(flag));
  if (flag == "--protocol") {
    MEMWAL_ASSIGN_OR_RETURN(config.protocol, model::ParseProtocol(value));
  } else if (flag == "--read") {
    MEMWAL_ASSIGN_OR_RETURN(config.read, model::ParseReadMode(value));
  } else if (flag == "--gc") {
    MEMWAL_ASSIGN_OR_RETURN(config.gc, model::ParseGcMode(value));
  } else if (flag == "--env") {
    MEMWAL_ASSIGN_OR_RETURN(config.env, model::ParseEnv(value));
  } else if (flag == "--fence") {
    MEMWAL_ASSIGN_OR_RETURN(config.fence, model::ParseFence(value));
  } else {
    MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug, model::ParseBug(value));
    config.bugs |= model::BugBit(bug);
  }
  return true;
}

// Parses one run flag of `check` (mode, budgets, seed, out); false when it is
// not one.
Result<bool> ParseRunFlag(std::string_view flag, Args* args,
                          CheckOptions* options) {
  if (flag != "--mode" && flag != "--max-states" && flag != "--time-limit" &&
      flag != "--seed" && flag != "--out") {
    return false;
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::string value, args->Value(flag));
  if (flag == "--mode") {
    if (value != "bfs" && value != "dfs")
      return Usage("--mode must be bfs or dfs");
    options->explore.mode =
        value == "bfs" ? SearchMode::kBfs : SearchMode::kDfs;
  } else if (flag == "--max-states") {
    MEMWAL_ASSIGN_OR_RETURN(options->explore.max_states,
                            ParseUnsigned(flag, value));
    if (options->explore.max_states == 0)
      return Usage("--max-states must be at least 1");
  } else if (flag == "--time-limit") {
    MEMWAL_ASSIGN_OR_RETURN(const uint64_t seconds, ParseUnsigned(flag, value));
    // As --max-states: 0 is refused, not read as "no limit" (omit the flag).
    if (seconds == 0) return Usage("--time-limit must be at least 1");
    options->explore.time_limit_s = static_cast<double>(seconds);
  } else if (flag == "--seed") {
    MEMWAL_ASSIGN_OR_RETURN(options->seed, ParseUnsigned(flag, value));
  } else {
    if (value.empty()) return Usage("--out needs a directory");
    options->out_dir = value;
  }
  return true;
}

Result<Command> ParseCheck(Args* args) {
  Command command{.kind = Command::Kind::kCheck};
  CheckOptions& options = command.check;
  model::Bounds overrides{-1, -1, -1, -1, -1, -1};
  while (!args->Done()) {
    const std::string flag = args->Next();
    if (flag == "--help" || flag == "-h")
      return Command{.kind = Command::Kind::kCheckHelp};
    if (flag == "--preset") {
      MEMWAL_ASSIGN_OR_RETURN(const std::string name, args->Value(flag));
      MEMWAL_ASSIGN_OR_RETURN(options.config.bounds, model::ParsePreset(name));
      continue;
    }
    MEMWAL_ASSIGN_OR_RETURN(bool used, ParseBoundFlag(flag, args, &overrides));
    if (!used) {
      MEMWAL_ASSIGN_OR_RETURN(used, ParseSwitchFlag(flag, args, &options));
    }
    if (!used) {
      MEMWAL_ASSIGN_OR_RETURN(used, ParseRunFlag(flag, args, &options));
    }
    if (!used)
      return Usage("check: unknown option '" + flag + "' (see check --help)");
  }
  model::Bounds& b = options.config.bounds;
  for (auto [field, value] : {std::pair{&b.shards, overrides.shards},
                              {&b.generations, overrides.generations},
                              {&b.fragments, overrides.fragments},
                              {&b.indexes, overrides.indexes},
                              {&b.commits, overrides.commits},
                              {&b.inflight, overrides.inflight}}) {
    if (value >= 0) *field = value;
  }
  MEMWAL_RETURN_IF_ERROR(model::CheckConfig(options.config));
  return command;
}

Result<Command> ParseReplay(Args* args) {
  Command command{.kind = Command::Kind::kReplay};
  while (!args->Done()) {
    const std::string arg = args->Next();
    if (arg == "--help" || arg == "-h")
      return Command{.kind = Command::Kind::kReplayHelp};
    if (arg == "--json") {
      command.replay.json = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage("replay: unknown option '" + arg + "' (see replay --help)");
    } else if (command.replay.trace_path.empty()) {
      command.replay.trace_path = arg;
    } else {
      return Usage("replay takes one TRACE file");
    }
  }
  if (command.replay.trace_path.empty())
    return Usage("replay needs a TRACE file");
  return command;
}

}  // namespace

Result<Command> ParseCommandLine(const std::vector<std::string>& argv) {
  Args args(argv);
  if (args.Done()) return Usage("missing command (see memwal-check --help)");
  const std::string command = args.Next();
  if (command == "--help" || command == "-h" || command == "help")
    return Command{};
  if (command == "check") return ParseCheck(&args);
  if (command == "replay") return ParseReplay(&args);
  return Usage("unknown command '" + command + "' (see memwal-check --help)");
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
          "run:\n"
          "  (lockstep, modes, threads, liveness: see the options after the "
          "bug list)\n"
          "  --max-states N   stop (exit 3) after N distinct states\n"
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
  }
  if (options.explore.mode == SearchMode::kDfs) line << " --mode dfs";
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

bool BugApplies(const model::BugInfo& info, model::Protocol protocol) {
  const std::string_view protocols = info.protocols;
  if (protocols == "all") return true;
  if (protocols == "bit") return model::IsBitProtocol(protocol);
  std::size_t start = 0;
  while (start < protocols.size()) {
    std::size_t end = protocols.find(',', start);
    if (end == std::string_view::npos) end = protocols.size();
    std::string_view name = protocols.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    if (name == model::Name(protocol)) return true;
    start = end + 1;
  }
  return false;
}

Status CheckBugsApply(const model::Config& config, uint32_t impl_bugs) {
  for (const model::BugInfo& info : model::AllBugs()) {
    const bool on = model::Has(config, info.bug) ||
                    (impl_bugs & model::BugBit(info.bug)) != 0;
    if (!on || BugApplies(info, config.protocol)) continue;
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
