// memwal-check bench (checker/bench.h): SPIN's pan and our model-only search on
// the same bounds in one run, plus the lockstep search's rate and time shares.
//
// Our side here is the fingerprint-mode search: a level-synchronous BFS that
// stores, per visited state, only its 64-bit fingerprint in an open-addressing
// table kept between 3/8 and 3/4 full (at most 16 bytes per state at any
// size, about 14 at medium). It keeps no parent records: a violation is
// reported with its invariant, and its trace is rebuilt by re-running the
// ordinary search (`memwal-check check`), which is BFS too and meets the same
// first violation. A level is expanded by N threads, each over its own chunks
// with no allocation on the hot path (states decoded into a reused State,
// successors encoded into a reused buffer); the successors are inserted in
// order, single-threaded, so counts are identical for every thread count.
#include "checker/bench.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/output_file.h"
#include "checker/lockstep.h"
#include "checker/engine/search.h"
#include "model/actions.h"
#include "model/invariants.h"
#include "model/state.h"

namespace memwal::checker {
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

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
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

// ---- our fingerprint-mode search ----

// Fingerprints of visited states, single writer: open addressing, linear
// probing, doubled when 3/4 full.
class CompactSet {
 public:
  CompactSet() : slots_(1u << 12, 0) {}
  bool Contains(uint64_t fingerprint) const {
    const uint64_t stored = Stored(fingerprint);
    for (std::size_t slot = Home(stored);; slot = (slot + 1) & Mask()) {
      if (slots_[slot] == stored) return true;
      if (slots_[slot] == 0) return false;
    }
  }
  bool Insert(uint64_t fingerprint) {
    if (4 * (size_ + 1) > 3 * slots_.size()) Grow();
    const uint64_t stored = Stored(fingerprint);
    std::size_t slot = Home(stored);
    while (slots_[slot] != 0) {
      if (slots_[slot] == stored) return false;
      slot = (slot + 1) & Mask();
    }
    slots_[slot] = stored;
    ++size_;
    return true;
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.size() * sizeof(uint64_t); }

 private:
  static uint64_t Stored(uint64_t f) { return f == 0 ? 0x9e3779b97f4a7c15 : f; }
  std::size_t Mask() const { return slots_.size() - 1; }
  std::size_t Home(uint64_t stored) const {
    return static_cast<std::size_t>(stored ^ (stored >> 29)) & Mask();
  }
  void Grow() {
    std::vector<uint64_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    for (uint64_t stored : old) {
      if (stored == 0) continue;
      std::size_t slot = Home(stored);
      while (slots_[slot] != 0) slot = (slot + 1) & Mask();
      slots_[slot] = stored;
    }
  }

