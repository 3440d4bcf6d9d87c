// memwal-check bench (checker/cli/bench.h): SPIN's pan and our model-only
// search on the same bounds in one run, like for like: our exact storage
// against pan -DSAFETY, our fingerprint storage against pan's hash-compact mode
// (-DHC4), both on the engine `check --model-only` runs
// (checker/engine/search.h), one thread, no symmetry (SPIN has none here); the
// counts must agree or the bench fails. Then the thread speed-up, the symmetry
// reduction, the lockstep rate at small and the default gate's wall time.
#include "checker/cli/bench.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "base/flags.h"
#include "base/input_file.h"
#include "base/output_file.h"
#include "checker/cli/scale_bench.h"
#include "checker/engine/liveness.h"
#include "checker/engine/search.h"
#include "checker/lockstep/lockstep.h"
#include "model/actions.h"
#include "model/invariants.h"
#include "model/state.h"

namespace memwal::checker::cli {
namespace {

constexpr const char* kTemplate =
#include "checker/spin_template.inc"
    ;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- the Promela model ----

std::string Define(const char* name, long value) {
  return "#define " + std::string(name) + " " + std::to_string(value) + "\n";
}

// One `do` option: a cheap necessary condition first (so pan does not even
// try the d_step when it fails), then the action.
void Option(const std::string& pre, const std::string& call, std::string* out) {
  *out += "  :: d_step { (" + pre + "); fresh = 200; " + call +
          "; if :: ok -> Canonicalize(); CheckInvariants() :: else fi }\n";
}

std::string Call(const char* name, std::initializer_list<int> params) {
  std::string call = std::string(name) + "(";
  bool first = true;
  for (int p : params) {
    call += (first ? "" : ", ") + std::to_string(p);
    first = false;
  }
  return call + ")";
}

void WalOptions(const model::Bounds& b, std::string* out) {
  for (int s = 0; s < b.shards; ++s) {
    Option("flushed[" + std::to_string(s) + "] < GENS",
           Call("FlushMemTable", {s}), out);
  }
  const char* kinds[][2] = {{"RetireSsTable", "GC == 0"},
                            {"RetireDecide", "GC != 0"},
                            {"RetireExecute", "GC != 0"}};
  for (const auto& kind : kinds) {
    for (int s = 0; s < b.shards; ++s) {
      for (int g = 1; g <= b.generations; ++g) {
        Option(std::string(kind[1]) + " && " + std::to_string(g) +
                   " <= flushed[" + std::to_string(s) + "]",
               Call(kind[0], {s, g}), out);
      }
    }
  }
}

std::string Live(int f) { return "LIVEF(HD, " + std::to_string(f) + ")"; }

void BeginOptions(const model::Bounds& b, std::string* out) {
  Option("CANBEGIN", "Append()", out);
  for (int f = 0; f < b.fragments; ++f)
    Option("CANBEGIN && " + Live(f), Call("DeleteFragment", {f}), out);
  for (int s = 0; s < b.shards; ++s) {
    for (int m = 0; m < 2; ++m)
      Option("CANBEGIN && COMPACTOR", Call("CompactSsTable", {s, m}), out);
  }
  for (int f = 0; f < b.fragments; ++f) {
    for (int i = 0; i < b.indexes; ++i)
      Option("CANBEGIN && " + Live(f), Call("UpdateColumns", {f, i}), out);
  }
  for (int f1 = 0; f1 < b.fragments; ++f1) {
    for (int f2 = f1 + 1; f2 < b.fragments; ++f2) {
      Option("CANBEGIN && " + Live(f1) + " && " + Live(f2),
             Call("RewriteFragments", {f1, f2}), out);
    }
  }
  for (int i = 0; i < b.indexes; ++i)
    Option("CANBEGIN", Call("CreateIndex", {i}), out);
  const char* present[] = {"OptimizeIndex", "DropIndex"};
  for (const char* kind : present) {
    for (int i = 0; i < b.indexes; ++i) {
      Option("CANBEGIN && PRESENT(HD, " + std::to_string(i) + ")",
             Call(kind, {i}), out);
    }
  }
  for (int s = 0; s < b.shards; ++s)
    Option("CANBEGIN && COMPACTOR", Call("RecordProgress", {s}), out);
  Option("BITPROTO && CANBEGIN && NOBIT(HD)", "Activate()", out);
}

void TableOptions(const model::Bounds& b, std::string* out) {
  for (int t = 0; t < b.inflight; ++t)
    Option(std::to_string(t) + " < tcount", Call("Commit", {t}), out);
  for (int v = 0; v < b.commits; ++v) {
    const std::string pos = std::to_string(v);
    Option("BUDGET && " + pos + " + 1 < vcount && v_ret[" + pos + "]",
           Call("Restore", {v}), out);
  }
  Option("BUDGET", "ShallowClone()", out);
  Option("vcount > 1", "CleanupVersions()", out);
}

// ---- running tools ----

// Runs `command` through the shell with stdout+stderr to `log`; its exit code.
int Shell(const std::string& command, const std::string& log) {
  const std::string full = command + " >" + log + " 2>&1";
  const int status = std::system(full.c_str());
  if (status == -1) return -1;
  return WEXITSTATUS(status);
}

// A log or source the bench wrote itself ("" when unreadable), through the
// shared reader (base/input_file.h).
std::string ReadFile(const std::string& path) {
  Result<std::string> text = ReadInputFile(path, std::size_t{256} << 20);
  return text.ok() ? std::move(*text) : std::string();
}

// The number before `marker` on its line ("   139993 states, stored").
bool NumberBefore(const std::string& text, const std::string& marker,
                  double* value) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return false;
  const std::size_t line = text.rfind('\n', at);
  const std::size_t from = line == std::string::npos ? 0 : line + 1;
  return std::sscanf(text.c_str() + from, "%lf", value) == 1;
}

// The number after `marker` ("errors: 0").
bool NumberAfter(const std::string& text, const std::string& marker,
                 double* value) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return false;
  return std::sscanf(text.c_str() + at + marker.size(), "%lf", value) == 1;
}

