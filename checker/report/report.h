// Reports people look at (memwal-check issue 10): a self-contained HTML page
// per counterexample, the variants page, and a state-space summary of a
// `check` run.
//
// Every page is one file with inline CSS, inline SVG and a little inline JS
// (step selection); it loads nothing from the network. The per-step data is
// also embedded as JSON (<script type="application/json" id="steps">), so a
// tool can read what the page shows.
//
// The code lives in checker/ (not a report/ folder) because `check` and
// `variants` write pages themselves (--html DIR), and checker/ may not see a
// folder that sees checker/.
//
//   memwal-check report TRACE --out FILE.html
#ifndef MEMWAL_CHECKER_REPORT_REPORT_H_
#define MEMWAL_CHECKER_REPORT_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "checker/engine/search.h"
#include "checker/report/trace.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::report {

// Why one invariant is broken in one state, in words and as the things the
// page points at. Fields that do not apply are -1 / empty.
struct Explanation {
  std::string invariant;
  std::string statement;  // the spec's statement, in words
  std::string detail;     // this state's instance of the failure
  int shard = -1;         // the row (shard, generation) missed / not backed
  int generation = -1;
  int index = -1;                // the index whose position is at fault
  std::vector<int> fragments{};  // fragments holding the row / concerned
  std::string query{};           // ReadsMissNoRows: the query shape
  int version = -1;              // the version at fault (a number)
};

// One Explanation per invariant `state` breaks, in the spec's order; empty
// when every invariant holds.
std::vector<Explanation> Explain(const model::Config& config,
                                 const model::State& state);

// A human name of query shape `q` of AllQueryShapes on `state`'s head:
// "plain scan", "index idx_0", "all indexes {idx_0, idx_1}".
std::string QueryShapeName(const model::Config& config,
                           const model::State& state, int q);

// The counterexample page for `trace` (states: Init first, as Replay fills
// them). `reproduce` is the command line shown on the page.
std::string RenderCounterexamplePage(const Trace& trace,
                                     const std::vector<model::State>& states,
                                     std::string_view reproduce);

// Reads a trace file (format version 1, or version 2 as the lockstep CLI
// writes it; the lockstep keys are shown but not needed), replays it and
// renders its page.
Result<std::string> RenderTraceFile(const std::string& trace_path);

// The variants page. `rows` is the JSON array `memwal-check variants --json`
// prints: objects with keys variant, verdict, invariant, states, seconds,
// counterexample_steps and (optional) trace_file. A row whose trace_file is
// set links to CounterexamplePageName(row), a page next to the variants page
// (see WriteVariantsPages).
std::string RenderVariantsPage(const nlohmann::json& rows);
// The counterexample page name a variants row links to: the variant's name
// (characters other than [A-Za-z0-9_-] as '-'), "--", the trace file's stem
// and ".html"; or "" when the row has no trace_file.
std::string CounterexamplePageName(const nlohmann::json& row);
// Writes `dir`/variants.html and one counterexample page per row with a
// trace_file (trace paths are read as given).
Status WriteVariantsPages(const std::string& dir, const nlohmann::json& rows);

// What the state-space summary page of one `check` run shows.
struct RunSummary {
  model::Config config{};
  uint64_t seed = 0;
  std::string verdict{};  // Name(Verdict)
  std::string command_line{};
  engine::Stats stats{};
  std::string invariant{};            // broken invariant or missed goal
  std::string counterexample_page{};  // relative href, or ""
};
std::string RenderSummaryPage(const RunSummary& summary);

// Writes `dir`/summary.html and, when `trace_file` is not empty, its
// counterexample page (`dir`/<trace stem>.html, linked from the summary).
Status WriteCheckPages(const std::string& dir, RunSummary summary,
                       const std::string& trace_file);

// `memwal-check report TRACE --out FILE.html` and `memwal-check report
// --variants ROWS.json --out DIR`. Exit 0 written, 2 bad usage or input.
int RunReportCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);
// Its row in the command table (checker/cli/commands.h).
std::string ReportAbout();
std::vector<Flag> ReportFlagTable();

}  // namespace memwal::checker::report

#endif  // MEMWAL_CHECKER_REPORT_REPORT_H_
