// The variants table (checker/cli/variants.h).
#include "checker/cli/variants.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/cli/expect.h"
#include "checker/engine/interrupt.h"
#include "checker/engine/liveness.h"
#include "checker/report/report.h"
#include "checker/report/trace.h"
#include "model/invariants.h"

namespace memwal::checker::cli {
namespace {

using nlohmann::json;

// The protocol a bug runs under: the base one when the spec row applies to
// it, else the first one the row names.

// "advance, indexes=2": how a variant's config differs from `base`.
std::string Difference(const model::Config& base, const model::Config& run) {
  std::string text;
  auto add = [&text](const std::string& part) {
    text += (text.empty() ? "" : ", ") + part;
  };
  // Every registered switch; the first (protocol) by its value alone.
  for (const model::Switch& variant : model::AllSwitches()) {
    if (variant.Get(run) == variant.Get(base)) continue;
    const std::string value(variant.Spelling(run));
    add(variant.info().rank == 0
            ? value
            : std::string(variant.info().name) + " " + value);
  }
  if (run.bounds.indexes != base.bounds.indexes)
    add("indexes=" + std::to_string(run.bounds.indexes));
  if (run.bounds.fragments != base.bounds.fragments)
    add("fragments=" + std::to_string(run.bounds.fragments));
  if (run.bounds.commits != base.bounds.commits)
    add("commits=" + std::to_string(run.bounds.commits));
  if (run.bounds.inflight != base.bounds.inflight)
    add("inflight=" + std::to_string(run.bounds.inflight));
  return text.empty() ? "-" : text;
}

Variant Make(const model::Config& base, std::string name,
             const model::Config& config) {
  return Variant{.name = std::move(name),
                 .run = Difference(base, config),
                 .setup = lockstep::LockstepSetup{.config = config}};
}

// Two indexes at least, so that a per-index cap differs from `min`.
void TwoIndexes(model::Config* config) {
  config->bounds.indexes = std::max(config->bounds.indexes, 2);
}

// Env foreign (spec section 10) and the bounds at which its actions reach the
// bug: a second index for the other-index advance, five commits for the oldest
// claim, six and a fourth fragment for the MemWAL reset's re-compaction; one
// transaction in flight where the trace needs no concurrency.
void ForeignEnvFor(model::Bug bug, model::Config* config) {
  config->env = model::Env::kForeign;
  if (bug == model::Bug::kAdvanceWithoutInspected ||
      bug == model::Bug::kIndexWorkPerTransaction) {
    TwoIndexes(config);
    config->bounds.inflight = 1;  // their traces need no concurrency
  }
  if (bug == model::Bug::kInvalidationOnLegacy) config->bounds.inflight = 1;
  if (bug == model::Bug::kAdvanceReplacesPosition) {
    config->bounds.commits = std::max(config->bounds.commits, 5);
    config->bounds.generations = std::max(config->bounds.generations, 2);
  }
  if (bug == model::Bug::kCoveragePastCompaction) {
    config->bounds.commits = std::max(config->bounds.commits, 6);
    config->bounds.fragments = std::max(config->bounds.fragments, 4);
    config->bounds.generations = std::max(config->bounds.generations, 2);
  }
}

bool HasTrace(const std::string& invariant) {
  return model::FindInvariant(invariant) != nullptr ||
         invariant == lockstep::kImplementationMatchesModel ||
         invariant == engine::kLivenessName;
}

std::string DirName(const std::string& variant) {
  std::string dir = variant;
  std::replace(dir.begin(), dir.end(), '=', '-');
  return dir;
}

Result<std::string> WriteTrace(const std::string& dir, const std::string& file,
                               const lockstep::LockstepSetup& setup,
                               bool lockstep, const std::string& invariant,
                               const std::vector<model::Action>& steps,
                               const std::string& detail,
                               std::optional<std::size_t> loop,
                               std::optional<std::size_t> window) {
  MEMWAL_RETURN_IF_ERROR(MakeOutputDirectory(dir));
  const std::string path = (std::filesystem::path(dir) / file).string();
  const report::LockstepTrace trace{
      .trace = report::Trace{.config = setup.config,
                             .seed = setup.seed,
                             .invariant = invariant,
                             .steps = steps,
                             .loop = loop,
                             .window = window},
      .lockstep = lockstep,
      .impl_only_bugs = setup.impl_only_bugs,
      // Traces end at the step that breaks the invariant.
      .step = steps.size(),
      .detail = detail};
  MEMWAL_RETURN_IF_ERROR(
      report::WriteFileAtomically(path, report::LockstepTraceText(trace)));
  return path;
}

void CheckLivenessAfter(const lockstep::LockstepSetup& setup,
                        const RunSettings& settings, VariantResult* result) {
  const auto start = std::chrono::steady_clock::now();
  const engine::LivenessResult live =
      engine::CheckLiveness(setup.config, settings.liveness_max_states > 0
                                              ? settings.liveness_max_states
                                              : settings.search.max_states);
  result->seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!live.complete) {
    result->verdict = engine::Verdict::kIncomplete;
  } else if (!live.holds) {
    result->verdict = engine::Verdict::kViolation;
    result->invariant = std::string(engine::kLivenessName);
    result->detail = live.note;
    result->found = live.trace;
    result->loop = live.loop;
    result->window = live.window;
  }
}

std::string StepsText(const std::optional<std::size_t>& steps) {
  return steps ? std::to_string(*steps) : "-";
}

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", seconds);
  return text;
}

