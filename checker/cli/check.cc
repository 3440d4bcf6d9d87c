// `check` in lockstep and `replay` on both sides (checker/cli/check.h).
#include "checker/cli/check.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/commands.h"
#include "checker/engine/interrupt.h"
#include "checker/engine/liveness.h"
#include "checker/report/report.h"
#include "checker/report/trace.h"
#include "checker/report/trace_reader.h"
#include "model/invariants.h"

namespace memwal::checker::cli {

engine::Options SearchOptionsOf(const CheckOptions& check,
                                const RunOptions& run) {
  engine::Options search{.order = run.order,
                         .threads = run.threads,
                         .lockstep = !check.model_only,
                         .max_states = check.explore.max_states,
                         .time_limit_s = check.explore.time_limit_s,
                         .memory_limit_mb = run.memory_limit_mb,
                         .walks = run.walks,
                         .depth = run.depth,
                         .status = nullptr};
  search.storage = run.storage;
  search.symmetry = run.symmetry;
  search.keep_going = run.keep_going;
  return search;
}

int DefaultThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(cores, 1u, 8u));
}
namespace {

using nlohmann::json;

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

struct Written {
  std::string trace_file;
  std::string itf_file;
};

lockstep::LockstepSetup SetupOf(const CheckOptions& check,
                                const RunOptions& run) {
  return lockstep::LockstepSetup{.config = check.config,
                                 .impl_only_bugs = run.impl_only_bugs,
                                 .seed = check.seed};
}

Result<Written> WriteCounterexample(const CheckOptions& check,
                                    const RunOptions& run,
                                    const engine::SearchViolation& violation) {
  MEMWAL_RETURN_IF_ERROR(MakeOutputDirectory(check.out_dir));
  const std::string stem =
      (std::filesystem::path(check.out_dir) / violation.invariant).string();
  Written written{stem + ".trace.json", stem + ".itf.json"};
  const report::LockstepTrace trace{
      .trace = report::Trace{.config = check.config,
                             .seed = check.seed,
                             .invariant = violation.invariant,
                             .steps = violation.trace,
                             .loop = violation.loop,
                             .window = violation.window},
      .lockstep = !check.model_only,
      .impl_only_bugs = run.impl_only_bugs,
      // Traces end at the step that breaks it, so
      // replay can say whether it reproduced.
      .step = violation.trace.size(),
      .detail = violation.detail};
  MEMWAL_RETURN_IF_ERROR(report::WriteFileAtomically(
      written.trace_file, report::LockstepTraceText(trace)));
  const json itf =
      report::ToItf(check.config, violation.invariant, violation.trace,
                    violation.states, violation.loop);
  MEMWAL_RETURN_IF_ERROR(
      report::WriteFileAtomically(written.itf_file, itf.dump(1)));
  return written;
}

std::string Join(const std::vector<std::string>& names) {
  if (names.empty()) return "-";
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

// Only the kinds that can fire under `config` (model::KindApplies).
json Coverage(const model::Config& config, const engine::Stats& stats) {
  json coverage = json::object();
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    if (!model::KindApplies(config, kind)) continue;
    coverage[std::string(model::KindName(kind))] = stats.coverage[kind];
  }
  return coverage;
}

std::vector<std::string> NeverFired(const model::Config& config,
                                    const engine::Stats& stats) {
  std::vector<std::string> names;
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    if (!model::KindApplies(config, kind)) continue;
    if (stats.coverage[kind] == 0) names.emplace_back(model::KindName(kind));
  }
  return names;
}

// Per goal: "reached", "missed" or "not applicable".
json Reachability(const model::Config& config, const engine::Stats& stats) {
  json out = json::object();
  for (const model::Goal& goal : model::AllGoals()) {
    const std::string name(goal.name);
    std::string value = "not applicable";
    if (goal.applicable(config)) {
      const bool reached =
          std::find(stats.goals_reached.begin(), stats.goals_reached.end(),
                    name) != stats.goals_reached.end();
      value = reached ? "reached" : "missed";
    }
    out[name] = value;
  }
  return out;
}

double BytesPerState(uint64_t bytes, const engine::Stats& stats) {
  return stats.states_distinct == 0
             ? 0
             : static_cast<double>(bytes) /
                   static_cast<double>(stats.states_distinct);
}

