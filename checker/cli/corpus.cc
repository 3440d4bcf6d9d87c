// Corpus building, the binary entry form and `memwal-check corpus`
// (checker/cli/corpus.h).
//
// Selection is greedy over seeded random walks: a walk joins the corpus when
// the set of states it visits is new and it covers a feature no earlier entry
// covered; after the first tenth of the attempt budget also when it visits a
// new state; once half the budget is spent, any walk with a new state set
// joins (so that --count is met on small bounds too).
#include "checker/cli/corpus.h"

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "base/assert.h"
#include "base/json_input.h"
#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/cli/lance_diff.h"
#include "checker/cli/operations_schema.h"
#include "checker/engine/interrupt.h"
#include "checker/lockstep/lockstep.h"
#include "checker/report/trace.h"
#include "checker/report/trace_reader.h"
#include "impl/directory_store.h"
#include "impl/table.h"
#include "model/invariants.h"
#include "model/state.h"

namespace memwal::checker::cli {
namespace {

using model::Action;
using model::Config;
using model::State;

// SplitMix64: a fixed, platform-independent PRNG (no std distributions, whose
// output differs between standard libraries).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) {
    MEMWAL_ASSERT(n > 0);
    return static_cast<std::size_t>(Next() % n);
  }

 private:
  uint64_t state_;
};

int InRange(uint8_t byte, int lo, int max) {
  return lo + byte % (max - lo + 1);
}

model::Bounds DecodeBounds(std::string_view h) {
  const auto b = [&](std::size_t i) { return static_cast<uint8_t>(h[i]); };
  return model::Bounds{.shards = InRange(b(3), 1, model::kShardsMax),
                       .generations = InRange(b(4), 1, model::kGenerationsMax),
                       .fragments = InRange(b(5), 1, model::kFragmentsMax),
                       .indexes = InRange(b(6), 0, model::kIndexesMax),
                       .commits = InRange(b(7), 0, model::kCommitsMax),
                       .inflight = InRange(b(8), 0, model::kInflightMax)};
}

char Byte(int value) { return static_cast<char>(static_cast<uint8_t>(value)); }

std::string EncodeHeader(const Config& c) {
  const model::Bounds& b = c.bounds;
  std::string header;
  for (const int value :
       {static_cast<int>(c.protocol) + 4 * static_cast<int>(c.env),
        static_cast<int>(c.read), static_cast<int>(c.gc), b.shards - 1,
        b.generations - 1, b.fragments - 1, b.indexes, b.commits, b.inflight}) {
    header.push_back(Byte(value));
  }
  MEMWAL_ASSERT(header.size() == kCorpusHeaderBytes);
  return header;
}

// ---- Features -------------------------------------------------------------

using Features = std::set<std::string>;

// R31 cells met by a Commit: the transaction's class against each op
// committed after its read version, with the outcome.
void AddCommitFeatures(const State& before, const model::Commit& commit,
                       model::Outcome outcome, Features* features) {
  const model::Txn& txn =
      before.inflight[static_cast<std::size_t>(commit.slot)];
  const std::string own(model::Name(model::Classify(txn.kind)));
  const std::string result(model::Name(outcome));
  features->insert("commit:" + std::string(model::Name(txn.kind)) + ":" +
                   result);
  for (int v = 0; v < before.version_count; ++v) {
    const model::Version& version =
        before.versions[static_cast<std::size_t>(v)];
    if (version.number <= txn.read_version) continue;
    features->insert(
        "conflict:" + own + "/" +
        std::string(model::Name(model::Classify(version.op.kind))) + ":" +
        result);
  }
}

void AddStepFeatures(const Config& config, const State& before,
                     const Action& action, model::Outcome outcome,
                     const State& after, Features* features) {
  features->insert("action:" + std::string(model::KindName(action)));
  if (const auto* commit = std::get_if<model::Commit>(&action)) {
    AddCommitFeatures(before, *commit, outcome, features);
  } else if (std::holds_alternative<model::Restore>(action) ||
             std::holds_alternative<model::RetireExecute>(action)) {
    features->insert("outcome:" + std::string(model::KindName(action)) + ":" +
                     std::string(model::Name(outcome)));
  }
  for (const model::Goal& goal : model::AllGoals()) {
    if (goal.applicable(config) &&
        goal.reached(config, before, action, outcome, after)) {
      features->insert("goal:" + std::string(goal.name));
    }
  }
}

