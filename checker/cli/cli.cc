// Command-line parsing and help texts (checker/cli/cli.h).
#include "checker/cli/cli.h"

#include <cctype>
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

// A --shards-like bound override.
Flag Bound(std::string name, int* field, std::string help) {
  return Valued(name, "N", std::move(help),
                [name, field](std::string_view value) -> Status {
                  MEMWAL_ASSIGN_OR_RETURN(*field, ParseBound(name, value));
                  return Status::Ok();
                });
}

}  // namespace

// The configuration (spec sections 1 and 8).
std::vector<Flag> CheckFlagSet::ConfigFlags() {
  model::Config& config = check.config;
  std::vector<Flag> flags;
  // One flag per registered switch (model/switches.h), metavar its initial.
  for (const model::Switch& variant : model::AllSwitches()) {
    const std::string name(variant.info().name);
    flags.push_back(Valued(
        "--" + name, std::string(1, static_cast<char>(std::toupper(name[0]))),
        model::SwitchHelp(variant),
        [&config, variant](std::string_view value) -> Status {
          MEMWAL_ASSIGN_OR_RETURN(const uint8_t index, variant.Parse(value));
          variant.Set(&config, index);
          return Status::Ok();
        }));
  }
  std::vector<Flag> bugs = {
      Valued("--bug", "NAME",
             "switch on a known bug (repeatable); see the list above",
             [&config](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug,
                                       model::ParseBug(std::string(value)));
               config.bugs |= model::BugBit(bug);
               return Status::Ok();
             }),
      Valued("--impl-bug", "NAME",
             "switch a known bug on in the implementation only (repeatable)",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug,
                                       model::ParseBug(std::string(value)));
               run.impl_only_bugs |= model::BugBit(bug);
               return Status::Ok();
             }),
  };
  flags.insert(flags.end(), bugs.begin(), bugs.end());
  return flags;
}

// The bounds (spec section 2): a bound given beside --preset overrides the
// preset's, in any order (Finish applies them).
std::vector<Flag> CheckFlagSet::BoundFlags() {
  return {
      Described(Parsed("--preset", &check.config.bounds, model::ParsePreset),
                "NAME",
                "tiny, small (default), medium, large, gate (tiny with 2 "
                "shards\nand 2 indexes)"),
      Bound("--shards", &overrides_.shards, "override the preset's shards"),
      Bound("--generations", &overrides_.generations,
            "override the preset's generations per shard"),
      Bound("--fragments", &overrides_.fragments,
            "override the preset's fragments"),
      Bound("--indexes", &overrides_.indexes, "override the preset's indexes"),
      Bound("--commits", &overrides_.commits, "override the preset's commits"),
      Bound("--inflight", &overrides_.inflight,
            "override the preset's in-flight transactions"),
      Bound("--reinstalls", &overrides_.reinstalls,
            "at most N MemWAL re-installs (R39) per run (gate: 1, others: "
            "0)"),
  };
}