bool HasTrace(const engine::SearchViolation& violation) {
  return model::FindInvariant(violation.invariant) != nullptr ||
         violation.invariant == lockstep::kImplementationMatchesModel ||
         violation.invariant == engine::kLivenessName;
}

void PrintViolation(const CheckOptions& check, const RunOptions& run,
                    const engine::SearchViolation& v, const Written* written,
                    std::ostream& out) {
  if (!HasTrace(v)) {
    out << "violation: goal " << v.invariant << " was never reached\n";
    return;
  }
  if (v.loop) {
    out << "violation: " << v.invariant << ": a lasso, stem of " << *v.loop
        << " steps, then a cycle of " << v.trace.size() - *v.loop
        << " steps that repeats forever\n";
  } else {
    out << "violation: " << v.invariant << " after step " << v.trace.size()
        << "\n";
  }
  if (!v.detail.empty()) out << "why: " << v.detail << "\n";
  out << "trace:\n";
  for (std::size_t k = 0; k < v.trace.size(); ++k) {
    if (v.window && k == *v.window)
      out << "  -- from here on the liveness continuation (spec R70) --\n";
    if (v.loop && k == *v.loop)
      out << "  -- cycle (back to the state after step " << k << ") --\n";
    out << "  " << k + 1 << ". " << model::ToString(v.trace[k]) << "\n";
  }
  if (!v.states.empty())
    out << "model state after the last step:\n"
        << model::ToString(v.states.back());
  if (!v.impl_state.empty())
    out << "implementation state (in model terms):\n" << v.impl_state;
  if (written != nullptr) {
    out << "reproduce: memwal-check replay " << written->trace_file << "\n"
        << "itf: " << written->itf_file << "\n";
  }
  out << "equivalent: " << LockstepCommandLine(check, run) << "\n";
}

void PrintText(const CheckOptions& check, const RunOptions& run,
               const engine::SearchResult& result, const Written* written,
               std::ostream& out) {
  const engine::Stats& stats = result.stats;
  const double seconds = stats.seconds > 0 ? stats.seconds : 1e-9;
  char rate[128];
  std::snprintf(rate, sizeof(rate),
                "%.2f s (%.0f states/s, %.0f transitions/s)", stats.seconds,
                static_cast<double>(stats.states_distinct) / seconds,
                static_cast<double>(stats.transitions) / seconds);
  out << "verdict: " << Name(result.verdict);
  if (!result.stopped_by.empty()) out << " (" << result.stopped_by << ")";
  out << "\nstates: " << stats.states_distinct << " distinct, "
      << stats.transitions << " transitions, depth " << stats.depth_max
      << (check.model_only ? " (model only)\n"
                           : " (each checked on the implementation)\n")
      << "time: " << rate << "\n"
      << "goals reached: " << Join(stats.goals_reached) << "\n"
      << "goals missed: " << Join(stats.goals_missed) << "\n"
      << "actions never fired: " << Join(NeverFired(check.config, stats))
      << "\n";
  char storage[200];
  std::snprintf(storage, sizeof(storage),
                "storage: %s, %.1f bytes per state (seen set) + %.1f (trace "
                "links), collision probability %.2g\n",
                stats.storage.c_str(), BytesPerState(stats.seen_bytes, stats),
                BytesPerState(stats.trace_bytes, stats),
                stats.collision_probability);
  out << storage << "symmetry: "
      << (stats.symmetry_permutations > 1
              ? std::to_string(stats.symmetry_permutations) +
                    " permutations of shards and indexes"
              : std::string("none"));
  const std::string note = model::SymmetryNote(check.config);
  if (!note.empty() && run.symmetry) out << " (" << note << ")";
  if (!run.symmetry) out << " (--no-symmetry)";
  out << "\n";
  if (run.liveness && stats.liveness_states > 0) {
    char liveness[300];
    std::snprintf(
        liveness, sizeof(liveness),
        "liveness graph: %llu states%s, %.1f bytes per state, collision "
        "probability %.2g\n",
        static_cast<unsigned long long>(stats.liveness_states),
        stats.liveness_layers > 0
            ? (" in " + std::to_string(stats.liveness_layers) +
               " layers (largest " +
               std::to_string(stats.liveness_largest_layer) + ")")
                  .c_str()
            : " (one graph: --no-layers, or up to a fair layer for its lasso)",
        static_cast<double>(stats.liveness_bytes) /
            static_cast<double>(stats.liveness_states),
        stats.liveness_collision_probability);
    out << liveness;
  }
  if (result.violation)
    PrintViolation(check, run, *result.violation, written, out);
}

