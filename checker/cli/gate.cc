// `memwal-check gate` and `memwal-check properties` (checker/cli/gate.h).
#include "checker/cli/gate.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "checker/cli/cli.h"
#include "checker/cli/expect.h"
#include "checker/report/junit.h"
#include "checker/report/trace.h"
#include "model/actions.h"
#include "model/invariants.h"

namespace memwal::checker::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// The gtest suites `memwal-check properties` runs: the rule-function
// properties (tests/conformance/rule_*_test.cc: the implementation's rule
// functions against the model's, and its conflict table against Lance's) and
// World's serialization round trip (tests/impl/world_serialize_test.cc).
constexpr std::string_view kPropertySuites = "RuleFunctions.*:WorldSerialize.*";

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

std::string Trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const std::size_t last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

// Whitespace-separated words; "double quotes" keep spaces inside one word.
Result<std::vector<std::string>> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  bool any = false;
  for (const char ch : text) {
    if (ch == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (ch == ' ' || ch == '\t')) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += ch;
      any = true;
    }
  }
  if (quoted) return Usage("an unclosed double quote");
  if (any) words.push_back(word);
  return words;
}

// The flags the gate adds to every check entry itself.
constexpr std::string_view kGateOwned[] = {
    "--max-states", "--time-limit", "--threads",    "--out",   "--json",
    "--junit",      "--expect",     "--html",       "--walks", "--depth",
    "--checkpoint", "--resume",     "--distributed"};

int KindIndex(std::string_view name) {
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    if (model::KindName(kind) == name) return kind;
  }
  return -1;
}

// The check arguments of `entry` as the child runs them.
std::vector<std::string> CheckArgs(const GateEntry& entry,
                                   double safety_seconds,
                                   const std::string& out_dir) {
  std::vector<std::string> args = {"check"};
  args.insert(args.end(), entry.args.begin(), entry.args.end());
  if (entry.walks > 0) {
    args.insert(args.end(),
                {"--mode", "random", "--walks", std::to_string(entry.walks),
                 "--depth", std::to_string(entry.depth)});
  } else {
    args.insert(args.end(), {"--max-states", std::to_string(entry.states)});
    // Breadth first unless the entry names its order (check's own default
    // in lockstep is dfs): a state budget then covers every interleaving up
    // to the depth it reaches, and an expected violation is met as soon as
    // its depth is.
    if (std::find(entry.args.begin(), entry.args.end(), "--mode") ==
        entry.args.end())
      args.insert(args.end(), {"--mode", "bfs"});
  }
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", safety_seconds);
  args.insert(args.end(), {"--time-limit", seconds, "--threads", "1",
                           "--no-minimize", "--json", "--out", out_dir});
  for (const std::string& expectation : entry.expect)
    args.insert(args.end(), {"--expect", expectation});
  return args;
}

// Parses the check arguments as `check` would, so that a rejected flag or
// bound is the gate file's error.
Status CheckEntryArgs(const GateEntry& entry) {
  for (const std::string& arg : entry.args) {
    for (const std::string_view owned : kGateOwned) {
      if (arg == owned)
        return Usage(std::string(owned) +
                     " is the gate's (budget, safety stop, output); leave it "
                     "out of the entry");
    }
    if (arg == "--mode" && entry.walks > 0)
      return Usage("--mode: a walks budget runs --mode random itself");
  }
  CheckFlagSet set;
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags given,
                          ParseFlags("check", entry.args, set.Flags()));
  if (given.help) return Usage("--help has no place in a gate entry");
  MEMWAL_RETURN_IF_ERROR(set.Finish());
  if (entry.walks == 0 && set.run.order == engine::Order::kRandom)
    return Usage("--mode random needs `budget = walks W depth D`");
  for (const std::string& text : entry.expect) {
    MEMWAL_ASSIGN_OR_RETURN(const Expectation expectation,
                            ParseExpectation(text));
    MEMWAL_RETURN_IF_ERROR(CheckExpectationName(expectation.name));
  }
  return Status::Ok();
}

Status ParseBudget(const std::vector<std::string>& words, GateEntry* entry) {
  auto number = [](const std::string& flag,
                   const std::string& text) -> Result<uint64_t> {
    MEMWAL_ASSIGN_OR_RETURN(const uint64_t n, ParseUnsigned(flag, text));
    if (n == 0) return Usage(flag + " must be at least 1");
    return n;
  };
  if (words.size() == 2 && words[0] == "states") {
    MEMWAL_ASSIGN_OR_RETURN(entry->states, number("states", words[1]));
  } else if (words.size() == 4 && words[0] == "walks" && words[2] == "depth") {
    MEMWAL_ASSIGN_OR_RETURN(entry->walks, number("walks", words[1]));
    MEMWAL_ASSIGN_OR_RETURN(entry->depth, number("depth", words[3]));
  } else if (words.size() == 2 && words[0] == "cases") {
    MEMWAL_ASSIGN_OR_RETURN(entry->cases, number("cases", words[1]));
  } else {
    return Usage(
        "budget is `states N`, `walks W depth D` or `cases N` (never seconds)");
  }
  return Status::Ok();
}

