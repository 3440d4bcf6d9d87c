#include "checker/cli/compare.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/engine/liveness.h"
#include "checker/engine/search.h"
#include "model/actions.h"
#include "model/config.h"

namespace memwal::checker::cli {
namespace {

constexpr int kExitBudget = 3;

Status Usage(const std::string& message) {
  return Status::InvalidArgument(message);
}

// One side of the comparison: its switch set, options and the run's result.
struct Side {
  std::string set{};
  CheckOptions check{};
  RunOptions run{};
  engine::SearchResult result{};
  std::string note{};  // EnableRequiredEnv's note, if any
};

// `args` (after the two switch sets) plus `set`'s flags, parsed as `check`
// parses them.
Result<Side> ParseSide(const std::string& set,
                       const std::vector<std::string>& common) {
  MEMWAL_ASSIGN_OR_RETURN(std::vector<std::string> args, SwitchFlags(set));
  args.insert(args.end(), common.begin(), common.end());
  Side side;
  side.set = set;
  CheckFlagSet flags;
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("compare", args, flags.Flags()));
  MEMWAL_RETURN_IF_ERROR(flags.Finish());
  side.run = flags.run;
  if (!side.run.html_dir.empty())
    return Usage("compare takes --html DIR once, before the switch sets' runs");
  if (side.run.keep_going)
    return Usage(
        "--continue belongs to check; compare shows one verdict a side");
  const CheckOptions& check = flags.check;
  // check's own refusals (a bug that does not apply to the protocol, ...):
  // one function for check, compare and variants.
  MEMWAL_RETURN_IF_ERROR(RefuseContradictions(check, side.run));
  if (check.json)
    return Usage("compare prints text, --markdown or --html, not --json");
  side.check = check;
  side.note = EnableRequiredEnv(&side.check.config, side.run.impl_only_bugs);
  return side;
}

void RunSide(Side* side) {
  const CheckOptions& check = side->check;
  const RunOptions& run = side->run;
  const engine::Options search = SearchOptionsOf(check, run);
  side->result = engine::Search(
      lockstep::LockstepSetup{.config = check.config,
                              .impl_only_bugs = run.impl_only_bugs,
                              .seed = check.seed},
      search);
  engine::SearchResult& result = side->result;
  if (!run.liveness || result.verdict != engine::Verdict::kOk) return;
  const engine::LivenessResult live =
      engine::CheckLiveness(check.config, check.explore.max_states);
  if (!live.complete) {
    result.verdict = engine::Verdict::kIncomplete;
    result.stopped_by = "max-states (liveness)";
  } else if (!live.holds) {
    result.verdict = engine::Verdict::kViolation;
    result.violation =
        engine::SearchViolation{.invariant = std::string(engine::kLivenessName),
                                .detail = live.note,
                                .trace = live.trace,
                                .states = live.states_on_trace,
                                .loop = live.loop,
                                .window = live.window};
  }
}

std::string Fixed(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << seconds << " s";
  return text.str();
}

std::string Join(const std::vector<std::string>& words,
                 std::string_view separator) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += separator;
    out += word;
  }
  return out;
}

std::string VerdictText(const engine::SearchResult& result) {
  std::string text(Name(result.verdict));
  if (result.verdict == engine::Verdict::kIncomplete)
    text += " (" + result.stopped_by + ")";
  return text;
}

std::string GoalsText(const engine::Stats& stats) {
  const std::size_t total =
      stats.goals_reached.size() + stats.goals_missed.size();
  std::string text = std::to_string(stats.goals_reached.size()) + " of " +
                     std::to_string(total);
  if (!stats.goals_missed.empty())
    text += " (missed: " + Join(stats.goals_missed, ", ") + ")";
  return text;
}

std::vector<std::string> Steps(const engine::SearchResult& result) {
  std::vector<std::string> steps;
  if (!result.violation) return steps;
  for (const model::Action& action : result.violation->trace)
    steps.push_back(model::ToString(action));
  return steps;
}

std::string CounterexampleHeadline(const Side& side) {
  if (!side.result.violation) return "-";
  const std::size_t n = side.result.violation->trace.size();
  const bool shortest =
      side.run.order == engine::Order::kBfs &&
      side.result.violation->invariant != engine::kLivenessName;
  return std::to_string(n) + " steps" + (shortest ? " (shortest)" : "");
}

// The table's rows: label, then one cell per side.
using Row = std::vector<std::string>;

std::vector<Row> Rows(const Side& a, const Side& b) {
  std::vector<Row> rows;
  auto add = [&](std::string label, auto cell) {
    rows.push_back(Row{std::move(label), cell(a), cell(b)});
  };
  add("switches", [](const Side& s) { return s.set; });
  add("verdict", [](const Side& s) { return VerdictText(s.result); });
  add("broken invariant", [](const Side& s) {
    return s.result.violation ? s.result.violation->invariant
                              : std::string("-");
  });
  add("distinct states", [](const Side& s) {
    return std::to_string(s.result.stats.states_distinct);
  });
  add("transitions",
      [](const Side& s) { return std::to_string(s.result.stats.transitions); });
  add("goals reached", [](const Side& s) { return GoalsText(s.result.stats); });
  add("time", [](const Side& s) { return Fixed(s.result.stats.seconds); });
  add("counterexample",
      [](const Side& s) { return CounterexampleHeadline(s); });
  return rows;
}