json ResultJson(const CheckOptions& check, const RunOptions& run,
                const engine::SearchResult& result, const Written* written) {
  const engine::Stats& stats = result.stats;
  json violation = nullptr;
  if (result.violation) {
    const engine::SearchViolation& v = *result.violation;
    violation = json{
        {"invariant", v.invariant},
        {"step", HasTrace(v) ? json(v.trace.size()) : json(nullptr)},
        {"loop", v.loop ? json(*v.loop) : json(nullptr)},
        {"window", v.window ? json(*v.window) : json(nullptr)},
        {"trace_file", written ? json(written->trace_file) : json(nullptr)},
        {"detail", v.detail}};
  }
  return json{
      {"verdict", std::string(Name(result.verdict))},
      {"states_distinct", stats.states_distinct},
      {"transitions", stats.transitions},
      {"depth_max", stats.depth_max},
      {"seconds", stats.seconds},
      {"goals_reached", stats.goals_reached},
      {"goals_missed", stats.goals_missed},
      {"violation", violation},
      {"reachability", Reachability(check.config, stats)},
      {"coverage", Coverage(check.config, stats)},
      {"never_fired", NeverFired(check.config, stats)},
      {"lockstep", !check.model_only},
      {"mode", std::string(Name(run.order))},
      {"threads", run.threads},
      {"stopped_by",
       result.stopped_by.empty() ? json(nullptr) : json(result.stopped_by)},
      {"storage", stats.storage},
      {"bytes_per_state", BytesPerState(stats.seen_bytes, stats)},
      {"trace_bytes_per_state", BytesPerState(stats.trace_bytes, stats)},
      {"collision_probability", stats.collision_probability},
      {"symmetry_permutations", stats.symmetry_permutations},
      {"liveness", run.liveness && result.stats.liveness_states > 0
                       ? json{{"states", stats.liveness_states},
                              {"bytes_per_state",
                               static_cast<double>(stats.liveness_bytes) /
                                   static_cast<double>(stats.liveness_states)},
                              {"layers", stats.liveness_layers},
                              {"largest_layer", stats.liveness_largest_layer},
                              {"collision_probability",
                               stats.liveness_collision_probability}}
                       : json(nullptr)},
      {"config", report::ConfigToJson(check.config)},
      {"impl_bugs", report::BugNames(run.impl_only_bugs)},
      {"seed", check.seed}};
}

// --continue: every distinct violation, with its trace file.
json ViolationsJson(const CheckRun& done) {
  json list = json::array();
  const std::vector<engine::SearchViolation>& all = done.result.violations;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const engine::SearchViolation& v = all[k];
    const bool files = k < done.files.size() && !done.files[k].first.empty();
    json steps = json::array();
    for (const model::Action& action : v.trace)
      steps.push_back(model::ToString(action));
    list.push_back(
        json{{"invariant", v.invariant},
             {"step", HasTrace(v) ? json(v.trace.size()) : json(nullptr)},
             {"trace", steps},
             {"trace_file", files ? json(done.files[k].first) : json(nullptr)},
             {"itf_file", files ? json(done.files[k].second) : json(nullptr)},
             {"detail", v.detail}});
  }
  return list;
}

// --continue, text: the violations after the first (PrintText shows it).
void PrintMoreViolations(const CheckRun& done, const RunOptions& run,
                         std::ostream& out) {
  const std::vector<engine::SearchViolation>& all = done.result.violations;
  out << "distinct violations (--continue): " << all.size() << "\n";
  for (std::size_t k = 1; k < all.size(); ++k) {
    const bool files = k < done.files.size() && !done.files[k].first.empty();
    const Written written =
        files ? Written{done.files[k].first, done.files[k].second} : Written{};
    out << "\n[" << k + 1 << " of " << all.size() << "] ";
    PrintViolation(done.check, run, all[k], files ? &written : nullptr, out);
  }
}

int ExitCode(engine::Verdict verdict) {
  switch (verdict) {
    case engine::Verdict::kOk:
      return kExitOk;
    case engine::Verdict::kViolation:
      return kExitViolation;
    case engine::Verdict::kIncomplete:
      return kExitIncomplete;
  }
  return kExitUsage;
}

