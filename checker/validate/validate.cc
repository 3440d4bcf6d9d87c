// Validate(); see validate.h.
#include "checker/validate/validate.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "base/memory.h"
#include "checker/lockstep/refinement.h"
#include "checker/validate/load.h"
#include "checker/validate/window.h"
#include "model/actions.h"
#include "model/invariants.h"
#include "model/rules.h"

namespace memwal::checker::validate {
namespace {

using model::State;

// Begins of the table-side transactions (spec section 5): applied on the
// state whose head is the transaction's read version, then committed.
bool IsBegin(const model::Action& action) {
  return std::holds_alternative<model::Append>(action) ||
         std::holds_alternative<model::DeleteFragment>(action) ||
         std::holds_alternative<model::CompactSsTable>(action) ||
         std::holds_alternative<model::UpdateColumns>(action) ||
         std::holds_alternative<model::RewriteFragments>(action) ||
         std::holds_alternative<model::CreateIndex>(action) ||
         std::holds_alternative<model::OptimizeIndex>(action) ||
         std::holds_alternative<model::DropIndex>(action) ||
         std::holds_alternative<model::RecordProgress>(action) ||
         std::holds_alternative<model::Activate>(action) ||
         std::holds_alternative<model::CallerAdvance>(action) ||
         std::holds_alternative<model::ReinstallMemWal>(action);
}

// Atomic table commits (one action publishes a version).
bool IsAtomicCommit(const model::Action& action) {
  return std::holds_alternative<model::Restore>(action) ||
         std::holds_alternative<model::ForeignHalfSet>(action) ||
         std::holds_alternative<model::ResetMemWal>(action) ||
         std::holds_alternative<model::DropMemWal>(action) ||
         std::holds_alternative<model::ForeignCompaction>(action);
}

// Diff's lines about the table's versions and rows only (the WAL is the
// candidate's own, in flight nothing), with the table named as such.
std::vector<std::string> TableLines(std::vector<std::string> lines) {
  std::vector<std::string> out;
  for (std::string& line : lines) {
    if (line.starts_with("shard ") || line.starts_with("pending ") ||
        line.starts_with("in-flight ") || line.starts_with("rows: deleted"))
      continue;
    for (std::size_t at = line.find("(impl)"); at != std::string::npos;
         at = line.find("(impl)", at))
      line.replace(at, 6, "(table)");
    out.push_back(std::move(line));
  }
  return out;
}

// The Lance operations the model's actions commit (model::LanceOp).
bool OperationInModel(const std::string& operation) {
  return operation == "Append" || operation == "Delete" ||
         operation == "Update" || operation == "Rewrite" ||
         operation == "CreateIndex" || operation == "UpdateMemWalState" ||
         operation == "Restore";
}

std::string Describe(const model::Invariant& invariant, uint64_t version) {
  return "invariant " + std::string(invariant.name) + " is broken on version " +
         std::to_string(version);
}

// One explanation of a step: the state after it, its actions, and the
// alternative it extends.
struct Match {
  State after;
  std::string name;
  std::size_t alternative = 0;
};

// "{shard 0: 2, shard 1: 1}"
std::string ProgressText(const std::map<uint32_t, uint64_t>& entries) {
  std::string text = "{";
  for (const auto& [shard, generation] : entries) {
    if (text.size() > 1) text += ", ";
    text +=
        "shard " + std::to_string(shard) + ": " + std::to_string(generation);
  }
  return text + "}";
}

// Judges the candidate steps to one version against the table's window of
// it, and keeps what they came to: the candidates tried from the first
// alternative (reported when none explains the step), the matches, and the
// closest miss.
class StepJudge {
 public:
  StepJudge(const model::Config& config, const Window& window,
            const LoadedVersion& next, bool rows_known)
      : config_(config),
        window_(window),
        next_(next),
        rows_known_(rows_known) {}

  void Judge(const State& after, const std::string& name,
             model::Outcome outcome, std::size_t alternative) {
    Candidate candidate{.actions = name,
                        .outcome = std::string(model::Name(outcome))};
    if (outcome != model::Outcome::kPublished &&
        outcome != model::Outcome::kDone) {
      candidate.differences = SIZE_MAX;
      if (alternative == 0) tried.push_back(candidate);
      return;
    }
    const std::vector<std::string> lines = Differences(after);
    candidate.differences = lines.size();
    if (alternative == 0) tried.push_back(candidate);
    if (lines.size() < closest) {
      closest = lines.size();
      closest_lines = lines;
      closest_actions = name;
    }
    if (lines.empty()) matches.push_back(Match{after, name, alternative});
  }