// "time-limit 60.00 s": the budget that stopped a search.
std::string BudgetText(const std::string& stopped_by,
                       const engine::Options& search) {
  if (stopped_by == "time-limit")
    return "time-limit " + SecondsText(search.time_limit_s) + " s";
  if (stopped_by == "max-states")
    return "max-states " + std::to_string(search.max_states);
  return stopped_by.empty() ? "liveness: max-states" : stopped_by;
}

std::vector<std::string> Cells(const VariantRow& row) {
  std::string steps = StepsText(row.steps);
  if (row.steps && row.steps_before && *row.steps_before != *row.steps)
    steps += " (from " + std::to_string(*row.steps_before) + ")";
  return {row.variant,
          row.run,
          row.verdict,
          row.invariant.empty() ? "-" : row.invariant,
          std::to_string(row.states),
          SecondsText(row.seconds),
          steps};
}

const std::vector<std::string> kHeader = {
    "variant", "run", "verdict", "invariant", "states", "seconds", "steps"};

}  // namespace

std::string VerdictText(engine::Verdict verdict) {
  return std::string(engine::Name(verdict));
}

std::vector<Variant> AllVariants(const model::Config& base) {
  std::vector<Variant> variants;
  variants.push_back(Make(base, "default", base));
  for (model::Protocol protocol :
       {model::Protocol::kDerived, model::Protocol::kAdvance,
        model::Protocol::kUnconditional, model::Protocol::kLegacy}) {
    if (protocol == base.protocol) continue;
    model::Config config = base;
    config.protocol = protocol;
    variants.push_back(
        Make(base, "protocol=" + std::string(model::Name(protocol)), config));
  }
  for (model::ReadMode read : {model::ReadMode::kStrict, model::ReadMode::kMin,
                               model::ReadMode::kSingleIndex}) {
    if (read == base.read) continue;
    model::Config config = base;
    config.read = read;
    if (read == model::ReadMode::kSingleIndex) TwoIndexes(&config);
    variants.push_back(
        Make(base, "read=" + std::string(model::Name(read)), config));
  }
  for (model::GcMode gc : {model::GcMode::kAtomic, model::GcMode::kStaleRead,
                           model::GcMode::kRecheck}) {
    if (gc == base.gc) continue;
    model::Config config = base;
    config.gc = gc;
    variants.push_back(
        Make(base, "gc=" + std::string(model::Name(gc)), config));
  }
  for (const model::BugInfo& info : model::AllBugs()) {
    model::Config config = base;
    config.protocol = model::ProtocolFor(info, base.protocol);
    if (info.bug == model::Bug::kSingleIndexWatermark) TwoIndexes(&config);
    // Two shards compacted from one read version, a fragment for each.
    if (info.bug == model::Bug::kProgressRegresses) {
      config.bounds.shards = std::max(config.bounds.shards, 2);
      config.bounds.fragments = std::max(config.bounds.fragments, 3);
    }
    Variant variant;
    if (info.in_model) {
      config.bugs |= model::BugBit(info.bug);
      variant = Make(base, "bug=" + std::string(info.name), config);
    } else {
      if (model::RequiredEnv(info.bug) == model::Env::kForeign)
        ForeignEnvFor(info.bug, &config);
      variant = Make(base, "bug=" + std::string(info.name), config);
      variant.setup.impl_only_bugs = model::BugBit(info.bug);
      variant.run =
          variant.run == "-" ? "impl only" : variant.run + ", impl only";
    }
    variant.bug = true;
    variants.push_back(variant);
  }
  return variants;
}