Status FinishEntry(const GateEntry& entry) {
  const bool states = entry.states > 0;
  const bool walks = entry.walks > 0;
  const bool cases = entry.cases > 0;
  if (entry.kind == GateEntry::Kind::kProperties) {
    if (!cases) return Usage("a properties entry needs `budget = cases N`");
    if (!entry.expect.empty() || !entry.cannot_fire.empty())
      return Usage("a properties entry takes no expect or cannot-fire");
    return Status::Ok();
  }
  if (entry.args.empty() && !states && !walks)
    return Usage("the entry has no `check =` line");
  if (cases) return Usage("`cases` is the properties entries' budget");
  if (!states && !walks)
    return Usage("the entry needs `budget = states N` or `walks W depth D`");
  if (entry.expect.empty())
    return Usage("the entry needs an `expect = NAME=VERDICT` line");
  return CheckEntryArgs(entry);
}

// Reads a gate file line by line; each line goes to the [gate] block or to
// the entry it belongs to.
class GateParser {
 public:
  explicit GateParser(const std::string& path) : path_(path) {}

  Result<GateFile> Parse(std::string_view text) {
    std::istringstream lines{std::string(text)};
    std::string raw;
    while (std::getline(lines, raw)) {
      ++number_;
      const std::string line = Trim(raw);
      if (line.empty() || line[0] == '#') continue;
      MEMWAL_RETURN_IF_ERROR(line.front() == '[' ? Header(line)
                                                 : KeyLine(line));
    }
    if (in_gate_ && file_.entries.empty())
      return At(number_, "the gate file has no entries");
    MEMWAL_RETURN_IF_ERROR(FinishLast());
    if (file_.entries.empty())
      return At(number_, "the gate file has no entries");
    return std::move(file_);
  }

 private:
  Status At(int line, std::string_view message) const {
    return Usage(path_ + ":" + std::to_string(line) + ": " +
                 std::string(message));
  }

  // Judges the entry just closed, once its block ends.
  Status FinishLast() const {
    if (file_.entries.empty() || in_gate_) return Status::Ok();
    const GateEntry& entry = file_.entries.back();
    if (entry.kind == GateEntry::Kind::kCheck && !has_check_)
      return At(entry.line, "entry " + entry.name + " has no `check =` line");
    const Status status = FinishEntry(entry);
    if (!status.ok())
      return At(entry.check_line > 0 ? entry.check_line : entry.line,
                "entry " + entry.name + ": " + status.message());
    return Status::Ok();
  }

  // `[gate]` or `[entry NAME]`.
  Status Header(const std::string& line) {
    if (line.back() != ']') return At(number_, "a header ends with ']'");
    MEMWAL_RETURN_IF_ERROR(FinishLast());
    const std::string header = Trim(line.substr(1, line.size() - 2));
    if (header == "gate") {
      if (!file_.entries.empty())
        return At(number_, "[gate] comes before the entries");
      in_gate_ = true;
      return Status::Ok();
    }
    if (header.rfind("entry ", 0) != 0)
      return At(number_, "a header is [gate] or [entry NAME]");
    const std::string name = Trim(header.substr(6));
    if (name.empty() || name.find_first_of(" \t/\\=") != std::string::npos ||
        name[0] == '.')
      return At(number_, "an entry's name is one word without / \\ or =");
    if (!names_.insert(name).second)
      return At(number_, "entry " + name + " is named twice");
    in_gate_ = false;
    has_check_ = false;
    file_.entries.push_back(GateEntry{.name = name, .line = number_});
    return Status::Ok();
  }