// The run: what is checked, its budgets, its output.
std::vector<Flag> CheckFlagSet::RunFlags() {
  return {
      Switch("--model-only",
             "explore the model alone (default: lockstep with the "
             "implementation)",
             [this] { check.model_only = true; }),
      Switch("--json", "one JSON object on stdout instead of text",
             [this] { check.json = true; }),
      // 0 is refused, not read as "no limit": omit the flag for none.
      Valued("--max-states", "N",
             "stop (exit 3) after N distinct states (default: 50,000,000 in\n"
             "the search, none in the liveness pass)",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t number,
                                       ParseUnsigned("--max-states", value));
               if (number < 1) return Usage("--max-states must be at least 1");
               check.explore.max_states = number;
               check.explore.liveness_max_states = number;
               return Status::Ok();
             }),
      Described(Number("--time-limit", &check.explore.time_limit_s, 1,
                       UINT64_MAX, "at least 1"),
                "S", "stop the search (exit 3) after S seconds"),
      Described(Number("--seed", &check.seed, 0, UINT64_MAX,
                       "a non-negative integer"),
                "N", "the run's seed (in the report and the traces)"),
      Valued("--out", "DIR", "where counterexamples go (default memwal-out/)",
             [this](std::string_view value) -> Status {
               if (value.empty()) return Usage("--out needs a directory");
               check.out_dir = value;
               return Status::Ok();
             }),
      Valued("--html", "DIR",
             "write summary.html and the counterexample's page to DIR",
             [this](std::string_view value) -> Status {
               if (value.empty()) return Usage("--html needs a directory");
               run.html_dir = value;
               return Status::Ok();
             }),
      Switch("--continue",
             "bfs: go on after a violation and report every distinct "
             "broken\ninvariant with its shortest trace (TLC's -continue)",
             [this] { run.keep_going = true; }),
      Switch("--liveness",
             "check CompactedGenerationsEventuallyRetire on the model graph\n"
             "after a clean bfs/dfs run (the default)",
             [this] { run.liveness = true; }),
      Switch("--no-liveness", "skip the liveness pass",
             [this] { run.liveness = false; }),
  };
}

// The search (checker/engine/search.h).
std::vector<Flag> CheckFlagSet::SearchFlags() {
  return {
      Valued("--mode", "M",
             "dfs (default in lockstep: one path of Worlds in memory),\n"
             "bfs (default with --model-only, --continue, --distributed,\n"
             "--checkpoint or --resume), or random (seeded walks); bfs and\n"
             "dfs report a shortest counterexample",
             [this](std::string_view value) -> Status {
               run.order_given = true;
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
      Described(Number("--threads", &run.threads, 1, 256, "1..256"), "N",
                "worker threads (default: cores, at most 8); any N gives "
                "the\nsame counts and trace"),
      Valued("--walks", "N", "random: number of walks (default 1000)",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(run.walks,
                                       ParseUnsigned("--walks", value));
               if (run.walks < 1) return Usage("--walks must be at least 1");
               run.walks_given = true;
               return Status::Ok();
             }),
      Valued("--depth", "D", "random: steps per walk (default 30)",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t depth,
                                       ParseUnsigned("--depth", value));
               if (depth < 1 || depth > 10000)
                 return Usage("--depth must be 1..10000");
               run.depth = static_cast<int>(depth);
               run.walks_given = true;
               return Status::Ok();
             }),
      Described(Number("--memory-limit", &run.memory_limit_mb, 1, UINT64_MAX,
                       "at least 1 (MB)"),
                "MB", "stop (exit 3) when resident memory exceeds MB"),
      Valued("--storage", "S",
             "fingerprint (default: 52 bits, about 7 bytes per state,\n"
             "collision probability printed) or exact (every state packed)",
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
      Switch("--symmetry",
             "store one state per orbit of shard and index permutations\n"
             "where the configuration treats them alike (the default)",
             [this] { run.symmetry = true; }),
      Switch("--no-symmetry", "store every state",
             [this] { run.symmetry = false; }),
      Switch("--no-layers",
             "build the whole liveness graph at once, not one layer of\n"
             "MemWAL progress at a time (spec R74)",
             [this] { run.layered = false; }),
      Switch("--no-reduction",
             "expand every step of the liveness continuation, not only the\n"
             "flushes where one is enabled (spec R75)",
             [this] { run.reduction = false; }),
  };
}