// Replays `walk` under `config` plus the model bug `info`: the walk is in the
// bug's neighbourhood when the bugged model's states leave the clean ones
// (`states`, Init first), and in an invariant's when a bugged state breaks
// it (the state before is then one step from a violation).
void AddBugFeatures(const Config& config, const model::BugInfo& info,
                    const std::vector<Action>& walk,
                    const std::vector<State>& states, Features* features) {
  Config bugged = config;
  bugged.bugs |= model::BugBit(info.bug);
  State state = model::Init(bugged.bounds);
  const std::string name(info.name);
  for (std::size_t k = 0; k < walk.size(); ++k) {
    if (!model::IsEnabled(bugged, state, walk[k])) {
      features->insert("bug:" + name);
      return;
    }
    model::Outcome outcome;
    state = model::Apply(bugged, state, walk[k], &outcome);
    if (!(state == states[k + 1])) features->insert("bug:" + name);
    if (const model::Invariant* broken =
            model::FirstBrokenInvariant(bugged, state)) {
      features->insert("neighbourhood:" + std::string(broken->name));
      features->insert("bug:" + name + ":" + std::string(broken->name));
      return;
    }
  }
}

// ---- Walks -----------------------------------------------------------------

struct Walk {
  std::vector<Action> actions;
  std::vector<State> states;  // Init first
  Features features;
  uint64_t key = 0;  // hash of the sorted fingerprints of the visited states
  std::vector<uint64_t> fingerprints;
};

// Uniform over the enabled actions, except that an enabled Commit is taken
// half the time: uniform walks begin transactions far more often than they
// commit them, and commits are where conflicts, credits and withdrawals
// happen.
Action PickAction(const std::vector<Action>& enabled, Random* random) {
  std::vector<std::size_t> commits;
  for (std::size_t i = 0; i < enabled.size(); ++i) {
    if (std::holds_alternative<model::Commit>(enabled[i])) commits.push_back(i);
  }
  if (!commits.empty() && random->Below(2) == 0)
    return enabled[commits[random->Below(commits.size())]];
  return enabled[random->Below(enabled.size())];
}

Walk RandomWalk(const Config& config, int depth, Random* random) {
  Walk walk;
  walk.states.push_back(model::Init(config.bounds));
  const std::size_t length = 1 + random->Below(static_cast<std::size_t>(depth));
  std::vector<Action> enabled;
  while (walk.actions.size() < length) {
    const State& before = walk.states.back();
    model::EnabledActions(config, before, &enabled);
    if (enabled.empty()) break;
    const Action action = PickAction(enabled, random);
    model::Outcome outcome;
    State after = model::Apply(config, before, action, &outcome);
    AddStepFeatures(config, before, action, outcome, after, &walk.features);
    walk.actions.push_back(action);
    walk.states.push_back(std::move(after));
  }
  return walk;
}

void Summarize(const Config& config, Walk* walk) {
  for (const model::BugInfo& info : model::AllBugs()) {
    if (info.in_model && !model::Has(config, info.bug))
      AddBugFeatures(config, info, walk->actions, walk->states,
                     &walk->features);
  }
  for (const State& state : walk->states)
    walk->fingerprints.push_back(model::Fingerprint(state));
  std::vector<uint64_t> sorted = walk->fingerprints;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string bytes;
  for (const uint64_t f : sorted) {
    for (int i = 0; i < 8; ++i) bytes.push_back(Byte((f >> (8 * i)) & 0xff));
  }
  walk->key = model::Hash64(bytes);
}

// The features a complete corpus should cover under `config`.
Features ApplicableFeatures(const Config& config) {
  Features wanted;
  std::vector<Action> enabled;
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    if (!model::KindApplies(config, kind)) continue;
    const std::string_view name = model::KindName(kind);
    const bool atomic_gc = config.gc == model::GcMode::kAtomic;
    if (name == "RetireSsTable" && !atomic_gc) continue;
    if ((name == "RetireDecide" || name == "RetireExecute") && atomic_gc)
      continue;
    if (name == "Activate" && !model::IsBitProtocol(config.protocol)) continue;
    wanted.insert("action:" + std::string(name));
  }
  for (const model::Goal& goal : model::AllGoals()) {
    if (goal.applicable(config))
      wanted.insert("goal:" + std::string(goal.name));
  }
  return wanted;
}

// What stops the build now ("" nothing): a signal or a spent budget. The
// resident set is read every 256 walks (it costs a /proc read).
std::string BudgetSpent(const CorpusOptions& options, double seconds,
                        std::size_t states, std::size_t attempts) {
  if (engine::Interrupted()) return std::string(engine::InterruptName());
  if (options.time_limit_s > 0 && seconds > options.time_limit_s)
    return "time-limit";
  if (options.max_states > 0 && states >= options.max_states)
    return "max-states";
  if (options.memory_limit_mb > 0 && attempts % 256 == 0 &&
      engine::ResidentMegabytes() > options.memory_limit_mb)
    return "memory-limit";
  return "";
}

void ShowProgress(const CorpusOptions& options, const Corpus& corpus,
                  std::size_t states, double seconds) {
  char line[160];
  std::snprintf(
      line, sizeof(line),
      "\rcorpus: entries %zu of %zu  walks %zu  states %zu  %.0f s   ",
      corpus.entries.size(), options.count, corpus.attempts, states, seconds);
  *options.status << line << std::flush;
}

}  // namespace