// The liveness pass's options: the run's state and memory budgets.
engine::LivenessOptions LivenessOptionsOf(const CheckOptions& check,
                                          const RunOptions& run) {
  return engine::LivenessOptions{
      .max_states = check.explore.liveness_max_states,
      .memory_limit_mb = run.memory_limit_mb,
      .symmetry = run.symmetry,
      .layered = run.layered,
      .reduction = run.reduction,
      .threads = run.threads};
}

// Puts the liveness pass's result, run after (or beside) a complete, clean
// safety search, into *result.
void ApplyLiveness(const CheckOptions& check, const RunOptions& run,
                   const engine::LivenessResult& live,
                   engine::SearchResult* result) {
  result->stats.liveness_states = live.states;
  result->stats.liveness_bytes = live.bytes;
  result->stats.liveness_layers = live.layers;
  result->stats.liveness_largest_layer = live.largest_layer;
  result->stats.liveness_collision_probability = live.collision_probability;
  if (!live.complete) {
    result->verdict = engine::Verdict::kIncomplete;
    result->stopped_by = live.stopped_by;
    // The spill file's error (a full disk, issue 42), said, not hidden.
    if (!live.note.empty()) result->stopped_by += ": " + Escaped(live.note);
    return;
  }
  if (live.holds) return;
  result->verdict = engine::Verdict::kViolation;
  result->violation =
      engine::SearchViolation{.invariant = std::string(engine::kLivenessName),
                              .detail = live.note,
                              .trace = live.trace,
                              .states = live.states_on_trace,
                              .loop = live.loop,
                              .window = live.window};
  if (check.model_only) return;
  // Lockstep: a liveness violation is the implementation's only when it
  // reproduces the lasso; else the two sides part, a conformance finding.
  const Result<engine::LassoReplay> replay =
      engine::ReplayLassoOnImplementation(SetupOf(check, run), live.trace,
                                          live.loop, live.window);
  if (replay.ok() && replay->Reproduced()) return;
  result->violation->invariant =
      std::string(lockstep::kImplementationMatchesModel);
  result->violation->detail =
      "the model's lasso for " + std::string(engine::kLivenessName) +
      " is not reproduced by the implementation: " +
      (replay.ok() ? replay->Parting()
                   : "not replayed: " + replay.status().message()) +
      "\nthe model's lasso: " + live.note;
}

json DistributedJson(const CheckRun& done) {
  const engine::DistributedStats& levels = *done.distributed;
  const engine::Stats& stats = done.result.stats;
  const double states =
      static_cast<double>(std::max<uint64_t>(1, stats.states_distinct));
  return json{{"ranks", levels.ranks},
              {"bytes_exchanged", levels.bytes_exchanged},
              {"bytes_exchanged_per_state",
               static_cast<double>(levels.bytes_exchanged) / states},
              {"states_per_rank", levels.states_per_rank},
              {"expanded_per_rank", levels.expanded_per_rank},
              {"states_per_second_per_rank",
               stats.seconds > 0 ? static_cast<double>(stats.states_distinct) /
                                       stats.seconds / levels.ranks
                                 : 0.0},
              {"cpu_seconds", levels.cpu_seconds},
              {"worlds_shipped", levels.worlds_shipped},
              {"ship_seconds", levels.ship_seconds},
              {"worlds_rederived", levels.worlds_rederived},
              {"rederive_seconds", levels.rederive_seconds},
              {"snapshots", levels.snapshots},
              {"resumed_level", levels.resumed_level}};
}

}  // namespace

std::string LockstepCommandLine(const CheckOptions& check,
                                const RunOptions& run) {
  std::string line = CheckCommandLine(check);
  // CheckCommandLine names the model-only run; lockstep is the default.
  const std::string model_only = " --model-only";
  const std::size_t at = line.find(model_only);
  if (!check.model_only && at != std::string::npos)
    line.erase(at, model_only.size());
  for (const model::BugInfo& info : model::AllBugs()) {
    if (run.impl_only_bugs & model::BugBit(info.bug))
      line += " --impl-bug " + std::string(info.name);
  }
  if (run.order == engine::Order::kDfs &&
      line.find("--mode dfs") == std::string::npos)
    line += " --mode dfs";
  if (run.order == engine::Order::kRandom) {
    line += " --mode random --walks " + std::to_string(run.walks) +
            " --depth " + std::to_string(run.depth);
  }
  if (!run.liveness) line += " --no-liveness";
  if (run.storage == engine::Storage::kExact) line += " --storage exact";
  if (!run.symmetry) line += " --no-symmetry";
  if (!run.layered) line += " --no-layers";
  if (!run.reduction) line += " --no-reduction";
  if (run.keep_going) line += " --continue";
  return line;
}