  // `key = value`, in the [gate] block or in an entry.
  Status KeyLine(const std::string& line) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos)
      return At(number_, "a line is `key = value`, a [header] or a # comment");
    const std::string key = Trim(line.substr(0, eq));
    const std::string value = Trim(line.substr(eq + 1));
    if (in_gate_) return GateKey(key, value);
    if (file_.entries.empty())
      return At(number_, "a key outside an [entry NAME] block");
    return EntryKey(key, value);
  }

  Status GateKey(const std::string& key, const std::string& value) {
    if (key != "safety-seconds")
      return At(number_, "[gate] knows only safety-seconds");
    char* end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(seconds > 0))
      return At(number_, "safety-seconds is a positive number");
    file_.safety_seconds = seconds;
    return Status::Ok();
  }

  Status EntryKey(const std::string& key, const std::string& value) {
    GateEntry& entry = file_.entries.back();
    Result<std::vector<std::string>> words = Words(value);
    if (!words.ok()) return At(number_, words.status().message());
    if (key == "check") {
      if (has_check_ || entry.kind == GateEntry::Kind::kProperties)
        return At(number_, "one `check =` or `properties =` line per entry");
      entry.args = *words;
      entry.check_line = number_;
      has_check_ = true;
    } else if (key == "properties") {
      if (has_check_ || !words->empty())
        return At(number_,
                  "`properties =` takes no value and replaces `check =`");
      entry.kind = GateEntry::Kind::kProperties;
    } else if (key == "expect") {
      if (words->size() != 1)
        return At(number_,
                  "expect is one NAME=VERDICT (quote a verdict with spaces)");
      entry.expect.push_back(words->front());
    } else if (key == "budget") {
      if (entry.states + entry.walks + entry.cases > 0)
        return At(number_, "one budget per entry");
      const Status status = ParseBudget(*words, &entry);
      if (!status.ok()) return At(number_, status.message());
    } else if (key == "cannot-fire") {
      return CannotFire(value, &entry);
    } else {
      return At(number_, "unknown key '" + key +
                             "' (check, properties, expect, budget, "
                             "cannot-fire)");
    }
    return Status::Ok();
  }

  // `cannot-fire = ACTION: the reason`.
  Status CannotFire(const std::string& value, GateEntry* entry) const {
    const std::size_t colon = value.find(':');
    const std::string kind = Trim(value.substr(0, colon));
    const std::string reason =
        colon == std::string::npos ? "" : Trim(value.substr(colon + 1));
    if (KindIndex(kind) < 0)
      return At(number_, "cannot-fire: unknown action '" + kind + "'");
    if (reason.empty())
      return At(number_, "cannot-fire needs `ACTION: the reason`");
    entry->cannot_fire.push_back({kind, reason});
    return Status::Ok();
  }

  const std::string& path_;
  GateFile file_{};
  std::set<std::string> names_{};
  bool in_gate_ = false;
  bool has_check_ = false;
  int number_ = 0;
};

}  // namespace

Result<GateFile> ParseGateFile(std::string_view text, const std::string& path) {
  return GateParser(path).Parse(text);
}

namespace {

// What one entry did.
struct EntryRun {
  const GateEntry* entry = nullptr;
  std::string dir{};
  pid_t pid = -1;
  Clock::time_point start{};
  double seconds = 0;  // wall, of the child
  int exit_code = -1;
  bool killed = false;   // by the gate's own safety stop
  bool stopped = false;  // by --fail-fast
  // Judged:
  std::string outcome{};  // "ok", "FAIL", "budget", "error"
  std::string got{};      // the run's verdict, as check prints it
  std::string why{};      // one line
  json result = nullptr;  // check's --json document
  uint64_t states = 0;
  uint64_t transitions = 0;
  uint64_t cases = 0;
};

Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts this binary with `args`, its stdout and stderr to the two files. The
// child dies with the gate (PR_SET_PDEATHSIG), so a gate that is stopped
// leaves no search running.
Status Spawn(const std::vector<std::string>& args, const std::string& out_path,
             const std::string& err_path, pid_t* pid) {
  std::vector<std::string> owned = args;
  owned.insert(owned.begin(), "memwal-check");
  std::vector<char*> argv;
  for (std::string& arg : owned) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0)
    return Status::IoError("cannot start memwal-check: " +
                           std::string(std::strerror(errno)));
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        dup2(err, STDERR_FILENO) < 0)
      _exit(127);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  *pid = child;
  return Status::Ok();
}

std::vector<std::string> ChildArgs(const GateEntry& entry, const GateFile& file,
                                   const std::string& dir) {
  if (entry.kind == GateEntry::Kind::kProperties)
    return {"properties", "--cases", std::to_string(entry.cases)};
  return CheckArgs(entry, file.safety_seconds, dir);
}

std::string Expected(const GateEntry& entry) {
  if (entry.kind == GateEntry::Kind::kProperties) return "every property holds";
  std::string text;
  for (const std::string& e : entry.expect)
    text += (text.empty() ? "" : " ") + e;
  return text;
}

// The run's verdict as one word or phrase: "ok", "ReadsMissNoRows",
// "goal ReachPositionWithdrawn missed", "incomplete (max-states)".
std::string GotText(const json& result) {
  const std::string verdict = result.value("verdict", "");
  const json& violation = result["violation"];
  std::string stopped;
  if (result.contains("stopped_by") && result["stopped_by"].is_string())
    stopped = result["stopped_by"].get<std::string>();
  if (verdict == "violation" && violation.is_object()) {
    const std::string invariant = violation.value("invariant", "");
    if (violation["step"].is_null()) return "goal " + invariant + " missed";
    return invariant;
  }
  if (!stopped.empty()) return verdict + " (" + stopped + ")";
  return verdict;
}