  // A commit that published no version: tried, never a match.
  void Unpublished(const std::string& name, model::Outcome outcome,
                   std::size_t alternative) {
    if (alternative != 0) return;
    tried.push_back(Candidate{.actions = name,
                              .differences = SIZE_MAX,
                              .outcome = std::string(model::Name(outcome))});
  }

  std::vector<Candidate> tried;
  std::vector<Match> matches;
  std::vector<std::string> closest_lines;
  std::string closest_actions;
  std::size_t closest = SIZE_MAX;

 private:
  // Where the table's window differs from `after`: its versions and rows,
  // and the transaction file's progress against the commit's (the manifest
  // alone does not say whether a merge-insert carried it).
  std::vector<std::string> Differences(const State& after) const {
    const Result<State> abstract =
        AbstractWindow(config_, window_, after, rows_known_);
    std::vector<std::string> lines;
    if (!abstract.ok()) {
      lines.push_back(abstract.status().message());
    } else {
      lines = TableLines(lockstep::Diff(config_, *abstract, after));
    }
    const model::Op& op = model::Head(after).op;
    std::map<uint32_t, uint64_t> carried;
    if (op.progress_generation > 0)
      carried.emplace(op.progress_shard, op.progress_generation);
    if (carried != next_.progress) {
      lines.push_back("version " + std::to_string(next_.number) +
                      ": transaction compacted_sstables " +
                      ProgressText(next_.progress) + " (table) vs " +
                      ProgressText(carried) + " (model)");
    }
    return lines;
  }

  const model::Config& config_;
  const Window& window_;
  const LoadedVersion& next_;
  const bool rows_known_;
};

using Flushes = std::array<uint8_t, model::kShardsMax>;

// Flush vectors from `before`'s to the WAL's final one, fewest flushes first.
std::vector<Flushes> FlushVectors(const model::Config& config,
                                  const State& before,
                                  const std::vector<uint64_t>& final_flushed) {
  Flushes low{}, high{};
  for (int s = 0; s < config.bounds.shards; ++s) {
    low[s] = before.flushed[s];
    high[s] = static_cast<uint8_t>(std::max<uint64_t>(
        low[s],
        std::min<uint64_t>(final_flushed[s], config.bounds.generations)));
  }
  std::vector<Flushes> flushes;
  for (int x = low[0]; x <= high[0]; ++x) {
    for (int y = low[1]; y <= high[1]; ++y) {
      flushes.push_back({static_cast<uint8_t>(x), static_cast<uint8_t>(y)});
    }
  }
  std::stable_sort(
      flushes.begin(), flushes.end(),
      [](const auto& x, const auto& y) { return x[0] + x[1] < y[0] + y[1]; });
  return flushes;
}

// `before` with its memtables flushed up to `flushed` (steps a table's bytes
// do not show), their names appended to `silent`; nullopt when one of those
// flushes is not enabled.
std::optional<State> FlushedSilently(const model::Config& config,
                                     const State& before,
                                     const Flushes& flushed,
                                     std::string* silent) {
  State state = before;
  for (int s = 0; s < config.bounds.shards; ++s) {
    while (state.flushed[s] < flushed[s]) {
      const model::Action flush = model::FlushMemTable{.shard = s};
      if (!model::IsEnabled(config, state, flush)) return std::nullopt;
      model::Outcome unused;
      model::Apply(config, flush, &state, &unused);
      *silent += model::ToString(flush) + ", ";
    }
  }
  return state;
}

// Every table transaction begun on `base` as of its version `read_position`
// (the transaction's read version as the head) and committed on `base`.
void TryTransactions(const model::Config& config, const State& base,
                     std::size_t read_position, const std::string& silent,
                     std::size_t alternative, StepJudge* judge) {
  State read = base;
  for (std::size_t v = read_position + 1; v < read.version_count; ++v)
    read.versions[v] = model::Version{};
  read.version_count = static_cast<uint8_t>(read_position + 1);
  std::vector<model::Action> actions;
  model::EnabledActions(config, read, &actions);
  for (const model::Action& begin : actions) {
    if (!IsBegin(begin)) continue;
    model::Outcome outcome;
    State begun = model::Apply(config, read, begin, &outcome);
    model::Txn txn = begun.inflight[begun.inflight_count - 1];
    // A fresh segment is fresh against every version up to the commit.
    if (txn.segment.uuid != 0)
      txn.segment.uuid = model::FreshUuid(base, nullptr);
    State pending = base;
    pending.inflight[pending.inflight_count++] = txn;
    const model::Action commit =
        model::Commit{.slot = pending.inflight_count - 1};
    const std::string name =
        silent + model::ToString(begin) + ", " + model::ToString(commit);
    if (!model::IsEnabled(config, pending, commit)) continue;
    State after = model::Apply(config, pending, commit, &outcome);
    judge->Judge(after, name, outcome, alternative);
  }
}

// Every atomic table commit enabled on `base`.
void TryAtomicCommits(const model::Config& config, const State& base,
                      const std::string& silent, std::size_t alternative,
                      StepJudge* judge) {
  std::vector<model::Action> actions;
  model::EnabledActions(config, base, &actions);
  for (const model::Action& atomic : actions) {
    if (!IsAtomicCommit(atomic)) continue;
    model::Outcome outcome;
    State after = model::Apply(config, base, atomic, &outcome);
    const std::string name = silent + model::ToString(atomic);
    if (after.version_count != base.version_count + 1) {
      judge->Unpublished(name, outcome, alternative);
      continue;
    }
    judge->Judge(after, name, outcome, alternative);
  }
}

class Validator {
 public:
  Validator(const LoadedTable& table, Validation* out)
      : table_(table), out_(out) {}