VariantResult RunOne(const lockstep::LockstepSetup& setup,
                     const RunSettings& settings,
                     const std::string& out_subdir) {
  VariantResult result;
  const engine::SearchResult search = engine::Search(setup, settings.search);
  result.verdict = search.verdict;
  result.states = search.stats.states_distinct;
  result.seconds = search.stats.seconds;
  result.stats = search.stats;
  result.stopped_by = search.stopped_by;
  if (search.violation) {
    result.invariant = search.violation->invariant;
    result.detail = search.violation->detail;
    result.found = search.violation->trace;
  }
  if (result.verdict == engine::Verdict::kOk && settings.liveness &&
      settings.search.order != engine::Order::kRandom) {
    CheckLivenessAfter(setup, settings, &result);
  }
  if (result.verdict != engine::Verdict::kViolation) return result;
  result.goal_missed = !HasTrace(result.invariant);
  if (result.goal_missed) return result;
  const bool lockstep = settings.search.lockstep;
  if (settings.minimize) {
    result.minimized = Minimize(MinimizeInput{.setup = setup,
                                              .lockstep = lockstep,
                                              .invariant = result.invariant,
                                              .trace = result.found,
                                              .loop = result.loop,
                                              .window = result.window});
  }
  if (settings.out_dir.empty()) return result;
  const std::string dir =
      (std::filesystem::path(settings.out_dir) / out_subdir).string();
  Result<std::string> found = WriteTrace(
      dir, result.invariant + ".trace.json", setup, lockstep, result.invariant,
      result.found, result.detail, result.loop, result.window);
  if (found.ok()) result.trace_file = *found;
  if (!found.ok()) result.write_error = found.status().message();
  if (result.minimized && found.ok()) {
    Result<std::string> minimized = WriteTrace(
        dir, result.invariant + ".min.trace.json", result.minimized->setup,
        lockstep, result.invariant, result.minimized->trace, result.detail,
        result.minimized->loop, result.minimized->window);
    if (minimized.ok()) result.min_trace_file = *minimized;
    if (!minimized.ok()) result.write_error = minimized.status().message();
  }
  return result;
}