void JudgeCheck(EntryRun* run) {
  Result<std::string> text = ReadText(run->dir + "/result.json");
  json result = text.ok() ? json::parse(*text, nullptr, false) : json();
  if (!text.ok() || result.is_discarded() || !result.is_object()) {
    run->outcome = "error";
    Result<std::string> err = ReadText(run->dir + "/stderr.txt");
    std::string line = err.ok() ? Trim(err->substr(0, err->find('\n'))) : "";
    run->why = line.empty() ? "the check printed no result (exit " +
                                  std::to_string(run->exit_code) + ")"
                            : line;
    if (run->killed) {
      run->outcome = "budget";
      run->why = "stopped by the gate's safety stop";
    }
    return;
  }
  run->result = result;
  run->states = result.value("states_distinct", uint64_t{0});
  run->transitions = result.value("transitions", uint64_t{0});
  run->got = GotText(result);
  const bool timed_out = result.contains("stopped_by") &&
                         result["stopped_by"] == json("time-limit");
  if (timed_out || run->killed) {
    run->outcome = "budget";
    run->why = "the wall-clock safety stop ended the search at " +
               std::to_string(run->states) +
               " states; raise safety-seconds (not a verdict)";
    return;
  }
  if (run->exit_code == 0) {
    run->outcome = "ok";
    return;
  }
  run->outcome = run->exit_code == 1 ? "FAIL" : "error";
  std::string unmet;
  for (const json& e : result.value("expectations", json::array())) {
    if (e.value("met", true)) continue;
    unmet += (unmet.empty() ? "" : "; ") + e.value("name", std::string()) +
             "=" + e.value("verdict", std::string()) + " not met";
  }
  run->why = unmet.empty() ? "exit " + std::to_string(run->exit_code) : unmet;
}

void JudgeProperties(EntryRun* run) {
  Result<std::string> text = ReadText(run->dir + "/properties.txt");
  const std::string output = text.ok() ? *text : "";
  run->got = run->exit_code == 0 ? "ok" : "violation";
  if (run->killed) {
    run->outcome = "budget";
    run->why = "stopped by the gate's safety stop";
    return;
  }
  const std::size_t passed = output.rfind("[  PASSED  ] ");
  if (passed != std::string::npos)
    run->cases = std::strtoull(output.c_str() + passed + 13, nullptr, 10);
  if (run->exit_code == 0) {
    run->outcome = "ok";
    return;
  }
  run->outcome = run->exit_code == 1 ? "FAIL" : "error";
  std::string failed;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("[  FAILED  ] ", 0) == 0 &&
        line.find(" ms)") != std::string::npos)
      failed += (failed.empty() ? "" : " ") +
                line.substr(13, line.find(' ', 13) - 13);
  }
  run->why = failed.empty() ? "exit " + std::to_string(run->exit_code) +
                                  " (see " + run->dir + "/properties.txt)"
                            : "failed: " + failed;
}

// Makes the entry's output directory afresh and starts its child.
Status StartEntry(EntryRun* run, const GateFile& file) {
  std::error_code error;
  fs::remove_all(run->dir, error);
  fs::create_directories(run->dir, error);
  if (error)
    return Status::IoError("cannot create " + run->dir + ": " +
                           error.message());
  const bool properties = run->entry->kind == GateEntry::Kind::kProperties;
  MEMWAL_RETURN_IF_ERROR(
      Spawn(ChildArgs(*run->entry, file, run->dir),
            run->dir + (properties ? "/properties.txt" : "/result.json"),
            run->dir + "/stderr.txt", &run->pid));
  run->start = Clock::now();
  return Status::Ok();
}

// Kills the children that ran past `hard_stop` seconds.
void KillOverdue(std::vector<EntryRun>* runs,
                 const std::map<pid_t, std::size_t>& running,
                 double hard_stop) {
  for (const auto& [child, k] : running) {
    EntryRun& run = (*runs)[k];
    const double elapsed =
        std::chrono::duration<double>(Clock::now() - run.start).count();
    if (elapsed > hard_stop && !run.killed) {
      kill(child, SIGKILL);
      run.killed = true;
    }
  }
}

// Records how an entry's child ended and judges its output.
void JudgeEnded(EntryRun* run, int status) {
  run->seconds =
      std::chrono::duration<double>(Clock::now() - run->start).count();
  run->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  if (run->stopped) {
    run->outcome = "not run";
    run->why = "--fail-fast: stopped when an earlier entry failed";
  } else if (run->entry->kind == GateEntry::Kind::kProperties) {
    JudgeProperties(run);
  } else {
    JudgeCheck(run);
  }
}

// --fail-fast: kills the children still running and marks them stopped.
void StopRunning(std::vector<EntryRun>* runs,
                 const std::map<pid_t, std::size_t>& running) {
  for (const auto& [child, k] : running) {
    kill(child, SIGKILL);
    (*runs)[k].stopped = true;
  }
}

// --fail-fast: the entries from `next` on were never started.
void MarkNotStarted(std::vector<EntryRun>* runs, std::size_t next) {
  for (std::size_t k = next; k < runs->size(); ++k) {
    EntryRun& run = (*runs)[k];
    run.exit_code = 0;
    run.outcome = "not run";
    run.why = "--fail-fast: an earlier entry failed";
  }
}

