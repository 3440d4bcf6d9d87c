// Explanations of broken invariants, trace loading, page files and the
// `report` subcommand (checker/report/report.h). The HTML itself is in
// report_html.cc.
#include "checker/report/report.h"

#include <filesystem>
#include <sstream>

#include "base/flags.h"
#include "base/json_input.h"
#include "base/memory.h"
#include "base/output_file.h"
#include "checker/engine/liveness.h"
#include "checker/report/cat.h"
#include "checker/report/trace_reader.h"
#include "model/invariants.h"
#include "model/read.h"

namespace memwal::checker::report {
namespace {

using model::Config;
using model::FragmentSet;
using model::RowBit;
using model::RowSet;
using model::State;
using model::Version;

std::string RowName(int shard, int generation) {
  return Cat("(", std::to_string(shard), ",", std::to_string(generation), ")");
}

std::string IndexName(int index) { return "idx_" + std::to_string(index); }

std::string FragmentList(const std::vector<int>& fragments) {
  if (fragments.empty()) return "no live fragment";
  std::string out = fragments.size() == 1 ? "fragment " : "fragments ";
  for (std::size_t k = 0; k < fragments.size(); ++k) {
    out += (k ? ", " : "") + std::to_string(fragments[k]);
  }
  return out;
}

// The fragments of `within` that hold `row`.
std::vector<int> Holders(const State& state, FragmentSet within, RowSet row) {
  std::vector<int> out;
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if (model::Contains(within, f) && (state.rows[f] & row)) out.push_back(f);
  }
  return out;
}

std::string_view Statement(std::string_view invariant) {
  if (invariant == "CatchupWithinCoverage")
    return "For every index i and shard s with head position p, every row "
           "(s,g) with g <= p that a live fragment holds is held by a live "
           "fragment that a segment of i covers.";
  if (invariant == "CatchupWithinCompaction")
    return "Every head position p of shard s has 0 < p <= "
           "compacted_sstables[s].";
  if (invariant == "ReadsMissNoRows")
    return "Every query shape sees every flushed, undeleted MemWAL row: its "
           "SSTable is served, or a live fragment that every index of the "
           "query covers holds it (or it was retired while every index of the "
           "query covered it).";
  if (invariant == "FeatureBitsArePaired")
    return "Every version in the history has reader_bit == writer_bit.";
  if (invariant == "ActivationIsPermanent")
    return "Once the table was activated, the head carries both feature bits.";
  if (invariant == "NoRowIsLost")
    return "A commit other than DeleteFragment or Restore keeps every row; "
           "UpdateMemWalState and CreateIndex leave the fragment list intact.";
  if (invariant == "CompactionNeverRegresses")
    return "Unless the last commit is a Restore, compacted_sstables grows "
           "pointwise.";
  if (invariant == "LegacyTablesAreUntouched")
    return "On a table without the bit, no commit but Activate changes "
           "index_catchup.";
  if (invariant == "UnchangedPositionsNeverDrop")
    return "Unless the last commit is Restore or Activate, an index whose "
           "segments did not change keeps at least its position in every "
           "shard.";
  return "";
}

bool ExplainCoverage(const Config& config, const State& state,
                     Explanation* out) {
  const Version& head = model::Head(state);
  const RowSet live_rows = model::LiveRows(state, head);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    const FragmentSet covered = model::CoveredBy(head, i) & head.live;
    for (int s = 0; s < config.bounds.shards; ++s) {
      for (int g = 1; g <= head.catchup[i][s]; ++g) {
        const RowSet row = RowBit(s, g);
        if (!(live_rows & row) || !Holders(state, covered, row).empty())
          continue;
        out->shard = s;
        out->generation = g;
        out->index = i;
        out->version = head.number;
        out->fragments = Holders(state, head.live, row);
        out->detail = IndexName(i) + " records index_catchup " +
                      std::to_string(head.catchup[i][s]) + " for shard " +
                      std::to_string(s) + " in v" +
                      std::to_string(head.number) + ", so position " +
                      std::to_string(g) + " claims row " + RowName(s, g) +
                      "; but the row is held only by " +
                      FragmentList(out->fragments) + ", which no segment of " +
                      IndexName(i) + " covers: position " + std::to_string(g) +
                      " is not backed.";
        return true;
      }
    }
  }
  return false;
}

