// Delta debugging of counterexamples (checker/cli/minimize.h).
#include "checker/cli/minimize.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/flags.h"
#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/engine/liveness.h"
#include "checker/report/trace.h"
#include "checker/report/trace_reader.h"

namespace memwal::checker::cli {
namespace {

// A step tied to its transaction: for a begin, `txn` is its own id; for a
// Commit, the id of the begin it commits (its slot is recomputed when the
// trace is rebuilt); -1 for every other action.
struct Step {
  model::Action action;
  int txn = -1;
};

bool IsCommit(const model::Action& action) {
  return std::holds_alternative<model::Commit>(action);
}

// Annotates a replayable trace with transaction ids by running it on the
// model. Ids are step positions, so they are unique.
std::vector<Step> Annotate(const model::Config& config,
                           const std::vector<model::Action>& trace) {
  std::vector<Step> steps;
  std::vector<int> inflight;  // ids in slot order
  model::State state = model::Init(config.bounds);
  for (std::size_t k = 0; k < trace.size(); ++k) {
    Step step{trace[k], -1};
    if (!model::IsEnabled(config, state, trace[k])) break;
    const int before = state.inflight_count;
    model::Outcome outcome;
    state = model::Apply(config, state, trace[k], &outcome);
    if (const auto* commit = std::get_if<model::Commit>(&trace[k])) {
      step.txn = inflight[commit->slot];
      if (state.inflight_count < before)
        inflight.erase(inflight.begin() + commit->slot);
    } else if (state.inflight_count > before) {
      step.txn = static_cast<int>(k);
      inflight.push_back(step.txn);
    } else if (state.inflight_count < before) {
      inflight.clear();  // ShallowClone leaves the transactions behind
    }
    steps.push_back(step);
  }
  return steps;
}

// Rebuilds a concrete trace from annotated steps: a Commit gets the current
// slot of its transaction, and is left out when that transaction is not in
// flight (its begin was dropped, or it already finished). Nothing when a step
// is not enabled.
std::optional<std::vector<model::Action>> Materialize(
    const model::Config& config, const std::vector<Step>& steps) {
  std::vector<model::Action> trace;
  std::vector<int> inflight;
  model::State state = model::Init(config.bounds);
  for (const Step& step : steps) {
    model::Action action = step.action;
    int slot = -1;
    if (IsCommit(action)) {
      const auto at = std::find(inflight.begin(), inflight.end(), step.txn);
      if (at == inflight.end()) continue;
      slot = static_cast<int>(at - inflight.begin());
      action = model::Commit{slot};
    }
    if (!model::IsEnabled(config, state, action)) return std::nullopt;
    const int before = state.inflight_count;
    model::Outcome outcome;
    state = model::Apply(config, state, action, &outcome);
    if (slot >= 0) {
      if (state.inflight_count < before)
        inflight.erase(inflight.begin() + slot);
    } else if (state.inflight_count > before) {
      inflight.push_back(step.txn);
    } else if (state.inflight_count < before) {
      inflight.clear();
    }
    trace.push_back(action);
  }
  return trace;
}

// The minimizer's state: the best trace so far and its setup.
class Minimizer {
 public:
  explicit Minimizer(const MinimizeInput& input)
      : setup_(input.setup),
        lockstep_(input.lockstep),
        invariant_(input.invariant),
        trace_(input.trace) {}

  Minimized Run() {
    Minimized result{setup_, trace_, trace_.size(), trace_.size(), 0};
    const std::optional<std::size_t> at = Check(setup_, trace_);
    if (!at) return result;
    trace_.resize(*at);
    bool progress = true;
    while (progress) {
      progress = false;
      progress |= DeltaDebug();
      progress |= DropTransactions();
      progress |= LowerParameters();
      progress |= LowerBounds();
    }
    result.setup = setup_;
    result.trace = trace_;
    result.steps_after = trace_.size();
    result.tries = tries_;
    return result;
  }

 private:
  std::optional<std::size_t> Check(const lockstep::LockstepSetup& setup,
                                   const std::vector<model::Action>& trace) {
    ++tries_;
    SetPartialCount("replays", static_cast<std::uint64_t>(tries_));
    return BreaksAt(setup, lockstep_, invariant_, trace);
  }

  // Accepts `steps` when they still break the invariant; keeps the cut trace.
  bool TryAnnotated(const std::vector<Step>& steps) {
    const auto trace = Materialize(setup_.config, steps);
    if (!trace || trace->size() >= trace_.size()) return false;
    return TryTrace(*trace);
  }