// Runs `runs` at most `jobs` at a time; calls `done` in file order as soon
// as an entry and every one before it have finished.
// With `fail_fast`, the first entry that fails (or errs) ends the run: the
// entries still running are stopped and the rest are not started; both read
// "not run".
Status RunAll(std::vector<EntryRun>* runs, const GateFile& file, int jobs,
              bool fail_fast,
              const std::function<void(const EntryRun&)>& done) {
  std::size_t next = 0;
  std::size_t reported = 0;
  std::map<pid_t, std::size_t> running;
  const double hard_stop = file.safety_seconds + 60;
  bool stopping = false;
  while (reported < runs->size()) {
    if (stopping && running.empty()) {
      MarkNotStarted(runs, next);
      next = runs->size();
      while (reported < runs->size()) done((*runs)[reported++]);
      break;
    }
    while (!stopping && next < runs->size() &&
           static_cast<int>(running.size()) < jobs) {
      MEMWAL_RETURN_IF_ERROR(StartEntry(&(*runs)[next], file));
      running[(*runs)[next].pid] = next;
      ++next;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0) {
      KillOverdue(runs, running, hard_stop);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (pid < 0) return Status::IoError("waitpid failed");
    const auto found = running.find(pid);
    if (found == running.end()) continue;
    EntryRun& run = (*runs)[found->second];
    running.erase(found);
    JudgeEnded(&run, status);
    if (fail_fast && !stopping &&
        (run.outcome == "FAIL" || run.outcome == "error")) {
      stopping = true;
      StopRunning(runs, running);
    }
    while (reported < runs->size() && (*runs)[reported].exit_code >= 0)
      done((*runs)[reported++]);
  }
  return Status::Ok();
}

// The portfolio's coverage: fired counts per action kind, goals reached.
struct Coverage {
  std::map<std::string, uint64_t> fired{};     // kinds that apply somewhere
  std::map<std::string, std::string> goals{};  // "reached", "missed", ...
  std::vector<std::string> findings{};
};

bool Complete(const EntryRun& run) {
  return run.result.is_object() && run.result.value("verdict", "") == "ok" &&
         !(run.result.contains("stopped_by") &&
           run.result["stopped_by"].is_string());
}

Coverage JudgeCoverage(const std::vector<EntryRun>& runs, bool whole) {
  Coverage coverage;
  std::map<std::string, int> declared;  // kind -> entries declaring it
  int check_entries = 0;
  for (const EntryRun& run : runs) {
    if (run.entry->kind != GateEntry::Kind::kCheck) continue;
    ++check_entries;
    const json fired = run.result.is_object()
                           ? run.result.value("coverage", json::object())
                           : json::object();
    for (const auto& [kind, count] : fired.items())
      coverage.fired[kind] += count.get<uint64_t>();
    const json goals = run.result.is_object()
                           ? run.result.value("reachability", json::object())
                           : json::object();
    for (const auto& [goal, value] : goals.items()) {
      std::string& best = coverage.goals[goal];
      const std::string v = value.get<std::string>();
      if (best == "reached") continue;
      if (v == "reached" || best.empty() ||
          (best == "not applicable" && v == "missed"))
        best = v;
    }
    for (const GateDeclaration& d : run.entry->cannot_fire) {
      ++declared[d.kind];
      if (!run.result.is_object()) continue;
      const uint64_t count =
          fired.contains(d.kind) ? fired[d.kind].get<uint64_t>() : 0;
      if (count > 0) {
        coverage.findings.push_back(
            "coverage: entry " + run.entry->name + " declares that " + d.kind +
            " cannot fire, but it fired " + std::to_string(count) + " times");
      } else if (!Complete(run)) {
        coverage.findings.push_back(
            "coverage: entry " + run.entry->name + " declares that " + d.kind +
            " cannot fire, but its search did not complete (" + run.got +
            "), so the declaration is unchecked");
      }
    }
  }
  if (!whole || check_entries == 0) return coverage;
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    const std::string name(model::KindName(kind));
    if (coverage.fired[name] > 0) continue;
    if (declared[name] == check_entries) continue;  // impossible everywhere
    coverage.findings.push_back("coverage: action " + name +
                                " fired in no entry and no entry says why");
  }
  for (const model::Goal& goal : model::AllGoals()) {
    const std::string name(goal.name);
    if (coverage.goals[name] == "reached") continue;
    coverage.findings.push_back("coverage: goal " + name +
                                " was reached in no entry");
  }
  return coverage;
}

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", seconds);
  return text;
}

std::string EntryLine(const EntryRun& run, std::size_t width) {
  std::string line = run.outcome;
  line.resize(8, ' ');
  std::string name = run.entry->name;
  if (name.size() < width) name.resize(width, ' ');
  line += name + "  ";
  if (run.outcome == "not run") return line + run.why;
  if (run.entry->kind == GateEntry::Kind::kProperties) {
    line += "properties: " +
            (run.cases > 0
                 ? std::to_string(run.cases) + " passed, " +
                       std::to_string(run.entry->cases) + " random cases each"
                 : run.got);
  } else {
    line += "expect " + Expected(*run.entry) + ", got " +
            (run.got.empty() ? "-" : run.got) + ", " +
            std::to_string(run.states) + " states";
  }
  line += ", " + Seconds(run.seconds);
  if (run.outcome != "ok") line += "\n        " + run.why;
  return line;
}