VariantRow RunVariant(const Variant& variant, const RunSettings& settings) {
  VariantRow row{.variant = variant.name, .run = variant.run};
  if (variant.setup.impl_only_bugs != 0 && !settings.search.lockstep) {
    row.verdict = "not run";
    row.invariant = "needs lockstep: only the implementation has this bug";
    return row;
  }
  RunSettings run = settings;
  if (variant.bug && !settings.max_states_given) {
    run.liveness_max_states = run.search.max_states;
    run.search.max_states = std::min(run.search.max_states, kBugSearchStates);
  }
  if (variant.bug && run.search.time_limit_s == 0)
    run.search.time_limit_s = kBugSafetySeconds;
  const VariantResult result =
      RunOne(variant.setup, run, DirName(variant.name));
  row.verdict = VerdictText(result.verdict);
  row.invariant = result.invariant;
  row.states = result.states;
  row.seconds = result.seconds;
  if (!result.goal_missed && result.verdict == engine::Verdict::kViolation) {
    row.steps_before = result.found.size();
    row.steps =
        result.minimized ? result.minimized->steps_after : result.found.size();
  }
  row.trace_file =
      result.min_trace_file.empty() ? result.trace_file : result.min_trace_file;
  row.write_error = result.write_error;
  if (result.verdict != engine::Verdict::kViolation &&
      (result.stopped_by == "time-limit" ||
       result.stopped_by == "memory-limit")) {
    // A safety stop decides nothing: its row is the same on no two machines.
    row.verdict = "budget";
    row.invariant = "stopped by the wall-clock or memory safety stop (" +
                    BudgetText(result.stopped_by, run.search) +
                    "), not a verdict";
    return row;
  }
  if (variant.bug && result.verdict != engine::Verdict::kViolation) {
    row.verdict = "not found";
    row.invariant = result.verdict == engine::Verdict::kOk
                        ? "the search completed without a violation"
                        : "the search stopped at its budget (" +
                              BudgetText(result.stopped_by, run.search) + ")";
  }
  return row;
}

std::string VariantsText(const std::vector<VariantRow>& rows) {
  std::vector<std::vector<std::string>> table = {kHeader};
  for (const VariantRow& row : rows) table.push_back(Cells(row));
  std::vector<std::size_t> width(kHeader.size(), 0);
  for (const auto& cells : table) {
    for (std::size_t c = 0; c < cells.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  }
  std::string text;
  for (const auto& cells : table) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      line += cells[c];
      if (c + 1 < cells.size())
        line += std::string(width[c] - cells[c].size() + 2, ' ');
    }
    text += line + "\n";
  }
  return text;
}

std::string VariantsMarkdown(const std::vector<VariantRow>& rows) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string text = "|";
    for (const std::string& cell : cells) {
      std::string escaped;
      for (const char ch : cell) {
        if (ch == '|') escaped += '\\';
        escaped += ch;
      }
      text += " " + escaped + " |";
    }
    return text + "\n";
  };
  std::string text = line(kHeader) + "|";
  for (std::size_t c = 0; c < kHeader.size(); ++c) text += "---|";
  text += "\n";
  for (const VariantRow& row : rows) text += line(Cells(row));
  return text;
}

std::string VariantsJson(const std::vector<VariantRow>& rows) {
  json array = json::array();
  for (const VariantRow& row : rows) {
    array.push_back(json{
        {"variant", row.variant},
        {"verdict", row.verdict},
        {"invariant",
         row.invariant.empty() ? json(nullptr) : json(row.invariant)},
        {"states", row.states},
        {"seconds", row.seconds},
        {"counterexample_steps", row.steps ? json(*row.steps) : json(nullptr)},
        {"trace_file",
         row.trace_file.empty() ? json(nullptr) : json(row.trace_file)}});
  }
  return array.dump(1) + "\n";
}