  void Run();

 private:
  // One explanation of the chain so far: the WAL and the fields a window's
  // bytes cannot hold that it carries (window.h AbstractWindow). Several
  // actions can explain one step with the same manifest (an UpdateColumns of
  // either fragment prunes the same bitmaps), and a later step may tell them
  // apart, so every explanation is kept (up to kAlternativesMax), as trace
  // validation keeps every state consistent with the trace so far.
  struct Alternative {
    State ghost{};
  };
  static constexpr std::size_t kAlternativesMax = 16;
  struct Chain {
    bool active = false;
    std::size_t start = 0;  // index into table_.versions
    std::vector<Alternative> alternatives{};
  };

  bool rows_known() const { return table_.rows.has_value(); }
  void AddGap(std::size_t from, std::size_t to, std::string reason);
  // final_flushed_: the WAL's flushed generations per shard, up to the
  // model's bound (noted as untracked beyond it).
  void ReadFinalFlushes();
  // FeatureBitsArePaired on the raw words where the implementation's reader
  // cannot decode version k. A decoded version is judged by the model's
  // invariant on its abstraction instead, which exempts a foreign writer's
  // half-set (R60; the transaction file says which it is).
  bool HalfSetUnread(std::size_t k);
  // A gap when version k's operation or bytes are outside the model.
  bool OutsideModel(std::size_t k);
  // A gap for the versions cleaned up before version k.
  void NoteMissingVersions(std::size_t k);
  void Start(std::size_t k);
  // The window of versions step k needs (from its transaction's read
  // version, or the version before, to version k), that window without
  // version k, and the number of its first version.
  struct StepWindow {
    Window window;
    Window before;
    uint64_t first_number = 0;
  };
  // Explains version k by a model step from the chain's explanations of the
  // versions before it, or records why none does.
  void Step(std::size_t k);
  // nullopt, with a gap, when the model cannot hold the window.
  std::optional<StepWindow> WindowOfStep(std::size_t k);
  // Judges every step from alternative `a` to version k: silent flushes
  // (fewest first), then a transaction begun on its read version and
  // committed, or an atomic commit. False after a gap.
  bool TryAlternative(std::size_t k, const StepWindow& step, std::size_t a,
                      StepJudge* judge);
  // No candidate explains version k: invalid, with the closest miss.
  void RefuseUnexplained(std::size_t k, const Window& window, StepJudge* judge);
  // The matches that keep every invariant become the chain's alternatives.
  void ExtendChain(std::size_t k, const Window& window, StepJudge* judge);
  void Finish();
  // A ghost for the first version of a chain (what the bytes alone suggest).
  State StartGhost(const impl::TableVersion& version) const;
  void SetInvalid(std::size_t from, std::size_t to, std::string reason) {
    Invalid invalid;
    invalid.from = table_.versions[from].number;
    invalid.to = table_.versions[to].number;
    invalid.operation = table_.versions[to].operation;
    invalid.reason = std::move(reason);
    out_->invalid = std::move(invalid);
  }