bool ExplainCompaction(const Config& config, const State& state,
                       Explanation* out) {
  const Version& head = model::Head(state);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (int s = 0; s < config.bounds.shards; ++s) {
      if (head.catchup[i][s] <= head.compacted[s]) continue;
      out->index = i;
      out->shard = s;
      out->generation = head.catchup[i][s];
      out->version = head.number;
      out->detail = IndexName(i) + " records index_catchup " +
                    std::to_string(head.catchup[i][s]) + " for shard " +
                    std::to_string(s) + " in v" + std::to_string(head.number) +
                    ", past compacted_sstables[" + std::to_string(s) +
                    "] = " + std::to_string(head.compacted[s]) + ".";
      return true;
    }
  }
  return false;
}

// Why `shape` does not see row (s,g), in words.
std::string WhyUnseen(const Config& config, const State& state,
                      model::QueryShape shape, int s, int g) {
  const Version& head = model::Head(state);
  const RowSet row = RowBit(s, g);
  std::string why = "its SSTable is ";
  if (model::Contains(state.retired[s], g - 1)) {
    why += "retired";
  } else {
    const int watermark = model::Watermark(config, state, shape, s);
    why += "not served (exclusion watermark " + std::to_string(watermark) +
           " >= generation " + std::to_string(g) + ")";
  }
  const std::vector<int> holders = Holders(state, head.live, row);
  if (holders.empty()) return why + ", and no live fragment holds it.";
  why += "; it is held by " + FragmentList(holders);
  std::string uncovering;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (!model::Contains(shape.uses, i)) continue;
    if (!Holders(state, model::CoveredBy(head, i) & head.live, row).empty())
      continue;
    uncovering += Cat(uncovering.empty() ? "" : ", ", IndexName(i));
  }
  return why + ", which " + uncovering + " does not cover.";
}

bool ExplainReads(const Config& config, const State& state, Explanation* out) {
  // The model's predicate names no culprit, so find the first (shape, row)
  // that is unseen by re-checking one row at a time with the same invariant on
  // a copy of the state in which only that row is flushed and undeleted.
  const model::QueryShapes shapes = model::AllQueryShapes(config, state);
  const model::Invariant* reads = model::FindInvariant("ReadsMissNoRows");
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= state.flushed[s]; ++g) {
      const RowSet row = RowBit(s, g);
      if (state.deleted & row) continue;
      State only = state;
      only.deleted = static_cast<RowSet>(~row);
      if (reads->holds(config, only)) continue;
      for (int q = 0; q < shapes.count; ++q) {
        const model::QueryShape shape = shapes.shapes[q];
        const bool served = model::Served(config, state, shape, s, g);
        FragmentSet visible = model::Head(state).live;
        for (int i = 0; i < config.bounds.indexes; ++i) {
          if (model::Contains(shape.uses, i))
            visible &= model::CoveredBy(model::Head(state), i);
        }
        const bool retired_covered =
            model::Contains(state.retired[s], g - 1) &&
            (shape.uses &
             ~state.retire_cover[s * model::kGenerationsMax + g - 1]) == 0 &&
            !Holders(state, model::Head(state).live, row).empty();
        if (served || retired_covered || !Holders(state, visible, row).empty())
          continue;
        out->shard = s;
        out->generation = g;
        out->query = QueryShapeName(config, state, q);
        out->version = model::Head(state).number;
        out->fragments = Holders(state, model::Head(state).live, row);
        out->detail = "The " + out->query + " query on v" +
                      std::to_string(out->version) + " misses row " +
                      RowName(s, g) + ": " +
                      WhyUnseen(config, state, shape, s, g);
        return true;
      }
    }
  }
  return false;
}

bool ExplainBits(const State& state, Explanation* out) {
  for (int v = 0; v < state.version_count; ++v) {
    const Version& version = state.versions[v];
    if (version.reader_bit == version.writer_bit) continue;
    out->version = version.number;
    out->detail =
        "v" + std::to_string(version.number) + " carries bit 128 in " +
        (version.reader_bit ? "reader_feature_flags" : "writer_feature_flags") +
        " only.";
    return true;
  }
  return false;
}