  bool TryTrace(const std::vector<model::Action>& trace) {
    const std::optional<std::size_t> at = Check(setup_, trace);
    if (!at) return false;
    trace_.assign(trace.begin(), trace.begin() + *at);
    return true;
  }

  // ddmin over complements: remove chunks of size n, halving n down to 1.
  bool DeltaDebug() {
    bool any = false;
    std::size_t chunk = std::max<std::size_t>(1, trace_.size() / 2);
    while (true) {
      bool removed = false;
      const std::vector<Step> steps = Annotate(setup_.config, trace_);
      for (std::size_t start = 0; start < steps.size(); start += chunk) {
        std::vector<Step> candidate;
        for (std::size_t k = 0; k < steps.size(); ++k) {
          if (k < start || k >= start + chunk) candidate.push_back(steps[k]);
        }
        if (TryAnnotated(candidate)) {
          removed = any = true;
          break;
        }
      }
      if (removed) continue;  // same chunk size on the shorter trace
      if (chunk == 1) return any;
      chunk /= 2;
    }
  }

  // Drops a begin together with every Commit of its transaction.
  bool DropTransactions() {
    bool any = false;
    bool removed = true;
    while (removed) {
      removed = false;
      const std::vector<Step> steps = Annotate(setup_.config, trace_);
      for (const Step& begin : steps) {
        if (begin.txn < 0 || IsCommit(begin.action)) continue;
        std::vector<Step> candidate;
        for (const Step& step : steps) {
          if (step.txn != begin.txn) candidate.push_back(step);
        }
        if (TryAnnotated(candidate)) {
          removed = any = true;
          break;
        }
      }
    }
    return any;
  }

  bool LowerParameters() {
    bool any = false;
    for (std::size_t k = 0; k < trace_.size(); ++k) {
      if (IsCommit(trace_[k])) continue;
      const int kind = static_cast<int>(trace_[k].index());
      for (int p = 0; p < 2; ++p) {
        std::array<int, 2> params = model::ActionParams(trace_[k]);
        for (int value = 0; value < params[p]; ++value) {
          std::array<int, 2> lower = params;
          lower[p] = value;
          std::vector<model::Action> candidate = trace_;
          candidate[k] = model::MakeAction(kind, lower);
          if (candidate[k] == trace_[k]) continue;
          if (TryTrace(candidate)) {
            any = true;
            break;
          }
        }
        if (k >= trace_.size()) break;
      }
    }
    return any;
  }

  bool LowerBounds() {
    bool any = false;
    int model::Bounds::*const fields[] = {
        &model::Bounds::shards,    &model::Bounds::generations,
        &model::Bounds::fragments, &model::Bounds::indexes,
        &model::Bounds::commits,   &model::Bounds::inflight};
    for (int model::Bounds::*field : fields) {
      while (true) {
        lockstep::LockstepSetup lower = setup_;
        lower.config.bounds.*field -= 1;
        if (!model::CheckConfig(lower.config).ok()) break;
        const std::optional<std::size_t> at = Check(lower, trace_);
        if (!at) break;
        setup_ = lower;
        trace_.resize(*at);
        any = true;
      }
    }
    return any;
  }