// The search's counts for main's partial report, should memory run out while
// the liveness pass runs or the report and its files are written.
void NoteSearchDone(const engine::SearchResult& result) {
  SetPartialCount("states", result.stats.states_distinct);
  SetPartialCount("transitions", result.stats.transitions);
  SetPartialCount("depth", result.stats.depth_max);
  if (result.violation) {
    SetPartialNote("the search found " + result.violation->invariant +
                   "; memory ran out before its report was written");
  }
}

Status RefuseContradictions(const CheckOptions& check, const RunOptions& run) {
  if (check.model_only && run.impl_only_bugs != 0)
    return Usage(
        "--impl-bug needs lockstep: --model-only runs the model alone");
  if (run.walks_given && run.order != engine::Order::kRandom)
    return Usage("--walks and --depth need --mode random");
  if (run.keep_going && run.order != engine::Order::kBfs)
    return Usage("--continue needs --mode bfs");
  return CheckBugsApply(check.config, run.impl_only_bugs);
}

Result<CheckRun> RunCheckSearch(const CheckOptions& given,
                                const RunOptions& run, std::ostream& out,
                                std::ostream& err) {
  MEMWAL_RETURN_IF_ERROR(RefuseContradictions(given, run));
  CheckRun done{.check = given};
  CheckOptions& check = done.check;
  // Under mpirun, rank 0 alone reports and writes files.
  const bool rank0 = !run.scale_out.active() || engine::WorldRank() == 0;
  engine::CatchInterrupts();
  done.env_note = EnableRequiredEnv(&check.config, run.impl_only_bugs);
  if (!done.env_note.empty() && rank0) Fail(err, "check", done.env_note);
  if (!check.json && rank0) {
    out << "seed=" << check.seed
        << "\nconfig: " << model::ToString(check.config)
        << "\nimpl-only bugs: " << report::BugNames(run.impl_only_bugs).dump()
        << "\nmode: " << (check.model_only ? "model-only " : "lockstep ")
        << Name(run.order) << ", threads " << run.threads << "\n";
  }
  engine::Options search = SearchOptionsOf(check, run);
  const bool terminal = &err == &std::cerr && isatty(2);
  if (terminal) search.status = &err;
  // Lockstep depth first (one thread): the liveness pass judges the model's
  // graph, which the implementation cannot change, so it runs beside the
  // search on the other cores and is kept only when the search ends ok, as
  // if it had run after it (the same verdict with any timing).
  const bool beside = !run.scale_out.active() && run.liveness &&
                      !check.model_only && run.order == engine::Order::kDfs;
  std::optional<engine::LivenessBeside> liveness;
  if (beside) liveness.emplace(check.config, LivenessOptionsOf(check, run));
  if (run.scale_out.active()) {
    MEMWAL_ASSIGN_OR_RETURN(
        engine::DistributedResult levels,
        engine::SearchLevels(SetupOf(check, run), search, run.scale_out,
                             engine::WorldComm()));
    done.result = std::move(levels.result);
    done.distributed = levels.dist;
  } else {
    done.result = engine::Search(SetupOf(check, run), search);
  }
  const engine::LivenessResult* live_beside =
      beside ? &liveness->Finish(done.result.verdict == engine::Verdict::kOk)
             : nullptr;
  if (!rank0) return done;
  NoteSearchDone(done.result);
  if (run.liveness && done.result.verdict == engine::Verdict::kOk) {
    ApplyLiveness(check, run,
                  beside ? *live_beside
                         : engine::CheckLiveness(check.config,
                                                 LivenessOptionsOf(check, run)),
                  &done.result);
  }
  if (done.result.violation && HasTrace(*done.result.violation)) {
    MEMWAL_ASSIGN_OR_RETURN(
        const Written written,
        WriteCounterexample(check, run, *done.result.violation));
    done.trace_file = written.trace_file;
    done.itf_file = written.itf_file;
  }
  if (run.keep_going) {
    for (const engine::SearchViolation& v : done.result.violations) {
      if (!HasTrace(v)) {
        done.files.emplace_back();
        continue;
      }
      MEMWAL_ASSIGN_OR_RETURN(const Written written,
                              WriteCounterexample(check, run, v));
      done.files.emplace_back(written.trace_file, written.itf_file);
    }
  }
  return done;
}