bool ExplainActivation(const State& state, Explanation* out) {
  const Version& head = model::Head(state);
  if (!state.activated || model::HasBothBits(head)) return false;
  out->version = head.number;
  out->detail = "The table was activated, but the head v" +
                std::to_string(head.number) + " (" +
                std::string(model::Name(head.op.kind)) +
                ") does not carry both feature bits.";
  return true;
}

// The newest version and its predecessor, or nulls.
std::pair<const Version*, const Version*> LastCommit(const State& state) {
  if (state.version_count < 2) return {nullptr, nullptr};
  return {&state.versions[state.version_count - 2],
          &state.versions[state.version_count - 1]};
}

bool ExplainLost(const Config& config, const State& state, Explanation* out) {
  const auto [before, after] = LastCommit(state);
  if (after == nullptr) return false;
  out->version = after->number;
  const RowSet lost = model::LiveRows(state, *before) &
                      static_cast<RowSet>(~model::LiveRows(state, *after));
  for (int s = 0; s < config.bounds.shards && lost; ++s) {
    for (int g = 1; g <= config.bounds.generations; ++g) {
      if (!(lost & RowBit(s, g))) continue;
      out->shard = s;
      out->generation = g;
      out->fragments = Holders(state, before->live, RowBit(s, g));
      out->detail = "The " + std::string(model::Name(after->op.kind)) +
                    " commit v" + std::to_string(after->number) +
                    " drops row " + RowName(s, g) + ", held by " +
                    FragmentList(out->fragments) + " in v" +
                    std::to_string(before->number) + ".";
      return true;
    }
  }
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if (model::Contains(before->live, f) != model::Contains(after->live, f))
      out->fragments.push_back(f);
  }
  out->detail = "The metadata-only " +
                std::string(model::Name(after->op.kind)) + " commit v" +
                std::to_string(after->number) + " changes the fragment list (" +
                FragmentList(out->fragments) + ").";
  return true;
}

// The first (index, shard) whose position changed (or dropped, when
// `drop_only`) in the last commit, for indexes passing `consider`.
template <typename Consider>
bool ExplainPositionChange(const Config& config, const State& state,
                           bool drop_only, Consider consider,
                           Explanation* out) {
  const auto [before, after] = LastCommit(state);
  if (after == nullptr) return false;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (!consider(*before, *after, i)) continue;
    for (int s = 0; s < config.bounds.shards; ++s) {
      const int was = before->catchup[i][s];
      const int now = after->catchup[i][s];
      if (drop_only ? now >= was : now == was) continue;
      out->index = i;
      out->shard = s;
      out->version = after->number;
      out->detail = "The " + std::string(model::Name(after->op.kind)) +
                    " commit v" + std::to_string(after->number) +
                    " changes index_catchup of " + IndexName(i) +
                    " for shard " + std::to_string(s) + " from " +
                    std::to_string(was) + " to " + std::to_string(now) +
                    " (0 = no entry)";
      return true;
    }
  }
  return false;
}

bool ExplainRegress(const Config& config, const State& state,
                    Explanation* out) {
  const auto [before, after] = LastCommit(state);
  if (after == nullptr) return false;
  for (int s = 0; s < config.bounds.shards; ++s) {
    if (after->compacted[s] >= before->compacted[s]) continue;
    out->shard = s;
    out->version = after->number;
    out->detail = "The " + std::string(model::Name(after->op.kind)) +
                  " commit v" + std::to_string(after->number) +
                  " lowers compacted_sstables[" + std::to_string(s) +
                  "] from " + std::to_string(before->compacted[s]) + " to " +
                  std::to_string(after->compacted[s]) + ".";
    return true;
  }
  return false;
}