std::string Header(const Side& a) {
  const model::Bounds& b = a.check.config.bounds;
  std::ostringstream text;
  text << (a.check.model_only ? "model-only" : "lockstep") << ", bounds "
       << model::PresetName(b) << " (shards=" << b.shards
       << " generations=" << b.generations << " fragments=" << b.fragments
       << " indexes=" << b.indexes << " commits=" << b.commits
       << " inflight=" << b.inflight << " reinstalls=" << b.reinstalls
       << "), seed " << a.check.seed
       << (a.run.liveness ? ", liveness checked after a clean safety search"
                          : ", liveness not checked");
  return text.str();
}

void PrintText(const Side& a, const Side& b, std::ostream& out) {
  out << "compare: " << Header(a) << "\n";
  const std::vector<Row> rows = Rows(a, b);
  std::size_t width[3] = {0, 0, 0};
  for (const Row& row : rows)
    for (int k = 0; k < 3; ++k) width[k] = std::max(width[k], row[k].size());
  out << std::left << std::setw(int(width[0])) << ""
      << "  " << std::setw(int(width[1])) << "A"
      << "  B\n";
  for (const Row& row : rows) {
    out << std::left << std::setw(int(width[0])) << row[0] << "  "
        << std::setw(int(width[1])) << row[1] << "  " << row[2] << "\n";
  }
  for (const Side* side : {&a, &b}) {
    if (!side->result.violation) continue;
    out << "\n"
        << (side == &a ? "A" : "B") << " (" << side->set << ") "
        << side->result.violation->invariant << ":\n";
    int n = 0;
    for (const std::string& step : Steps(side->result))
      out << "  " << ++n << ". " << step << "\n";
  }
  out << "\ncommand: " << LockstepCommandLine(a.check, a.run) << "\n"
      << "command: " << LockstepCommandLine(b.check, b.run) << "\n";
}

std::string MarkdownCell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  return out;
}

void PrintMarkdown(const Side& a, const Side& b, std::ostream& out) {
  out << "**memwal-check compare**: " << Header(a) << "\n\n"
      << "| | A | B |\n|---|---|---|\n";
  for (const Row& row : Rows(a, b)) {
    out << "| " << MarkdownCell(row[0]) << " | " << MarkdownCell(row[1])
        << " | " << MarkdownCell(row[2]) << " |\n";
  }
  const std::vector<std::string> sa = Steps(a.result), sb = Steps(b.result);
  if (!sa.empty() || !sb.empty()) {
    out << "| steps | " << MarkdownCell(Join(sa, "\n")) << " | "
        << MarkdownCell(Join(sb, "\n")) << " |\n";
  }
  out << "\n`" << LockstepCommandLine(a.check, a.run) << "`<br>\n`"
      << LockstepCommandLine(b.check, b.run) << "`\n";
}

std::string Html(const Side& a, const Side& b) {
  std::ostringstream page;
  page << "<!doctype html><html><head><meta charset=\"utf-8\">"
          "<title>memwal-check compare</title><style>"
          "body{font-family:sans-serif}table{border-collapse:collapse}"
          "td,th{border:1px solid #999;padding:4px 8px;vertical-align:top}"
          "ol{margin:0;padding-left:1.5em}</style></head><body>"
       << "<h1>memwal-check compare</h1><p>" << MarkupEscaped(Header(a))
       << "</p><table><tr><th></th><th>A</th><th>B</th></tr>";
  for (const Row& row : Rows(a, b)) {
    page << "<tr><th>" << MarkupEscaped(row[0]) << "</th><td>"
         << MarkupEscaped(row[1]) << "</td><td>" << MarkupEscaped(row[2])
         << "</td></tr>";
  }
  page << "<tr><th>steps</th>";
  for (const Side* side : {&a, &b}) {
    page << "<td><ol>";
    for (const std::string& step : Steps(side->result))
      page << "<li>" << MarkupEscaped(step) << "</li>";
    page << "</ol></td>";
  }
  page << "</tr></table><p><code>"
       << MarkupEscaped(LockstepCommandLine(a.check, a.run))
       << "</code><br><code>"
       << MarkupEscaped(LockstepCommandLine(b.check, b.run))
       << "</code></p></body></html>\n";
  return page.str();
}

// The keys of a switch set: check's configuration flags without their "--"
// (CheckFlagSet::ConfigFlags, so a new switch is a key here too).
std::vector<std::string> SwitchKeys() {
  std::vector<std::string> keys;
  for (const Flag& flag : CheckFlagSet::ConfigFlagTable())
    keys.push_back(flag.name.substr(2));
  return keys;
}