  std::vector<uint64_t> slots_;
  std::size_t size_ = 0;
};

// A BFS level: encoded states back to back. Cache-line aligned: each worker
// appends to its own Level, and neighbours must not share a line.
struct alignas(64) Level {
  std::vector<char> bytes;
  std::vector<uint32_t> ends;  // end offset of each state
  std::vector<uint64_t> fingerprints;
  void Clear() {
    bytes.clear();
    ends.clear();
    fingerprints.clear();
  }
  std::size_t size() const { return ends.size(); }
  std::string_view Get(std::size_t k) const {
    const uint32_t begin = k == 0 ? 0 : ends[k - 1];
    return std::string_view(bytes.data() + begin, ends[k] - begin);
  }
  void Push(std::string_view state, uint64_t fingerprint) {
    bytes.insert(bytes.end(), state.begin(), state.end());
    ends.push_back(static_cast<uint32_t>(bytes.size()));
    fingerprints.push_back(fingerprint);
  }
};

struct FastResult {
  uint64_t states = 0;
  uint64_t transitions = 0;
  double seconds = 0;
  std::size_t set_bytes = 0;
  double expand_seconds = 0;  // wall time of the parallel expansion phases
  std::string violated;       // first broken invariant met, "" none
};

// Expands states [begin, end) of `level` into `out` (successors not yet in
// `seen`; `seen` is only read while workers run).
void ExpandRange(const model::Config& config, const Level& level,
                 std::size_t begin, std::size_t end, const CompactSet& seen,
                 Level* out, uint64_t* transitions, std::string* violated) {
  model::State state;
  std::vector<model::Action> actions;
  std::string encoded;
  uint64_t count = 0;  // local: a shared counter would bounce between cores
  for (std::size_t k = begin; k < end; ++k) {
    MEMWAL_ASSERT(model::Decode(level.Get(k), &state));
    model::EnabledActions(config, state, &actions);
    for (const model::Action& action : actions) {
      model::Outcome outcome;
      const model::State next = model::Apply(config, state, action, &outcome);
      ++count;
      model::Encode(next, &encoded);
      const uint64_t fingerprint = model::Hash64(encoded);
      if (seen.Contains(fingerprint)) continue;
      if (violated->empty()) {
        if (const model::Invariant* broken =
                model::FirstBrokenInvariant(config, next)) {
          *violated = std::string(broken->name);
        }
      }
      out->Push(encoded, fingerprint);
    }
  }
  *transitions += count;
}

FastResult FingerprintSearch(const model::Config& config, int threads) {
  const Clock::time_point start = Clock::now();
  FastResult result;
  CompactSet seen;
  Level level;
  std::string encoded;
  const model::State init = model::Init(config.bounds);
  model::Encode(init, &encoded);
  seen.Insert(model::Hash64(encoded));
  level.Push(encoded, model::Hash64(encoded));
  const std::size_t workers = static_cast<std::size_t>(threads);
  std::vector<Level> outs(workers * 8);
  std::vector<uint64_t> transitions(outs.size(), 0);
  std::vector<std::string> violated(outs.size());
  while (level.size() > 0 && result.violated.empty()) {
    const std::size_t chunks = std::min(outs.size(), level.size());
    const std::size_t per = (level.size() + chunks - 1) / chunks;
    std::atomic<std::size_t> next_chunk{0};
    auto work = [&] {
      for (std::size_t c; (c = next_chunk.fetch_add(1)) < chunks;) {
        outs[c].Clear();
        ExpandRange(config, level, c * per,
                    std::min(level.size(), (c + 1) * per), seen, &outs[c],
                    &transitions[c], &violated[c]);
      }
    };
    const Clock::time_point expand_start = Clock::now();
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& thread : pool) thread.join();
    result.expand_seconds += SecondsSince(expand_start);
    level.Clear();
    for (std::size_t c = 0; c < chunks; ++c) {
      if (result.violated.empty()) result.violated = violated[c];
      for (std::size_t k = 0; k < outs[c].size(); ++k) {
        if (seen.Insert(outs[c].fingerprints[k]))
          level.Push(outs[c].Get(k), outs[c].fingerprints[k]);
      }
    }
  }
  result.states = seen.size();
  for (uint64_t t : transitions) result.transitions += t;
  result.set_bytes = seen.bytes();
  result.seconds = SecondsSince(start);
  return result;
}

// ---- the lockstep profile ----

struct LockstepProfile {
  uint64_t transitions = 0;
  double seconds = 0;
  // Shares of the sampled time: model, implementation step (commit path with
  // protobuf and store), the checks on the persisted state (decode,
  // abstraction, invariants, refinement).
  double model_s = 0;
  double impl_s = 0;
  double check_s = 0;
};

// Walks the first `budget` transitions of a BFS in lockstep and times each
// part: model::Apply, the World step alone (a copy), and StepLockstep minus
// that (its checks).
LockstepProfile ProfileLockstep(const model::Config& config, uint64_t budget) {
  LockstepProfile profile;
  LockstepSetup setup{.config = config};
  Result<impl::World> world = InitWorld(setup);
  if (!world.ok()) return profile;
  struct Item {
    model::State state;
    impl::World world;
  };
  std::vector<Item> level;
  level.push_back(Item{model::Init(config.bounds), std::move(*world)});
  CompactSet seen;
  seen.Insert(model::Fingerprint(level[0].state));
  std::vector<model::Action> actions;
  const Clock::time_point start = Clock::now();
  while (!level.empty() && profile.transitions < budget) {
    std::vector<Item> next_level;
    for (const Item& item : level) {
      model::EnabledActions(config, item.state, &actions);
      for (const model::Action& action : actions) {
        if (profile.transitions >= budget) break;
        Clock::time_point t0 = Clock::now();
        model::Outcome outcome;
        model::State next = model::Apply(config, item.state, action, &outcome);
        profile.model_s += SecondsSince(t0);
        impl::World alone = item.world;
        t0 = Clock::now();
        (void)ApplyToWorld(action, &alone);
        profile.impl_s += SecondsSince(t0);
        impl::World stepped = item.world;
        t0 = Clock::now();
        const std::optional<Finding> finding =
            StepLockstep(setup, action, outcome, next, &stepped);
        profile.check_s += SecondsSince(t0);
        ++profile.transitions;
        if (finding) continue;
        if (seen.Insert(model::Fingerprint(next)))
          next_level.push_back(Item{std::move(next), std::move(stepped)});
      }
    }
    level = std::move(next_level);
  }
  profile.seconds = SecondsSince(start);
  profile.check_s = std::max(0.0, profile.check_s - profile.impl_s);
  return profile;
}