int ReportCheckRun(const CheckRun& done, const RunOptions& run,
                   const CheckExtras& extras, std::ostream& out,
                   std::ostream& err) {
  const CheckOptions& check = done.check;
  const engine::SearchResult& result = done.result;
  const Written written{done.trace_file, done.itf_file};
  const Written* files = done.trace_file.empty() ? nullptr : &written;
  if (check.json) {
    json document = ResultJson(check, run, result, files);
    if (!done.env_note.empty()) document["note"] = done.env_note;
    if (files != nullptr) document["itf_file"] = done.itf_file;
    if (run.keep_going) document["violations"] = ViolationsJson(done);
    for (const auto& [key, value] : extras.fields.items())
      document[key] = value;
    if (done.distributed) document["distributed"] = DistributedJson(done);
    out << document.dump() << "\n";
  } else {
    PrintText(check, run, result, files, out);
    if (run.keep_going) PrintMoreViolations(done, run, out);
    if (done.distributed) {
      const json levels = DistributedJson(done);
      char per_state[32];
      std::snprintf(per_state, sizeof(per_state), "%.1f",
                    levels["bytes_exchanged_per_state"].get<double>());
      out << "ranks: " << levels["ranks"] << ", bytes exchanged "
          << levels["bytes_exchanged"] << " (" << per_state
          << " per state), lockstep Worlds shipped " << levels["worlds_shipped"]
          << ", re-derived " << levels["worlds_rederived"];
      if (levels["resumed_level"] != 0)
        out << ", resumed at level " << levels["resumed_level"];
      if (levels["snapshots"] != 0)
        out << ", snapshots " << levels["snapshots"];
      out << "\n";
    }
    out << extras.text;
  }
  if (!run.html_dir.empty()) {
    const report::RunSummary summary{
        .config = check.config,
        .seed = check.seed,
        .verdict = std::string(Name(result.verdict)),
        .command_line = LockstepCommandLine(check, run),
        .stats = result.stats,
        .invariant = result.violation ? result.violation->invariant : ""};
    const Status html =
        report::WriteCheckPages(run.html_dir, summary, done.trace_file);
    if (!html.ok()) return Fail(err, "check", html);
  }
  return ExitCode(result.verdict);
}

int RunLockstepCheck(const CheckOptions& given, const RunOptions& run,
                     std::ostream& out, std::ostream& err) {
  Result<CheckRun> done = RunCheckSearch(given, run, out, err);
  const bool ranks = run.scale_out.active();
  const bool rank0 = !ranks || engine::WorldRank() == 0;
  int code = kExitUsage;
  if (!done.ok()) {
    if (rank0) Fail(err, "check", done.status());
  } else if (rank0) {
    code = ReportCheckRun(*done, run, CheckExtras{}, out, err);
  }
  if (!ranks) return code;
  // Every rank waits for rank 0's report and exits with its code (mpirun
  // aborts the job when a rank exits non-zero while others still run).
  std::string text = std::to_string(code);
  engine::WorldComm().Broadcast(&text, 0);
  return std::stoi(text);
}

// A lasso replayed on the model and, for a lockstep trace, on the
// implementation.
struct LassoReplayed {
  std::size_t loop = 0;
  std::optional<std::size_t> window;
  Status model;      // ok: the model shows the lasso
  std::string note;  // the model's account of it
  std::optional<engine::LassoReplay> impl;
  std::string impl_error;  // why the implementation was not replayed
  bool impl_reproduced = false;
  // A lockstep lasso the implementation does not reproduce is a conformance
  // finding, named at the step where the two sides part.
  bool parts = false;
  std::string parting;
};