Result<SpinRun> ParsePan(const std::string& text) {
  SpinRun run;
  double stored = 0;
  double errors = 0;
  if (!NumberBefore(text, "states, stored", &stored) ||
      !NumberAfter(text, "errors: ", &errors)) {
    return Status::FailedPrecondition("cannot read pan's report:\n" +
                                      text.substr(0, 400));
  }
  run.states_stored = static_cast<uint64_t>(stored);
  run.errors = static_cast<uint64_t>(errors);
  NumberAfter(text, "pan: elapsed time ", &run.seconds);
  NumberBefore(text, "actual memory usage for states", &run.state_mb);
  NumberBefore(text, "memory used for hash table", &run.hash_mb);
  const std::string marker = "assertion violated ";
  for (std::size_t at = text.find(marker); at != std::string::npos;
       at = text.find(marker, at + 1)) {
    const std::size_t from = at + marker.size();
    const std::size_t end = text.find_first_of(" \n", from);
    run.violated.push_back(text.substr(from, end - from));
  }
  return run;
}

bool OnPath(const char* tool) {
  const std::string command =
      std::string("command -v ") + tool + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// Writes `source` as memwal.pml in `dir`, runs spin -a and compiles pan.
Status BuildPan(const std::string& dir, const std::string& source,
                const std::string& cflags) {
  const std::string cd = "cd '" + dir + "' && ";
  Shell(cd + "rm -f pan", "/dev/null");
  MEMWAL_RETURN_IF_ERROR(WriteOutputFile(dir + "/memwal.pml", source));
  if (Shell(cd + "spin -a memwal.pml", dir + "/spin.log") != 0) {
    return Status::FailedPrecondition("spin -a failed: " +
                                      ReadFile(dir + "/spin.log"));
  }
  if (Shell(cd + "cc " + cflags + " -o pan pan.c", dir + "/cc.log") != 0) {
    return Status::FailedPrecondition("cc failed: " +
                                      ReadFile(dir + "/cc.log"));
  }
  return Status::Ok();
}

// ---- the command ----

struct BenchOptions {
  std::string preset = "medium";
  int reps = 5;
  int threads = 2;
  std::string work_dir = "/tmp/memwal-bench";
  bool json = false;
  uint64_t lockstep_states = 60000;       // the lockstep sample at small
  bool default_check = true;              // time ./memwal check's gate
  std::string spin_optimization = "-O2";  // pan's cc flags before -DSAFETY
  std::string side_preset = "small";      // model-only beside lockstep (dfs)
  std::string large_preset = "large";     // lockstep with liveness, timed
  bool large = true;                      // run it
};

// An integer flag within [low, high].
template <typename T>
Flag BenchNumber(std::string name, T* field, uint64_t low, uint64_t high,
                 std::string help) {
  return Valued(name, "N", std::move(help),
                [name, field, low, high](std::string_view value) {
                  Result<uint64_t> n = ParseUnsigned(name, value);
                  if (!n.ok()) return n.status();
                  if (*n < low || *n > high)
                    return Status::InvalidArgument(name + " must be " +
                                                   std::to_string(low) + ".." +
                                                   std::to_string(high));
                  *field = static_cast<T>(*n);
                  return Status::Ok();
                });
}

std::vector<Flag> BenchFlags(BenchOptions* options) {
  return {
      Switch("--json", "one JSON object on stdout instead of text",
             [options] { options->json = true; }),
      Switch("--no-default-check", "skip timing ./memwal check's gate",
             [options] { options->default_check = false; }),
      Switch("--no-large",
             "skip the --large-preset run (lockstep depth first, liveness)",
             [options] { options->large = false; }),
      Valued("--side-preset", "NAME",
             "the preset of model-only beside depth-first lockstep (default "
             "small)",
             [options](std::string_view value) {
               options->side_preset = value;
               return Status::Ok();
             }),
      Valued("--large-preset", "NAME",
             "the preset timed in lockstep with liveness (default large)",
             [options](std::string_view value) {
               options->large_preset = value;
               return Status::Ok();
             }),
      Valued("--preset", "NAME", "tiny, small, medium (default) or large",
             [options](std::string_view value) {
               options->preset = value;
               return Status::Ok();
             }),
      BenchNumber("--reps", &options->reps, 1, 20,
                  "repetitions of each pair (default 5)"),
      BenchNumber("--threads", &options->threads, 1, 64,
                  "threads of the speed-up run (default 2)"),
      Valued("--work-dir", "DIR",
             "where pan is built and run (default /tmp/memwal-bench)",
             [options](std::string_view value) {
               if (value.empty())
                 return Status::InvalidArgument("--work-dir needs a directory");
               options->work_dir = value;
               return Status::Ok();
             }),
      BenchNumber("--lockstep-states", &options->lockstep_states, 1, UINT64_MAX,
                  "the lockstep sample's states (default 60000)"),
      Valued("--spin-optimization", "-On",
             "pan's cc optimization, -O0..-O3 (default -O2; the tests use\n"
             "-O0: compiling is most of their time)",
             [options](std::string_view value) {
               if (value != "-O0" && value != "-O1" && value != "-O2" &&
                   value != "-O3")
                 return Status::InvalidArgument(
                     "--spin-optimization must be -O0, -O1, -O2 or -O3");
               options->spin_optimization = value;
               return Status::Ok();
             }),
      Switch("--distributed",
             "instead: the distributed search under mpirun -np 1 and 2\n"
             "(checker/cli/scale_bench.h; takes --json only)",
             [] {}),
  };
}

Result<BenchOptions> ParseBench(const std::vector<std::string>& args) {
  BenchOptions options;
  MEMWAL_RETURN_IF_ERROR(
      ParseFlags("bench", args, BenchFlags(&options)).status());
  MEMWAL_RETURN_IF_ERROR(model::ParsePreset(options.preset).status());
  MEMWAL_RETURN_IF_ERROR(model::ParsePreset(options.side_preset).status());
  MEMWAL_RETURN_IF_ERROR(model::ParsePreset(options.large_preset).status());
  return options;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// One side of a comparison: states, median seconds, bytes per stored state.
struct Side {
  uint64_t states = 0;
  double seconds = 0;
  double bytes_per_state = 0;
  double per_s() const { return seconds > 0 ? states / seconds : 0; }
};

// The per-repetition ratios of two sides measured in the same repetition
// (their median is the reported ratio: pairing cancels the machine's drift
// between repetitions, which on a shared VM moves both sides by a third).
struct Ratios {
  std::vector<double> runs;
  // The states/s of `side` over those of `against`.
  void Add(const Side& side, const Side& against) {
    runs.push_back(against.per_s() > 0 ? side.per_s() / against.per_s() : 0.0);
  }
  double median() const { return runs.empty() ? 0.0 : Median(runs); }
};

// One search run in a child process (fork), so that its peak resident set
// is its own: the child's peak less its resident set when it started (what
// it shares with this process), over the states, is its bytes per state.
struct Isolated {
  bool run = false;
  std::string verdict;
  uint64_t states = 0;
  uint64_t transitions = 0;
  double search_seconds = 0;
  double seconds = 0;  // the whole child: search, then liveness if asked
  uint64_t liveness_states = 0;
  double liveness_seconds = 0;
  uint64_t start_kb = 0;  // resident when the child started
  uint64_t peak_kb = 0;   // the child's peak resident set (getrusage)
  double transitions_per_s() const {
    return search_seconds > 0 ? transitions / search_seconds : 0;
  }
  double bytes_per_state() const {
    return states > 0 ? (peak_kb - std::min(peak_kb, start_kb)) * 1024.0 /
                            static_cast<double>(states)
                      : 0;
  }
  double liveness_per_s() const {
    return liveness_seconds > 0 ? liveness_states / liveness_seconds : 0;
  }
};

uint64_t ResidentKb() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0;
  uint64_t resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

// What the child writes back: the fields of Isolated but the verdict, then
// the verdict's characters.
struct Wire {
  uint64_t states, transitions, liveness_states, start_kb, peak_kb;
  double search_seconds, seconds, liveness_seconds;
  char verdict[32];
};

Wire RunChild(const model::Config& config, const engine::Options& search,
              bool liveness) {
  Wire wire{};
  wire.start_kb = ResidentKb();
  const Clock::time_point start = Clock::now();
  // Depth first, the liveness pass runs beside the one-thread search, as
  // `check --mode dfs` runs it (checker/cli/check.cc).
  // No state budget on the pass, as `check` runs it (LivenessOptions' own
  // default, 50 million graph states, stopped large's pass part way).
  const engine::LivenessOptions live_options{.max_states = UINT64_MAX,
                                             .threads = search.threads};
  const bool beside = liveness && search.order == engine::Order::kDfs;
  std::optional<engine::LivenessBeside> pass;
  if (beside) pass.emplace(config, live_options);
  const engine::SearchResult result =
      engine::Search(lockstep::LockstepSetup{.config = config}, search);
  std::string verdict(engine::Name(result.verdict));
  engine::LivenessResult live;
  if (beside) {
    live = pass->Finish(result.verdict == engine::Verdict::kOk);
    wire.liveness_seconds = pass->seconds();
  }
  if (liveness && result.verdict == engine::Verdict::kOk) {
    if (!beside) {
      const Clock::time_point live_start = Clock::now();
      live = engine::CheckLiveness(config, live_options);
      wire.liveness_seconds = SecondsSince(live_start);
    }
    wire.liveness_states = live.states;
    if (!live.complete) verdict = "incomplete (liveness)";
    if (live.complete && !live.holds) verdict = "violation (liveness)";
  }
  wire.seconds = SecondsSince(start);
  wire.states = result.stats.states_distinct;
  wire.transitions = result.stats.transitions;
  wire.search_seconds = result.stats.seconds;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  wire.peak_kb = static_cast<uint64_t>(usage.ru_maxrss);
  std::snprintf(wire.verdict, sizeof(wire.verdict), "%s", verdict.c_str());
  return wire;
}

Result<Isolated> Isolate(const model::Config& config,
                         const engine::Options& search, bool liveness) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return Status::IoError("bench: pipe failed");
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = fork();
  if (child < 0) return Status::IoError("bench: fork failed");
  if (child == 0) {
    close(pipe_ends[0]);
    const Wire wire = RunChild(config, search, liveness);
    const ssize_t written = write(pipe_ends[1], &wire, sizeof(wire));
    _exit(written == static_cast<ssize_t>(sizeof(wire)) ? 0 : 1);
  }
  close(pipe_ends[1]);
  Wire wire{};
  std::size_t got = 0;
  while (got < sizeof(wire)) {
    const ssize_t n = read(pipe_ends[0], reinterpret_cast<char*>(&wire) + got,
                           sizeof(wire) - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (got != sizeof(wire) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::IoError("bench: the measured child process failed");
  wire.verdict[sizeof(wire.verdict) - 1] = '\0';
  return Isolated{.run = true,
                  .verdict = wire.verdict,
                  .states = wire.states,
                  .transitions = wire.transitions,
                  .search_seconds = wire.search_seconds,
                  .seconds = wire.seconds,
                  .liveness_states = wire.liveness_states,
                  .liveness_seconds = wire.liveness_seconds,
                  .start_kb = wire.start_kb,
                  .peak_kb = wire.peak_kb};
}

struct Measured {
  Ratios ratio;        // exact / -DSAFETY, run one right after the other
  Ratios ratio_hc;     // fingerprint / -DHC4, likewise
  Ratios speedup;      // fingerprint on N threads / on 1 (-DHC4 between)
  Side exact;          // ours, exact storage, 1 thread
  Side fingerprint;    // ours, fingerprint storage, 1 thread
  Side fingerprint_n;  // ours, fingerprint storage, N threads
  Side spin_exact;     // pan -DSAFETY
  Side spin_hc;        // pan -DSAFETY -DHC4
  double collision_probability = 0;
  uint64_t symmetry_without = 0;
  uint64_t symmetry_with = 0;
  uint64_t lockstep_transitions = 0;
  double lockstep_seconds = 0;
  Ratios lockstep_ratio;   // model-only over lockstep transitions/s, paired
  Isolated model_side;     // model-only, one thread, complete, no liveness
  Isolated lockstep_side;  // lockstep depth-first, likewise
  Isolated large;          // lockstep with liveness at large_preset
  double default_check_seconds = -1;  // -1: not run
  uint64_t default_check_states = 0;
  std::string default_check_verdict;
};

// The engine's model-only BFS, as `check --model-only --no-symmetry` runs it.
engine::SearchResult Ours(const model::Config& config, engine::Storage storage,
                          int threads, bool symmetry) {
  return engine::SearchModel(config, engine::Options{.threads = threads,
                                                     .storage = storage,
                                                     .symmetry = symmetry});
}

Side SideOf(const engine::SearchResult& result) {
  const engine::Stats& s = result.stats;
  return Side{.states = s.states_distinct,
              .seconds = s.seconds,
              .bytes_per_state = static_cast<double>(s.seen_bytes) /
                                 static_cast<double>(s.states_distinct)};
}

Side SideOf(const SpinRun& run) {
  return Side{.states = run.states_stored,
              .seconds = run.seconds > 0 ? run.seconds : run.wall_seconds,
              .bytes_per_state = (run.state_mb + run.hash_mb) * 1048576.0 /
                                 static_cast<double>(run.states_stored)};
}

void PrintSide(const char* name, const Side& side, std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof(line),
                "  %-28s %9llu states %8.3f s %10.0f states/s %6.1f "
                "bytes/state\n",
                name, static_cast<unsigned long long>(side.states),
                side.seconds, side.per_s(), side.bytes_per_state);
  out << line;
}

// The model-only part: ours against SPIN, threads, symmetry.
void PrintModelText(const BenchOptions& o, const Measured& m,
                    std::ostream& out) {
  char line[256];
  out << "bench: preset " << o.preset << ", median of " << o.reps
      << " runs each, model-only BFS, invariants on, no symmetry\n";
  out << "  (each ratio: the median of the " << o.reps
      << " runs' ratios, ours measured right before SPIN)\n";
  PrintSide("ours exact, 1 thread", m.exact, out);
  PrintSide("spin -DSAFETY", m.spin_exact, out);
  PrintSide("ours fingerprint, 1 thread", m.fingerprint, out);
  PrintSide("spin -DSAFETY -DHC4", m.spin_hc, out);
  std::snprintf(
      line, sizeof(line),
      "  (spin -DHC4 lost %llu states to hash compaction)\n",
      static_cast<unsigned long long>(m.spin_exact.states - m.spin_hc.states));
  out << line;
  std::snprintf(line, sizeof(line), "ours fingerprint, %d threads", o.threads);
  PrintSide(line, m.fingerprint_n, out);
  std::snprintf(line, sizeof(line),
                "  ratio ours/spin: exact %.2f, hash-compact %.2f; thread "
                "speed-up %.2f; collision probability %.2g\n",
                m.ratio.median(), m.ratio_hc.median(), m.speedup.median(),
                m.collision_probability);
  out << line;
  out << "  exact ratio per run:";
  for (double r : m.ratio.runs) {
    std::snprintf(line, sizeof(line), " %.2f", r);
    out << line;
  }
  out << "\n";
  std::snprintf(line, sizeof(line),
                "  symmetry: %llu states without, %llu with\n",
                static_cast<unsigned long long>(m.symmetry_without),
                static_cast<unsigned long long>(m.symmetry_with));
  out << line;
}

// The lockstep part: the sample, side by side, large, the default check.
void PrintLockstepText(const BenchOptions& o, const Measured& m,
                       std::ostream& out) {
  char line[256];
  std::snprintf(
      line, sizeof(line),
      "  lockstep (small, %d threads): %llu transitions in %.2f s = "
      "%.0f transitions/s\n",
      o.threads, static_cast<unsigned long long>(m.lockstep_transitions),
      m.lockstep_seconds,
      m.lockstep_seconds > 0 ? m.lockstep_transitions / m.lockstep_seconds
                             : 0.0);
  out << line;
  std::snprintf(line, sizeof(line),
                "  side by side (%s, 1 thread, complete): model-only %.0f, "
                "lockstep (dfs) %.0f transitions/s, ratio %.1f; bytes per "
                "state %.1f and %.1f (peak resident)\n",
                o.side_preset.c_str(), m.model_side.transitions_per_s(),
                m.lockstep_side.transitions_per_s(), m.lockstep_ratio.median(),
                m.model_side.bytes_per_state(),
                m.lockstep_side.bytes_per_state());
  out << line;
  if (!m.large.run) {
    out << "  large lockstep: not run (--no-large)\n";
  } else {
    std::snprintf(
        line, sizeof(line),
        "  %s lockstep (dfs, %d threads) + liveness: %s, %llu states, %.1f s "
        "(search %.1f s), peak %.0f MB (%.0f MB resident at fork); liveness "
        "%llu graph states in %.1f s, %.0f/s\n",
        o.large_preset.c_str(), o.threads, m.large.verdict.c_str(),
        static_cast<unsigned long long>(m.large.states), m.large.seconds,
        m.large.search_seconds, m.large.peak_kb / 1024.0,
        m.large.start_kb / 1024.0,
        static_cast<unsigned long long>(m.large.liveness_states),
        m.large.liveness_seconds, m.large.liveness_per_s());
    out << line;
  }
  if (m.default_check_seconds < 0) {
    out << "  default check: not run (--no-default-check)\n";
  } else {
    std::snprintf(line, sizeof(line),
                  "  default check (--preset gate, lockstep, liveness, %d "
                  "threads): %s, %llu states, %.1f s\n",
                  o.threads, m.default_check_verdict.c_str(),
                  static_cast<unsigned long long>(m.default_check_states),
                  m.default_check_seconds);
    out << line;
  }
}

void PrintText(const BenchOptions& o, const Measured& m, std::ostream& out) {
  PrintModelText(o, m, out);
  PrintLockstepText(o, m, out);
}

void PrintJson(const BenchOptions& o, const Measured& m, std::ostream& out) {
  nlohmann::json j = {
      {"preset", o.preset},
      {"reps", o.reps},
      {"threads", o.threads},
      {"ours_states_per_s", m.exact.per_s()},
      {"spin_states_per_s", m.spin_exact.per_s()},
      {"ratio", m.ratio.median()},
      {"ratio_runs", m.ratio.runs},
      {"ours_fingerprint_states_per_s", m.fingerprint.per_s()},
      {"spin_hc_states_per_s", m.spin_hc.per_s()},
      {"ratio_hash_compact", m.ratio_hc.median()},
      {"ratio_hash_compact_runs", m.ratio_hc.runs},
      {"states_ours", m.exact.states},
      {"states_spin", m.spin_exact.states},
      {"bytes_per_state_ours", m.fingerprint.bytes_per_state},
      {"bytes_per_state_ours_exact", m.exact.bytes_per_state},
      {"bytes_per_state_spin", m.spin_exact.bytes_per_state},
      {"bytes_per_state_spin_hc", m.spin_hc.bytes_per_state},
      {"states_spin_hc", m.spin_hc.states},
      {"states_lost_spin_hc", m.spin_exact.states - m.spin_hc.states},
      {"collision_probability", m.collision_probability},
      {"speedup_threads", m.speedup.median()},
      {"symmetry_states_without", m.symmetry_without},
      {"symmetry_states_with", m.symmetry_with},
      {"lockstep_transitions_per_s",
       m.lockstep_seconds > 0 ? m.lockstep_transitions / m.lockstep_seconds
                              : 0.0},
      {"side_preset", o.side_preset},
      {"model_transitions_per_s_per_thread", m.model_side.transitions_per_s()},
      {"lockstep_transitions_per_s_per_thread",
       m.lockstep_side.transitions_per_s()},
      {"lockstep_ratio", m.lockstep_ratio.median()},
      {"lockstep_ratio_runs", m.lockstep_ratio.runs},
      {"model_bytes_per_state", m.model_side.bytes_per_state()},
      {"lockstep_bytes_per_state", m.lockstep_side.bytes_per_state()},
      {"large_preset", o.large_preset},
      {"large_verdict",
       m.large.run ? nlohmann::json(m.large.verdict) : nlohmann::json(nullptr)},
      {"large_seconds",
       m.large.run ? nlohmann::json(m.large.seconds) : nlohmann::json(nullptr)},
      {"large_peak_rss_mb", m.large.run
                                ? nlohmann::json(m.large.peak_kb / 1024.0)
                                : nlohmann::json(nullptr)},
      // What the child shared with the bench when forked: counted in its
      // peak, not its own.
      {"large_start_rss_mb", m.large.run
                                 ? nlohmann::json(m.large.start_kb / 1024.0)
                                 : nlohmann::json(nullptr)},
      {"large_liveness_seconds", m.large.run
                                     ? nlohmann::json(m.large.liveness_seconds)
                                     : nlohmann::json(nullptr)},
      {"liveness_states_per_s", m.large.run
                                    ? nlohmann::json(m.large.liveness_per_s())
                                    : nlohmann::json(nullptr)},
      {"default_check_seconds", m.default_check_seconds < 0
                                    ? nlohmann::json(nullptr)
                                    : nlohmann::json(m.default_check_seconds)},
      {"default_check_verdict", m.default_check_verdict}};
  out << j.dump(2) << "\n";
}

// Our count and SPIN's (which has one state more) must agree.
Status SameStates(const char* what, uint64_t ours, uint64_t spin) {
  if (ours + kSpinStateOffset == spin) return Status::Ok();
  return Status::FailedPrecondition(
      std::string(what) + ": ours " + std::to_string(ours) + " states, SPIN " +
      std::to_string(spin) + " (expected ours + " +
      std::to_string(kSpinStateOffset) + ")");
}

// Model-only (breadth first, as `check --model-only` runs) and lockstep
// (depth first) on one thread at side_preset, complete, no liveness, each in
// its own process, one right after the other in each repetition: their
// transitions/s, the median of the paired ratios, and bytes per state.
Status MeasureSides(const BenchOptions& o, Measured* m) {
  model::Config side;
  side.bounds = *model::ParsePreset(o.side_preset);
  std::vector<double> model_seconds, lockstep_seconds;
  for (int rep = 0; rep < o.reps; ++rep) {
    MEMWAL_ASSIGN_OR_RETURN(
        m->model_side,
        Isolate(side, engine::Options{.threads = 1, .lockstep = false},
                /*liveness=*/false));
    MEMWAL_ASSIGN_OR_RETURN(
        m->lockstep_side,
        Isolate(side,
                engine::Options{.order = engine::Order::kDfs, .threads = 1},
                /*liveness=*/false));
    if (m->model_side.states != m->lockstep_side.states ||
        m->model_side.transitions != m->lockstep_side.transitions)
      return Status::FailedPrecondition(
          "model-only and lockstep counted other states or transitions (" +
          std::to_string(m->model_side.states) + "/" +
          std::to_string(m->model_side.transitions) + " against " +
          std::to_string(m->lockstep_side.states) + "/" +
          std::to_string(m->lockstep_side.transitions) + ")");
    const double lockstep_rate = m->lockstep_side.transitions_per_s();
    m->lockstep_ratio.runs.push_back(
        lockstep_rate > 0 ? m->model_side.transitions_per_s() / lockstep_rate
                          : 0.0);
    model_seconds.push_back(m->model_side.search_seconds);
    lockstep_seconds.push_back(m->lockstep_side.search_seconds);
  }
  m->model_side.search_seconds = Median(model_seconds);
  m->lockstep_side.search_seconds = Median(lockstep_seconds);
  return Status::Ok();
}

// One repetition of ours against SPIN at o.preset: exact storage against
// SPIN's exact run, fingerprints against its hash compaction (HC4), and the
// threaded fingerprint run against the one-thread one. Each of ours right
// before the SPIN run it is compared with, so that a change in the machine's
// speed hits both sides of a ratio alike. Appends each run's seconds.
struct SpinSeconds {
  std::vector<double> exact, fingerprint, fingerprint_n, spin_exact, spin_hc;
};
Status MeasureAgainstSpinOnce(const BenchOptions& o,
                              const model::Config& config, Measured* m,
                              SpinSeconds* seconds) {
  m->exact = SideOf(Ours(config, engine::Storage::kExact, 1, false));
  seconds->exact.push_back(m->exact.seconds);
  const int hash_log2 = static_cast<int>(std::ceil(
                            std::log2(static_cast<double>(m->exact.states)))) +
                        1;
  const SpinOptions safety{.work_dir = o.work_dir + "/safety",
                           .cflags = o.spin_optimization + " -DSAFETY",
                           .hash_log2 = hash_log2};
  const SpinOptions hc{.work_dir = o.work_dir + "/hc4",
                       .cflags = o.spin_optimization + " -DSAFETY -DHC4",
                       .hash_log2 = hash_log2};
  MEMWAL_ASSIGN_OR_RETURN(const SpinRun s, RunSpin(config, safety));
  m->spin_exact = SideOf(s);
  seconds->spin_exact.push_back(m->spin_exact.seconds);
  m->ratio.Add(m->exact, m->spin_exact);
  const engine::SearchResult fp =
      Ours(config, engine::Storage::kFingerprint, 1, false);
  m->fingerprint = SideOf(fp);
  m->collision_probability = fp.stats.collision_probability;
  seconds->fingerprint.push_back(m->fingerprint.seconds);
  MEMWAL_ASSIGN_OR_RETURN(const SpinRun h, RunSpin(config, hc));
  m->spin_hc = SideOf(h);
  seconds->spin_hc.push_back(m->spin_hc.seconds);
  m->ratio_hc.Add(m->fingerprint, m->spin_hc);
  m->fingerprint_n =
      SideOf(Ours(config, engine::Storage::kFingerprint, o.threads, false));
  seconds->fingerprint_n.push_back(m->fingerprint_n.seconds);
  m->speedup.Add(m->fingerprint_n, m->fingerprint);
  return Status::Ok();
}

// The counts of one repetition agree: ours and SPIN's exact runs, our exact
// and fingerprint runs, one thread and many. Hash compaction can only lose
// states (two that share a compressed key are taken for one), and SPIN's
// does: its count is reported as lost, not required to match. Ours must find
// every state the exact search finds.
Status SameCounts(const Measured& m) {
  MEMWAL_RETURN_IF_ERROR(
      SameStates("exact", m.exact.states, m.spin_exact.states));
  if (m.fingerprint.states != m.exact.states)
    return Status::FailedPrecondition(
        "fingerprint mode counted " + std::to_string(m.fingerprint.states) +
        " states, exact mode " + std::to_string(m.exact.states));
  if (m.spin_hc.states > m.spin_exact.states)
    return Status::FailedPrecondition(
        "SPIN's hash-compact run stored more states than its exact run");
  if (m.fingerprint_n.states != m.fingerprint.states)
    return Status::FailedPrecondition(
        "the threaded search counted another number of states");
  return Status::Ok();
}

// Ours against SPIN, o.reps times (medians of the seconds), then the
// symmetry reduction's state count.
Status MeasureAgainstSpin(const BenchOptions& o, Measured* m) {
  model::Config config;
  config.bounds = *model::ParsePreset(o.preset);
  SpinSeconds seconds;
  for (int rep = 0; rep < o.reps; ++rep) {
    MEMWAL_RETURN_IF_ERROR(MeasureAgainstSpinOnce(o, config, m, &seconds));
    MEMWAL_RETURN_IF_ERROR(SameCounts(*m));
  }
  m->exact.seconds = Median(seconds.exact);
  m->fingerprint.seconds = Median(seconds.fingerprint);
  m->fingerprint_n.seconds = Median(seconds.fingerprint_n);
  m->spin_exact.seconds = Median(seconds.spin_exact);
  m->spin_hc.seconds = Median(seconds.spin_hc);
  m->symmetry_without = m->fingerprint.states;
  m->symmetry_with =
      Ours(config, engine::Storage::kFingerprint, o.threads, true)
          .stats.states_distinct;
  return Status::Ok();
}

// Lockstep: the first lockstep_states states of the default run (small),
// the median of `reps` runs (every run takes the same transitions; one run of
// about a second varied by a tenth between runs on the 2-core VM).
Status MeasureLockstepSample(const BenchOptions& o, Measured* m) {
  model::Config small;
  small.bounds = model::SmallBounds();
  std::vector<double> seconds;
  for (int rep = 0; rep < o.reps; ++rep) {
    const engine::SearchResult run = engine::Search(
        lockstep::LockstepSetup{.config = small},
        engine::Options{.threads = o.threads, .max_states = o.lockstep_states});
    if (rep > 0 && run.stats.transitions != m->lockstep_transitions)
      return Status::FailedPrecondition(
          "the lockstep sample took another number of transitions");
    m->lockstep_transitions = run.stats.transitions;
    seconds.push_back(run.stats.seconds);
  }
  m->lockstep_seconds = Median(seconds);
  return Status::Ok();
}

// What ./memwal check runs: the gate preset, lockstep, then liveness.
void MeasureDefaultCheck(const BenchOptions& o, Measured* m) {
  model::Config gate;
  gate.bounds = model::GateBounds();
  const Clock::time_point start = Clock::now();
  const engine::SearchResult run =
      engine::Search(lockstep::LockstepSetup{.config = gate},
                     engine::Options{.threads = o.threads});
  m->default_check_states = run.stats.states_distinct;
  m->default_check_verdict = std::string(engine::Name(run.verdict));
  if (run.verdict == engine::Verdict::kOk) {
    // With the run's threads, as check passes them (before, one thread).
    const engine::LivenessResult live = engine::CheckLiveness(
        gate, engine::LivenessOptions{.threads = o.threads});
    if (!live.holds) m->default_check_verdict = "violation (liveness)";
  }
  m->default_check_seconds = SecondsSince(start);
}

Status Measure(const BenchOptions& o, Measured* m) {
  MEMWAL_RETURN_IF_ERROR(MeasureAgainstSpin(o, m));
  MEMWAL_RETURN_IF_ERROR(MeasureLockstepSample(o, m));
  MEMWAL_RETURN_IF_ERROR(MeasureSides(o, m));
  if (o.large) {
    // The large bounds in lockstep (depth first, one path of Worlds), then
    // liveness, as `check --preset large --mode dfs` runs them.
    model::Config large;
    large.bounds = *model::ParsePreset(o.large_preset);
    MEMWAL_ASSIGN_OR_RETURN(
        m->large, Isolate(large,
                          engine::Options{.order = engine::Order::kDfs,
                                          .threads = o.threads},
                          /*liveness=*/true));
  }
  if (o.default_check) MeasureDefaultCheck(o, m);
  return Status::Ok();
}

}  // namespace

std::string PromelaModel(const model::Config& config) {
  MEMWAL_ASSERT(model::CheckConfig(config).ok());
  const model::Bounds& b = config.bounds;
  std::string out =
      "/* generated by memwal-check bench for: " + model::ToString(config) +
      " */\n";
  out += Define("SHARDS", b.shards) + Define("GENS", b.generations) +
         Define("FRAGS", b.fragments) + Define("INDEXES", b.indexes) +
         Define("COMMITS", b.commits) + Define("INFLIGHT", b.inflight) +
         Define("PROTOCOL", static_cast<int>(config.protocol)) +
         Define("READ", static_cast<int>(config.read)) +
         Define("GC", static_cast<int>(config.gc)) +
         Define("BUGS", static_cast<long>(config.bugs));
  std::string options;
  WalOptions(b, &options);
  BeginOptions(b, &options);
  TableOptions(b, &options);
  std::string body = kTemplate;
  const std::string marker = "/* ACTIONS */\n";
  const std::size_t at = body.find(marker);
  MEMWAL_ASSERT(at != std::string::npos);
  body.replace(at, marker.size(), options);
  return out + body;
}

bool SpinAvailable() { return OnPath("spin") && OnPath("cc"); }

Result<SpinRun> RunSpin(const model::Config& config,
                        const SpinOptions& options) {
  if (!SpinAvailable())
    return Status::NotFound(
        "spin or cc is not on PATH (./memwal installs spin)");
  if (config.bounds.reinstalls != 0)
    return Status::InvalidArgument(
        "the Promela rendition has no MemWAL re-install (R39): run SPIN with "
        "--reinstalls 0");
  if (Shell("mkdir -p '" + options.work_dir + "'", "/dev/null") != 0)
    return Status::IoError("cannot create " + options.work_dir);
  const std::string dir = options.work_dir;
  const std::string cd = "cd '" + dir + "' && ";
  // pan is rebuilt only when the model or the flags changed (repetitions).
  const std::string source =
      PromelaModel(config) + "/* cc " + options.cflags + " */\n";
  const bool built = ReadFile(dir + "/memwal.pml") == source &&
                     Shell(cd + "test -x pan", "/dev/null") == 0;
  if (!built) MEMWAL_RETURN_IF_ERROR(BuildPan(dir, source, options.cflags));
  std::string args = " -m100000";
  if (options.all_errors) args += " -c0";
  if (options.hash_log2 > 0) args += " -w" + std::to_string(options.hash_log2);
  const Clock::time_point start = Clock::now();
  Shell(cd + "./pan" + args, dir + "/pan.log");  // pan exits 0 even on errors
  const double wall = SecondsSince(start);
  MEMWAL_ASSIGN_OR_RETURN(SpinRun run, ParsePan(ReadFile(dir + "/pan.log")));
  run.wall_seconds = wall;
  return run;
}

std::vector<Flag> BenchFlagTable() { return HelpTable(&BenchFlags); }

std::string BenchAbout() {
  return "Runs our model-only search (exact and fingerprint storage, one "
         "thread) and SPIN's\npan on bench/spin's Promela model of the "
         "same bounds (-DSAFETY, -DSAFETY -DHC4),\neach of ours right "
         "before the pan run it is compared with, N repetitions;\nprints "
         "states/s (medians), the ratios (the median of the repetitions' "
         "ratios),\nbytes per stored state, the thread speed-up, the "
         "symmetry reduction, the\nlockstep search's transitions/s and the "
         "time of ./memwal check's gate;\nmodel-only beside depth-first "
         "lockstep at --side-preset (one thread, each in\nits own process: "
         "transitions/s, their ratio, bytes per state from the peak\n"
         "resident set); --large-preset in lockstep with liveness (time, "
         "peak resident\nset, liveness states/s).\n"
         "Exit 0 measured, 2 bad usage or when the state counts disagree.\n";
}

int RunBenchCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "--distributed") return RunScaleBench(args, out, err);
  }
  Result<BenchOptions> options = ParseBench(args);
  if (!options.ok()) {
    err << "memwal-check bench: " << options.status().message() << "\n";
    return 2;
  }
  Measured measured;
  const Status status = Measure(*options, &measured);
  if (!status.ok()) {
    err << "memwal-check bench: " << status.message() << "\n";
    return 2;
  }
  if (options->json) {
    PrintJson(*options, measured, out);
  } else {
    PrintText(*options, measured, out);
  }
  return 0;
}

}  // namespace memwal::checker::cli