// ---- the command ----

struct BenchOptions {
  std::string preset = "medium";
  int reps = 3;
  int threads = 2;
  std::string work_dir = "/tmp/memwal-bench";
  bool json = false;
  uint64_t lockstep_transitions = 20000;
};

Result<BenchOptions> ParseBench(const std::vector<std::string>& args) {
  BenchOptions options;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& flag = args[k];
    if (flag == "--json") {
      options.json = true;
      continue;
    }
    if (k + 1 >= args.size())
      return Status::InvalidArgument("unknown or incomplete flag '" + flag +
                                     "'");
    const std::string& value = args[++k];
    const int number = std::atoi(value.c_str());
    if (flag == "--preset") {
      options.preset = value;
    } else if (flag == "--reps" && number >= 1 && number <= 20) {
      options.reps = number;
    } else if (flag == "--threads" && number >= 1 && number <= 64) {
      options.threads = number;
    } else if (flag == "--work-dir") {
      options.work_dir = value;
    } else if (flag == "--lockstep-transitions" && number >= 1) {
      options.lockstep_transitions = static_cast<uint64_t>(number);
    } else {
      return Status::InvalidArgument("bad flag or value '" + flag + " " +
                                     value + "'");
    }
  }
  MEMWAL_RETURN_IF_ERROR(model::ParsePreset(options.preset).status());
  return options;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

struct Measured {
  uint64_t states_ours = 0;
  uint64_t states_spin = 0;
  double ours_s = 0;          // median, one thread
  double ours_n_s = 0;        // median, N threads
  double parallel_share = 0;  // of the 1-thread run: the expansion phases
  double spin_s = 0;          // median, pan -DSAFETY
  double spin_ncore_s = -1;   // pan -DNCORE=2: not run (see Measure)
  double bytes_ours = 0;
  double bytes_spin = 0;
  LockstepProfile lockstep;
};

// The speed-up on `threads` idle cores that Amdahl's law gives for a run
// whose parallel part is `share` of its 1-thread time.
double Amdahl(double share, int threads) {
  return 1.0 / ((1.0 - share) + share / threads);
}

void PrintText(const BenchOptions& o, const Measured& m, std::ostream& out) {
  const double ours = m.states_ours / m.ours_s;
  const double spin = m.states_spin / m.spin_s;
  char line[256];
  out << "bench: preset " << o.preset << ", median of " << o.reps
      << " runs each, model-only, invariants on, goals off\n";
  std::snprintf(line, sizeof(line),
                "  ours  1 thread : %9llu states %7.3f s %10.0f states/s  "
                "%5.1f bytes/state\n",
                static_cast<unsigned long long>(m.states_ours), m.ours_s, ours,
                m.bytes_ours);
  out << line;
  std::snprintf(line, sizeof(line),
                "  ours %2d threads: %9llu states %7.3f s %10.0f states/s  "
                "speed-up %.2f (Amdahl on idle cores: %.2f)\n",
                o.threads, static_cast<unsigned long long>(m.states_ours),
                m.ours_n_s, m.states_ours / m.ours_n_s, m.ours_s / m.ours_n_s,
                Amdahl(m.parallel_share, o.threads));
  out << line;
  std::snprintf(line, sizeof(line),
                "  spin -DSAFETY  : %9llu states %7.3f s %10.0f states/s  "
                "%5.1f bytes/state (stored = ours + %llu)\n",
                static_cast<unsigned long long>(m.states_spin), m.spin_s, spin,
                m.bytes_spin,
                static_cast<unsigned long long>(kSpinStateOffset));
  out << line;
  out << "  spin -DNCORE=2 : not run (multi-core pan refuses the hidden "
         "scratch variables)\n";
  std::snprintf(line, sizeof(line), "  ratio ours/spin: %.2f\n", ours / spin);
  out << line;
  const LockstepProfile& l = m.lockstep;
  const double sampled = l.model_s + l.impl_s + l.check_s;
  std::snprintf(
      line, sizeof(line),
      "  lockstep: %llu transitions in %.2f s = %.0f transitions/s; "
      "time: model %.0f%%, implementation step %.0f%%, checks %.0f%%\n",
      static_cast<unsigned long long>(l.transitions), l.seconds,
      l.seconds > 0 ? l.transitions / l.seconds : 0.0,
      sampled > 0 ? 100 * l.model_s / sampled : 0.0,
      sampled > 0 ? 100 * l.impl_s / sampled : 0.0,
      sampled > 0 ? 100 * l.check_s / sampled : 0.0);
  out << line;
}

