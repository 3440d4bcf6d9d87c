// The `check` and `replay` subcommands (checker/cli.h): run, print, write
// counterexamples.
#include <filesystem>
#include <sstream>

#include "checker/cli.h"
#include "checker/trace.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using nlohmann::json;

struct Written {
  std::string trace_file;
  std::string itf_file;
};

// Writes <out>/<invariant>.trace.json and .itf.json for a violation with a
// trace.
Result<Written> WriteCounterexample(const CheckOptions& options,
                                    const Violation& violation) {
  std::error_code error;
  std::filesystem::create_directories(options.out_dir, error);
  if (error)
    return Status::IoError("cannot create " + options.out_dir + ": " +
                           error.message());
  const std::string stem =
      (std::filesystem::path(options.out_dir) / violation.invariant).string();
  Written written{stem + ".trace.json", stem + ".itf.json"};
  const Trace trace{.config = options.config,
                    .seed = options.seed,
                    .invariant = violation.invariant,
                    .steps = violation.trace};
  MEMWAL_RETURN_IF_ERROR(
      WriteFileAtomically(written.trace_file, TraceToJson(trace).dump(2)));
  const json itf = ToItf(options.config, violation.invariant, violation.trace,
                         violation.states);
  MEMWAL_RETURN_IF_ERROR(WriteFileAtomically(written.itf_file, itf.dump(1)));
  return written;
}

json Coverage(const model::Config& config, const Stats& stats) {
  json coverage = json::object();
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    if (!model::KindApplies(config, kind)) continue;
    coverage[std::string(model::KindName(kind))] = stats.coverage[kind];
  }
  return coverage;
}

double StatesPerSecond(const Stats& stats) {
  return stats.seconds > 0
             ? static_cast<double>(stats.states_distinct) / stats.seconds
             : 0;
}

std::string Join(const std::vector<std::string>& names) {
  if (names.empty()) return "-";
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += " ";
    out += name;
  }
  return out;
}

void PrintText(const CheckOptions& options, const Exploration& result,
               const Written* written, std::ostream& out) {
  const Stats& stats = result.stats;
  char rate[64];
  std::snprintf(rate, sizeof(rate), "%.2f s (%.0f states/s)", stats.seconds,
                StatesPerSecond(stats));
  out << "verdict: " << Name(result.verdict) << "\n"
      << "states: " << stats.states_distinct << " distinct, "
      << stats.transitions << " transitions, depth " << stats.depth_max << "\n"
      << "time: " << rate << "\n"
      << "goals reached: " << Join(stats.goals_reached) << "\n"
      << "goals missed: " << Join(stats.goals_missed) << "\n";
  if (!result.violation) return;
  const Violation& v = *result.violation;
  if (v.trace.empty() && v.states.size() <= 1 &&
      model::FindInvariant(v.invariant) == nullptr) {
    out << "violation: goal " << v.invariant << " was never reached\n";
    return;
  }
  out << "violation: " << v.invariant << " after step " << v.trace.size()
      << "\ntrace:\n";
  for (std::size_t k = 0; k < v.trace.size(); ++k) {
    out << "  " << k + 1 << ". " << model::ToString(v.trace[k]) << "\n";
  }
  out << "state after the last step:\n" << model::ToString(v.states.back());
  if (written != nullptr) {
    out << "reproduce: memwal-check replay " << written->trace_file << "\n";
  }
  out << "equivalent: " << CheckCommandLine(options) << "\n";
}

json ResultJson(const CheckOptions& options, const Exploration& result,
                const Written* written) {
  const Stats& stats = result.stats;
  json violation = nullptr;
  if (result.violation) {
    const bool is_goal =
        model::FindInvariant(result.violation->invariant) == nullptr;
    violation = json{
        {"invariant", result.violation->invariant},
        {"step",
         is_goal ? json(nullptr) : json(result.violation->trace.size())},
        {"trace_file", written ? json(written->trace_file) : json(nullptr)}};
  }
  return json{{"verdict", std::string(Name(result.verdict))},
              {"states_distinct", stats.states_distinct},
              {"transitions", stats.transitions},
              {"depth_max", stats.depth_max},
              {"seconds", stats.seconds},
              {"goals_reached", stats.goals_reached},
              {"goals_missed", stats.goals_missed},
              {"violation", violation},
              {"coverage", Coverage(options.config, stats)},
              {"config", ConfigToJson(options.config)},
              {"seed", options.seed}};
}