namespace {

struct VariantsArgs {
  CheckOptions check{};
  RunOptions run{};
  std::vector<std::string> only{};
  std::vector<Expectation> expectations{};
  bool markdown = false;
  bool minimize = true;
};

// variants' flags write here: check's table and variants' own options.
struct VariantsFlags {
  CheckFlagSet set{};
  VariantsArgs parsed{};
  std::vector<Flag> Flags();
};

std::vector<Flag> VariantsFlags::Flags() {
  std::vector<Flag> flags = set.Flags();
  flags.push_back(Switch("--markdown", "a GitHub table instead of text",
                         [this] { parsed.markdown = true; }));
  flags.push_back(Switch("--no-minimize", "keep counterexamples as found",
                         [this] { parsed.minimize = false; }));
  flags.push_back(
      Valued("--only", "NAME",
             "run only this variant (repeatable), e.g. gc=stale-read",
             [this](std::string_view name) {
               parsed.only.emplace_back(name);
               return Status::Ok();
             }));
  flags.push_back(
      Valued("--expect", "NAME=V",
             "pin a variant's verdict (ok, violation, incomplete, not found,\n"
             "not run, budget) or broken invariant; exit 1 when one is not met",
             [this](std::string_view text) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const Expectation expectation,
                                       ParseExpectation(std::string(text)));
               parsed.expectations.push_back(expectation);
               return Status::Ok();
             }));
  return flags;
}

Result<VariantsArgs> ParseVariantsArgs(const std::vector<std::string>& args) {
  VariantsFlags flags;
  MEMWAL_RETURN_IF_ERROR(ParseFlags("variants", args, flags.Flags()).status());
  MEMWAL_RETURN_IF_ERROR(flags.set.Finish());
  VariantsArgs& parsed = flags.parsed;
  parsed.check = flags.set.check;
  parsed.run = flags.set.run;
  if (parsed.run.impl_only_bugs != 0)
    return Status::InvalidArgument(
        "--impl-bug belongs to check; variants runs every bug row itself");
  if (parsed.run.keep_going)
    return Status::InvalidArgument(
        "--continue belongs to check; a variants row reports one verdict");
  // check's own refusals: one function for check, compare and variants.
  MEMWAL_RETURN_IF_ERROR(RefuseContradictions(parsed.check, parsed.run));
  if (parsed.check.json && parsed.markdown)
    return Status::InvalidArgument("--json and --markdown exclude each other");
  return parsed;
}

}  // namespace

std::vector<Flag> VariantsFlagTable() {
  return HelpTable<VariantsFlags>(
      [](VariantsFlags* flags) { return flags->Flags(); });
}

std::string VariantsAbout() {
  return "Runs every protocol, read mode, gc mode and known bug, each alone "
         "against the base\nconfiguration (--protocol, --read, --gc; default "
         "derived, strict, atomic), on\ncheck's bounds (default small), and "
         "prints one table. Every other option is\ncheck's and applies to "
         "every row; --html DIR writes DIR/variants.html and one\npage per "
         "counterexample.\n"
         "Budgets are in states: a bug row searches at most 2,000,000 states "
         "(--max-states N\nreplaces that) and reads `not found` only when "
         "that budget or a complete search\nended it; wall-clock time "
         "(--time-limit, else 900 s per bug row) is only a\nsafety stop, "
         "whose row reads `budget`.\n"
         "Exit 0 done (with --expect: every expectation met), 1 an unmet "
         "expectation,\n2 bad usage, 3 a budget stopped a row.\n";
}

