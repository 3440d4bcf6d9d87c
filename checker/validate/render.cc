// Text and JSON output of a Validation; see validate.h.
#include <nlohmann/json.hpp>

#include "base/output_file.h"
#include "checker/validate/validate.h"
#include "model/config.h"

namespace memwal::checker::validate {
namespace {

std::string StepName(uint64_t from, uint64_t to) {
  if (from == 0) return "Init -> version " + std::to_string(to);
  if (from == to) return "version " + std::to_string(to);
  return "version " + std::to_string(from) + " -> " + std::to_string(to);
}

std::string Differences(std::size_t n) {
  if (n == SIZE_MAX) return "not published";
  return std::to_string(n) + (n == 1 ? " difference" : " differences");
}

}  // namespace

void RenderText(const Validation& v, std::ostream& out) {
  out << "table: " << Escaped(v.table_dir, 400) << "\n";
  out << "protocol: " << model::Name(v.config.protocol)
      << (v.protocol_given ? " (--protocol)"
                           : " (inferred: " + Escaped(v.protocol_reason) + ")")
      << "\n";
  out << "versions: " << v.versions << " retained (" << v.first << ".."
      << v.last << "), shards " << v.config.bounds.shards << ", user indexes "
      << v.config.bounds.indexes << "\n";
  for (const Explained& step : v.explained) {
    out << "  explained " << StepName(step.from, step.to) << " ("
        << Escaped(step.operation) << "): " << step.actions << "\n";
  }
  for (const Gap& gap : v.gaps) {
    out << "  not judged " << StepName(gap.from, gap.to) << " ("
        << Escaped(gap.operation) << "): " << Escaped(gap.reason, 600) << "\n";
  }
  if (v.invalid.has_value()) {
    const Invalid& bad = *v.invalid;
    out << "first unexplained step: " << StepName(bad.from, bad.to) << " ("
        << Escaped(bad.operation) << ")\n";
    out << "  reason: " << Escaped(bad.reason, 600) << "\n";
    if (!bad.tried.empty()) {
      out << "  candidates tried: " << bad.tried.size() << "\n";
      for (const Candidate& c : bad.tried) {
        out << "    " << c.actions << ": " << Differences(c.differences)
            << (c.differences == SIZE_MAX ? " (" + c.outcome + ")" : "")
            << "\n";
      }
    }
    if (!bad.closest.empty()) {
      out << "  closest: " << bad.closest << "\n";
      for (const std::string& line : bad.difference)
        out << "    " << Escaped(line, 400) << "\n";
    }
  }
  for (const std::string& line : v.untracked)
    out << "  not compared: " << Escaped(line, 400) << "\n";
  std::size_t judged = v.explained.size();
  out << Name(v.verdict) << ": " << judged << " of " << v.steps
      << " steps explained";
  if (!v.gaps.empty()) out << ", " << v.gaps.size() << " not judged";
  if (v.invalid.has_value())
    out << ", first unexplained at "
        << StepName(v.invalid->from, v.invalid->to);
  out << "\n";
}

void RenderJson(const Validation& v, std::ostream& out) {
  using nlohmann::json;
  json explained = json::array();
  for (const Explained& step : v.explained) {
    explained.push_back({{"from", step.from},
                         {"to", step.to},
                         {"operation", step.operation},
                         {"actions", step.actions}});
  }
  json gaps = json::array();
  for (const Gap& gap : v.gaps) {
    gaps.push_back({{"from", gap.from},
                    {"to", gap.to},
                    {"operation", gap.operation},
                    {"reason", gap.reason}});
  }
  json doc = {{"format", "memwal-check-validate"},
              {"format_version", 1},
              {"table", v.table_dir},
              {"verdict", std::string(Name(v.verdict))},
              {"protocol", std::string(model::Name(v.config.protocol))},
              {"protocol_given", v.protocol_given},
              {"protocol_reason", v.protocol_reason},
              {"versions", v.versions},
              {"first", v.first},
              {"last", v.last},
              {"shards", v.config.bounds.shards},
              {"indexes", v.config.bounds.indexes},
              {"steps", v.steps},
              {"explained_count", v.explained.size()},
              {"explained", explained},
              {"not_judged", gaps},
              {"not_compared", v.untracked},
              {"notes", v.notes}};
  if (v.invalid.has_value()) {
    json tried = json::array();
    for (const Candidate& c : v.invalid->tried) {
      tried.push_back(
          {{"actions", c.actions},
           {"outcome", c.outcome},
           {"differences",
            c.differences == SIZE_MAX ? json(nullptr) : json(c.differences)}});
    }
    doc["invalid"] = {{"from", v.invalid->from},
                      {"to", v.invalid->to},
                      {"operation", v.invalid->operation},
                      {"reason", v.invalid->reason},
                      {"tried", tried},
                      {"closest", v.invalid->closest},
                      {"difference", v.invalid->difference}};
  }
  out << doc.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace memwal::checker::validate