std::string EncodeCorpusEntry(const CorpusEntry& entry) {
  MEMWAL_ASSERT(entry.steps.size() <= kCorpusStepsMax);
  std::string bytes = EncodeHeader(entry.config);
  State state = model::Init(entry.config.bounds);
  std::vector<Action> enabled;
  for (const Action& action : entry.steps) {
    model::EnabledActions(entry.config, state, &enabled);
    const auto it = std::find(enabled.begin(), enabled.end(), action);
    MEMWAL_ASSERT(it != enabled.end());
    MEMWAL_ASSERT(enabled.size() < 256);
    bytes.push_back(Byte(static_cast<int>(it - enabled.begin())));
    model::Outcome outcome;
    state = model::Apply(entry.config, state, action, &outcome);
  }
  return bytes;
}

CorpusEntry DecodeCorpusEntry(std::string_view bytes, uint32_t bugs) {
  CorpusEntry entry;
  entry.config.bugs = bugs;
  if (bytes.size() < kCorpusHeaderBytes) return entry;
  const auto b = [&](std::size_t i) { return static_cast<uint8_t>(bytes[i]); };
  entry.config.protocol = static_cast<model::Protocol>(b(0) % 4);
  entry.config.env = static_cast<model::Env>(b(0) / 4 % 2);
  entry.config.read = static_cast<model::ReadMode>(b(1) % 3);
  entry.config.gc = static_cast<model::GcMode>(b(2) % 3);
  entry.config.bounds = DecodeBounds(bytes);
  MEMWAL_ASSERT(model::CheckBounds(entry.config.bounds).ok());
  State state = model::Init(entry.config.bounds);
  std::vector<Action> enabled;
  for (std::size_t i = kCorpusHeaderBytes;
       i < bytes.size() && entry.steps.size() < kCorpusStepsMax; ++i) {
    model::EnabledActions(entry.config, state, &enabled);
    if (enabled.empty()) break;
    const Action action = enabled[b(i) % enabled.size()];
    model::Outcome outcome;
    state = model::Apply(entry.config, state, action, &outcome);
    entry.steps.push_back(action);
  }
  return entry;
}

Corpus BuildCorpus(const CorpusOptions& options) {
  MEMWAL_ASSERT(model::CheckConfig(options.config).ok());
  MEMWAL_ASSERT(options.depth >= 1);
  const int depth = std::min(options.depth, static_cast<int>(kCorpusStepsMax));
  const std::size_t attempts_max =
      options.attempts_max != 0 ? options.attempts_max
                                : 200 * std::max<std::size_t>(options.count, 1);
  Random random(options.seed);
  Corpus corpus;
  Features covered;
  std::set<uint64_t> keys;
  std::set<uint64_t> states;
  const auto start = std::chrono::steady_clock::now();
  double shown_s = 0;
  while (corpus.entries.size() < options.count &&
         corpus.attempts < attempts_max) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    corpus.stopped_by =
        BudgetSpent(options, seconds, states.size(), corpus.attempts);
    if (!corpus.stopped_by.empty()) break;
    if (options.status != nullptr && seconds >= shown_s + 1) {
      shown_s = seconds;
      ShowProgress(options, corpus, states.size(), seconds);
    }
    ++corpus.attempts;
    SetPartialCount("walks", corpus.attempts);
    SetPartialCount("entries", corpus.entries.size());
    Walk walk = RandomWalk(options.config, depth, &random);
    if (walk.actions.empty()) continue;
    Summarize(options.config, &walk);
    if (keys.count(walk.key) != 0) continue;
    const bool new_feature = std::any_of(
        walk.features.begin(), walk.features.end(),
        [&](const std::string& f) { return covered.count(f) == 0; });
    const bool new_state =
        std::any_of(walk.fingerprints.begin(), walk.fingerprints.end(),
                    [&](uint64_t f) { return states.count(f) == 0; });
    // Phase 1 (the first tenth of the budget) takes only walks that cover a
    // new feature, so that rare features are not crowded out; phase 2 also
    // takes new states; past half the budget any new state set will do.
    const bool phase1 = corpus.attempts <= attempts_max / 10;
    const bool saturated = corpus.attempts > attempts_max / 2;
    if (!new_feature && (phase1 || (!new_state && !saturated))) continue;
    keys.insert(walk.key);
    covered.insert(walk.features.begin(), walk.features.end());
    states.insert(walk.fingerprints.begin(), walk.fingerprints.end());
    corpus.entries.push_back(std::move(walk.actions));
  }
  if (options.status != nullptr && shown_s > 0) *options.status << "\n";
  corpus.features.assign(covered.begin(), covered.end());
  for (const std::string& f : ApplicableFeatures(options.config)) {
    if (covered.count(f) == 0) corpus.features_missed.push_back(f);
  }
  corpus.states_distinct = states.size();
  return corpus;
}