Explanation ExplainOne(const Config& config, const State& state,
                       std::string_view invariant) {
  Explanation out;
  out.invariant = std::string(invariant);
  out.statement = std::string(Statement(invariant));
  bool found = false;
  if (invariant == "CatchupWithinCoverage") {
    found = ExplainCoverage(config, state, &out);
  } else if (invariant == "CatchupWithinCompaction") {
    found = ExplainCompaction(config, state, &out);
  } else if (invariant == "ReadsMissNoRows") {
    found = ExplainReads(config, state, &out);
  } else if (invariant == "FeatureBitsArePaired") {
    found = ExplainBits(state, &out);
  } else if (invariant == "ActivationIsPermanent") {
    found = ExplainActivation(state, &out);
  } else if (invariant == "NoRowIsLost") {
    found = ExplainLost(config, state, &out);
  } else if (invariant == "CompactionNeverRegresses") {
    found = ExplainRegress(config, state, &out);
  } else if (invariant == "LegacyTablesAreUntouched") {
    found = ExplainPositionChange(
        config, state, false,
        [](const Version&, const Version&, int) { return true; }, &out);
    if (found) out.detail += ", on a table without the bit.";
  } else if (invariant == "UnchangedPositionsNeverDrop") {
    found = ExplainPositionChange(
        config, state, true,
        [](const Version& before, const Version& after, int i) {
          return before.segments[i] == after.segments[i];
        },
        &out);
    if (found) out.detail += ", although its segments did not change.";
  }
  // Every invariant above has an explainer that finds the culprit of a broken
  // state; a miss means an explainer and the model's predicate disagree.
  MEMWAL_ASSERT(found);
  return out;
}

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

// A trace text of format version 1 or 2 (v2 = v1 plus "lockstep" and
// "impl_bugs", written by the lockstep CLI), as a Trace.
std::string Stem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (std::string_view suffix : {".trace.json", ".json"}) {
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

Status MakeDirectory(const std::string& dir) {
  return MakeOutputDirectory(dir);
}

std::string ReproduceCommand(const std::string& trace_path) {
  return "memwal-check replay " + trace_path;
}

}  // namespace

std::vector<Explanation> Explain(const Config& config, const State& state) {
  std::vector<Explanation> out;
  for (const model::Invariant& invariant : model::AllInvariants()) {
    if (!invariant.holds(config, state))
      out.push_back(ExplainOne(config, state, invariant.name));
  }
  return out;
}

std::string QueryShapeName(const Config& config, const State& state, int q) {
  const model::QueryShapes shapes = model::AllQueryShapes(config, state);
  MEMWAL_ASSERT(q >= 0 && q < shapes.count);
  const model::IndexSet uses = shapes.shapes[q].uses;
  if (q == 0) return "plain scan";
  std::string names;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (model::Contains(uses, i))
      names += Cat(names.empty() ? "" : ", ", IndexName(i));
  }
  if (q == shapes.count - 1) return "all-indexes {" + names + "}";
  return "index " + names;
}

Result<std::string> RenderTraceFile(const std::string& trace_path) {
  MEMWAL_ASSIGN_OR_RETURN(const LockstepTrace file, ReadTraceFile(trace_path));
  const Trace& trace = file.trace;
  const Status valid = model::CheckConfig(trace.config);
  if (!valid.ok())
    return Usage(Escaped(trace_path) + ": " + Escaped(valid.message()));
  std::vector<State> states;
  const Status replayed =
      trace.loop ? engine::LassoStates(trace.config, trace.steps, *trace.loop,
                                       trace.window, &states)
                 : engine::Replay(trace.config, trace.steps, &states);
  if (!replayed.ok())
    return Usage(Escaped(trace_path) + ": " + Escaped(replayed.message()));
  return RenderCounterexamplePage(trace, states, ReproduceCommand(trace_path));
}

std::string CounterexamplePageName(const nlohmann::json& row) {
  if (!row.is_object() || !row.contains("trace_file") ||
      !row["trace_file"].is_string() ||
      row["trace_file"].get<std::string>().empty()) {
    return "";
  }
  // Variants keep one trace per variant under the same invariant names, so
  // the page name starts with the variant's.
  std::string prefix;
  if (row.contains("variant") && row["variant"].is_string()) {
    for (char c : row["variant"].get<std::string>()) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_';
      prefix += plain ? c : '-';
    }
    prefix += "--";
  }
  return prefix + Stem(row["trace_file"].get<std::string>()) + ".html";
}