  const LoadedTable& table_;
  Validation* out_;
  Chain chain_;
  std::vector<uint64_t> final_flushed_;
};

void Validator::AddGap(std::size_t from, std::size_t to, std::string reason) {
  out_->gaps.push_back(Gap{.from = table_.versions[from].number,
                           .to = table_.versions[to].number,
                           .operation = table_.versions[to].operation,
                           .reason = std::move(reason)});
  chain_.active = false;
}

State Validator::StartGhost(const impl::TableVersion& version) const {
  State ghost;
  const model::Config& config = out_->config;
  for (int s = 0; s < config.bounds.shards; ++s) {
    uint64_t reached = 0;
    if (const auto it = version.compacted.find(s);
        it != version.compacted.end())
      reached = it->second;
    for (const auto& [index, positions] : version.catchup) {
      if (const auto it = positions.find(s); it != positions.end())
        reached = std::max(reached, it->second);
    }
    ghost.flushed[s] =
        static_cast<uint8_t>(std::min<uint64_t>(reached, final_flushed_[s]));
  }
  ghost.activated = version.reader_bit && version.writer_bit;
  return ghost;
}

void Validator::Start(std::size_t k) {
  const LoadedVersion& version = table_.versions[k];
  const model::Config& config = out_->config;
  const Result<Window> window = MakeWindow(table_, k, k);
  if (!window.ok()) {
    AddGap(k, k, window.status().message());
    return;
  }
  const Result<State> state =
      AbstractWindow(config, *window, StartGhost(*version.table), rows_known());
  if (!state.ok()) {
    AddGap(k, k, state.status().message());
    return;
  }
  chain_ = Chain{.active = true,
                 .start = k,
                 .alternatives = {Alternative{.ghost = *state}}};
  if (version.number == 1) {
    // R4: the model's Init, on the versions (the WAL and rows of Init are
    // the chain's own ghost).
    State init = model::Init(config.bounds);
    std::vector<std::string> lines;
    for (std::string& line : TableLines(lockstep::Diff(config, *state, init))) {
      if (line.starts_with("version")) lines.push_back(std::move(line));
    }
    if (lines.empty()) {
      out_->explained.push_back(Explained{.from = 0,
                                          .to = 1,
                                          .operation = version.operation,
                                          .actions = "Init"});
    } else {
      out_->gaps.push_back(Gap{
          .from = 0,
          .to = 1,
          .operation = version.operation,
          .reason =
              "version 1 is not the model's Init (R4): " + lines[0] +
              (lines.size() > 1 ? " (and " + std::to_string(lines.size() - 1) +
                                      " more differences)"
                                : "")});
    }
  }
  if (const model::Invariant* broken =
          model::FirstBrokenInvariant(config, *state)) {
    SetInvalid(k, k, Describe(*broken, version.number));
  }
}

std::optional<Validator::StepWindow> Validator::WindowOfStep(std::size_t k) {
  const LoadedVersion& next = table_.versions[k];
  const uint64_t chain_first = table_.versions[chain_.start].number;
  uint64_t oldest = table_.versions[k - 1].number;
  if (next.has_transaction && next.read_version != 0)
    oldest = std::min(oldest, next.read_version);
  if (next.operation == "Restore" && next.restore_version != 0)
    oldest = std::min(oldest, next.restore_version);
  if (oldest < chain_first) {
    AddGap(k - 1, k,
           "the transaction read version " + std::to_string(oldest) +
               ", which is not in the validated chain (it starts at version " +
               std::to_string(chain_first) + ")");
    return std::nullopt;
  }
  // The widest window the model holds that contains what the step needs.
  uint64_t first_number = std::max<uint64_t>(
      chain_first, next.number >= model::kVersionsMax
                       ? next.number - model::kVersionsMax + 1
                       : 1);
  first_number = std::min(first_number, oldest);
  if (next.number - first_number + 1 > model::kVersionsMax) {
    AddGap(k - 1, k,
           "the transaction read version " + std::to_string(oldest) + ", " +
               std::to_string(next.number - oldest) +
               " versions back; the model holds " +
               std::to_string(model::kVersionsMax) + " versions");
    return std::nullopt;
  }
  const std::size_t first = k - (next.number - first_number);
  Result<Window> window = MakeWindow(table_, first, k);
  // A window that names too many fragments: shrink it to what the step needs.
  if (!window.ok() && first_number < oldest) {
    window = MakeWindow(table_, k - (next.number - oldest), k);
  }
  if (!window.ok()) {
    AddGap(k - 1, k, window.status().message());
    return std::nullopt;
  }
  Window before = WithoutLast(*window);
  return StepWindow{.window = std::move(*window),
                    .before = std::move(before),
                    .first_number = first_number};
}

bool Validator::TryAlternative(std::size_t k, const StepWindow& step,
                               std::size_t a, StepJudge* judge) {
  const model::Config& config = out_->config;
  const LoadedVersion& next = table_.versions[k];
  Result<State> before = AbstractWindow(
      config, step.before, chain_.alternatives[a].ghost, rows_known());
  if (!before.ok()) {
    AddGap(k - 1, k, before.status().message());
    return false;
  }
  before->committed = 0;  // the commit budget counts within the window
  const std::size_t read_position =
      next.has_transaction && next.read_version != 0
          ? static_cast<std::size_t>(next.read_version - step.first_number)
          : before->version_count - 1u;
  const std::size_t matched_before = judge->matches.size();
  for (const Flushes& flushed : FlushVectors(config, *before, final_flushed_)) {
    std::string silent;
    const std::optional<State> base =
        FlushedSilently(config, *before, flushed, &silent);
    if (!base.has_value()) continue;
    TryTransactions(config, *base, read_position, silent, a, judge);
    TryAtomicCommits(config, *base, silent, a, judge);
    if (judge->matches.size() > matched_before) break;  // fewest flushes first
  }
  return true;
}

void Validator::RefuseUnexplained(std::size_t k, const Window& window,
                                  StepJudge* judge) {
  const model::Config& config = out_->config;
  const LoadedVersion& next = table_.versions[k];
  std::string reason = "no model action explains version " +
                       std::to_string(next.number) + " (operation " +
                       next.operation + ")";
  // The next version on its own, with the chain's ghost.
  const Result<State> alone = AbstractWindow(
      config, window, chain_.alternatives.front().ghost, rows_known());
  if (alone.ok()) {
    if (const model::Invariant* broken =
            model::FirstBrokenInvariant(config, *alone)) {
      reason += "; " + Describe(*broken, next.number);
    }
  }
  SetInvalid(k - 1, k, reason);
  out_->invalid->tried = std::move(judge->tried);
  out_->invalid->closest = judge->closest_actions;
  out_->invalid->difference = std::move(judge->closest_lines);
}

void Validator::ExtendChain(std::size_t k, const Window& window,
                            StepJudge* judge) {
  const model::Config& config = out_->config;
  const LoadedVersion& next = table_.versions[k];
  std::vector<Alternative> next_alternatives;
  std::set<std::string> seen;
  std::string broken_reason;
  std::string explained_by;
  for (const Match& match : judge->matches) {
    // The next version's op is its transaction file's (its kind decides
    // which invariants exempt the step: a Restore, a MemWAL reset, ...).
    const Result<State> abstract =
        AbstractWindow(config, window, match.after, rows_known());
    MEMWAL_ASSERT(abstract.ok());
    if (const model::Invariant* broken =
            model::FirstBrokenInvariant(config, *abstract)) {
      if (broken_reason.empty()) {
        broken_reason = Describe(*broken, next.number) +
                        " (the step is explained by " + match.name + ")";
      }
      continue;
    }
    std::string key;
    model::Encode(match.after, &key);
    if (!seen.insert(key).second) continue;
    if (next_alternatives.size() == kAlternativesMax) continue;
    next_alternatives.push_back(Alternative{.ghost = match.after});
    if (explained_by.empty()) explained_by = match.name;
  }
  if (next_alternatives.empty()) {
    SetInvalid(k - 1, k, broken_reason);
    out_->invalid->tried = std::move(judge->tried);
    return;
  }
  if (next_alternatives.size() > 1) {
    explained_by += " (or " + std::to_string(next_alternatives.size() - 1) +
                    " other explanation" +
                    (next_alternatives.size() > 2 ? "s" : "") + ")";
  }
  out_->explained.push_back(Explained{.from = table_.versions[k - 1].number,
                                      .to = next.number,
                                      .operation = next.operation,
                                      .actions = explained_by});
  SetPartialCount("steps explained", out_->explained.size());
  chain_.alternatives = std::move(next_alternatives);
}

void Validator::Step(std::size_t k) {
  const std::optional<StepWindow> step = WindowOfStep(k);
  if (!step.has_value()) return;
  StepJudge judge(out_->config, step->window, table_.versions[k], rows_known());
  for (std::size_t a = 0; a < chain_.alternatives.size(); ++a) {
    if (!TryAlternative(k, *step, a, &judge)) return;
  }
  if (judge.matches.empty()) {
    RefuseUnexplained(k, step->window, &judge);
    return;
  }
  // Every invariant on the next version, under each explanation.
  ExtendChain(k, step->window, &judge);
}

void Validator::Finish() {
  if (!chain_.active || !table_.wal.has_value()) return;
  const model::Config& config = out_->config;
  const std::size_t last = table_.versions.size() - 1;
  std::size_t first =
      std::max(chain_.start, last + 1 >= model::kVersionsMax
                                 ? last + 1 - model::kVersionsMax
                                 : std::size_t{0});
  Result<Window> window = MakeWindow(table_, first, last);
  if (!window.ok()) window = MakeWindow(table_, last, last);
  if (!window.ok()) {
    out_->gaps.push_back(Gap{.from = table_.versions[last].number,
                             .to = table_.versions[last].number,
                             .operation = "the WAL's final state",
                             .reason = window.status().message()});
    return;
  }
  const Alternative& alternative = chain_.alternatives.front();
  const Result<State> head =
      AbstractWindow(config, *window, alternative.ghost, rows_known());
  if (!head.ok()) return;
  State state = *head;
  const uint64_t number = table_.versions[last].number;
  std::string silent;
  for (int s = 0; s < config.bounds.shards; ++s) {
    while (state.flushed[s] < final_flushed_[s]) {
      const model::Action flush = model::FlushMemTable{.shard = s};
      model::Outcome unused;
      model::Apply(config, flush, &state, &unused);
    }
    for (int g = 1; g <= static_cast<int>(final_flushed_[s]); ++g) {
      if (!table_.wal->retired[s].contains(static_cast<uint64_t>(g)) ||
          model::Contains(state.retired[s], g - 1))
        continue;
      const model::Action retire =
          model::RetireSsTable{.shard = s, .generation = g};
      if (!model::IsEnabled(config, state, retire)) {
        Invalid invalid;
        invalid.from = invalid.to = number;
        invalid.operation = "the WAL's final state";
        invalid.reason =
            "SSTable (shard " + std::to_string(s) + ", generation " +
            std::to_string(g) + ") is deleted, but " + model::ToString(retire) +
            " is not enabled after version " + std::to_string(number) +
            " (R12: an index the head relies on does not cover "
            "its rows, or it is not compacted)";
        out_->invalid = std::move(invalid);
        return;
      }
      model::Outcome unused;
      model::Apply(config, retire, &state, &unused);
    }
  }
  if (const model::Invariant* broken =
          model::FirstBrokenInvariant(config, state)) {
    Invalid invalid;
    invalid.from = invalid.to = number;
    invalid.operation = "the WAL's final state";
    invalid.reason = Describe(*broken, number) + " with the WAL's final state";
    out_->invalid = std::move(invalid);
  }
}

void Validator::ReadFinalFlushes() {
  const model::Config& config = out_->config;
  final_flushed_.assign(model::kShardsMax, 0);
  if (!table_.wal.has_value()) return;
  for (std::size_t s = 0; s < table_.wal->flushed.size(); ++s) {
    if (table_.wal->flushed[s] >
        static_cast<uint64_t>(model::kGenerationsMax)) {
      out_->untracked.push_back(
          "shard " + std::to_string(s) + " flushed " +
          std::to_string(table_.wal->flushed[s]) +
          " generations; the model holds " +
          std::to_string(model::kGenerationsMax) +
          ": flushes are explained up to that bound only");
    }
    final_flushed_[s] =
        std::min<uint64_t>(table_.wal->flushed[s], config.bounds.generations);
  }
}

bool Validator::HalfSetUnread(std::size_t k) {
  const LoadedVersion& version = table_.versions[k];
  if (version.table.has_value() ||
      !model::IsBitProtocol(out_->config.protocol) ||
      ((version.reader_flags ^ version.writer_flags) & 128) == 0)
    return false;
  SetInvalid(k == 0 ? 0 : k - 1, k,
             "invariant FeatureBitsArePaired is broken on version " +
                 std::to_string(version.number) + ": bit 128 is set in the " +
                 ((version.reader_flags & 128) != 0 ? "reader" : "writer") +
                 " feature word only");
  return true;
}

bool Validator::OutsideModel(std::size_t k) {
  const LoadedVersion& version = table_.versions[k];
  if (k > 0 && !OperationInModel(version.operation)) {
    AddGap(
        k - 1, k,
        "operation " + version.operation +
            " is outside the model (its Lance operations: Append, "
            "Delete, Update, Rewrite, CreateIndex, UpdateMemWalState, "
            "Restore; Overwrite only as the first version)" +
            (version.table.has_value() ? "" : "; and " + version.unreadable));
    return true;
  }
  if (!version.table.has_value()) {
    AddGap(k == 0 ? 0 : k - 1, k, "outside the model: " + version.unreadable);
    return true;
  }
  return false;
}

void Validator::NoteMissingVersions(std::size_t k) {
  const LoadedVersion& version = table_.versions[k];
  if (k == 0 && version.number != 1) {
    out_->gaps.push_back(Gap{
        .from = 1,
        .to = version.number,
        .operation = version.operation,
        .reason = (version.operation == "Clone"
                       ? "the table is a clone (operation Clone): versions "
                         "1.." +
                             std::to_string(version.number - 1) +
                             " are the source table's, not in this "
                             "directory"
                       : "versions 1.." + std::to_string(version.number - 1) +
                             " are not in _versions/ (cleaned up)") +
                  "; validation starts at version " +
                  std::to_string(version.number)});
  }
  if (chain_.active && version.number != table_.versions[k - 1].number + 1) {
    AddGap(k - 1, k,
           "versions " + std::to_string(table_.versions[k - 1].number + 1) +
               ".." + std::to_string(version.number - 1) +
               " are not in _versions/ (cleaned up)");
  }
}

void Validator::Run() {
  ReadFinalFlushes();
  for (std::size_t k = 0; k < table_.versions.size() && !out_->invalid; ++k) {
    if (HalfSetUnread(k)) break;
    if (OutsideModel(k)) continue;
    NoteMissingVersions(k);
    if (chain_.active) {
      Step(k);
    } else {
      Start(k);
    }
  }
  if (!out_->invalid) Finish();
}

// R37 across two directories: the clone's first version (operation Clone)
// is the source's version of the same number with its feature words masked
// to bit 128, so bit 128 is where the source has it. Returns the broken step
// or a gap when the source does not hold that version.
Status CheckCloneSource(const LoadedTable& clone, const std::string& source_dir,
                        const ValidateOptions& options, Validation* out) {
  const LoadedVersion& first = clone.versions.front();
  if (first.operation != "Clone") {
    return Status::InvalidArgument("--source: " + clone.dir +
                                   " is not a clone (its first version, " +
                                   std::to_string(first.number) +
                                   ", was made by " + first.operation + ")");
  }
  MEMWAL_ASSIGN_OR_RETURN(const LoadedTable source,
                          LoadTable(source_dir, options.protocol));
  const auto it = std::find_if(
      source.versions.begin(), source.versions.end(),
      [&](const LoadedVersion& v) { return v.number == first.number; });
  if (it == source.versions.end()) {
    out->gaps.push_back(
        Gap{.from = first.number,
            .to = first.number,
            .operation = "Clone",
            .reason = "the source " + source_dir + " does not retain version " +
                      std::to_string(first.number) +
                      ", the one the clone copies: R37 not checked"});
    return Status::Ok();
  }
  constexpr uint64_t kBit = 128;
  const bool kept = (it->reader_flags & kBit) == (first.reader_flags & kBit) &&
                    (it->writer_flags & kBit) == (first.writer_flags & kBit);
  if (kept) return Status::Ok();
  auto words = [](const LoadedVersion& v) {
    return "reader " + std::to_string(v.reader_flags & kBit) + ", writer " +
           std::to_string(v.writer_flags & kBit);
  };
  Invalid invalid;
  invalid.from = first.number;
  invalid.to = first.number;
  invalid.operation = "Clone";
  invalid.reason = "R37 is broken by the clone: version " +
                   std::to_string(first.number) + " of the source " +
                   source_dir + " has bit 128 as (" + words(*it) +
                   ") and the clone's copy of it (" + words(first) +
                   "); invariant ActivationIsPermanent is broken across the "
                   "clone";
  out->invalid = std::move(invalid);
  return Status::Ok();
}

}  // namespace

std::string_view Name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kValid:
      return "valid";
    case Verdict::kInvalid:
      return "invalid";
    case Verdict::kIncomplete:
      return "incomplete";
  }
  return "?";
}