// --distributed, --checkpoint, --checkpoint-every, --resume and the
// bench's --pause-after-snapshot and --rederive-moved (the level engine's
// own parser, checker/engine/distributed.h).
std::vector<Flag> CheckFlagSet::ScaleOutFlags() {
  struct Row {
    const char* name;
    const char* value_name;
    const char* help;
  };
  static constexpr Row kRows[] = {
      {"--distributed", "",
       "partition the bfs over the ranks of mpirun -np N (one rank\n"
       "without mpirun); same counts, verdict and trace as threads"},
      {"--checkpoint", "DIR",
       "write a snapshot (seen set, frontier, counters) to DIR\n"
       "between levels"},
      {"--checkpoint-every", "S",
       "snapshot at most every S seconds (default 300; 0: every level)"},
      {"--resume", "DIR",
       "continue DIR's snapshot (same configuration and rank count)"},
      {"--pause-after-snapshot", "S",
       "bench: sleep S seconds after each snapshot (a kill test's window)"},
      {"--rederive-moved", "",
       "bench: re-derive a moved state's lockstep World instead of\n"
       "shipping it"},
  };
  std::vector<Flag> flags;
  for (const Row& row : kRows) {
    flags.push_back(
        Flag{.name = row.name,
             .takes_value = row.value_name[0] != '\0',
             .apply =
                 [this, flag = std::string(row.name)](std::string_view value) {
                   return engine::ParseScaleOutFlag(
                              flag,
                              [value](std::string_view) -> Result<std::string> {
                                return std::string(value);
                              },
                              &run.scale_out)
                       .status();
                 },
             .value_name = row.value_name,
             .help = row.help});
  }
  return flags;
}

std::vector<Flag> CheckFlagSet::ConfigFlagTable() {
  return HelpTable<CheckFlagSet>(
      [](CheckFlagSet* set) { return set->ConfigFlags(); });
}

std::vector<Flag> CheckFlagSet::Flags() {
  std::vector<Flag> flags;
  for (std::vector<Flag> part : {ConfigFlags(), BoundFlags(), RunFlags(),
                                 SearchFlags(), ScaleOutFlags()}) {
    for (Flag& flag : part) flags.push_back(std::move(flag));
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
  if (!run.order_given && !check.model_only && !run.keep_going &&
      !run.scale_out.active())
    run.order = engine::Order::kDfs;
  return model::CheckConfig(check.config);
}

Status ParseCheckFlags(const std::vector<std::string>& args,
                       CheckFlagSet* set) {
  MEMWAL_RETURN_IF_ERROR(ParseFlags("check", args, set->Flags()).status());
  return set->Finish();
}

std::string CheckAbout() {
  std::ostringstream help;
  help << "Explores every interleaving of the protocol within the bounds, in "
          "lockstep with the\nimplementation unless --model-only, and reports "
          "the first broken invariant with\na shortest trace (written to "
          "--out, replayable with `memwal-check replay`).\n"
          "Switches and bounds: spec/protocol.md sections 1, 2 and 8.\n"
          "Exit 0 ok, 1 violation or missed goal (with --expect: an unmet "
          "expectation),\n2 bad usage or input, 3 a budget ran out.\n"
          "\nknown bugs (--bug, --impl-bug):\n";
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

std::vector<Flag> ReplayFlags(ReplayOptions* options) {
  return {Switch("--json", "one JSON object on stdout instead of text",
                 [options] { options->json = true; })};
}

std::vector<Flag> ReplayFlagTable() { return HelpTable(&ReplayFlags); }

std::string ReplayAbout() {
  return "Re-executes a memwal-check trace (TRACE.trace.json) on the model "
         "under the trace's\nconfig and, for a lockstep trace, on the "
         "implementation; checks that every step\nis enabled and reports the "
         "first broken invariant. A lasso (a liveness\ncounterexample) is "
         "replayed around its cycle.\n"
         "Exit 1 if an invariant breaks, 0 if none does, 2 if the trace is "
         "unreadable or a\nstep is not enabled.\n";
}

std::string CheckCommandLine(const CheckOptions& options) {
  const model::Config& c = options.config;
  std::ostringstream line;
  line << "memwal-check check --model-only";
  for (const model::Switch& variant : model::AllSwitches()) {
    if (variant.info().always_shown || !variant.IsDefault(c))
      line << " --" << variant.info().name << " " << variant.Spelling(c);
  }
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