report::JunitCase EntryCase(const EntryRun& run) {
  report::JunitCase c{.classname = "memwal-gate.entry",
                      .name = run.entry->name,
                      .seconds = run.seconds};
  if (run.outcome == "ok") return c;
  if (run.outcome == "not run") {
    c.result = report::JunitCase::Result::kSkipped;
    c.message = run.why;
    return c;
  }
  c.result = report::JunitCase::Result::kFailed;
  c.message = run.outcome + ": " + run.why;
  c.body = "expected: " + Expected(*run.entry) + "\ngot: " + run.got +
           "\nwhy: " + run.why + "\noutput: " + run.dir + "/\n";
  return c;
}

struct GateArgs {
  std::string gate_path{};
  std::vector<std::string> only{};
  int jobs = 2;
  std::string out_dir = "memwal-out/gate";
  std::string junit_path{};
  bool json = false;
  bool list = false;
  bool fail_fast = false;
  double safety_seconds = 0;  // 0: the gate file's
};

// gate.txt in the working directory, else the source tree's.
std::string DefaultGatePath() {
  std::error_code error;
  if (fs::is_regular_file("gate.txt", error)) return "gate.txt";
#ifdef MEMWAL_SOURCE_DIR
  return std::string(MEMWAL_SOURCE_DIR) + "/gate.txt";
#else
  return "gate.txt";
#endif
}

std::vector<Flag> GateFlags(GateArgs* parsed) {
  return {
      Valued("--gate", "FILE",
             "the gate file (default: ./gate.txt, else the source tree's)",
             [parsed](std::string_view path) {
               parsed->gate_path = path;
               return Status::Ok();
             }),
      Valued("--entry", "NAME",
             "run only this entry (repeatable); coverage is then not judged",
             [parsed](std::string_view name) {
               parsed->only.emplace_back(name);
               return Status::Ok();
             }),
      Valued("--jobs", "N",
             "entries at once, one search thread each (default 2)",
             [parsed](std::string_view text) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t n,
                                       ParseUnsigned("--jobs", text));
               if (n < 1 || n > 64) return Usage("--jobs is between 1 and 64");
               parsed->jobs = static_cast<int>(n);
               return Status::Ok();
             }),
      Valued("--out", "DIR",
             "each entry's output under DIR/NAME/ (default memwal-out/gate)",
             [parsed](std::string_view dir) {
               parsed->out_dir = dir;
               return Status::Ok();
             }),
      Valued("--junit", "FILE",
             "JUnit XML: one test case per entry, and one for coverage",
             [parsed](std::string_view path) {
               parsed->junit_path = path;
               return Status::Ok();
             }),
      Valued("--safety-seconds", "S",
             "each entry's wall-clock stop (default: the gate file's); a run\n"
             "it ends reads `budget` (exit 3), never a verdict",
             [parsed](std::string_view text) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t n,
                                       ParseUnsigned("--safety-seconds", text));
               if (n < 1) return Usage("--safety-seconds is at least 1");
               parsed->safety_seconds = static_cast<double>(n);
               return Status::Ok();
             }),
      Switch("--json", "the result as JSON", [parsed] { parsed->json = true; }),
      Switch("--list", "print the entries and their expectations, and exit",
             [parsed] { parsed->list = true; }),
      Switch("--fail-fast",
             "stop at the first entry that fails (exit 1; the rest read\n"
             "`not run`; for mutation testing)",
             [parsed] { parsed->fail_fast = true; }),
  };
}

Result<GateArgs> ParseArgs(const std::vector<std::string>& args) {
  GateArgs parsed;
  MEMWAL_RETURN_IF_ERROR(ParseFlags("gate", args, GateFlags(&parsed)).status());
  if (parsed.gate_path.empty()) parsed.gate_path = DefaultGatePath();
  return parsed;
}

struct PropertiesArgs {
  uint64_t cases = 100;
  uint64_t seed = 1;
};

std::vector<Flag> PropertiesFlags(PropertiesArgs* parsed) {
  return {
      Valued("--cases", "N", "random cases per property (default 100)",
             [parsed](std::string_view text) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(parsed->cases,
                                       ParseUnsigned("--cases", text));
               return parsed->cases > 0 ? Status::Ok()
                                        : Usage("--cases must be at least 1");
             }),
      Valued("--seed", "S", "rapidcheck's seed (default 1)",
             [parsed](std::string_view text) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(parsed->seed,
                                       ParseUnsigned("--seed", text));
               return Status::Ok();
             }),
  };
}

// Reads and parses the gate file; --safety-seconds overrides its own.
Result<GateFile> LoadGateFile(const GateArgs& parsed) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string text, ReadText(parsed.gate_path));
  MEMWAL_ASSIGN_OR_RETURN(GateFile file, ParseGateFile(text, parsed.gate_path));
  if (parsed.safety_seconds > 0) file.safety_seconds = parsed.safety_seconds;
  return file;
}