namespace {

std::string EntryName(std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof(name), "entry-%04zu", index);
  return name;
}

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

Result<uint64_t> Unsigned(std::string_view flag, const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return Usage(std::string(flag) + " needs a number up to 999999999");
  }
  return std::stoull(text);
}

struct CorpusCommand {
  CorpusDirMode mode = CorpusDirMode::kNew;
  CorpusOptions options{};
  std::string dir{};
  std::vector<std::string> includes{};  // --include TRACE, in order
  bool tables = false;                  // --tables
  bool operations = false;              // --operations
  bool schema = false;                  // --operations-schema
};

// corpus's flags write here: check's table (variant options, bounds,
// --seed, --out and budgets) and corpus's own options.
struct CorpusFlags {
  CheckFlagSet set{};
  CorpusCommand command{};
  bool has_out = false;

  std::vector<Flag> Flags();
  std::vector<Flag> CheckFlags();
  std::vector<Flag> OwnFlags();
  std::vector<Flag> WalkFlags();
  std::vector<Flag> DirModeFlags();
};

// corpus takes check's configuration switches (CheckFlagSet::ConfigFlags,
// so a new switch is a corpus option too; --impl-bug aside: the corpus runs
// the model), bounds, budgets, seed and --out; the search and lockstep
// options do not apply to random walks on the model.
std::vector<Flag> CorpusFlags::CheckFlags() {
  std::set<std::string> taken = {"--preset",     "--shards",    "--generations",
                                 "--fragments",  "--indexes",   "--commits",
                                 "--inflight",   "--seed",      "--out",
                                 "--max-states", "--time-limit"};
  for (const Flag& flag : CheckFlagSet::ConfigFlagTable()) {
    if (flag.name != "--impl-bug") taken.insert(flag.name);
  }
  std::vector<Flag> flags;
  for (Flag& flag : set.Flags()) {
    if (!taken.contains(flag.name)) continue;
    if (flag.name == "--out") {
      flag.help = "the corpus directory (required; new or empty)";
      flag.apply = [this, apply = flag.apply](std::string_view dir) {
        has_out = true;
        return apply(dir);
      };
    }
    flags.push_back(std::move(flag));
  }
  return flags;
}

// --count and --depth: how many walks, how long each.
std::vector<Flag> CorpusFlags::WalkFlags() {
  std::vector<Flag> flags;
  for (const char* name : {"--count", "--depth"}) {
    const std::string flag(name);
    flags.push_back(
        Valued(flag, flag == "--count" ? "N" : "D",
               flag == "--count" ? "interleavings to write (default 500)"
                                 : "steps per walk (default 24, at most 64)",
               [this, flag](std::string_view value) -> Status {
                 MEMWAL_ASSIGN_OR_RETURN(const uint64_t n,
                                         Unsigned(flag, std::string(value)));
                 if (n == 0) return Usage(flag + " must be at least 1");
                 if (flag == "--count") command.options.count = n;
                 if (flag == "--depth") {
                   if (n > kCorpusStepsMax)
                     return Usage("--depth must be at most " +
                                  std::to_string(kCorpusStepsMax));
                   command.options.depth = static_cast<int>(n);
                 }
                 return Status::Ok();
               }));
  }
  return flags;
}

// --resume and --force: what to do with a DIR that exists.
std::vector<Flag> CorpusFlags::DirModeFlags() {
  std::vector<Flag> flags;
  for (const CorpusDirMode mode :
       {CorpusDirMode::kResume, CorpusDirMode::kForce}) {
    const bool resume = mode == CorpusDirMode::kResume;
    flags.push_back(
        Switch(resume ? "--resume" : "--force",
               resume ? "continue a partial DIR (same options and seed)"
                      : "replace a corpus DIR (json/, bin/, tables/,\n"
                        "operations/ and markers only)",
               [] {}));
    flags.back().apply = [this, mode](std::string_view) -> Status {
      if (command.mode != CorpusDirMode::kNew && command.mode != mode)
        return Usage("--resume and --force exclude each other");
      command.mode = mode;
      return Status::Ok();
    };
  }
  return flags;
}

