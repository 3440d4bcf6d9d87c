// `memwal-check gate`: the gate's portfolio (gate.txt at the repository's
// root, docs/gate.md) run as one verdict.
//
// The gate file is plain text, one entry per block:
//
//   # a comment
//   [entry legacy-misses-rows]
//   check = --preset tiny --protocol legacy --no-liveness
//   expect = verdict=ReadsMissNoRows
//   budget = states 20000
//   cannot-fire = Restore: the protocol has no bit to restore past
//
//   [entry rule-properties]
//   properties = 300
//   budget = cases 300
//
// `check` is a `memwal-check check` command line (without --max-states,
// --time-limit, --threads, --out, --json, --junit: the gate adds them);
// `expect` is check's --expect NAME=VERDICT (repeatable; at least one);
// `budget` is `states N` (--max-states N, for bfs and dfs) or `walks W depth
// D` (--mode random) or, for `properties`, `cases N` (the rule-function
// properties' random cases each; a plain test runs once). `cannot-fire`
// (repeatable) declares that an action kind never fires in the entry, with the
// reason; the gate checks it (the kind fired in none of the entry's transitions
// of a complete search). A `[gate]` block before the entries may set
// `safety-seconds = S`: the wall-clock stop of each entry, reported as
// `budget` (exit 3), never as a verdict.
//
// Every entry runs as a child process of the same binary (so a mutant
// binary judges itself), `--jobs` at a time (default 2), each with one
// search thread. Exit codes: 0 every entry met its expectation and the
// portfolio covers every action kind and goal; 1 an entry did not (a
// violation where ok was expected, an expected violation not found) or a
// coverage gap; 2 bad usage or a bad gate file; 3 a safety stop (and
// nothing worse).
#ifndef MEMWAL_CHECKER_CLI_GATE_H_
#define MEMWAL_CHECKER_CLI_GATE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/flags.h"
#include "base/status.h"

namespace memwal::checker::cli {

struct GateDeclaration {
  std::string kind{};    // an action kind's name, "RewriteFragments"
  std::string reason{};  // why it cannot fire in the entry
};

struct GateEntry {
  enum class Kind { kCheck, kProperties };
  std::string name{};
  Kind kind = Kind::kCheck;
  std::vector<std::string> args{};    // check's arguments
  std::vector<std::string> expect{};  // NAME=VERDICT, as check's --expect
  // The budget: states (bfs, dfs), walks x depth (random), or cases.
  uint64_t states = 0;
  uint64_t walks = 0;
  uint64_t depth = 0;
  uint64_t cases = 0;
  std::vector<GateDeclaration> cannot_fire{};
  int line = 0;        // where the entry starts in the gate file
  int check_line = 0;  // its `check =` line
};

struct GateFile {
  double safety_seconds = 600;
  std::vector<GateEntry> entries{};
};

// Parses a gate file's text; `path` names it in errors ("gate.txt:12:
// ..."). Every check line is parsed as check would parse it, so that a
// rejected flag or a misspelled expectation is an error here, before any
// search.
Result<GateFile> ParseGateFile(std::string_view text, const std::string& path);

// The command table's rows (checker/cli/commands.h).
std::string GateAbout();
std::vector<Flag> GateFlagTable();
std::string PropertiesAbout();
std::vector<Flag> PropertiesFlagTable();

// `memwal-check gate [--gate FILE] [--entry NAME]... [--jobs N] [--out DIR]
// [--junit FILE] [--json]`. Returns the exit code.
int RunGateCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

// `memwal-check properties --cases N --seed S`: the rule-function properties
// (tests/conformance/rule_*_test.cc, linked into memwal-check) under a
// seeded rapidcheck. Exit 0 when every property holds, 1 when one fails, 2
// when the binary carries none.
int RunPropertiesCommand(const std::vector<std::string>& args,
                         std::ostream& out, std::ostream& err);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_GATE_H_