  lockstep::LockstepSetup setup_;
  bool lockstep_;
  std::string invariant_;
  std::vector<model::Action> trace_;
  int tries_ = 0;
};

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

struct MinimizeArgs {
  std::string path;
  std::string out_dir = "memwal-out";
  bool json = false;
};

std::vector<Flag> MinimizeFlags(MinimizeArgs* parsed) {
  return {Switch("--json", "print the result as one JSON object",
                 [parsed] { parsed->json = true; }),
          Valued("--out", "DIR", "where to write (default memwal-out)",
                 [parsed](std::string_view dir) {
                   if (dir.empty()) return Usage("--out needs a directory");
                   parsed->out_dir = dir;
                   return Status::Ok();
                 })};
}

Result<MinimizeArgs> ParseMinimizeArgs(const std::vector<std::string>& args) {
  MinimizeArgs parsed;
  MEMWAL_ASSIGN_OR_RETURN(
      const ParsedFlags given,
      ParseFlags("minimize", args, MinimizeFlags(&parsed), 1));
  if (!given.positional.empty()) parsed.path = given.positional[0];
  if (parsed.path.empty()) return Usage("needs a trace file");
  return parsed;
}

}  // namespace

std::optional<std::size_t> BreaksAt(const lockstep::LockstepSetup& setup,
                                    bool lockstep, const std::string& invariant,
                                    const std::vector<model::Action>& trace) {
  if (!model::CheckConfig(setup.config).ok()) return std::nullopt;
  Result<lockstep::ReplayResult> replay =
      lockstep::ReplayLockstep(setup, trace, !lockstep);
  if (!replay.ok()) return std::nullopt;
  if (replay->finding) {
    if (replay->finding->invariant != invariant) return std::nullopt;
    return replay->step;
  }
  // A liveness counterexample is a lasso (MinimizeInput::loop); a plain
  // trace never breaks it.
  return std::nullopt;
}

Minimized Minimize(const MinimizeInput& input) {
  if (input.loop) {
    return Minimized{input.setup,        input.trace, input.trace.size(),
                     input.trace.size(), 0,           input.loop,
                     input.window};
  }
  return Minimizer(input).Run();
}

std::vector<Flag> MinimizeFlagTable() { return HelpTable(&MinimizeFlags); }

std::string MinimizeAbout() {
  return "Shrinks a counterexample trace file (format version 2) to a shorter "
         "one that still\nbreaks its recorded invariant, and writes "
         "DIR/<invariant>.min.trace.json.\n"
         "Exit 0 minimized, 2 bad usage, an unreadable trace or one that does "
         "not break its\nrecorded invariant.\n";
}

int RunMinimizeCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  auto fail = [&err](const Status& status) {
    return Fail(err, "minimize", status);
  };
  Result<MinimizeArgs> parsed = ParseMinimizeArgs(args);
  if (!parsed.ok()) return fail(parsed.status());
  Result<report::LockstepTrace> trace = report::ReadTraceFile(parsed->path);
  if (!trace.ok()) return fail(trace.status());
  const MinimizeInput input{
      .setup = lockstep::LockstepSetup{.config = trace->trace.config,
                                       .impl_only_bugs = trace->impl_only_bugs,
                                       .seed = trace->trace.seed},
      .lockstep = trace->lockstep,
      .invariant = trace->trace.invariant,
      .trace = trace->trace.steps,
      .loop = trace->trace.loop,
      .window = trace->trace.window};
  const bool lasso_ok =
      input.loop && engine::CheckLasso(input.setup.config, input.trace,
                                       *input.loop, input.window, nullptr)
                        .ok();
  if (!lasso_ok &&
      !BreaksAt(input.setup, input.lockstep, input.invariant, input.trace)) {
    return fail(Status::InvalidArgument(
        "the trace does not break its recorded invariant " +
        Escaped(input.invariant)));
  }
  const Minimized result = Minimize(input);
  if (const Status made = MakeOutputDirectory(parsed->out_dir); !made.ok())
    return fail(made);
  const std::string path = (std::filesystem::path(parsed->out_dir) /
                            (input.invariant + ".min.trace.json"))
                               .string();
  report::LockstepTrace minimized = *trace;
  minimized.trace.config = result.setup.config;
  minimized.trace.steps = result.trace;
  minimized.trace.loop = result.loop;
  minimized.trace.window = result.window;
  minimized.step = result.trace.size();  // cut at the breaking step
  const Status written =
      report::WriteFileAtomically(path, report::LockstepTraceText(minimized));
  if (!written.ok()) return fail(written);
  if (parsed->json) {
    nlohmann::json steps = nlohmann::json::array();
    for (const model::Action& action : result.trace)
      steps.push_back(model::ToString(action));
    out << nlohmann::json{{"invariant", input.invariant},
                          {"steps_before", result.steps_before},
                          {"steps_after", result.steps_after},
                          {"tries", result.tries},
                          {"config", report::ConfigToJson(result.setup.config)},
                          {"trace", steps},
                          {"trace_file", path}}
               .dump()
        << "\n";
    return kExitOk;
  }
  out << "invariant: " << input.invariant << "\nsteps: " << result.steps_before
      << " -> " << result.steps_after << " (" << result.tries << " replays)\n"
      << "config: " << model::ToString(result.setup.config) << "\ntrace:\n";
  for (std::size_t k = 0; k < result.trace.size(); ++k)
    out << "  " << k + 1 << ". " << model::ToString(result.trace[k]) << "\n";
  out << "written: " << path << "\nreproduce: memwal-check replay " << path
      << "\n";
  return kExitOk;
}

}  // namespace memwal::checker::cli