std::vector<Flag> CorpusFlags::OwnFlags() {
  std::vector<Flag> flags = WalkFlags();
  for (Flag& flag : DirModeFlags()) flags.push_back(std::move(flag));
  flags.push_back(Valued(
      "--memory-limit", "MB", "stop (exit 3) when resident memory exceeds MB",
      [this](std::string_view value) -> Status {
        MEMWAL_ASSIGN_OR_RETURN(const uint64_t mb,
                                Unsigned("--memory-limit", std::string(value)));
        if (mb == 0) return Usage("--memory-limit must be at least 1");
        command.options.memory_limit_mb = mb;
        return Status::Ok();
      }));
  flags.push_back(
      Switch("--tables",
             "also write DIR/tables/entry-NNNN: the table the implementation\n"
             "persisted after the entry's steps (readable by inspect and\n"
             "LanceDB; a shallow clone's sources in entry-NNNN.sources/)",
             [this] { command.tables = true; }));
  flags.push_back(
      Switch("--operations",
             "also write DIR/operations/entry-NNNN.json: the Lance operations\n"
             "each entry commits (fuzz/README.md, \"Operation lists\")",
             [this] { command.operations = true; }));
  flags.push_back(Switch("--operations-schema",
                         "print the operation lists' JSON schema\n"
                         "(fuzz/operations.schema.json) and exit",
                         [this] { command.schema = true; }));
  flags.push_back(
      Valued("--include", "TRACE",
             "add a trace (e.g. a counterexample of check) as\n"
             "DIR/json/trace-NNNN.json and DIR/bin/trace-NNNN (repeatable)",
             [this](std::string_view path) {
               command.includes.emplace_back(path);
               return Status::Ok();
             }));
  return flags;
}

std::vector<Flag> CorpusFlags::Flags() {
  std::vector<Flag> flags = CheckFlags();
  for (Flag& flag : OwnFlags()) flags.push_back(std::move(flag));
  return flags;
}

Result<CorpusCommand> ParseCorpus(const std::vector<std::string>& args) {
  CorpusFlags parsed;
  MEMWAL_RETURN_IF_ERROR(ParseFlags("corpus", args, parsed.Flags()).status());
  if (parsed.command.schema) return std::move(parsed.command);
  if (!parsed.has_out) return Usage("needs --out DIR");
  MEMWAL_RETURN_IF_ERROR(parsed.set.Finish());
  CorpusCommand command = std::move(parsed.command);
  const CheckOptions& check = parsed.set.check;
  command.options.config = check.config;
  command.options.seed = check.seed;
  command.options.time_limit_s = check.explore.time_limit_s;
  command.options.max_states = check.explore.max_states;
  command.dir = check.out_dir;
  return command;
}

// Trace format version 2 (checker/cli/check.h), as a lockstep run with no
// finding (step 0) writes it.
std::string CorpusTraceText(const Config& config, uint64_t seed,
                            const std::vector<Action>& steps) {
  report::LockstepTrace trace;
  trace.trace = report::Trace{
      .config = config, .seed = seed, .invariant = "", .steps = steps};
  trace.lockstep = true;
  return report::LockstepTraceText(trace);
}

// A counterexample (or any trace) as an extra entry, with its own config:
// one line naming the file for anything that is not a replayable trace of at
// most kCorpusStepsMax steps. Bug switches are not part of the binary form.
Result<CorpusEntry> IncludedEntry(const std::string& path) {
  const auto fail = [&](std::string_view what) {
    return Status::InvalidArgument("--include " + path + ": " +
                                   std::string(what));
  };
  const Result<report::LockstepTrace> trace = report::ReadTraceFile(path);
  if (!trace.ok())
    return Status::InvalidArgument("--include " + trace.status().message());
  CorpusEntry entry{.config = trace->trace.config, .steps = trace->trace.steps};
  entry.config.bugs = 0;
  if (entry.steps.size() > kCorpusStepsMax)
    return fail("more than " + std::to_string(kCorpusStepsMax) + " steps");
  State state = model::Init(entry.config.bounds);
  std::vector<Action> enabled;
  for (std::size_t k = 0; k < entry.steps.size(); ++k) {
    model::EnabledActions(entry.config, state, &enabled);
    if (std::find(enabled.begin(), enabled.end(), entry.steps[k]) ==
        enabled.end())
      return fail("step " + std::to_string(k + 1) + " is not enabled");
    if (enabled.size() >= 256)
      return fail("more than 255 actions enabled at step " +
                  std::to_string(k + 1));
    model::Outcome outcome;
    state = model::Apply(entry.config, state, entry.steps[k], &outcome);
  }
  return entry;
}

// Adds DIR/json/NAME.json and DIR/bin/NAME for one entry.
void AddEntryFiles(const std::string& name, const CorpusEntry& entry,
                   uint64_t seed, CorpusFiles* files) {
  files->push_back({"json/" + name + ".json",
                    CorpusTraceText(entry.config, seed, entry.steps)});
  files->push_back({"bin/" + name, EncodeCorpusEntry(entry)});
}

// The included entries' files, DIR/json/trace-NNNN.json and DIR/bin/trace-NNNN.
void AddIncludedFiles(const std::vector<CorpusEntry>& entries, uint64_t seed,
                      CorpusFiles* files) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "trace-%04zu", i);
    AddEntryFiles(name, entries[i], seed, files);
  }
}