LassoReplayed ReplayLassoOnBothSides(const report::LockstepTrace& trace,
                                     const lockstep::LockstepSetup& setup) {
  LassoReplayed r;
  r.loop = *trace.trace.loop;
  r.window = trace.trace.window;
  r.model = engine::CheckLasso(setup.config, trace.trace.steps, r.loop,
                               r.window, &r.note);
  if (r.model.ok() && trace.lockstep) {
    Result<engine::LassoReplay> replayed = engine::ReplayLassoOnImplementation(
        setup, trace.trace.steps, r.loop, r.window);
    if (replayed.ok()) {
      r.impl = std::move(*replayed);
    } else {
      r.impl_error = replayed.status().message();
    }
  }
  r.impl_reproduced = r.impl && r.impl->Reproduced();
  r.parts = r.model.ok() && trace.lockstep && !r.impl_reproduced;
  r.parting = !r.parts ? ""
              : r.impl ? r.impl->Parting()
                       : "not replayed: " + r.impl_error;
  return r;
}

json LassoImplementationJson(const LassoReplayed& r) {
  if (r.impl) {
    return json{
        {"turns", r.impl->turns},
        {"steps", r.impl->unrolled.size()},
        {"cycle_states_checked", r.impl->checked},
        {"states_with_a_stuck_generation_retirable", r.impl->retirable_on_impl},
        {"stuck", r.impl->stuck},
        {"finding",
         r.impl->finding ? json(r.impl->finding->invariant) : json(nullptr)},
        {"finding_step", r.impl->finding ? json(r.impl->step) : json(nullptr)},
        {"reproduced", r.impl_reproduced}};
  }
  if (!r.impl_error.empty())
    return json{{"error", r.impl_error}, {"reproduced", false}};
  return nullptr;
}

json LassoJson(const report::LockstepTrace& trace, const LassoReplayed& r) {
  const bool shown = r.model.ok();
  return json{
      {"verdict", shown ? "violation" : "ok"},
      {"invariant", r.parts ? json(lockstep::kImplementationMatchesModel)
                    : shown ? json(engine::kLivenessName)
                            : json(nullptr)},
      {"parting", r.parts ? json(r.parting) : json(nullptr)},
      {"step", shown ? json(trace.trace.steps.size()) : json(nullptr)},
      {"loop", r.loop},
      {"window", r.window ? json(*r.window) : json(nullptr)},
      {"steps", trace.trace.steps.size()},
      {"detail", shown ? json(r.note) : json(r.model.message())},
      {"recorded_invariant", trace.trace.invariant},
      {"lockstep", trace.lockstep},
      {"implementation", LassoImplementationJson(r)},
      {"config", report::ConfigToJson(trace.trace.config)},
      {"impl_bugs", report::BugNames(trace.impl_only_bugs)}};
}

void PrintLassoText(const report::LockstepTrace& trace, const LassoReplayed& r,
                    std::ostream& out) {
  out << "config: " << model::ToString(trace.trace.config)
      << "\nreplayed a lasso of " << trace.trace.steps.size()
      << " steps (cycle from step " << r.loop + 1 << ") on the model\n";
  if (r.parts) {
    out << "violation: " << lockstep::kImplementationMatchesModel
        << "\nwhy: the implementation does not reproduce the model's lasso "
           "("
        << engine::kLivenessName << "): " << r.parting
        << "\nthe model's lasso: " << r.note << "\n";
  } else if (r.model.ok()) {
    out << "violation: " << engine::kLivenessName << "\nwhy: " << r.note
        << "\n";
  } else {
    out << "not a fair counterexample: " << r.model.message() << "\n";
  }
  if (r.impl) {
    out << "implementation: stem and " << r.impl->turns
        << " turn(s) of the cycle in lockstep (" << r.impl->unrolled.size()
        << " steps); ";
    if (r.impl->finding) {
      out << r.impl->finding->invariant << " at step " << r.impl->step << "\n";
    } else {
      out << "generation(s) " << r.impl->stuck << " retirable in "
          << r.impl->retirable_on_impl << " of " << r.impl->checked
          << " persisted states along the cycle\n";
    }
  } else if (!r.impl_error.empty()) {
    out << "implementation: not replayed: " << r.impl_error << "\n";
  }
  out << "recorded: " << trace.trace.invariant
      << (r.model.ok() && (!trace.lockstep || r.impl_reproduced)
              ? " (reproduced)"
              : " (NOT reproduced)")
      << "\n";
}