int ExitCode(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk:
      return kExitOk;
    case Verdict::kViolation:
      return kExitViolation;
    case Verdict::kIncomplete:
      return kExitIncomplete;
  }
  return kExitUsage;
}

int RunCheck(const CheckOptions& options, std::ostream& out,
             std::ostream& err) {
  if (!options.model_only) {
    err << "lockstep with the implementation is not available yet; running "
           "model-only\n";
  }
  err << "seed=" << options.seed << "\n";
  if (!options.json) {
    out << "seed=" << options.seed
        << "\nconfig: " << model::ToString(options.config) << "\n";
  }
  const Exploration result = Explore(options.config, options.explore);
  Written written;
  const bool has_trace =
      result.violation && model::FindInvariant(result.violation->invariant);
  if (has_trace) {
    Result<Written> write = WriteCounterexample(options, *result.violation);
    if (!write.ok()) {
      err << "memwal-check: " << write.status().ToString() << "\n";
      return kExitUsage;
    }
    written = *write;
  }
  if (options.json) {
    out << ResultJson(options, result, has_trace ? &written : nullptr).dump()
        << "\n";
  } else {
    PrintText(options, result, has_trace ? &written : nullptr, out);
  }
  return ExitCode(result.verdict);
}

int RunReplay(const ReplayOptions& options, std::ostream& out,
              std::ostream& err) {
  auto fail = [&err](const Status& status) {
    err << "memwal-check replay: " << status.message() << "\n";
    return kExitUsage;
  };
  Result<std::string> text = ReadFile(options.trace_path);
  if (!text.ok()) return fail(text.status());
  Result<Trace> trace = ParseTrace(*text);
  if (!trace.ok()) return fail(trace.status());
  std::vector<model::State> states;
  const Status replayed = Replay(trace->config, trace->steps, &states);
  if (!replayed.ok()) return fail(replayed);
  std::size_t step = 0;
  const model::Invariant* broken = nullptr;
  for (; step < states.size() && broken == nullptr; ++step) {
    broken = model::FirstBrokenInvariant(trace->config, states[step]);
  }
  const std::string name = broken ? std::string(broken->name) : "";
  if (options.json) {
    out << json{{"verdict", broken ? "violation" : "ok"},
                {"invariant", broken ? json(name) : json(nullptr)},
                {"step", broken ? json(step - 1) : json(nullptr)},
                {"steps", trace->steps.size()},
                {"recorded_invariant", trace->invariant},
                {"config", ConfigToJson(trace->config)}}
               .dump()
        << "\n";
  } else {
    out << "config: " << model::ToString(trace->config) << "\nreplayed "
        << trace->steps.size() << " steps\n";
    if (broken) {
      out << "violation: " << name << " after step " << step - 1 << "\n";
    } else {
      out << "no invariant broken\n";
    }
  }
  return broken ? kExitViolation : kExitOk;
}

}  // namespace

int RunCommand(const Command& command, std::ostream& out, std::ostream& err) {
  switch (command.kind) {
    case Command::Kind::kHelp:
      out << MainHelp();
      return kExitOk;
    case Command::Kind::kCheckHelp:
      out << CheckHelp();
      return kExitOk;
    case Command::Kind::kReplayHelp:
      out << ReplayHelp();
      return kExitOk;
    case Command::Kind::kCheck:
      return RunCheck(command.check, out, err);
    case Command::Kind::kReplay:
      return RunReplay(command.replay, out, err);
  }
  return kExitUsage;
}

}  // namespace memwal::checker