CorpusFiles EntryFiles(const Corpus& corpus, const Config& config,
                       uint64_t seed) {
  CorpusFiles files;
  for (std::size_t i = 0; i < corpus.entries.size(); ++i) {
    AddEntryFiles(EntryName(i),
                  CorpusEntry{.config = config, .steps = corpus.entries[i]},
                  seed, &files);
  }
  return files;
}

}  // namespace

std::vector<Flag> CorpusFlagTable() {
  return HelpTable<CorpusFlags>(
      [](CorpusFlags* flags) { return flags->Flags(); });
}

std::string CorpusAbout() {
  return "Writes N distinct interleavings chosen by seeded random walks to "
         "cover every\naction, commit outcome, goal and invariant "
         "neighbourhood. Each entry twice:\nDIR/json/entry-NNNN.json (our "
         "JSON trace, version 2) and DIR/bin/entry-NNNN (the\nbinary form of "
         "spec/trace-format.md section 4, for libFuzzer and AFL++).\n"
         "An included trace keeps its own config; bug switches are not "
         "encoded.\nSIGINT or SIGTERM stops like a budget. The marker is "
         "written last: DIR/COMPLETE,\nor DIR/INCOMPLETE (why, then the "
         "summary) when a budget or a signal stopped\nthe build.\n"
         "Exit 0 written and complete, 2 bad usage or an unwritable DIR, 3 "
         "stopped early\n(written, marked incomplete).\n";
}

namespace {

// The lines `corpus` prints, also the marker's body.
std::string CorpusSummary(const CorpusOptions& options, const Corpus& corpus,
                          std::size_t included) {
  std::ostringstream text;
  text << "seed=" << options.seed
       << "\nconfig: " << model::ToString(options.config)
       << "\nentries: " << corpus.entries.size() << " (of " << options.count
       << " asked; " << corpus.attempts
       << " walks tried)\nstates visited: " << corpus.states_distinct
       << "\nfeatures covered: " << corpus.features.size() << "\n";
  for (const std::string& feature : corpus.features_missed)
    text << "not covered: " << feature << "\n";
  if (included != 0)
    text << "included traces: " << included << " (trace-NNNN)\n";
  return text.str();
}

Result<std::vector<CorpusEntry>> IncludedEntries(
    const std::vector<std::string>& paths) {
  std::vector<CorpusEntry> included;
  for (const std::string& path : paths) {
    MEMWAL_ASSIGN_OR_RETURN(CorpusEntry entry, IncludedEntry(path));
    included.push_back(std::move(entry));
  }
  return included;
}

}  // namespace

// The operations document of fuzz/README.md ("Operation lists"): one object
// per version the table retains whose read version it retains too (Init reads
// nothing), oldest first, from its transaction file; `table_dir` is where the
// transaction files are, relative to the corpus directory.
Result<std::string> OperationsText(const std::string& name,
                                   const impl::Store& table,
                                   const std::string& table_dir) {
  using nlohmann::json;
  json operations = json::array();
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> versions,
                          impl::ListVersions(table));
  const std::set<uint64_t> retained(versions.begin(), versions.end());
  std::string lance_version;
  uint64_t left_out = 0;
  for (const uint64_t version : versions) {
    MEMWAL_ASSIGN_OR_RETURN(
        const impl::Snapshot snapshot,
        impl::LoadVersion(table, nullptr, version, /*allow_half_set=*/true));
    // The Lance version the list follows: the newest manifest's writer.
    const auto& writer = snapshot.file->manifest.writer_version();
    lance_version = writer.library() + " " + writer.version() +
                    (writer.prerelease().empty() ? std::string()
                                                 : "-" + writer.prerelease());
    MEMWAL_ASSIGN_OR_RETURN(const impl::pb::Transaction t,
                            impl::LoadTransaction(table, snapshot));
    // A read version a CleanupVersions removed: the operation cannot be
    // replayed where it was made, so the list leaves it out (and counts it).
    if (t.read_version() != 0 && !retained.contains(t.read_version())) {
      ++left_out;
      continue;
    }
    const google::protobuf::OneofDescriptor* oneof =
        t.GetDescriptor()->FindOneofByName("operation");
    MEMWAL_ASSERT(oneof != nullptr);
    const google::protobuf::FieldDescriptor* field =
        t.GetReflection()->GetOneofFieldDescriptor(t, oneof);
    if (field == nullptr)
      return Status::InvalidArgument(name + ": version " +
                                     std::to_string(version) +
                                     "'s transaction has no operation");
    std::string fields;
    google::protobuf::util::JsonPrintOptions print;
    print.preserve_proto_field_names = true;
    if (!google::protobuf::util::MessageToJsonString(
             t.GetReflection()->GetMessage(t, field), &fields, print)
             .ok()) {
      return Status::InvalidArgument(name + ": cannot print version " +
                                     std::to_string(version) + "'s operation");
    }
    json properties = json::object();
    for (const auto& [key, value] : t.transaction_properties())
      properties[key] = value;
    operations.push_back(
        json{{"version", version},
             {"read_version", t.read_version()},
             {"operation", field->name()},
             {"transaction_file",
              "_transactions/" + snapshot.file->manifest.transaction_file()},
             {"fields", json::parse(fields)},
             {"transaction_properties", properties}});
  }
  return json{{"format", "memwal-check-operations"},
              {"format_version", kOperationsFormatVersion},
              {"entry", name},
              {"lance_version", lance_version},
              {"table_dir", table_dir},
              {"retained_versions", versions},
              {"left_out", left_out},
              {"operations", operations}}
             .dump(1) +
         "\n";
}