Result<Validation> Validate(const std::string& table_dir,
                            const ValidateOptions& options) {
  MEMWAL_ASSIGN_OR_RETURN(const LoadedTable table,
                          LoadTable(table_dir, options.protocol));
  Validation out;
  out.table_dir = table_dir;
  out.protocol_given = options.protocol.has_value();
  out.protocol_reason = table.protocol_reason;
  out.notes = table.notes;
  out.versions = table.versions.size();
  out.first = table.versions.front().number;
  out.last = table.versions.back().number;
  out.steps = table.versions.size() - 1 + (out.first == 1 ? 1 : 0);
  model::Config& config = out.config;
  config.protocol = table.protocol;
  config.env = options.env;
  config.bounds = model::Bounds{
      .shards = static_cast<int>(std::max<uint32_t>(table.shards, 1)),
      .generations = model::kGenerationsMax,
      .fragments = model::kFragmentsMax,
      .indexes = static_cast<int>(table.indexes),
      .commits = model::kCommitsMax,
      .inflight = 1,
      .reinstalls = model::kReinstallsMax};
  out.untracked.push_back(
      "rows deleted by a commit (the ghost `deleted`): carried by the model, "
      "not read per version");
  out.untracked.push_back(
      "the retirement ghost (retire_cover), activation acknowledgement and "
      "foreign writers' marks: carried by the model from the chain's start");
  out.untracked.push_back(
      "the WAL between versions: shard manifests carry no base-table version, "
      "so flushes are placed where a step needs them and retirements after "
      "the last version");
  if (!table.rows.has_value()) {
    out.untracked.push_back(
        "rows per fragment: the implementation's reader cannot read them (" +
        table.rows_problem + "); steps are compared without them");
  }
  if (!table.wal.has_value()) {
    out.untracked.push_back("the WAL: " + table.wal_problem);
  }
  if (table.shards > static_cast<uint32_t>(model::kShardsMax) ||
      table.indexes > static_cast<uint32_t>(model::kIndexesMax)) {
    out.gaps.push_back(
        Gap{.from = out.first,
            .to = out.last,
            .operation = "the whole table",
            .reason = "outside the model: " + std::to_string(table.shards) +
                      " shards and " + std::to_string(table.indexes) +
                      " user indexes; the model holds " +
                      std::to_string(model::kShardsMax) + " and " +
                      std::to_string(model::kIndexesMax)});
  } else {
    if (options.source.has_value())
      MEMWAL_RETURN_IF_ERROR(
          CheckCloneSource(table, *options.source, options, &out));
    if (!out.invalid.has_value()) Validator(table, &out).Run();
  }
  out.verdict = out.invalid.has_value() ? Verdict::kInvalid
                : out.gaps.empty()      ? Verdict::kValid
                                        : Verdict::kIncomplete;
  return out;
}

}  // namespace memwal::checker::validate