// The entries to run, in file order: all, or those --entry names.
Result<std::vector<EntryRun>> SelectEntries(const GateFile& file,
                                            const GateArgs& parsed) {
  for (const std::string& name : parsed.only) {
    if (std::none_of(file.entries.begin(), file.entries.end(),
                     [&](const GateEntry& e) { return e.name == name; }))
      return Usage("no entry named '" + name + "' in " + parsed.gate_path);
  }
  std::vector<EntryRun> runs;
  for (const GateEntry& entry : file.entries) {
    if (!parsed.only.empty() &&
        std::find(parsed.only.begin(), parsed.only.end(), entry.name) ==
            parsed.only.end())
      continue;
    runs.push_back(
        EntryRun{.entry = &entry,
                 .dir = (fs::path(parsed.out_dir) / entry.name).string()});
  }
  return runs;
}

// The portfolio's result, once every entry has ended.
struct GateTally {
  double wall = 0;
  double entry_seconds = 0;
  bool whole = false;    // no --entry
  bool all_ran = false;  // no entry reads "not run"
  Coverage coverage{};
  int code = kExitOk;
  std::string verdict{};
};

GateTally TallyRuns(const std::vector<EntryRun>& runs, bool whole,
                    double wall) {
  GateTally tally{.wall = wall, .whole = whole};
  bool failed = false, budget = false, error = false;
  for (const EntryRun& run : runs) {
    tally.entry_seconds += run.seconds;
    failed = failed || run.outcome == "FAIL";
    budget = budget || run.outcome == "budget";
    error = error || run.outcome == "error";
  }
  tally.all_ran = std::none_of(runs.begin(), runs.end(), [](const EntryRun& r) {
    return r.outcome == "not run";
  });
  tally.coverage = JudgeCoverage(runs, whole && tally.all_ran);
  failed = failed || !tally.coverage.findings.empty();
  tally.code = error    ? kExitUsage
               : failed ? kExitViolation
               : budget ? kExitIncomplete
                        : kExitOk;
  tally.verdict = tally.code == kExitOk           ? "ok"
                  : tally.code == kExitViolation  ? "FAIL"
                  : tally.code == kExitIncomplete ? "budget"
                                                  : "error";
  return tally;
}

// One test case per entry, and one for coverage.
Status WriteGateJunit(const std::string& path,
                      const std::vector<EntryRun>& runs,
                      const GateTally& tally) {
  report::JunitSuite suite{.name = "memwal-gate", .seconds = tally.wall};
  for (const EntryRun& run : runs) suite.cases.push_back(EntryCase(run));
  report::JunitCase c{.classname = "memwal-gate.coverage", .name = "coverage"};
  if (!tally.whole || !tally.all_ran) {
    c.result = report::JunitCase::Result::kSkipped;
    c.message = "a subset of the portfolio: coverage not judged";
  } else if (!tally.coverage.findings.empty()) {
    c.result = report::JunitCase::Result::kFailed;
    c.message = tally.coverage.findings.front();
    for (const std::string& f : tally.coverage.findings) c.body += f + "\n";
  }
  suite.cases.push_back(c);
  return report::WriteFileAtomically(path, report::JunitXml({suite}));
}

void PrintGateJson(std::ostream& out, const std::vector<EntryRun>& runs,
                   const GateTally& tally, int jobs) {
  json entries = json::array();
  for (const EntryRun& run : runs) {
    entries.push_back(json{{"name", run.entry->name},
                           {"outcome", run.outcome},
                           {"expected", Expected(*run.entry)},
                           {"got", run.got},
                           {"why", run.why},
                           {"states", run.states},
                           {"transitions", run.transitions},
                           {"cases", run.cases},
                           {"seconds", run.seconds},
                           {"output", run.dir}});
  }
  const Coverage& coverage = tally.coverage;
  out << json{{"verdict", tally.verdict},
              {"entries", entries},
              {"coverage", json{{"judged", tally.whole},
                                {"fired", coverage.fired},
                                {"goals", coverage.goals},
                                {"findings", coverage.findings}}},
              {"seconds", tally.wall},
              {"entry_seconds", tally.entry_seconds},
              {"jobs", jobs}}
             .dump(1)
      << "\n";
}

// The lines after the entries' own: coverage, time, verdict.
void PrintGateSummary(std::ostream& out, const GateTally& tally,
                      const GateArgs& parsed) {
  const Coverage& coverage = tally.coverage;
  int kinds_fired = 0;
  for (const auto& [kind, count] : coverage.fired) kinds_fired += count > 0;
  int goals_reached = 0;
  for (const auto& [goal, value] : coverage.goals)
    goals_reached += value == "reached";
  for (const std::string& finding : coverage.findings) out << finding << "\n";
  if (tally.whole && tally.all_ran) {
    out << "coverage: " << kinds_fired << " of " << model::kActionKinds
        << " actions fired, " << goals_reached << " of "
        << model::AllGoals().size() << " goals reached across the portfolio\n";
  } else {
    out << (tally.all_ran
                ? "coverage: not judged (a subset of the portfolio)\n"
                : "coverage: not judged (--fail-fast stopped the run)\n");
  }
  out << "time: " << Seconds(tally.wall) << " wall, "
      << Seconds(tally.entry_seconds) << " in entries (" << parsed.jobs
      << " at a time)\n";
  if (!parsed.junit_path.empty()) out << "junit: " << parsed.junit_path << "\n";
  out << "verdict: " << tally.verdict << "\n";
}

