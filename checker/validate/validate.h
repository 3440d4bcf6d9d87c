// `memwal-check validate TABLE_DIR`: trace validation (issue 38). A Lance
// table directory is its own trace: `_versions/` holds every manifest,
// `_transactions/` the transaction that made each one, `_mem_wal/` the shard
// manifests. Validate explains every pair of consecutive retained versions
// as a step the model allows: silent flushes (FlushMemTable) plus one table
// action (a begin on the transaction's read version and its Commit, or an
// atomic Restore), whose outcome equals the next version's abstraction
// (checker/validate/window.h: lockstep's abstraction on a sliding window);
// it checks every invariant (model/invariants.h) on every version; at the
// end, the WAL's final state (more flushes, retirements) must be reachable
// by enabled silent steps.
//
// Verdicts: valid (every step explained, every invariant holds), invalid
// (the first unexplained step or broken invariant: both versions, the
// transaction's operation, the candidates tried, the closest one's
// field-by-field difference), incomplete (some steps could not be judged:
// versions cleaned up, operations or states the model cannot express; each
// named, and validation resumes after it).
#ifndef MEMWAL_CHECKER_VALIDATE_VALIDATE_H_
#define MEMWAL_CHECKER_VALIDATE_VALIDATE_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "model/config.h"

namespace memwal::checker::validate {

struct ValidateOptions {
  std::optional<model::Protocol> protocol;  // default: inspect's inference
  // kForeign: the environment's commits (spec section 10: foreign writers'
  // half-set, reset, drop, compaction) are candidates too.
  model::Env env = model::Env::kNone;
  // The source table of a shallow clone (`--source DIR`): the clone's first
  // version is checked against the source's version of the same number (R37
  // keeps bit 128 of both words). Read only when given, and only inside it.
  std::optional<std::string> source{};
};

enum class Verdict { kValid, kInvalid, kIncomplete };
std::string_view Name(Verdict verdict);

// A step the model explains: `actions` are the silent flushes, the begin (or
// atomic action) and the commit.
struct Explained {
  uint64_t from = 0;  // 0: the table's first version, explained as Init (R4)
  uint64_t to = 0;
  std::string operation;
  std::string actions;
};

// A step (or a version) the validation could not judge, and why.
struct Gap {
  uint64_t from = 0;
  uint64_t to = 0;
  std::string operation;
  std::string reason;
};

struct Candidate {
  std::string actions;
  std::size_t differences = 0;  // 0: the outcome equals the next version
  std::string outcome;          // "published", "retry", "refused"
};

struct Invalid {
  uint64_t from = 0;
  uint64_t to = 0;
  std::string operation;
  std::string reason;
  std::vector<Candidate> tried;
  std::string closest;  // its actions
  std::vector<std::string> difference;
};

struct Validation {
  std::string table_dir;
  model::Config config;
  std::string protocol_reason;
  bool protocol_given = false;
  std::size_t versions = 0;
  uint64_t first = 0;
  uint64_t last = 0;
  std::size_t steps = 0;  // consecutive pairs of retained versions, + Init
  std::vector<Explained> explained;
  std::vector<Gap> gaps;
  std::optional<Invalid> invalid;
  // Named limits of what was compared (fields the model does not track,
  // readers that could not answer), one line each.
  std::vector<std::string> untracked;
  std::vector<std::string> notes;
  Verdict verdict = Verdict::kValid;
};

// Validates the table at `table_dir`. Errors (a missing directory, a corrupt
// manifest) are bad input, one line.
Result<Validation> Validate(const std::string& table_dir,
                            const ValidateOptions& options);

// Text and JSON.
void RenderText(const Validation& validation, std::ostream& out);
void RenderJson(const Validation& validation, std::ostream& out);

// The CLI: `validate TABLE_DIR [--protocol P] [--json]` (args exclude the
// program and subcommand names). Exit 0 valid, 1 invalid, 3 incomplete, 2
// bad usage or bad input (one line on `err`).
int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);
// For the command table (checker/cli/commands.h): what it does, its flags.
std::string ValidateAbout();
std::vector<Flag> ValidateFlagTable();

}  // namespace memwal::checker::validate

#endif  // MEMWAL_CHECKER_VALIDATE_VALIDATE_H_