bool IsSwitchKey(const std::string& key) {
  const std::vector<std::string> keys = SwitchKeys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string SwitchKeysText() {
  std::string text;
  for (const std::string& key : SwitchKeys())
    text += (text.empty() ? "" : ", ") + key;
  return text;
}

// compare's flags write here: check's options after the two sets, collected
// (unknown ones refused) to be parsed again per side, and compare's own.
struct CompareFlags {
  std::vector<std::string> common{};
  bool markdown = false;
  std::string html_dir{};
  std::vector<Flag> Flags();
};

std::vector<Flag> CompareFlags::Flags() {
  CheckFlagSet check_flags;
  std::vector<Flag> flags;
  for (const Flag& flag : check_flags.Flags()) {
    if (flag.name == "--html") continue;
    Flag collected = flag;
    collected.apply = [this, name = flag.name,
                       valued = flag.takes_value](std::string_view value) {
      common.push_back(name);
      if (valued) common.emplace_back(value);
      return Status::Ok();
    };
    flags.push_back(std::move(collected));
  }
  flags.push_back(Switch("--markdown",
                         "a GitHub table, ready to paste into a pull request",
                         [this] { markdown = true; }));
  flags.push_back(Valued("--html", "DIR", "also write DIR/compare.html",
                         [this](std::string_view dir) {
                           if (dir.empty())
                             return Status::InvalidArgument(
                                 "--html needs a directory");
                           html_dir = dir;
                           return Status::Ok();
                         }));
  return flags;
}

}  // namespace

Result<std::vector<std::string>> SwitchFlags(std::string_view set) {
  std::vector<std::string> flags;
  if (set == "default") return flags;
  if (set.empty()) return Usage("an empty switch set (use 'default')");
  std::size_t start = 0;
  while (start <= set.size()) {
    const std::size_t comma = std::min(set.find(',', start), set.size());
    const std::string_view pair = set.substr(start, comma - start);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == pair.size())
      return Usage("'" + Escaped(pair) + "' is not KEY=VALUE in switch set '" +
                   Escaped(set) + "'");
    const std::string key(pair.substr(0, eq));
    if (!IsSwitchKey(key)) {
      return Usage("unknown switch '" + Escaped(key) + "' (expected " +
                   SwitchKeysText() + ")");
    }
    flags.push_back("--" + key);
    flags.push_back(std::string(pair.substr(eq + 1)));
    start = comma + 1;
  }
  return flags;
}

std::vector<Flag> CompareFlagTable() {
  return HelpTable<CompareFlags>(
      [](CompareFlags* flags) { return flags->Flags(); });
}

std::string CompareAbout() {
  return "Runs two switch sets on the same bounds through the search engine "
         "and prints them\nside by side: verdict, broken invariant, distinct "
         "states, transitions, goals\nreached, time and the shortest "
         "counterexample of each.\n"
         "A, B: comma-separated KEY=VALUE: " +
         SwitchKeysText() +
         " (bug= and impl-bug=\nrepeatable); 'default' = no switch. check's "
         "options apply to both runs.\n"
         "Exit 0 when both searches completed (whatever their verdicts), 2 "
         "bad usage, 3 a\nbudget stopped a run.\n";
}

int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  auto usage = [&err](const std::string& message) {
    return Fail(err, "compare", message);
  };
  if (args.size() < 2 || args[0].starts_with("--") ||
      args[1].starts_with("--")) {
    return usage(
        "needs two switch sets first (memwal-check compare A B ...; see "
        "compare --help)");
  }
  CompareFlags flags;
  const Result<ParsedFlags> parsed = ParseFlags(
      "compare", std::vector<std::string>(args.begin() + 2, args.end()),
      flags.Flags());
  if (!parsed.ok()) return usage(std::string(parsed.status().message()));
  const std::vector<std::string>& common = flags.common;
  const std::string& html_dir = flags.html_dir;
  const bool markdown = flags.markdown;
  Result<Side> a = ParseSide(args[0], common);
  if (!a.ok()) return usage(a.status().message());
  Result<Side> b = ParseSide(args[1], common);
  if (!b.ok()) return usage(b.status().message());
  if (a->check.config.bounds != b->check.config.bounds)
    return usage("both sides must run on the same bounds");
  std::string html_path;
  if (!html_dir.empty()) {
    html_path = (std::filesystem::path(html_dir) / "compare.html").string();
    const Status path = CheckOutputPath(html_path);
    if (!path.ok()) return usage(path.message());
  }
  for (Side* side : {&*a, &*b}) {
    if (!side->note.empty()) Fail(err, "compare", side->note);
    Fail(err, "compare", "running " + side->set);
    RunSide(side);
    SetPartialCount(side == &*a ? "A states" : "B states",
                    side->result.stats.states_distinct);
  }
  if (markdown) {
    PrintMarkdown(*a, *b, out);
  } else {
    PrintText(*a, *b, out);
  }
  if (!html_path.empty()) {
    const Status made = MakeOutputDirectory(html_dir);
    if (!made.ok()) return usage(made.message());
    const Status written = WriteOutputFile(html_path, Html(*a, *b));
    if (!written.ok()) return usage(written.message());
  }
  for (const Side* side : {&*a, &*b}) {
    if (side->result.verdict == engine::Verdict::kIncomplete)
      return kExitBudget;
  }
  return kExitOk;
}

}  // namespace memwal::checker::cli