// Runs the selected entries, printing a line per entry as it ends (unless
// --json), and judges the portfolio.
Result<GateTally> RunEntries(std::vector<EntryRun>* runs, const GateFile& file,
                             const GateArgs& parsed, std::ostream& out) {
  std::size_t width = 0;
  for (const EntryRun& run : *runs)
    width = std::max(width, run.entry->name.size());
  const bool text_out = !parsed.json;
  if (text_out) {
    out << "gate: " << parsed.gate_path << ", " << runs->size() << " of "
        << file.entries.size() << " entries, " << parsed.jobs
        << " at a time; output under " << parsed.out_dir << "/\n";
    out.flush();
  }
  const auto start = Clock::now();
  MEMWAL_RETURN_IF_ERROR(
      RunAll(runs, file, parsed.jobs, parsed.fail_fast, [&](const EntryRun& r) {
        if (!text_out) return;
        out << EntryLine(r, width) << "\n";
        out.flush();
      }));
  const double wall =
      std::chrono::duration<double>(Clock::now() - start).count();
  return TallyRuns(*runs, parsed.only.empty(), wall);
}

}  // namespace

std::string GateAbout() {
  return "Runs the gate's portfolio (gate.txt; docs/gate.md): every entry, "
         "each a check in\nlockstep with its expected verdict and its budget "
         "in states or walks, or the\nrule-function properties; prints a "
         "line per entry and one verdict. Coverage is\npart of the verdict: "
         "every action fires and every goal is reached in some entry.\n"
         "Exit 0 every expectation met and coverage complete; 1 an entry or "
         "coverage\nfailed; 2 bad usage or a bad gate file; 3 a wall-clock "
         "safety stop.\n";
}

std::vector<Flag> GateFlagTable() { return HelpTable<GateArgs>(&GateFlags); }

std::string PropertiesAbout() {
  return "Runs the rule-function properties (tests/conformance/rule_*_test.cc, "
         "linked into\nmemwal-check) under rapidcheck with a fixed seed: the "
         "implementation's rule\nfunctions against the model's on random "
         "inputs, its conflict table against\nLance's, and World's "
         "serialization round trip. Exit 0 when every property\nholds, 1 when "
         "one fails, 2 when the binary carries none.\n";
}

std::vector<Flag> PropertiesFlagTable() {
  return HelpTable<PropertiesArgs>(&PropertiesFlags);
}

int RunGateCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  const auto fail = [&](const Status& status) {
    err << "memwal-check gate: " << status.message() << "\n";
    return kExitUsage;
  };
  Result<GateArgs> parsed = ParseArgs(args);
  if (!parsed.ok()) return fail(parsed.status());
  Result<GateFile> file = LoadGateFile(*parsed);
  if (!file.ok()) return fail(file.status());
  Result<std::vector<EntryRun>> runs = SelectEntries(*file, *parsed);
  if (!runs.ok()) return fail(runs.status());
  if (parsed->list) {
    for (const EntryRun& run : *runs)
      out << run.entry->name << "  " << Expected(*run.entry) << "\n";
    return kExitOk;
  }
  Result<GateTally> tally = RunEntries(&*runs, *file, *parsed, out);
  if (!tally.ok()) return fail(tally.status());
  if (!parsed->junit_path.empty()) {
    const Status written = WriteGateJunit(parsed->junit_path, *runs, *tally);
    if (!written.ok()) return fail(written);
  }
  if (parsed->json) {
    PrintGateJson(out, *runs, *tally, parsed->jobs);
  } else {
    PrintGateSummary(out, *tally, *parsed);
  }
  return tally->code;
}

int RunPropertiesCommand(const std::vector<std::string>& args,
                         std::ostream& out, std::ostream& err) {
  PropertiesArgs parsed;
  const Status given =
      ParseFlags("properties", args, PropertiesFlags(&parsed)).status();
  if (!given.ok()) {
    err << "memwal-check properties: " << given.message() << "\n";
    return kExitUsage;
  }
  const uint64_t cases = parsed.cases;
  const uint64_t seed = parsed.seed;
  // rapidcheck reads its configuration once, at its first property.
  const std::string params = "seed=" + std::to_string(seed) +
                             " max_success=" + std::to_string(cases) +
                             " verbose_progress=0 verbose_shrinking=0";
  setenv("RC_PARAMS", params.c_str(), 1);
  std::vector<std::string> words = {
      "memwal-check", "--gtest_filter=" + std::string(kPropertySuites)};
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  int argc = static_cast<int>(argv.size());
  testing::InitGoogleTest(&argc, argv.data());
  out.flush();
  const int failed = RUN_ALL_TESTS();
  std::fflush(stdout);
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  if (unit.test_to_run_count() == 0) {
    err << "memwal-check properties: this binary carries no rule-function "
           "properties (link memwal_rule_properties)\n";
    return kExitUsage;
  }
  return failed == 0 ? kExitOk : kExitViolation;
}

}  // namespace memwal::checker::cli