namespace {

RunSettings SettingsOf(const VariantsArgs& parsed) {
  const CheckOptions& check = parsed.check;
  return RunSettings{
      .search = engine::Options{.order = parsed.run.order,
                                .threads = parsed.run.threads,
                                .lockstep = !check.model_only,
                                .max_states = check.explore.max_states,
                                .time_limit_s = check.explore.time_limit_s,
                                .memory_limit_mb = parsed.run.memory_limit_mb,
                                .walks = parsed.run.walks,
                                .depth = parsed.run.depth},
      .liveness = parsed.run.liveness,
      .minimize = parsed.minimize,
      .out_dir = check.out_dir,
      .max_states_given = check.explore.liveness_max_states != UINT64_MAX};
}

// Every name --only and --expect give is a variant's.
Status RefuseUnknownNames(const std::vector<Variant>& variants,
                          const VariantsArgs& parsed) {
  const auto known = [&](const std::string& name) {
    return std::any_of(variants.begin(), variants.end(),
                       [&](const Variant& v) { return v.name == name; });
  };
  for (const std::string& name : parsed.only) {
    if (!known(name))
      return Status::InvalidArgument("unknown variant '" + Escaped(name) + "'");
  }
  for (const Expectation& expected : parsed.expectations) {
    if (!known(expected.name))
      return Status::InvalidArgument("--expect: unknown variant '" +
                                     Escaped(expected.name) + "'");
  }
  return Status::Ok();
}

// The rows run: every variant (or those --only names) until an interrupt.
struct RowsRun {
  std::vector<VariantRow> rows;
  std::vector<NamedOutcome> outcomes;
  bool incomplete = false;
};

RowsRun RunRows(std::vector<Variant>& variants, const VariantsArgs& parsed,
                std::ostream& err) {
  const RunSettings settings = SettingsOf(parsed);
  const std::vector<std::string>& only = parsed.only;
  RowsRun run;
  for (Variant& variant : variants) {
    if (!only.empty() &&
        std::find(only.begin(), only.end(), variant.name) == only.end()) {
      continue;
    }
    if (engine::Interrupted()) {
      Fail(err, "variants",
           std::string(engine::InterruptName()) + "; the table is partial");
      run.incomplete = true;
      break;
    }
    variant.setup.seed = parsed.check.seed;
    run.rows.push_back(RunVariant(variant, settings));
    const VariantRow& row = run.rows.back();
    SetPartialCount("variants run", run.rows.size());
    run.incomplete = run.incomplete || row.verdict == "incomplete" ||
                     row.verdict == "budget";
    run.outcomes.push_back(
        NamedOutcome{row.variant, row.verdict, row.invariant});
  }
  return run;
}

void PrintRows(const VariantsArgs& parsed, const std::vector<VariantRow>& rows,
               std::ostream& out) {
  const CheckOptions& check = parsed.check;
  if (check.json) {
    out << VariantsJson(rows);
  } else if (parsed.markdown) {
    out << VariantsMarkdown(rows);
  } else {
    out << "base: " << model::ToString(check.config) << "\n"
        << (check.model_only ? "model only"
                             : "lockstep with the implementation")
        << "; counterexamples under " << check.out_dir << "/\n"
        << VariantsText(rows);
  }
}

// The rows' counterexample files were written, and --html's pages.
Status WrittenFiles(const VariantsArgs& parsed,
                    const std::vector<VariantRow>& rows) {
  for (const VariantRow& row : rows) {
    if (!row.write_error.empty())
      return Status::InvalidArgument(row.write_error);
  }
  if (parsed.run.html_dir.empty()) return Status::Ok();
  return report::WriteVariantsPages(parsed.run.html_dir,
                                    nlohmann::json::parse(VariantsJson(rows)));
}

}  // namespace

int RunVariantsCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  Result<VariantsArgs> parsed = ParseVariantsArgs(args);
  if (!parsed.ok()) return Fail(err, "variants", parsed.status());
  std::vector<Variant> variants = AllVariants(parsed->check.config);
  engine::CatchInterrupts();
  if (Status known = RefuseUnknownNames(variants, *parsed); !known.ok())
    return Fail(err, "variants", known);
  const RowsRun run = RunRows(variants, *parsed, err);
  PrintRows(*parsed, run.rows, out);
  if (Status written = WrittenFiles(*parsed, run.rows); !written.ok())
    return Fail(err, "variants", written);
  if (parsed->expectations.empty() || engine::Interrupted())
    return run.incomplete ? kExitIncomplete : kExitOk;
  const std::vector<std::string> unmet =
      Unmet(parsed->expectations, run.outcomes);
  for (const std::string& line : unmet)
    Fail(err, "variants", "expectation not met: " + line);
  return unmet.empty() ? kExitOk : kExitViolation;
}

}  // namespace memwal::checker::cli