// Replays a lasso (a liveness counterexample): on the model under the
// liveness window, then (for a lockstep trace) on the implementation, whose
// persisted state is asked along each turn of the cycle whether the stuck
// generations are retirable.
int ReplayLasso(const report::LockstepTrace& trace,
                const lockstep::LockstepSetup& setup, bool json_output,
                std::ostream& out, std::ostream& err) {
  const LassoReplayed replayed = ReplayLassoOnBothSides(trace, setup);
  if (replayed.model.code() == StatusCode::kInvalidArgument)
    return Fail(err, "replay", replayed.model);
  if (json_output) {
    out << LassoJson(trace, replayed).dump() << "\n";
  } else {
    PrintLassoText(trace, replayed, out);
  }
  return replayed.model.ok() ? kExitViolation : kExitOk;
}

int RunLockstepReplay(const std::string& path, bool json_output,
                      std::ostream& out, std::ostream& err) {
  auto fail = [&err](const Status& status) {
    return Fail(err, "replay", status);
  };
  Result<report::LockstepTrace> trace = report::ReadTraceFile(path);
  if (!trace.ok()) return fail(trace.status());
  const lockstep::LockstepSetup setup{.config = trace->trace.config,
                                      .impl_only_bugs = trace->impl_only_bugs,
                                      .seed = trace->trace.seed};
  if (trace->trace.loop)
    return ReplayLasso(*trace, setup, json_output, out, err);
  Result<lockstep::ReplayResult> replay =
      lockstep::ReplayLockstep(setup, trace->trace.steps, !trace->lockstep);
  if (!replay.ok()) return fail(replay.status());
  std::optional<lockstep::Finding> finding = replay->finding;
  std::size_t step = replay->step;
  SetPartialCount("steps replayed", trace->trace.steps.size());
  if (json_output) {
    out << json{{"verdict", finding ? "violation" : "ok"},
                {"invariant",
                 finding ? json(finding->invariant) : json(nullptr)},
                {"step", finding ? json(step) : json(nullptr)},
                {"detail", finding ? json(finding->detail) : json(nullptr)},
                {"steps", trace->trace.steps.size()},
                {"recorded_invariant", trace->trace.invariant},
                {"recorded_step", trace->step},
                {"lockstep", trace->lockstep},
                {"config", report::ConfigToJson(trace->trace.config)},
                {"impl_bugs", report::BugNames(trace->impl_only_bugs)}}
               .dump()
        << "\n";
  } else {
    out << "config: " << model::ToString(trace->trace.config)
        << "\nimpl-only bugs: "
        << report::BugNames(trace->impl_only_bugs).dump() << "\nreplayed "
        << trace->trace.steps.size() << " steps on "
        << (trace->lockstep ? "the model and the implementation" : "the model")
        << "\n";
    if (finding) {
      out << "violation: " << finding->invariant << " after step " << step
          << "\nwhy: " << finding->detail << "\n";
    } else {
      out << "no invariant broken\n";
    }
    const bool same = finding && finding->invariant == trace->trace.invariant &&
                      step == trace->step;
    out << "recorded: " << trace->trace.invariant << " after step "
        << trace->step << (same ? " (reproduced)" : " (NOT reproduced)")
        << "\n";
  }
  return finding ? kExitViolation : kExitOk;
}

std::vector<Flag> CheckCommand::Flags() {
  std::vector<Flag> flags = set.Flags();
  for (Flag& flag : GateFlags(&gate)) flags.push_back(std::move(flag));
  return flags;
}

std::vector<Flag> CheckFlagTable() {
  return HelpTable<CheckCommand>(
      [](CheckCommand* command) { return command->Flags(); });
}

int RunCheckCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  CheckCommand command;
  Status parsed = ParseFlags("check", args, command.Flags()).status();
  if (parsed.ok()) parsed = command.set.Finish();
  if (!parsed.ok()) return Fail(err, "check", parsed);
  if (command.gate.active()) {
    return RunGateCheck(command.set.check, command.set.run, command.gate, out,
                        err);
  }
  return RunLockstepCheck(command.set.check, command.set.run, out, err);
}

int RunReplayCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  ReplayOptions options;
  const Result<ParsedFlags> parsed =
      ParseFlags("replay", args, ReplayFlags(&options), 1);
  if (!parsed.ok()) return Fail(err, "replay", parsed.status());
  if (parsed->positional.empty())
    return Fail(err, "replay", "needs a TRACE file");
  return RunLockstepReplay(parsed->positional[0], options.json, out, err);
}

}  // namespace memwal::checker::cli
