// The HTML of the report pages (checker/report/report.h): counterexample page
// (timeline SVG, per-step table panels, violation), variants page and
// state-space summary page. Everything is inline; nothing is fetched.
//
// The step panels are rendered here, not by script, so that the page reads
// (and its DOM holds the missed row and the invariant) even where scripts do
// not run; the script only chooses which panel is shown.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "base/escape.h"
#include "checker/report/cat.h"
#include "checker/report/report.h"
#include "model/actions.h"
#include "model/read.h"
#include "model/window.h"

namespace memwal::checker::report {
namespace {

using model::Config;
using model::State;
using model::Version;

// JSON safe to place inside <script>: no "</" can close the element.
std::string ScriptJson(const nlohmann::json& json) {
  const std::string text = json.dump();
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '<') {
      out += "\\u003c";
    } else {
      out += text[k];
    }
  }
  return out;
}

std::string Num(double value, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string RowName(int shard, int generation) {
  return Cat("(", std::to_string(shard), ",", std::to_string(generation), ")");
}

std::string SetString(uint8_t set, int limit) {
  std::string out = "{";
  bool first = true;
  for (int k = 0; k < limit; ++k) {
    if (!model::Contains(set, k)) continue;
    out += Cat(first ? "" : ",", std::to_string(k));
    first = false;
  }
  return out + "}";
}

std::string RowsString(model::RowSet rows, const model::Bounds& bounds) {
  std::string out;
  for (int s = 0; s < bounds.shards; ++s) {
    for (int g = 1; g <= bounds.generations; ++g) {
      if (rows & model::RowBit(s, g))
        out += Cat(out.empty() ? "" : " ", RowName(s, g));
    }
  }
  return out.empty() ? "—" : out;
}

constexpr std::string_view kStyle = R"css(
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:14px 22px}
header h1{margin:0 0 4px;font-size:20px}
header .config{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;color:#c8d0e0}
main{padding:14px 22px;max-width:100%}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:12px 16px;margin:0 0 14px}
h2{font-size:16px;margin:0 0 8px}
h3{font-size:14px;margin:12px 0 6px}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
pre{background:#f0f2f5;padding:8px 10px;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:6px 0}
.violation{border:2px solid #c62828;background:#fff5f5}
.violation h2{color:#c62828}
.finding{margin:6px 0 10px}
.finding .name{font-weight:700;color:#c62828;font-family:ui-monospace,"DejaVu Sans Mono",monospace}
.finding .statement{color:#555;font-style:italic}
.finding .detail{margin-top:3px}
.scroll{overflow-x:auto;overflow-y:hidden}
table{border-collapse:collapse;margin:4px 0 8px}
th,td{border:1px solid #dde1e8;padding:3px 8px;text-align:left;vertical-align:top;white-space:nowrap}
th{background:#eef1f5;font-weight:600}
td.chg{background:#fff2b3;box-shadow:inset 0 0 0 2px #e0b000}
tr.dead td{color:#9aa3b2}
td.miss,tr.miss td{background:#ffd9d9}
td.miss{box-shadow:inset 0 0 0 2px #c62828;font-weight:700}
.pointer{color:#c62828;font-weight:700;white-space:normal}
.layout{display:grid;grid-template-columns:minmax(200px,250px) minmax(0,1fr);gap:14px;align-items:start}
.steplist{max-height:80vh;overflow-y:auto;padding:0;margin:0;list-style:none;border:1px solid #dde1e8;border-radius:4px}
.steplist li{padding:4px 8px;border-bottom:1px solid #eef1f5;cursor:pointer;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.steplist li:hover{background:#eef4ff}
.steplist li.on{background:#dbe7ff;font-weight:700}
.steplist li.bad{color:#c62828}
.panel{display:none;min-width:0}
.panel.on{display:block}
body.all .panel{display:block;border-top:3px solid #1d2330;padding-top:8px;margin-top:8px}
.badge{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
.ok{background:#d7f5dd;color:#1b5e20}.bad{background:#ffd9d9;color:#b71c1c}.warn{background:#fff0c2;color:#7a5a00}.info{background:#e3ebff;color:#1a3d8f}
.legend span{margin-right:14px;font-size:12px}
.swatch{display:inline-block;width:12px;height:12px;vertical-align:-2px;margin-right:4px;border-radius:2px}
.controls{margin:6px 0}
.controls button{font:inherit;font-size:12px;margin-right:6px}
a{color:#1a56c4}
)css";

constexpr std::string_view kErrorHook =
    "<script>window.onerror=function(m){var r=document.documentElement;"
    "r.setAttribute('data-js-errors',(r.getAttribute('data-js-errors')||'')+"
    "'js-error: '+m+'; ');};</script>\n";

std::string PageStart(std::string_view title) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\">"
          "<title>"
       << MarkupEscaped(title) << "</title><style>" << kStyle << "</style>"
       << kErrorHook << "</head><body>\n";
  return html.str();
}

std::string PageEnd() { return "</body></html>\n"; }

// ---------------------------------------------------------------------------
// The counterexample's story: who did what at which step.

enum class LaneKind { kVersions, kWal, kGc, kTable, kTxn };

struct Span {  // one transaction, from its begin to its commit
  int id = 0;
  std::string label;
  int begin = 0;      // step
  int end = -1;       // step of its Commit (or of the clone that dropped it)
  int read = 0;       // read version number
  int read_step = 0;  // step at which the read version became the head
  std::string outcome = "in flight";
  int built_on = -1;  // head number it was built on (a publish)
  int built_step = -1;
  int published = -1;  // the version it published
};

struct Mark {  // a point event on a non-transaction lane
  LaneKind lane;
  int shard = 0;  // kWal
  int step = 0;
  std::string label;
  std::string title;
  std::string css;  // fill colour
};

struct Story {
  std::vector<Span> spans;
  std::vector<Mark> marks;
  std::vector<std::string> outcomes;           // per step (index 0 = Init: "")
  std::vector<std::string> narrative;          // per step: who did what
  std::vector<int> head_number;                // per step
  std::vector<std::vector<int>> inflight_ids;  // per step, slot -> span
  std::map<std::pair<int, int>, int> version_step;  // (table, number)->step
  int flush_step[model::kShardsMax][model::kGenerationsMax + 1] = {};
};

bool IsBegin(const model::Action& action) {
  const int kind = static_cast<int>(action.index());
  return kind >= static_cast<int>(model::Action(model::Append{}).index()) &&
         kind <= static_cast<int>(model::Action(model::Activate{}).index());
}

std::string SpanLabel(const model::Action& action, int read) {
  std::string text = model::ToString(action);
  return text + " read v" + std::to_string(read);
}

// The mark a one-shot action leaves on its lane (a flush, a GC step, a
// restore or a cleanup), or nothing for the others.
std::optional<Mark> PointMark(const model::Action& action,
                              model::Outcome outcome, const State& after,
                              int step) {
  if (const auto* flush = std::get_if<model::FlushMemTable>(&action)) {
    const int g = after.flushed[flush->shard];
    return Mark{
        LaneKind::kWal,
        flush->shard,
        step,
        "g" + std::to_string(g),
        "FlushMemTable: SSTable " + RowName(flush->shard, g) + " written",
        "#2e7d32"};
  }
  if (const auto* retire = std::get_if<model::RetireSsTable>(&action)) {
    return Mark{LaneKind::kGc,
                0,
                step,
                "✕" + RowName(retire->shard, retire->generation),
                "RetireSsTable: SSTable " +
                    RowName(retire->shard, retire->generation) + " deleted",
                "#8d6e63"};
  }
  if (const auto* decide = std::get_if<model::RetireDecide>(&action)) {
    return Mark{LaneKind::kGc,
                0,
                step,
                "?" + RowName(decide->shard, decide->generation),
                "RetireDecide: GC decides to delete " +
                    RowName(decide->shard, decide->generation),
                "#bcaaa4"};
  }
  if (const auto* exec = std::get_if<model::RetireExecute>(&action)) {
    return Mark{LaneKind::kGc,
                0,
                step,
                "✕" + RowName(exec->shard, exec->generation),
                "RetireExecute: SSTable " +
                    RowName(exec->shard, exec->generation) + " deleted",
                "#8d6e63"};
  }
  if (const auto* restore = std::get_if<model::Restore>(&action)) {
    return Mark{LaneKind::kTable,
                0,
                step,
                "restore v" + std::to_string(restore->version),
                "Restore v" + std::to_string(restore->version) + ": " +
                    std::string(model::Name(outcome)),
                outcome == model::Outcome::kPublished ? "#1565c0" : "#c62828"};
  }
  if (std::holds_alternative<model::CleanupVersions>(action)) {
    return Mark{LaneKind::kTable,
                0,
                step,
                "cleanup",
                "CleanupVersions: older versions dropped",
                "#607d8b"};
  }
  return std::nullopt;
}

// Builds the Story of a trace step by step: the transactions' spans, the
// marks, and a sentence per step.
class StoryTeller {
 public:
  explicit StoryTeller(const State& init) {
    story_.version_step[{0, model::Head(init).number}] = 0;
    story_.head_number.push_back(model::Head(init).number);
    story_.outcomes.push_back("");
    story_.narrative.push_back("The table as Init (R4) installs it.");
    story_.inflight_ids.push_back({});
  }

  void Step(const model::Action& action, model::Outcome outcome,
            const State& before, const State& after, int step) {
    story_.outcomes.push_back(std::string(model::Name(outcome)));
    story_.narrative.emplace_back();
    const int head_before = model::Head(before).number;
    if (std::holds_alternative<model::ShallowClone>(action)) {
      Clone(step);
    } else if (IsBegin(action)) {
      Begin(action, step, head_before);
    } else if (const auto* commit = std::get_if<model::Commit>(&action)) {
      Commit(*commit, outcome, after, step, head_before);
    } else if (std::optional<Mark> mark =
                   PointMark(action, outcome, after, step)) {
      if (mark->lane == LaneKind::kWal) {
        story_.flush_step[mark->shard][after.flushed[mark->shard]] = step;
      }
      story_.marks.push_back(*mark);
    }
    if (story_.narrative.back().empty() && !story_.marks.empty() &&
        story_.marks.back().step == step) {
      story_.narrative.back() = story_.marks.back().title + ".";
    }
    const int head_after = model::Head(after).number;
    if (!story_.version_step.contains({table_, head_after}) ||
        std::holds_alternative<model::ShallowClone>(action)) {
      story_.version_step[{table_, head_after}] = step;
    }
    story_.head_number.push_back(head_after);
    story_.inflight_ids.push_back(ids_);
  }

  Story Done() { return std::move(story_); }

 private:
  // A shallow clone: the transactions in flight are dropped with the source.
  void Clone(int step) {
    ++table_;
    for (int id : ids_) {
      story_.spans[id].end = step;
      story_.spans[id].outcome = "dropped by the clone";
    }
    ids_.clear();
    story_.marks.push_back({LaneKind::kTable, 0, step, "clone",
                            "ShallowClone: later steps act on the clone",
                            "#6a4c93"});
  }

  void Begin(const model::Action& action, int step, int head_before) {
    Span span;
    span.id = static_cast<int>(story_.spans.size());
    span.begin = step;
    span.read = head_before;
    span.read_step = story_.version_step[{table_, head_before}];
    span.label = SpanLabel(action, head_before);
    ids_.push_back(span.id);
    story_.spans.push_back(span);
    story_.narrative.back() =
        Cat("t", std::to_string(span.id + 1), " begins, reading v",
            std::to_string(span.read), ".");
  }

  void Commit(const model::Commit& commit, model::Outcome outcome,
              const State& after, int step, int head_before) {
    Span& span = story_.spans[ids_[commit.slot]];
    span.end = step;
    span.outcome = std::string(model::Name(outcome));
    if (outcome == model::Outcome::kPublished) {
      span.built_on = head_before;
      span.built_step = story_.version_step[{table_, head_before}];
      span.published = model::Head(after).number;
    }
    std::string& line = story_.narrative.back();
    line = Cat("t", std::to_string(span.id + 1), " (", span.label, ") ",
               span.outcome);
    if (span.published >= 0) {
      line += Cat(" v", std::to_string(span.published), ", built on v",
                  std::to_string(span.built_on));
      if (span.built_on > span.read) {
        line += Cat(": rebased over the commits after its read version v",
                    std::to_string(span.read));
      }
    }
    line += ".";
    ids_.erase(ids_.begin() + commit.slot);
  }

  Story story_;
  int table_ = 0;
  std::vector<int> ids_;
};

Story TellStory(const Trace& trace, const std::vector<State>& states) {
  StoryTeller teller(states[0]);
  for (std::size_t k = 1; k < states.size(); ++k) {
    const model::Action& action = trace.steps[k - 1];
    model::Outcome outcome = model::Outcome::kDone;
    State check = model::Apply(trace.config, states[k - 1], action, &outcome);
    // A lasso's continuation steps run on folded states (spec R70).
    if (trace.window && k >= *trace.window) model::Fold(trace.config, &check);
    MEMWAL_ASSERT(check == states[k]);
    teller.Step(action, outcome, states[k - 1], states[k], static_cast<int>(k));
  }
  return teller.Done();
}

// ---------------------------------------------------------------------------
// The timeline SVG.

struct Geometry {
  int label_width = 250;
  int column = 96;
  int lane = 34;
  int top = 46;
  int X(int step) const { return label_width + column / 2 + step * column; }
};

std::string SvgText(int x, int y, std::string_view text,
                    std::string_view attrs) {
  return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) +
         "\" " + std::string(attrs) + ">" + MarkupEscaped(text) + "</text>";
}

// The timeline of one trace: a column per step, a lane per actor (versions,
// the WAL of each shard, GC, atomic table actions, one per transaction).
class TimelineSvg {
 public:
  TimelineSvg(const Trace& trace, const std::vector<State>& states,
              const Story& story)
      : trace_(trace),
        story_(story),
        steps_(static_cast<int>(states.size())),
        shards_(trace.config.bounds.shards) {
    geo_.column = steps_ <= 12 ? 96 : 64;
    has_table_marks_ =
        std::any_of(story.marks.begin(), story.marks.end(),
                    [](const Mark& m) { return m.lane == LaneKind::kTable; });
    gc_lane_ = 1 + shards_;
    table_lane_ = gc_lane_ + 1;
    first_txn_lane_ = 1 + shards_ + 1 + (has_table_marks_ ? 1 : 0);
    const int lane_count =
        first_txn_lane_ + static_cast<int>(story.spans.size());
    width_ = geo_.label_width + steps_ * geo_.column + 20;
    height_ = geo_.top + lane_count * geo_.lane + 24;
  }

  std::string Render(const std::vector<Explanation>& why) {
    Open();
    Columns();
    LaneLabels();
    Versions();
    Marks();
    for (const Span& span : story_.spans) Transaction(span);
    if (!why.empty()) Pointers(why.front());
    svg_ << "</svg>";
    return svg_.str();
  }

 private:
  int LaneY(int lane) const {
    return geo_.top + lane * geo_.lane + geo_.lane / 2;
  }

  void Open() {
    svg_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"timeline-svg\" "
            "width=\""
         << width_ << "\" height=\"" << height_ << "\" viewBox=\"0 0 " << width_
         << " " << height_
         << "\" font-family=\"system-ui,DejaVu Sans,sans-serif\" "
            "font-size=\"12\">"
         << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" "
            "refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
            "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" "
            "fill=\"#e65100\"/></marker></defs>";
  }

  // Step columns (clickable) and the axis.
  void Columns() {
    for (int k = 0; k < steps_; ++k) {
      const int x = geo_.label_width + k * geo_.column;
      svg_ << "<g class=\"col\" data-step=\"" << k
           << "\" style=\"cursor:pointer\">"
           << "<rect x=\"" << x << "\" y=\"0\" width=\"" << geo_.column
           << "\" height=\"" << height_ << "\" fill=\""
           << (k % 2 ? "#fafbfc" : "#ffffff") << "\"/>"
           << SvgText(geo_.X(k), 16,
                      k == 0 ? "Init" : "step " + std::to_string(k),
                      "text-anchor=\"middle\" font-weight=\"600\"")
           << SvgText(geo_.X(k), 32,
                      "head v" + std::to_string(story_.head_number[k]),
                      "text-anchor=\"middle\" fill=\"#667\"")
           << "<title>"
           << MarkupEscaped(k == 0 ? "Init"
                                   : model::ToString(trace_.steps[k - 1]))
           << "</title></g>";
    }
  }

  void LaneLabel(int lane, std::string_view text, std::string_view title) {
    const int y = geo_.top + lane * geo_.lane;
    svg_ << "<line x1=\"0\" x2=\"" << width_ << "\" y1=\"" << y << "\" y2=\""
         << y << "\" stroke=\"#e3e6eb\"/>";
    std::string shown(text);
    if (shown.size() > 36) shown = shown.substr(0, 34) + "…";
    svg_ << "<g>" << SvgText(6, LaneY(lane) + 4, shown, "fill=\"#223\"")
         << "<title>" << MarkupEscaped(title) << "</title></g>";
  }

  // Lane labels and separators.
  void LaneLabels() {
    LaneLabel(0, "table versions", "a dot where a version is published");
    for (int s = 0; s < shards_; ++s) {
      LaneLabel(1 + s, "WAL writer, shard " + std::to_string(s),
                "FlushMemTable: SSTable generations");
    }
    LaneLabel(gc_lane_, "GC (SSTable retirement)",
              "RetireSsTable / RetireDecide / RetireExecute");
    if (has_table_marks_)
      LaneLabel(table_lane_, "restore / clone / cleanup",
                "atomic table actions");
    for (const Span& span : story_.spans) {
      LaneLabel(first_txn_lane_ + span.id,
                "t" + std::to_string(span.id + 1) + " " + span.label,
                "transaction t" + std::to_string(span.id + 1) + ": " +
                    span.label + " → " + span.outcome);
    }
  }

  // Versions lane: a dot per published version.
  void Versions() {
    for (const auto& [key, step] : story_.version_step) {
      const int x = geo_.X(step);
      const int y = LaneY(0);
      svg_ << "<circle cx=\"" << x << "\" cy=\"" << y
           << "\" r=\"6\" fill=\"#1565c0\"/>"
           << SvgText(x + 9, y + 4, "v" + std::to_string(key.second),
                      "fill=\"#1565c0\" font-weight=\"600\"");
    }
  }

  // Point marks: flushes, GC, atomic table actions.
  void Marks() {
    for (const Mark& mark : story_.marks) {
      const int lane = mark.lane == LaneKind::kWal  ? 1 + mark.shard
                       : mark.lane == LaneKind::kGc ? gc_lane_
                                                    : table_lane_;
      const int x = geo_.X(mark.step);
      const int y = LaneY(lane);
      svg_ << "<g><rect x=\"" << x - 5 << "\" y=\"" << y - 5
           << "\" width=\"10\" height=\"10\" fill=\"" << mark.css << "\"/>"
           << SvgText(x + 8, y + 4, mark.label, "fill=\"#223\"") << "<title>"
           << MarkupEscaped(mark.title) << "</title></g>";
    }
  }

  // One transaction: read version, body, outcome, and its rebase if any.
  void Transaction(const Span& span) {
    const int y = LaneY(first_txn_lane_ + span.id);
    const int end = span.end < 0 ? steps_ - 1 : span.end;
    const int xr = geo_.X(span.read_step), xb = geo_.X(span.begin),
              xe = geo_.X(end);
    svg_ << "<line x1=\"" << xr << "\" x2=\"" << xb << "\" y1=\"" << y
         << "\" y2=\"" << y
         << "\" stroke=\"#90a4ae\" stroke-dasharray=\"3,3\"/>"
         << "<circle cx=\"" << xr << "\" cy=\"" << y
         << "\" r=\"4\" fill=\"#fff\" stroke=\"#1565c0\"><title>read version v"
         << span.read << "</title></circle>"
         << "<rect x=\"" << xb - 4 << "\" y=\"" << y - 5 << "\" width=\""
         << std::max(8, xe - xb + 8)
         << "\" height=\"10\" rx=\"4\" fill=\"#90caf9\"/>";
    if (span.end >= 0) Outcome(span, xe, y);
    if (span.built_on > span.read) Rebase(span, xr, y);
  }

  void Outcome(const Span& span, int xe, int y) {
    std::string end_label = span.outcome, colour = "#607d8b";
    if (span.outcome == "published") {
      end_label = "→ v" + std::to_string(span.published);
      colour = "#2e7d32";
    } else if (span.outcome == "refused") {
      colour = "#c62828";
    } else if (span.outcome == "retry") {
      colour = "#ef6c00";
    }
    svg_ << "<circle cx=\"" << xe << "\" cy=\"" << y << "\" r=\"6\" fill=\""
         << colour << "\"/>"
         << SvgText(xe + 9, y + 4, end_label,
                    "fill=\"" + colour + "\" font-weight=\"600\"");
  }

  // The rebase: from the read version to the version actually built on.
  void Rebase(const Span& span, int xr, int y) {
    const int xo = geo_.X(span.built_step);
    const int mid = (xr + xo) / 2;
    svg_ << "<path d=\"M" << xr << "," << y - 4 << " Q" << mid << ","
         << y - geo_.lane / 2 - 8 << " " << xo << "," << y - 6
         << "\" fill=\"none\" stroke=\"#e65100\" stroke-width=\"2\" "
            "marker-end=\"url(#arrow)\"><title>rebased: read v"
         << span.read << ", built on v" << span.built_on << "</title></path>"
         << SvgText(mid, y - 9,
                    "rebase v" + std::to_string(span.read) + "→v" +
                        std::to_string(span.built_on),
                    "text-anchor=\"middle\" fill=\"#e65100\" font-size=\"11\"");
  }

  // The violation, pointed at: the missed / unbacked row's SSTable, and the
  // last step.
  void Pointers(const Explanation& first) {
    if (first.shard >= 0 && first.generation >= 1 &&
        first.generation <= model::kGenerationsMax &&
        story_.flush_step[first.shard][first.generation] > 0) {
      const int x = geo_.X(story_.flush_step[first.shard][first.generation]);
      const int y = LaneY(1 + first.shard);
      svg_ << "<circle id=\"pointer-row\" cx=\"" << x << "\" cy=\"" << y
           << "\" r=\"12\" fill=\"none\" stroke=\"#c62828\" "
              "stroke-width=\"3\"/>"
           << SvgText(
                  x + 8, y + 16,
                  "row " + RowName(first.shard, first.generation) +
                      (first.invariant == "ReadsMissNoRows" ? " missed"
                                                            : " not backed"),
                  "fill=\"#c62828\" font-weight=\"700\" font-size=\"11\"");
    }
    const int x = geo_.X(steps_ - 1);
    svg_ << "<g id=\"pointer-invariant\"><rect x=\"" << x - geo_.column / 2 + 2
         << "\" y=\"1\" width=\"" << geo_.column - 4 << "\" height=\""
         << height_ - 2
         << "\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"2\" "
            "stroke-dasharray=\"5,3\"/></g>";
  }

  const Trace& trace_;
  const Story& story_;
  const int steps_;
  const int shards_;
  Geometry geo_{};
  bool has_table_marks_ = false;
  int gc_lane_ = 0;
  int table_lane_ = 0;
  int first_txn_lane_ = 0;
  int width_ = 0;
  int height_ = 0;
  std::ostringstream svg_;
};

std::string Timeline(const Trace& trace, const std::vector<State>& states,
                     const Story& story, const std::vector<Explanation>& why) {
  return TimelineSvg(trace, states, story).Render(why);
}

// ---------------------------------------------------------------------------
// The per-step panels: the table as of the step, with what changed.

using Cells = std::map<std::string, std::string>;

class PanelWriter {
 public:
  PanelWriter(const Cells& previous, bool compare)
      : previous_(previous), compare_(compare) {}
  // A <td> whose content is compared with the previous step's cell `key`.
  std::string Td(const std::string& key, const std::string& text,
                 std::string extra_class = "") {
    cells_[key] = text;
    const auto it = previous_.find(key);
    const bool changed =
        compare_ && (it == previous_.end() || it->second != text);
    std::string css = extra_class;
    if (changed) css += css.empty() ? "chg" : " chg";
    return Cat("<td", css.empty() ? "" : Cat(" class=\"", css, "\""),
               changed ? " title=\"changed in this step\"" : "", ">",
               MarkupEscaped(text), "</td>");
  }
  Cells& cells() { return cells_; }

 private:
  const Cells& previous_;
  bool compare_;
  Cells cells_;
};

std::string SegmentsString(const model::Segments& segments, int fragments) {
  std::string out;
  for (const model::Segment& segment : segments) {
    if (segment.uuid == 0) continue;
    out += Cat(out.empty() ? "" : " ", "u", std::to_string(segment.uuid),
               SetString(segment.covers, fragments));
  }
  return out.empty() ? "absent" : out;
}

std::string CatchupString(const Version& version, int index, int shards) {
  std::string out;
  for (int s = 0; s < shards; ++s) {
    const int position = version.catchup[index][s];
    out += Cat(s ? " " : "", "s", std::to_string(s), ":",
               position ? std::to_string(position) : std::string("–"));
  }
  return out;
}

std::string CompactedString(const Version& version, int shards) {
  std::string out;
  for (int s = 0; s < shards; ++s) {
    const int compacted = version.compacted[s];
    out += Cat(s ? " " : "", "s", std::to_string(s), ":",
               compacted ? std::to_string(compacted) : std::string("–"));
  }
  return out;
}

std::string VersionsTable(const Config& config, const State& state,
                          const Explanation* why, PanelWriter* w) {
  const model::Bounds& b = config.bounds;
  std::ostringstream html;
  html << "<h3>Versions (oldest first; the last is the head)</h3><div "
          "class=\"scroll\"><table><tr>"
          "<th>version</th><th>op</th><th>live fragments</th>";
  for (int i = 0; i < b.indexes; ++i)
    html << "<th>idx_" << i << " segments u{covers}</th>";
  html << "<th>compacted_sstables</th>";
  for (int i = 0; i < b.indexes; ++i)
    html << "<th>index_catchup idx_" << i << "</th>";
  html << "<th>feature bits r/w</th><th>retained</th></tr>";
  for (int v = 0; v < state.version_count; ++v) {
    const Version& version = state.versions[v];
    const std::string key = "v" + std::to_string(version.number) + ".";
    const bool head = v + 1 == state.version_count;
    html << "<tr>"
         << w->Td(key + "n", "v" + std::to_string(version.number) +
                                 (head ? " (head)" : ""))
         << w->Td(key + "op", std::string(model::Name(version.op.kind)))
         << w->Td(key + "live", SetString(version.live, b.fragments + 8));
    for (int i = 0; i < b.indexes; ++i) {
      html << w->Td(key + "seg" + std::to_string(i),
                    SegmentsString(version.segments[i], model::kFragmentsMax));
    }
    html << w->Td(key + "comp", CompactedString(version, b.shards));
    for (int i = 0; i < b.indexes; ++i) {
      const bool at_fault = why != nullptr && head && why->index == i &&
                            why->version == version.number;
      html << w->Td(key + "cu" + std::to_string(i),
                    CatchupString(version, i, b.shards),
                    at_fault ? "miss" : "");
    }
    const bool bits_fault = why != nullptr && why->index < 0 &&
                            why->version == version.number &&
                            (why->invariant == "FeatureBitsArePaired" ||
                             why->invariant == "ActivationIsPermanent");
    html << w->Td(key + "bits",
                  std::string(version.reader_bit ? "1" : "0") + "/" +
                      (version.writer_bit ? "1" : "0"),
                  bits_fault ? "miss" : "")
         << w->Td(key + "ret", version.retained ? "yes" : "no") << "</tr>";
  }
  html << "</table></div>";
  return html.str();
}

std::string FragmentsTable(const Config& config, const State& state,
                           const Explanation* why, PanelWriter* w) {
  const model::Bounds& b = config.bounds;
  const Version& head = model::Head(state);
  std::ostringstream html;
  html << "<h3>Fragments (head v" << int(head.number)
       << ") and the MemWAL rows (shard, generation) they hold</h3><div "
          "class=\"scroll\"><table><tr>"
          "<th>fragment</th><th>live</th><th>rows held</th>";
  for (int i = 0; i < b.indexes; ++i)
    html << "<th>covered by idx_" << i << "</th>";
  html << "<th></th></tr>";
  for (int f = 0; f < state.next_fragment; ++f) {
    const bool live = model::Contains(head.live, f);
    const bool pointed =
        why != nullptr && why->shard >= 0 && why->generation >= 1 &&
        (state.rows[f] & model::RowBit(why->shard, why->generation)) &&
        std::find(why->fragments.begin(), why->fragments.end(), f) !=
            why->fragments.end();
    const std::string key = "f" + std::to_string(f) + ".";
    html << "<tr class=\"" << (live ? "" : "dead") << (pointed ? " miss" : "")
         << "\">" << w->Td(key + "id", "fragment " + std::to_string(f))
         << w->Td(key + "live", live ? "live" : "not live")
         << w->Td(key + "rows", RowsString(state.rows[f], b),
                  pointed ? "miss" : "");
    for (int i = 0; i < b.indexes; ++i) {
      const bool covered = model::Contains(model::CoveredBy(head, i), f);
      html << w->Td(key + "cov" + std::to_string(i),
                    covered ? "✓ covered" : "✗ not covered",
                    pointed && why->index == i ? "miss" : "");
    }
    html << "<td class=\"pointer\">";
    if (pointed) {
      html << "◀ row " << RowName(why->shard, why->generation) << " "
           << (why->invariant == "ReadsMissNoRows"
                   ? "missed by the " + MarkupEscaped(why->query) + " query"
               : why->invariant == "CatchupWithinCoverage"
                   ? "not covered by idx_" + std::to_string(why->index) +
                         ": its position is not backed"
                   : "(" + MarkupEscaped(why->invariant) + ")");
    }
    html << "</td></tr>";
  }
  html << "</table></div>";
  return html.str();
}

// `misses`: the ReadsMissNoRows findings to point at (last step only).
std::string SsTablesTable(const Config& config, const State& state,
                          const Explanation* why,
                          const std::vector<Explanation>& misses,
                          PanelWriter* w) {
  const model::Bounds& b = config.bounds;
  const Version& head = model::Head(state);
  const model::QueryShapes shapes = model::AllQueryShapes(config, state);
  std::ostringstream html;
  html << "<h3>SSTables: served to each query shape (watermark W in the "
          "header), "
          "or retired</h3><div class=\"scroll\"><table><tr><th>SSTable "
          "(s,g)</th><th>state</th>";
  for (int q = 0; q < shapes.count; ++q) {
    html << "<th>" << MarkupEscaped(QueryShapeName(config, state, q))
         << "<br>W=";
    for (int s = 0; s < b.shards; ++s)
      html << (s ? "," : "")
           << model::Watermark(config, state, shapes.shapes[q], s);
    html << "</th>";
  }
  html << "<th>retire_cover</th></tr>";
  for (int s = 0; s < b.shards; ++s) {
    for (int g = 1; g <= b.generations; ++g) {
      const model::RowSet row = model::RowBit(s, g);
      std::string what;
      if (g > state.flushed[s]) {
        what = "not flushed";
      } else if (model::Contains(state.retired[s], g - 1)) {
        what = "retired";
      } else {
        what = "flushed";
      }
      if (state.pending & row) what += ", retirement decided";
      if (g <= head.compacted[s]) what += ", compacted";
      if (state.deleted & row) what += ", row deleted";
      const bool pointed =
          why != nullptr && why->shard == s && why->generation == g;
      const std::string key =
          "t" + std::to_string(s) + "." + std::to_string(g) + ".";
      html << "<tr>"
           << w->Td(key + "id", "SSTable " + RowName(s, g),
                    pointed ? "miss" : "")
           << w->Td(key + "st", what);
      for (int q = 0; q < shapes.count; ++q) {
        const std::string name = QueryShapeName(config, state, q);
        const bool served =
            g <= state.flushed[s] &&
            model::Served(config, state, shapes.shapes[q], s, g);
        const bool missed = std::any_of(
            misses.begin(), misses.end(), [&](const Explanation& e) {
              return e.shard == s && e.generation == g && e.query == name;
            });
        html << w->Td(key + "q" + name,
                      g > state.flushed[s] ? ""
                      : served             ? "served"
                                           : "not served",
                      missed ? "miss" : "");
      }
      const model::IndexSet cover =
          state.retire_cover[s * model::kGenerationsMax + g - 1];
      html << w->Td(key + "rc", model::Contains(state.retired[s], g - 1)
                                    ? SetString(cover, b.indexes)
                                    : "")
           << "</tr>";
    }
  }
  html << "</table></div>";
  return html.str();
}

std::string InflightTable(const State& state, const std::vector<int>& ids,
                          const std::vector<Span>& spans) {
  std::ostringstream html;
  html << "<h3>In-flight transactions (commit slot order)</h3>";
  if (state.inflight_count == 0) return html.str() + "<p>none</p>";
  html << "<table><tr><th>slot</th><th>transaction</th><th>read "
          "version</th></tr>";
  for (int t = 0; t < state.inflight_count; ++t) {
    const int id = t < static_cast<int>(ids.size()) ? ids[t] : -1;
    html << "<tr><td>" << t << "</td><td class=\"mono\">"
         << (id >= 0 ? "t" + std::to_string(id + 1) + " " +
                           MarkupEscaped(spans[id].label)
                     : std::string(model::Name(state.inflight[t].kind)))
         << "</td><td>v" << int(state.inflight[t].read_version) << "</td></tr>";
  }
  return html.str() + "</table>";
}

std::string FindingsHtml(const std::vector<Explanation>& why) {
  std::ostringstream html;
  for (std::size_t k = 0; k < why.size(); ++k) {
    const Explanation& e = why[k];
    html << "<div class=\"finding\" data-invariant=\""
         << MarkupEscaped(e.invariant) << "\"><span class=\"name\">"
         << MarkupEscaped(e.invariant) << "</span>"
         << (k == 0 ? " <span class=\"badge bad\">broken</span>"
                    : " <span class=\"badge warn\">also broken</span>")
         << "<div class=\"statement\">" << MarkupEscaped(e.statement)
         << "</div>"
         << "<div class=\"detail\">" << MarkupEscaped(e.detail)
         << "</div></div>";
  }
  return html.str();
}

std::string StepTitle(const Trace& trace, const Story& story, int k) {
  if (k == 0) return "Init";
  std::string title = model::ToString(trace.steps[k - 1]);
  if (story.outcomes[k] != "done") title += " → " + story.outcomes[k];
  return title;
}

nlohmann::json StepJson(const Trace& trace, const std::vector<State>& states,
                        const Story& story, int k) {
  return nlohmann::json{{"step", k},
                        {"action", k == 0 ? nlohmann::json(nullptr)
                                          : model::ToJson(trace.steps[k - 1])},
                        {"outcome", story.outcomes[k]},
                        {"head", story.head_number[k]},
                        {"state", model::ToString(states[k])}};
}

}  // namespace

// A lasso's cycle drawn as a loop (spec R72): the states from step `loop`
// on, around a circle, each arrow the step that leads on, the last one back
// to the first.
std::string LassoSvg(const Trace& trace, std::size_t loop) {
  const std::size_t n = trace.steps.size() - loop;
  const double radius = 60.0 + 14.0 * static_cast<double>(n);
  const double size = 2 * radius + 240;
  const double center = size / 2;
  auto at = [&](std::size_t k, double r) {
    const double angle = -1.5707963 + 6.2831853 * static_cast<double>(k) /
                                          static_cast<double>(n);
    return std::pair<double, double>{center + r * std::cos(angle),
                                     center + r * std::sin(angle)};
  };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << size
      << "\" height=\"" << size
      << "\" font-family=\"monospace\" "
         "font-size=\"11\"><defs><marker id=\"head\" markerWidth=\"8\" "
         "markerHeight=\"8\" refX=\"7\" refY=\"4\" orient=\"auto\"><path "
         "d=\"M0,0 L8,4 L0,8 z\" fill=\"#c62828\"/></marker></defs>";
  for (std::size_t k = 0; k < n; ++k) {
    const auto [x1, y1] = at(k, radius);
    const auto [x2, y2] = at(k + 1, radius);
    const double mx = (x1 + x2) / 2;
    const double my = (y1 + y2) / 2;
    // The control point pushed outward bends each arrow along the circle.
    svg << "<path d=\"M" << x1 << "," << y1 << " Q" << mx + (mx - center) * 0.15
        << "," << my + (my - center) * 0.15 << " " << x2 << "," << y2
        << "\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"1.5\" "
           "marker-end=\"url(#head)\"/>";
    const auto [tx, ty] = at(k, radius + 28);
    const std::string label = std::to_string(loop + k + 1) + ". " +
                              model::ToString(trace.steps[loop + k]);
    svg << "<circle cx=\"" << x1 << "\" cy=\"" << y1 << "\" r=\"9\" "
        << "fill=\"" << (k == 0 ? "#c62828" : "#ffffff")
        << "\" stroke=\"#c62828\"/><text x=\"" << tx << "\" y=\"" << ty
        << "\" text-anchor=\"middle\">" << MarkupEscaped(label) << "</text>";
  }
  svg << "<text x=\"" << center << "\" y=\"" << center << "\" "
      << "text-anchor=\"middle\">state after step " << loop
      << " (filled): the cycle returns here</text></svg>";
  return svg.str();
}

namespace {

// The page's headline: the broken invariant and where, or the lasso's shape.
std::string Headline(const Trace& trace, const std::vector<Explanation>& why,
                     int last) {
  if (trace.loop) {
    return trace.invariant + ": a lasso, stem of " +
           std::to_string(*trace.loop) + " steps, cycle of " +
           std::to_string(trace.steps.size() - *trace.loop) +
           " steps repeated forever";
  }
  return why.empty() ? "no invariant broken after step " + std::to_string(last)
                     : why.front().invariant + " broken after step " +
                           std::to_string(last);
}

// The cycle of a lasso: what the filled state and the repeated steps mean.
std::string LassoSection(const Trace& trace) {
  std::ostringstream html;
  {
    html << "<section class=\"violation\" id=\"lasso\"><h2>The cycle</h2><p>"
         << "Steps 1-" << *trace.loop << " lead to the filled state; steps "
         << *trace.loop + 1 << "-" << trace.steps.size()
         << " return to it, and repeating them forever is a fair run (every "
            "weakly fair action enabled throughout is taken on it) on which "
            "no state has every compacted generation retirable (spec R72)."
         << (trace.window ? " From step " + std::to_string(*trace.window + 1) +
                                " on the states are the liveness window's "
                                "(spec R70)."
                          : std::string())
         << "</p><div class=\"scroll\">" << LassoSvg(trace, *trace.loop)
         << "</div></section>\n";
  }
  return html.str();
}

std::string TimelineSection(const Trace& trace,
                            const std::vector<State>& states,
                            const Story& story,
                            const std::vector<Explanation>& why) {
  std::ostringstream html;
  html << "<section id=\"timeline\"><h2>Timeline</h2><div class=\"legend\">"
          "<span><i class=\"swatch\" style=\"background:#1565c0\"></i>version "
          "published</span>"
          "<span><i class=\"swatch\" "
          "style=\"background:#90caf9\"></i>transaction in flight "
          "(dashed: since its read version)</span>"
          "<span><i class=\"swatch\" style=\"background:#e65100\"></i>rebase: "
          "read version → "
          "version built on</span>"
          "<span><i class=\"swatch\" style=\"background:#2e7d32\"></i>flush / "
          "publish</span>"
          "<span><i class=\"swatch\" style=\"background:#c62828\"></i>refused "
          "/ the violation</span>"
          "</div><div class=\"scroll\">"
       << Timeline(trace, states, story, why)
       << "</div><div>Click a step column to see the table "
          "as of that step.</div></section>\n";
  return html.str();
}

// The "Other state" table of one step: WAL counters, deletions, activation.
std::string OtherStateTable(const Config& config, const State& state,
                            PanelWriter* writer_ptr) {
  PanelWriter& writer = *writer_ptr;
  std::ostringstream html;
  html << "<h3>Other "
          "state</h3><table><tr><th>flushed</th><th>retired</th><th>pending "
          "retirements</th><th>deleted "
          "rows</th><th>activated</th><th>commits</th></tr><tr>";
  std::string flushed, retired;
  for (int s = 0; s < config.bounds.shards; ++s) {
    flushed += Cat(s ? " " : "", "s", std::to_string(s), ":",
                   std::to_string(state.flushed[s]));
    retired += Cat(s ? " " : "", "s", std::to_string(s), ":",
                   SetString(static_cast<uint8_t>(state.retired[s] << 1),
                             model::kGenerationsMax + 1));
  }
  html << writer.Td("o.fl", flushed) << writer.Td("o.ret", retired)
       << writer.Td("o.pen", RowsString(state.pending, config.bounds))
       << writer.Td("o.del", RowsString(state.deleted, config.bounds))
       << writer.Td("o.act", state.activated ? "yes" : "no")
       << writer.Td("o.com", std::to_string(state.committed))
       << "</tr></table></div>\n";
  return html.str();
}

// One step's panel: its title, narrative, the finding at the last step, and
// the table's versions, fragments, SSTables and transactions.
std::string StepPanel(const Trace& trace, const std::vector<State>& states,
                      const Story& story, const std::vector<Explanation>& why,
                      int k, Cells* previous) {
  const Config& config = trace.config;
  const int last = static_cast<int>(states.size()) - 1;
  const Explanation* primary = why.empty() ? nullptr : &why.front();
  std::ostringstream html;
  PanelWriter writer(*previous, k > 0);
  const Explanation* pointed = k == last ? primary : nullptr;
  html << "<div class=\"panel" << (k == last ? " on" : "") << "\" id=\"step-"
       << k << "\" data-step=\"" << k << "\"><h3 style=\"margin-top:0\">Step "
       << k << " of " << last << ": <span class=\"mono\">"
       << MarkupEscaped(StepTitle(trace, story, k)) << "</span> · head v"
       << story.head_number[k] << "</h3>";
  if (!story.narrative[k].empty()) {
    html << "<p class=\"narrative\">" << MarkupEscaped(story.narrative[k])
         << "</p>";
  }
  if (pointed != nullptr) {
    html << "<div class=\"violation\" style=\"padding:6px "
            "10px;border-radius:4px\">"
         << FindingsHtml(why) << "</div>";
  }
  html << VersionsTable(config, states[k], pointed, &writer)
       << FragmentsTable(config, states[k], pointed, &writer)
       << SsTablesTable(config, states[k], pointed,
                        pointed != nullptr ? why : std::vector<Explanation>{},
                        &writer)
       << InflightTable(states[k], story.inflight_ids[k], story.spans);
  html << OtherStateTable(config, states[k], &writer);
  *previous = writer.cells();
  return html.str();
}

std::string StepsSection(const Trace& trace, const std::vector<State>& states,
                         const Story& story,
                         const std::vector<Explanation>& why) {
  const int last = static_cast<int>(states.size()) - 1;
  const Explanation* primary = why.empty() ? nullptr : &why.front();
  std::ostringstream html;
  html << "<section id=\"steps\"><h2>The table at each step</h2><div "
          "class=\"controls\">"
          "<button id=\"prev\">◀ previous</button><button id=\"next\">next "
          "▶</button>"
          "<button id=\"all\">show all steps</button> <span>(keys ← →; yellow "
          "cells changed "
          "in the step)</span></div><div class=\"layout\"><ol "
          "class=\"steplist\" start=\"0\">";
  for (int k = 0; k <= last; ++k) {
    html << "<li data-step=\"" << k << "\" class=\"" << (k == last ? "on" : "")
         << (k == last && primary ? " bad" : "") << "\" title=\""
         << MarkupEscaped(StepTitle(trace, story, k)) << "\">" << k << ". "
         << MarkupEscaped(StepTitle(trace, story, k)) << "</li>";
  }
  html << "</ol><div>";
  Cells previous;
  for (int k = 0; k <= last; ++k)
    html << StepPanel(trace, states, story, why, k, &previous);
  html << "</div></div></section>\n";
  return html.str();
}

// The steps as JSON for the page's script, and the script: step navigation
// and a layout self-check.
std::string PageScript(const Trace& trace, const std::vector<State>& states,
                       const Story& story,
                       const std::vector<Explanation>& why) {
  const int last = static_cast<int>(states.size()) - 1;
  nlohmann::json steps_json = nlohmann::json::array();
  for (int k = 0; k <= last; ++k)
    steps_json.push_back(StepJson(trace, states, story, k));
  std::ostringstream html;
  const nlohmann::json data{{"trace", TraceToJson(trace)},
                            {"steps", steps_json},
                            {"invariants", [&] {
                               nlohmann::json out = nlohmann::json::array();
                               for (const Explanation& e : why)
                                 out.push_back({{"invariant", e.invariant},
                                                {"detail", e.detail},
                                                {"shard", e.shard},
                                                {"generation", e.generation},
                                                {"index", e.index},
                                                {"query", e.query}});
                               return out;
                             }()}};
  html << "<script type=\"application/json\" id=\"steps-data\">"
       << ScriptJson(data)
       << "</script>\n<script>\n(function(){\n"
          "var last="
       << last
       << ",cur=last;\n"
          "function show(k){if(k<0||k>last)return;cur=k;\n"
          " document.body.classList.remove('all');\n"
          " document.querySelectorAll('.panel').forEach(function(p){p."
          "classList.toggle('on',"
          "+p.dataset.step===k);});\n"
          " document.querySelectorAll('.steplist "
          "li').forEach(function(li){li.classList.toggle("
          "'on',+li.dataset.step===k);});\n"
          " document.querySelectorAll('#timeline-svg .col "
          "rect').forEach(function(r){"
          "var "
          "s=+r.parentNode.dataset.step;r.setAttribute('fill',s===k?'#e3ecff':("
          "s%2?'#fafbfc':"
          "'#ffffff'));});}\n"
          "document.querySelectorAll('.steplist li,#timeline-svg "
          ".col').forEach(function(e){"
          "e.addEventListener('click',function(){show(+e.dataset.step);"
          "document.getElementById('steps').scrollIntoView();});});\n"
          "document.getElementById('prev').onclick=function(){show(cur-1);};\n"
          "document.getElementById('next').onclick=function(){show(cur+1);};\n"
          "document.getElementById('all').onclick=function(){document.body."
          "classList.add('all');};\n"
          "document.addEventListener('keydown',function(e){if(e.key==='"
          "ArrowLeft')show(cur-1);"
          "if(e.key==='ArrowRight')show(cur+1);});\n"
          "show(last);\n"
          // A layout self-check: labels of the timeline that overlap each other
          // (the count lands in the DOM, where tests read it).
          "var t=document.querySelectorAll('#timeline-svg text'),b=[],n=0;\n"
          "t.forEach(function(e){b.push(e.getBoundingClientRect());});\n"
          "for(var i=0;i<b.length;i++)for(var j=i+1;j<b.length;j++){"
          "var "
          "p=b[i],q=b[j];if(p.width&&q.width&&p.left<q.right-1&&q.left<p.right-"
          "1&&"
          "p.top<q.bottom-1&&q.top<p.bottom-1)n++;}\n"
          "document.body.setAttribute('data-overlaps',String(n));\n"
          "})();\n</script>\n</main>";
  return html.str();
}

}  // namespace

std::string RenderCounterexamplePage(const Trace& trace,
                                     const std::vector<State>& states,
                                     std::string_view reproduce) {
  MEMWAL_ASSERT(states.size() == trace.steps.size() + 1);
  const Config& config = trace.config;
  const Story story = TellStory(trace, states);
  const int last = static_cast<int>(states.size()) - 1;
  const std::vector<Explanation> why = Explain(config, states[last]);
  const std::string headline = Headline(trace, why, last);
  std::ostringstream html;
  html << PageStart("memwal-check: " + headline);
  html << "<header><h1>memwal-check counterexample: " << MarkupEscaped(headline)
       << "</h1><div class=\"config\">"
       << MarkupEscaped(model::ToString(config)) << " · seed " << trace.seed
       << " · recorded invariant "
       << MarkupEscaped(trace.invariant.empty() ? "—" : trace.invariant)
       << "</div></header><main>\n";
  html << "<section class=\"" << (why.empty() ? "" : "violation")
       << "\" id=\"violation\"><h2>"
       << (why.empty() ? "No invariant is broken in the last state"
                       : "The violated invariant")
       << "</h2>" << FindingsHtml(why)
       << "<div>Reproduce:</div><pre id=\"reproduce\">"
       << MarkupEscaped(reproduce) << "</pre></section>\n";
  if (trace.loop) html << LassoSection(trace);
  html << TimelineSection(trace, states, story, why)
       << StepsSection(trace, states, story, why)
       << PageScript(trace, states, story, why);
  html << PageEnd();
  return html.str();
}

// ---------------------------------------------------------------------------

namespace {

std::string Field(const nlohmann::json& row, const char* key) {
  if (!row.is_object() || !row.contains(key) || row[key].is_null()) return "—";
  const nlohmann::json& value = row[key];
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return Num(value.get<double>(), "%.2f");
  return value.dump();
}

std::string VerdictBadge(const std::string& verdict) {
  const std::string css = verdict == "ok"           ? "ok"
                          : verdict == "violation"  ? "bad"
                          : verdict == "incomplete" ? "warn"
                                                    : "info";
  return "<span class=\"badge " + css + "\">" + MarkupEscaped(verdict) +
         "</span>";
}

}  // namespace

std::string RenderVariantsPage(const nlohmann::json& rows) {
  std::ostringstream html;
  html << PageStart("memwal-check variants")
       << "<header><h1>memwal-check variants</h1><div class=\"config\">every "
          "protocol, "
          "read side, gc mode and known-bug switch, each against the default "
          "configuration</div></header><main><section><h2>Verdicts</h2>"
          "<div class=\"scroll\"><table "
          "id=\"variants\"><tr><th>variant</th><th>verdict</th>"
          "<th>invariant broken</th><th>distinct states</th><th>seconds</th>"
          "<th>counterexample steps</th><th>counterexample</th></tr>";
  int count = 0;
  if (rows.is_array()) {
    for (const nlohmann::json& row : rows) {
      ++count;
      const std::string page = CounterexamplePageName(row);
      html << "<tr><td class=\"mono\">" << MarkupEscaped(Field(row, "variant"))
           << "</td><td>" << VerdictBadge(Field(row, "verdict"))
           << "</td><td class=\"mono\">"
           << MarkupEscaped(Field(row, "invariant")) << "</td><td>"
           << MarkupEscaped(Field(row, "states")) << "</td><td>"
           << MarkupEscaped(Field(row, "seconds")) << "</td><td>"
           << MarkupEscaped(Field(row, "counterexample_steps")) << "</td><td>";
      if (page.empty()) {
        html << "—";
      } else {
        html << "<a href=\"" << MarkupEscaped(page) << "\">"
             << MarkupEscaped(page) << "</a>";
      }
      html << "</td></tr>";
    }
  }
  html << "</table></div><p>" << count << " variants.</p></section></main>"
       << PageEnd();
  return html.str();
}

namespace {

// The run's verdict, counts and the command that reproduces it.
std::string RunSection(const RunSummary& summary) {
  const engine::Stats& stats = summary.stats;
  std::ostringstream html;
  html << "<section id=\"run\"><h2>Run</h2><table><tr><th>verdict</th><td>"
       << VerdictBadge(summary.verdict)
       << "</td></tr><tr><th>distinct states</th><td>" << stats.states_distinct
       << "</td></tr><tr><th>transitions</th><td>" << stats.transitions
       << "</td></tr><tr><th>depth</th><td>" << stats.depth_max
       << "</td></tr><tr><th>time</th><td>" << Num(stats.seconds, "%.2f s")
       << "</td></tr><tr><th>states per second</th><td>"
       << (stats.seconds > 0
               ? Num(static_cast<double>(stats.states_distinct) / stats.seconds,
                     "%.0f")
               : std::string("—"))
       << "</td></tr>";
  if (!summary.invariant.empty()) {
    html << "<tr><th>violation</th><td class=\"mono\">"
         << MarkupEscaped(summary.invariant);
    if (!summary.counterexample_page.empty()) {
      html << " · <a href=\"" << MarkupEscaped(summary.counterexample_page)
           << "\">counterexample</a>";
    }
    html << "</td></tr>";
  }
  html << "</table><div>Reproduce:</div><pre>"
       << MarkupEscaped(summary.command_line) << "</pre></section>";
  return html.str();
}

// Distinct states per depth: a bar chart and the numbers.
std::string DepthsSection(const RunSummary& summary) {
  const engine::Stats& stats = summary.stats;
  std::ostringstream html;
  html << "<section id=\"depths\"><h2>Distinct states per depth</h2>";
  if (stats.states_per_depth.empty()) {
    html << "<p>This search did not record states per depth.</p>";
  } else {
    uint64_t most = 1;
    for (uint64_t n : stats.states_per_depth) most = std::max(most, n);
    const int bar = 28, chart = 180,
              width =
                  60 + bar * static_cast<int>(stats.states_per_depth.size());
    html << "<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\""
         << width << "\" height=\"" << chart + 40
         << "\" font-size=\"11\" font-family=\"system-ui,DejaVu "
            "Sans,sans-serif\">";
    for (std::size_t d = 0; d < stats.states_per_depth.size(); ++d) {
      const uint64_t n = stats.states_per_depth[d];
      const int h = static_cast<int>(static_cast<double>(n) /
                                     static_cast<double>(most) * chart);
      const int x = 50 + static_cast<int>(d) * bar;
      html << "<rect x=\"" << x << "\" y=\"" << chart - h + 10 << "\" width=\""
           << bar - 4 << "\" height=\"" << std::max(h, 1)
           << "\" fill=\"#1565c0\"><title>depth " << d << ": " << n
           << " states</title></rect><text x=\"" << x + (bar - 4) / 2
           << "\" y=\"" << chart + 24 << "\" text-anchor=\"middle\">" << d
           << "</text>";
    }
    html << "<text x=\"4\" y=\"20\">" << most << "</text><text x=\"4\" y=\""
         << chart + 24
         << "\">depth</text></svg></div><div "
            "class=\"scroll\"><table><tr><th>depth</th>";
    for (std::size_t d = 0; d < stats.states_per_depth.size(); ++d)
      html << "<th>" << d << "</th>";
    html << "</tr><tr><th>states</th>";
    for (uint64_t n : stats.states_per_depth) html << "<td>" << n << "</td>";
    html << "</tr></table></div>";
  }
  html << "</section>";
  return html.str();
}

// Transitions per action kind that applies.
std::string CoverageSection(const RunSummary& summary) {
  const engine::Stats& stats = summary.stats;
  std::ostringstream html;
  uint64_t most = 1;
  for (uint64_t n : stats.coverage) most = std::max(most, n);
  html << "<section id=\"coverage\"><h2>Action coverage (transitions per "
          "action)</h2><table>"
          "<tr><th>action</th><th>transitions</th><th></th></tr>";
  for (int kind = 0; kind < model::kActionKinds; ++kind) {
    if (!model::KindApplies(summary.config, kind)) continue;
    const uint64_t n = stats.coverage[kind];
    html << "<tr><td class=\"mono\">" << MarkupEscaped(model::KindName(kind))
         << "</td><td>"
         << (n == 0 ? "<span class=\"badge warn\">never taken</span>"
                    : std::to_string(n))
         << "</td><td><svg width=\"300\" height=\"12\"><rect width=\""
         << static_cast<int>(300.0 * static_cast<double>(n) /
                             static_cast<double>(most))
         << "\" height=\"12\" fill=\"#90caf9\"/></svg></td></tr>";
  }
  html << "</table></section>";
  return html.str();
}

// Each reachability goal, reached or not.
std::string GoalsSection(const RunSummary& summary) {
  const engine::Stats& stats = summary.stats;
  std::ostringstream html;
  html << "<section id=\"goals\"><h2>Reachability "
          "goals</h2><table><tr><th>goal</th><th>"
          "</th></tr>";
  for (const std::string& goal : stats.goals_reached)
    html << "<tr><td class=\"mono\">" << MarkupEscaped(goal)
         << "</td><td><span class=\"badge ok\">"
            "reached</span></td></tr>";
  for (const std::string& goal : stats.goals_missed)
    html << "<tr><td class=\"mono\">" << MarkupEscaped(goal)
         << "</td><td><span class=\"badge bad\">"
            "never reached</span></td></tr>";
  html << "</table></section>";
  return html.str();
}

}  // namespace

std::string RenderSummaryPage(const RunSummary& summary) {
  std::ostringstream html;
  html << PageStart("memwal-check check: " + summary.verdict)
       << "<header><h1>memwal-check check: " << MarkupEscaped(summary.verdict)
       << "</h1><div class=\"config\">"
       << MarkupEscaped(model::ToString(summary.config)) << " · seed "
       << summary.seed << "</div></header><main>" << RunSection(summary)
       << DepthsSection(summary) << CoverageSection(summary)
       << GoalsSection(summary) << "</main>" << PageEnd();
  return html.str();
}

}  // namespace memwal::checker::report
