// Corpora of interleavings for fuzzers and other harnesses (`memwal-check
// corpus`): distinct action sequences from Init, chosen by seeded random walks
// on the model so that together they cover every action kind, every commit
// outcome per conflict pair of R31, every reachability goal, and every
// invariant's neighbourhood (a walk whose replay under some model bug switch
// breaks that invariant: the state before the breaking step is one step from a
// violation). Entries are deduplicated by the set of states they visit.
//
// Every entry is written in two forms (spec/trace-format.md section 4):
//   json/entry-NNNN.json   our JSON trace, format version 2 (lockstep_cli.h)
//   bin/entry-NNNN         the compact binary form below, for libFuzzer/AFL++
// Binary form: 9 header bytes, then one byte per step.
//   byte 0 protocol + 4 * env, 1 read, 2 gc (protocol = byte 0 % 4, env =
//   byte 0 / 4 % 2; read and gc modulo their number of values; model/config.h's
//   enum order; entries of env none, all written before env existed, keep
//   their bytes); bytes 3..8 the bounds shards, generations,
//   fragments, indexes, commits, inflight, each mapped into its legal range
//   (lo + byte % (max - lo + 1)). Step byte b picks EnabledActions(state)[b %
//   n]; decoding stops when no action is enabled or after kCorpusStepsMax
//   steps. Every byte string decodes to a valid entry, which is what lets a
//   coverage-guided fuzzer mutate it freely. Bug switches are not encoded: a
//   harness passes them separately.
#ifndef MEMWAL_CHECKER_CLI_CORPUS_H_
#define MEMWAL_CHECKER_CLI_CORPUS_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "checker/cli/corpus_dir.h"
#include "model/actions.h"
#include "model/config.h"

namespace memwal::checker::cli {

inline constexpr std::size_t kCorpusHeaderBytes = 9;
inline constexpr std::size_t kCorpusStepsMax = 64;

// A decoded entry: the configuration and the actions from Init (each enabled
// in turn under `config`).
struct CorpusEntry {
  model::Config config{};
  std::vector<model::Action> steps{};
};

// The binary form of `entry`. REQUIRES: every step enabled in turn, at most
// kCorpusStepsMax steps, fewer than 256 enabled actions in every state.
std::string EncodeCorpusEntry(const CorpusEntry& entry);

// Total inverse (see the file comment); `bugs` (model::BugBit values) go into
// the config unencoded. Never fails.
CorpusEntry DecodeCorpusEntry(std::string_view bytes, uint32_t bugs);

// The actions of an ITF document (ours, trace-format.md section 2, or
// Quint's --mbt output, section 3): for every state after the first, the kind
// in "mbt::actionTaken" with the parameters in "mbt::nondetPicks" (plain
// values, {"#bigint": "N"}, or Quint options {"tag": "Some"|"None"}).
// InvalidArgument with one line for anything else; never throws. Guards are
// not checked here (a replay does that).
Result<std::vector<model::Action>> ActionsFromItf(std::string_view text);

struct CorpusOptions {
  model::Config config{};
  uint64_t seed = 0;
  std::size_t count = 500;
  int depth = 24;                // steps per walk at most
  std::size_t attempts_max = 0;  // random walks tried; 0: 200 * count
  // Budgets: the build stops early (Corpus::stopped_by) when one is spent.
  double time_limit_s = 0;         // 0: none
  uint64_t max_states = 0;         // distinct states visited; 0: none
  uint64_t memory_limit_mb = 0;    // resident set size; 0: none
  std::ostream* status = nullptr;  // a progress line (a terminal), or null
};

struct Corpus {
  std::vector<std::vector<model::Action>> entries{};
  std::vector<std::string> features{};  // covered, sorted ("action:Append")
  std::vector<std::string> features_missed{};  // applicable, never covered
  std::size_t attempts = 0;
  std::size_t states_distinct = 0;
  // "" when the build ran to its end; else what stopped it: "time-limit",
  // "max-states", "memory-limit" or "interrupted by SIGINT" (SIGTERM). The
  // entries are then a prefix of the full build's (the build is sequential).
  std::string stopped_by{};
};

// Builds up to options.count entries. REQUIRES: CheckConfig(options.config).
Corpus BuildCorpus(const CorpusOptions& options);

// `memwal-check corpus --out DIR [--count N] [--depth D] [--seed S]
// [--time-limit S] [--max-states N] [--memory-limit MB] [--resume|--force]
// [variant options of check]`. Returns the exit code (0 written and marked
// complete, 2 bad usage or a directory that cannot be written, 3 a budget or
// a signal stopped the build: what was built is written and marked
// incomplete, see checker/cli/corpus_dir.h).
int RunCorpusCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);
// Its row in the command table (checker/cli/commands.h).
std::string CorpusAbout();
std::vector<Flag> CorpusFlagTable();

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_CORPUS_H_