Status WriteVariantsPages(const std::string& dir, const nlohmann::json& rows) {
  if (!rows.is_array()) return Usage("the variants rows must be a JSON array");
  MEMWAL_RETURN_IF_ERROR(MakeDirectory(dir));
  for (const nlohmann::json& row : rows) {
    const std::string page = CounterexamplePageName(row);
    if (page.empty()) continue;
    MEMWAL_ASSIGN_OR_RETURN(
        const std::string html,
        RenderTraceFile(row["trace_file"].get<std::string>()));
    MEMWAL_RETURN_IF_ERROR(WriteFileAtomically(
        (std::filesystem::path(dir) / page).string(), html));
  }
  return WriteFileAtomically(
      (std::filesystem::path(dir) / "variants.html").string(),
      RenderVariantsPage(rows));
}

Status WriteCheckPages(const std::string& dir, RunSummary summary,
                       const std::string& trace_file) {
  MEMWAL_RETURN_IF_ERROR(MakeDirectory(dir));
  if (!trace_file.empty()) {
    summary.counterexample_page = Stem(trace_file) + ".html";
    MEMWAL_ASSIGN_OR_RETURN(const std::string html,
                            RenderTraceFile(trace_file));
    MEMWAL_RETURN_IF_ERROR(WriteFileAtomically(
        (std::filesystem::path(dir) / summary.counterexample_page).string(),
        html));
  }
  return WriteFileAtomically(
      (std::filesystem::path(dir) / "summary.html").string(),
      RenderSummaryPage(summary));
}

namespace {

struct ReportArgs {
  std::string rows_path{};
  std::string out_path{};
};

std::vector<Flag> ReportFlags(ReportArgs* args) {
  return {Valued("--out", "PATH",
                 "the page to write (FILE.html), or with --variants the "
                 "directory",
                 [args](std::string_view path) {
                   args->out_path = path;
                   return Status::Ok();
                 }),
          Valued("--variants", "ROWS.json",
                 "render the array `variants --json` prints: DIR gets\n"
                 "variants.html and one page per counterexample",
                 [args](std::string_view path) {
                   args->rows_path = path;
                   return Status::Ok();
                 })};
}

}  // namespace

std::vector<Flag> ReportFlagTable() { return HelpTable(&ReportFlags); }

std::string ReportAbout() {
  return "Renders a counterexample trace (TRACE.trace.json, format 2) "
         "as one self-contained\nHTML page: a timeline per actor, the table "
         "at every step with what changed, and\nthe broken invariant pointed "
         "at. Usage: report TRACE --out FILE.html, or\nreport --variants "
         "ROWS.json --out DIR.\n"
         "Exit 0 written, 2 bad usage or unreadable input.\n";
}

int RunReportCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  auto fail = [&err](const Status& status) {
    err << "memwal-check report: " << status.message() << "\n";
    return 2;
  };
  ReportArgs given;
  const Result<ParsedFlags> parsed =
      ParseFlags("report", args, ReportFlags(&given), 1);
  if (!parsed.ok()) return fail(parsed.status());
  std::string trace_path;
  const std::string& rows_path = given.rows_path;
  const std::string& out_path = given.out_path;
  if (!parsed->positional.empty()) trace_path = parsed->positional[0];
  if (out_path.empty() || trace_path.empty() == rows_path.empty()) {
    err << "memwal-check report: needs TRACE or --variants ROWS.json, and "
           "--out\n";
    return 2;
  }
  if (!rows_path.empty()) {
    Result<std::string> text = ReadFile(rows_path);
    if (!text.ok()) return fail(text.status());
    const Result<nlohmann::json> rows = ParseJsonInput(*text);
    if (!rows.ok())
      return fail(Usage(Escaped(rows_path) + ": " + rows.status().message()));
    SetPartialCount("rows read", rows->size());
    const Status written = WriteVariantsPages(out_path, *rows);
    if (!written.ok()) return fail(written);
    out << "wrote " << out_path << "/variants.html\n";
    return 0;
  }
  Result<std::string> html = RenderTraceFile(trace_path);
  if (!html.ok()) return fail(html.status());
  SetPartialCount("bytes rendered", html->size());
  const Status written = WriteFileAtomically(out_path, *html);
  if (!written.ok()) return fail(written);
  out << "wrote " << out_path << "\n";
  return 0;
}

}  // namespace memwal::checker::report