void PrintJson(const BenchOptions& o, const Measured& m, std::ostream& out) {
  const double ours = m.states_ours / m.ours_s;
  const double spin = m.states_spin / m.spin_s;
  const LockstepProfile& l = m.lockstep;
  const double sampled = std::max(1e-12, l.model_s + l.impl_s + l.check_s);
  nlohmann::json j = {
      {"preset", o.preset},
      {"reps", o.reps},
      {"threads", o.threads},
      {"ours_states_per_s", ours},
      {"spin_states_per_s", spin},
      {"ratio", ours / spin},
      {"states_ours", m.states_ours},
      {"states_spin", m.states_spin},
      {"bytes_per_state_ours", m.bytes_ours},
      {"bytes_per_state_spin", m.bytes_spin},
      {"speedup_threads", m.ours_s / m.ours_n_s},
      {"parallel_share", m.parallel_share},
      {"speedup_threads_amdahl", Amdahl(m.parallel_share, o.threads)},
      {"wall_s_ours", m.ours_s},
      {"wall_s_ours_threads", m.ours_n_s},
      {"wall_s_spin", m.spin_s},
      {"lockstep_transitions_per_s",
       l.seconds > 0 ? l.transitions / l.seconds : 0.0},
      {"lockstep_share",
       {{"model", l.model_s / sampled},
        {"implementation_step", l.impl_s / sampled},
        {"checks", l.check_s / sampled}}}};
  out << j.dump(2) << "\n";
}

Status Measure(const BenchOptions& o, Measured* m) {
  model::Config config;
  config.bounds = *model::ParsePreset(o.preset);
  std::vector<double> ours, ours_n, spin;
  SpinOptions spin_options{.work_dir = o.work_dir};
  for (int rep = 0; rep < o.reps; ++rep) {
    // Interleaved, so that load changes hit both sides alike.
    const FastResult one = FingerprintSearch(config, 1);
    const FastResult many = FingerprintSearch(config, o.threads);
    MEMWAL_ASSERT(one.states == many.states);
    m->states_ours = one.states;
    m->bytes_ours = static_cast<double>(one.set_bytes) / one.states;
    ours.push_back(one.seconds);
    m->parallel_share = one.expand_seconds / one.seconds;
    ours_n.push_back(many.seconds);
    spin_options.hash_log2 = static_cast<int>(std::ceil(
                                 std::log2(static_cast<double>(one.states)))) +
                             1;
    MEMWAL_ASSIGN_OR_RETURN(const SpinRun run, RunSpin(config, spin_options));
    m->states_spin = run.states_stored;
    m->bytes_spin = (run.state_mb + run.hash_mb) * 1048576.0 /
                    static_cast<double>(run.states_stored);
    spin.push_back(run.seconds > 0 ? run.seconds : run.wall_seconds);
  }
  m->ours_s = Median(ours);
  m->ours_n_s = Median(ours_n);
  m->spin_s = Median(spin);
  // pan -DNCORE=2 is not run: multi-core pan refuses `hidden` variables
  // ("#error cannot use hidden variables when compiling multi-core"), and the
  // rendition needs them to keep its scratch out of the state vector.
  m->lockstep = ProfileLockstep(config, o.lockstep_transitions);
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

int RunBenchCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      out << "usage: memwal-check bench [--preset tiny|small|medium|large] "
             "[--reps N] [--threads N]\n"
             "         [--work-dir DIR] [--lockstep-transitions N] [--json]\n"
             "Runs SPIN's pan (-DSAFETY, and -DNCORE=2) on bench/spin's "
             "Promela model and our\nfingerprint-mode search on the same "
             "bounds, N repetitions each (median), and\nprints states/s, "
             "their ratio, bytes per stored state, thread speed-up and the\n"
             "lockstep search's transitions/s with its time shares.\n";
      return 0;
    }
  }
  Result<BenchOptions> options = ParseBench(args);
  if (!options.ok()) {
    err << options.status().ToString() << "\n";
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

}  // namespace memwal::checker