// DIR/tables/NAME: the table the implementation persisted after the entry's
// steps (impl::World::WriteTo: manifests, transaction files, index files and
// the shard directories, in Lance's layout); DIR/operations/NAME.json: the
// operations it committed.
Status WriteEntryTable(const std::string& dir, const std::string& name,
                       const CorpusEntry& entry, uint64_t seed, bool tables,
                       bool operations) {
  const lockstep::LockstepSetup setup{.config = entry.config, .seed = seed};
  MEMWAL_ASSIGN_OR_RETURN(impl::World world, lockstep::InitWorld(setup));
  for (const model::Action& action : entry.steps) {
    const Result<model::Outcome> outcome =
        lockstep::ApplyToWorld(action, &world);
    if (!outcome.ok()) {
      return Status::InvalidArgument(
          name + ": the implementation cannot take " + model::ToString(action) +
          ": " + std::string(outcome.status().message()));
    }
  }
  // Without --tables, DIR/operations/NAME/ keeps the table's transaction
  // files alone (the operation list's links).
  const std::string table_dir =
      tables ? "tables/" + name : "operations/" + name;
  const std::filesystem::path root = std::filesystem::path(dir) / table_dir;
  // A shallow clone's sources: its base paths are relative ("t0/"), so a
  // reader run in DIR/tables/NAME.sources/ finds them
  // (docs/lance-data-files.md).
  const std::filesystem::path sources =
      std::filesystem::path(dir) / "tables" / (name + ".sources");
  // A resumed run writes the entry's table afresh (nothing of an earlier
  // run's table stays beside it).
  for (const std::filesystem::path& path : {root, sources}) {
    std::error_code error;
    std::filesystem::remove_all(path, error);
    if (error)
      return Status::InvalidArgument("cannot remove " + path.string() + ": " +
                                     error.message());
  }
  MEMWAL_ASSIGN_OR_RETURN(impl::DirectoryStore store,
                          impl::DirectoryStore::Open(root.string()));
  MEMWAL_RETURN_IF_ERROR(world.WriteTo(&store));
  if (tables) {
    MEMWAL_RETURN_IF_ERROR(WriteCloneSources(world, sources.string()).status());
  }
  if (operations) {
    MEMWAL_ASSIGN_OR_RETURN(const std::string text,
                            OperationsText(name, store, table_dir));
    std::error_code error;
    std::filesystem::create_directories(
        std::filesystem::path(dir) / "operations", error);
    if (error)
      return Status::InvalidArgument("cannot create " + dir +
                                     "/operations: " + error.message());
    MEMWAL_RETURN_IF_ERROR(WriteOutputFile(
        (std::filesystem::path(dir) / "operations" / (name + ".json")).string(),
        text));
  }
  if (!tables) {
    std::error_code error;
    for (const std::filesystem::directory_entry& item :
         std::filesystem::directory_iterator(root, error)) {
      if (item.path().filename() != "_transactions")
        std::filesystem::remove_all(item.path(), error);
    }
    if (error)
      return Status::InvalidArgument("cannot trim " + root.string() + ": " +
                                     error.message());
  }
  return Status::Ok();
}

Status WriteTables(const std::string& dir, const Corpus& corpus,
                   const Config& config, uint64_t seed, bool tables,
                   bool operations) {
  for (std::size_t i = 0; i < corpus.entries.size(); ++i) {
    SetPartialCount("tables written", i);
    MEMWAL_RETURN_IF_ERROR(WriteEntryTable(
        dir, EntryName(i),
        CorpusEntry{.config = config, .steps = corpus.entries[i]}, seed, tables,
        operations));
  }
  return Status::Ok();
}

int RunCorpusCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  const Result<CorpusCommand> command = ParseCorpus(args);
  if (!command.ok()) return Fail(err, "corpus", command.status());
  if (command->schema) {
    out << OperationsSchema().dump(1) << "\n";
    return kExitOk;
  }
  const auto fail = [&err](const Status& status) {
    return Fail(err, "corpus", status);
  };
  const std::string& dir = command->dir;
  if (Status status = CheckCorpusDirectory(dir, command->mode); !status.ok())
    return fail(status);
  const Result<std::vector<CorpusEntry>> included =
      IncludedEntries(command->includes);
  if (!included.ok()) return fail(included.status());
  CorpusOptions options = command->options;
  if (&err == &std::cerr && isatty(2)) options.status = &err;
  engine::CatchInterrupts();
  const Corpus corpus = BuildCorpus(options);
  CorpusFiles files = EntryFiles(corpus, options.config, options.seed);
  AddIncludedFiles(*included, options.seed, &files);
  Status status = WriteCorpusFiles(dir, files, command->mode);
  if (status.ok() && (command->tables || command->operations)) {
    status = WriteTables(dir, corpus, options.config, options.seed,
                         command->tables, command->operations);
  }
  const std::string summary = CorpusSummary(options, corpus, included->size());
  if (status.ok()) status = WriteCorpusMarker(dir, corpus.stopped_by, summary);
  if (!status.ok()) return fail(status);
  out << summary << "written: " << dir << "/json, " << dir << "/bin"
      << (command->tables ? ", " + dir + "/tables" : std::string())
      << (command->operations ? ", " + dir + "/operations" : std::string())
      << "\n";
  if (corpus.stopped_by.empty()) return kExitOk;
  out << "incomplete: " << corpus.stopped_by << " (" << dir << "/"
      << kIncompleteMarker << "; --resume continues it)\n";
  return kExitIncomplete;
}

}  // namespace memwal::checker::cli

namespace memwal::checker::cli {
namespace {

using nlohmann::json;

// An ITF pick as a plain JSON value: {"#bigint":"N"} -> N, a Quint option
// Some(v) -> v; nullopt for None.
Result<std::optional<json>> PlainPick(const json& pick) {
  if (pick.is_object() && pick.contains("tag")) {
    if (pick["tag"] == "None") return std::optional<json>();
    if (pick["tag"] != "Some" || !pick.contains("value"))
      return Status::InvalidArgument("ITF pick has an unknown option tag");
    return PlainPick(pick["value"]);
  }
  if (pick.is_object() && pick.size() == 1 && pick.contains("#bigint")) {
    const json& text = pick["#bigint"];
    if (!text.is_string() || text.get_ref<const std::string&>().empty() ||
        text.get_ref<const std::string&>().size() > 3 ||
        text.get_ref<const std::string&>().find_first_not_of("0123456789") !=
            std::string::npos) {
      return Status::InvalidArgument("ITF #bigint is not a small integer");
    }
    return std::optional<json>(std::stoull(text.get<std::string>()));
  }
  if (pick.is_boolean() || pick.is_number_unsigned())
    return std::optional<json>(pick);
  return Status::InvalidArgument("ITF pick is not an integer or boolean");
}

Result<model::Action> ItfStepAction(const json& state, std::size_t index) {
  const std::string where = "ITF state " + std::to_string(index) + ": ";
  if (!state.is_object() || !state.contains("mbt::actionTaken") ||
      !state["mbt::actionTaken"].is_string()) {
    return Status::InvalidArgument(where + "no mbt::actionTaken string");
  }
  json action = {{"kind", state["mbt::actionTaken"]}};
  if (state.contains("mbt::nondetPicks")) {
    const json& picks = state["mbt::nondetPicks"];
    if (!picks.is_object())
      return Status::InvalidArgument(where +
                                     "mbt::nondetPicks is not a record");
    for (const auto& [name, pick] : picks.items()) {
      Result<std::optional<json>> value = PlainPick(pick);
      if (!value.ok())
        return Status::InvalidArgument(where + value.status().message());
      if (value->has_value()) action[name] = **value;
    }
  }
  Result<model::Action> parsed = model::ActionFromJson(action);
  if (!parsed.ok())
    return Status::InvalidArgument(where + parsed.status().message());
  return parsed;
}

}  // namespace

Result<std::vector<model::Action>> ActionsFromItf(std::string_view text) {
  const Result<json> parsed = ParseJsonInput(text);
  if (!parsed.ok())
    return Status::InvalidArgument("ITF: " + parsed.status().message());
  const json& document = *parsed;
  if (!document.is_object())
    return Status::InvalidArgument("ITF: not a JSON object");
  if (!document.contains("states") || !document["states"].is_array())
    return Status::InvalidArgument("ITF: no \"states\" list");
  const json& states = document["states"];
  if (states.empty()) return Status::InvalidArgument("ITF: no initial state");
  std::vector<model::Action> actions;
  for (std::size_t k = 1; k < states.size(); ++k) {
    MEMWAL_ASSIGN_OR_RETURN(model::Action action, ItfStepAction(states[k], k));
    actions.push_back(action);
  }
  return actions;
}

}  // namespace memwal::checker::cli
