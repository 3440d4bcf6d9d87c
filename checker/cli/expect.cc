// The CI gate's `check` (--junit, --expect), checker/cli/expect.h.
#include "checker/cli/expect.h"

#include <algorithm>

#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/cli/minimize.h"
#include "checker/cli/variants.h"
#include "checker/engine/liveness.h"
#include "checker/lockstep/refinement.h"
#include "checker/report/junit.h"
#include "model/invariants.h"

namespace memwal::checker::cli {
namespace {

Status Usage(std::string_view message) {
  return Status::InvalidArgument(message);
}

struct GateArgs {
  CheckOptions check{};
  RunOptions run{};
  std::string junit_path{};
  std::vector<Expectation> expectations{};
  bool minimize = true;
};

// Every property the run decides, in the JUnit file's order: invariants,
// liveness, the implementation's agreement, goals.
struct Property {
  std::string name;
  std::string classname;
  bool goal = false;
  bool applicable = true;
};

std::vector<Property> Properties(const GateArgs& gate) {
  std::vector<Property> properties;
  for (const model::Invariant& invariant : model::AllInvariants())
    properties.push_back({std::string(invariant.name), "invariant"});
  if (gate.run.liveness)
    properties.push_back({std::string(engine::kLivenessName), "liveness"});
  if (!gate.check.model_only)
    properties.push_back(
        {std::string(lockstep::kImplementationMatchesModel), "lockstep"});
  for (const model::Goal& goal : model::AllGoals()) {
    properties.push_back({std::string(goal.name), "goal", true,
                          goal.applicable(gate.check.config)});
  }
  return properties;
}

bool Reached(const engine::Stats& stats, const std::string& goal) {
  return std::find(stats.goals_reached.begin(), stats.goals_reached.end(),
                   goal) != stats.goals_reached.end();
}

// The verdict of one property: "ok", "violation", "incomplete" (the run
// stopped before deciding it) or "not applicable".
std::string PropertyVerdict(const Property& property,
                            const VariantResult& result) {
  if (!property.applicable) return "not applicable";
  if (property.goal && Reached(result.stats, property.name)) return "ok";
  if (result.verdict == engine::Verdict::kViolation &&
      result.invariant == property.name)
    return "violation";
  if (result.verdict == engine::Verdict::kOk) return "ok";
  return "incomplete";
}

std::string TraceText(const std::vector<model::Action>& trace) {
  std::string text;
  for (std::size_t k = 0; k < trace.size(); ++k)
    text +=
        "  " + std::to_string(k + 1) + ". " + model::ToString(trace[k]) + "\n";
  return text;
}

std::string ReproduceLine(const GateArgs& gate, const VariantResult& result) {
  const std::string& file =
      result.min_trace_file.empty() ? result.trace_file : result.min_trace_file;
  if (file.empty())
    return "reproduce: " + LockstepCommandLine(gate.check, gate.run);
  return "reproduce: memwal-check replay " + file;
}

report::JunitSuite Suite(const GateArgs& gate, const VariantResult& result) {
  report::JunitSuite suite{
      .name = "memwal-check " + model::ToString(gate.check.config),
      .seconds = result.seconds};
  for (const Property& property : Properties(gate)) {
    report::JunitCase c{.classname = "memwal-check." + property.classname,
                        .name = property.name};
    const std::string verdict = PropertyVerdict(property, result);
    if (verdict == "ok") {
      c.result = report::JunitCase::Result::kPassed;
    } else if (verdict == "violation") {
      c.result = report::JunitCase::Result::kFailed;
      c.seconds = result.seconds;
      if (property.goal) {
        c.message = "goal " + property.name + " was never reached";
        c.body = c.message + "\n" + LockstepCommandLine(gate.check, gate.run);
      } else {
        const std::vector<model::Action>& trace =
            result.minimized ? result.minimized->trace : result.found;
        c.message = property.name + " broken after step " +
                    std::to_string(trace.size());
        c.body = c.message +
                 (result.detail.empty() ? "" : "\nwhy: " + result.detail) +
                 "\ntrace:\n" + TraceText(trace) + ReproduceLine(gate, result) +
                 "\nequivalent: " + LockstepCommandLine(gate.check, gate.run);
      }
    } else {
      c.result = report::JunitCase::Result::kSkipped;
      c.message =
          verdict == "not applicable"
              ? "not applicable to this configuration"
              : "not decided: the run stopped early (" +
                    VerdictText(result.verdict) +
                    (result.invariant.empty() ? "" : " " + result.invariant) +
                    ")";
    }
    suite.cases.push_back(c);
  }
  return suite;
}

// A verdict an outcome can have: a run's or a row's, or the name of a
// property whose violation is meant.
bool KnownVerdict(const std::string& verdict) {
  for (const char* known : {"ok", "violation", "incomplete", "not found",
                            "not applicable", "not run", "budget"}) {
    if (verdict == known) return true;
  }
  if (model::FindInvariant(verdict) != nullptr) return true;
  if (verdict == lockstep::kImplementationMatchesModel ||
      verdict == engine::kLivenessName)
    return true;
  for (const model::Goal& goal : model::AllGoals()) {
    if (verdict == goal.name) return true;
  }
  return false;
}

}  // namespace

Result<Expectation> ParseExpectation(std::string_view text) {
  const std::size_t at = text.rfind('=');
  if (at == std::string_view::npos || at == 0 || at + 1 == text.size())
    return Usage("--expect needs NAME=VERDICT, not '" + std::string(text) +
                 "'");
  Expectation expectation{std::string(text.substr(0, at)),
                          std::string(text.substr(at + 1))};
  if (!KnownVerdict(expectation.verdict))
    return Usage("--expect: unknown verdict '" + expectation.verdict +
                 "' (ok, violation, incomplete, not found, not applicable, "
                 "not run, budget, or an invariant's or goal's name)");
  return expectation;
}

Status CheckExpectationName(std::string_view name) {
  if (name == "verdict" || name == lockstep::kImplementationMatchesModel ||
      name == engine::kLivenessName ||
      model::FindInvariant(std::string(name)) != nullptr)
    return Status::Ok();
  for (const model::Goal& goal : model::AllGoals()) {
    if (name == goal.name) return Status::Ok();
  }
  return Usage("--expect: check decides no '" + std::string(name) +
               "' (verdict, an invariant, a goal, " +
               std::string(engine::kLivenessName) + " or " +
               std::string(lockstep::kImplementationMatchesModel) + ")");
}

bool Meets(const Expectation& expected, std::string_view verdict,
           std::string_view invariant) {
  if (expected.verdict == verdict) return true;
  return verdict == "violation" && expected.verdict == invariant;
}

std::vector<std::string> Unmet(const std::vector<Expectation>& expectations,
                               const std::vector<NamedOutcome>& outcomes) {
  std::vector<std::string> unmet;
  for (const Expectation& expected : expectations) {
    const auto outcome = std::find_if(
        outcomes.begin(), outcomes.end(),
        [&](const NamedOutcome& o) { return o.name == expected.name; });
    if (outcome == outcomes.end()) {
      unmet.push_back(expected.name + ": expected " + expected.verdict +
                      ", but the run has no such name");
    } else if (!Meets(expected, outcome->verdict, outcome->invariant)) {
      unmet.push_back(
          expected.name + ": expected " + expected.verdict + ", got " +
          outcome->verdict +
          (outcome->invariant.empty() ? "" : " " + outcome->invariant));
    }
  }
  return unmet;
}

namespace {

// The gate's view of a `check` run: its result, minimized when asked.
VariantResult GateResult(const GateArgs& gate, const CheckRun& done) {
  const engine::SearchResult& search = done.result;
  VariantResult result{.verdict = search.verdict,
                       .states = search.stats.states_distinct,
                       .seconds = search.stats.seconds,
                       .trace_file = done.trace_file,
                       .stats = search.stats};
  if (!search.violation) return result;
  result.invariant = search.violation->invariant;
  result.detail = search.violation->detail;
  result.found = search.violation->trace;
  result.goal_missed = done.trace_file.empty();
  if (!gate.minimize || result.goal_missed) return result;
  const lockstep::LockstepSetup setup{.config = done.check.config,
                                      .impl_only_bugs = gate.run.impl_only_bugs,
                                      .seed = done.check.seed};
  result.minimized = Minimize(MinimizeInput{.setup = setup,
                                            .lockstep = !done.check.model_only,
                                            .invariant = result.invariant,
                                            .trace = result.found});
  return result;
}

// The expectations' report: one line each for the text, an array for --json.
void ReportExpectations(const GateArgs& gate,
                        const std::vector<std::string>& unmet,
                        CheckExtras* extras) {
  nlohmann::json list = nlohmann::json::array();
  for (const Expectation& expected : gate.expectations) {
    const bool met =
        std::none_of(unmet.begin(), unmet.end(), [&](const std::string& line) {
          return line.rfind(expected.name + ":", 0) == 0;
        });
    extras->text += "expect " + expected.name + "=" + expected.verdict + ": " +
                    (met ? "met" : "NOT met") + "\n";
    list.push_back(
        {{"name", expected.name}, {"verdict", expected.verdict}, {"met", met}});
  }
  extras->fields["expectations"] = list;
}

}  // namespace

std::vector<Flag> GateFlags(GateOptions* options) {
  return {
      Valued("--junit", "FILE",
             "write a JUnit XML report (one test case per property) to FILE",
             [options](std::string_view path) {
               options->junit_path = path;
               return Status::Ok();
             }),
      Valued("--expect", "NAME=VERDICT",
             "pin an outcome (repeatable): NAME is an invariant, a goal,\n"
             "CompactedGenerationsEventuallyRetire, ImplementationMatchesModel"
             "\nor `verdict` (another name is refused before the search);\n"
             "VERDICT is any verdict the tool prints (ok, violation,\n"
             "incomplete, not found, not applicable, not run, budget) or an\n"
             "invariant's name. Exit 0 when every one is met, else 1",
             [options](std::string_view text) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const Expectation expectation,
                                       ParseExpectation(text));
               MEMWAL_RETURN_IF_ERROR(CheckExpectationName(expectation.name));
               options->expectations.push_back(expectation);
               return Status::Ok();
             }),
      Switch("--no-minimize",
             "with --junit or --expect: keep the counterexample as found",
             [options] { options->minimize = false; }),
  };
}

int RunGateCheck(const CheckOptions& check, const RunOptions& run,
                 const GateOptions& options, std::ostream& out,
                 std::ostream& err) {
  GateArgs gate{.check = check,
                .run = run,
                .junit_path = options.junit_path,
                .expectations = options.expectations,
                .minimize = options.minimize};
  Result<CheckRun> done = RunCheckSearch(gate.check, gate.run, out, err);
  if (!done.ok()) return Fail(err, "check", done.status());
  gate.check = done->check;  // with env foreign where a bug needs it
  const VariantResult result = GateResult(gate, *done);
  CheckExtras extras;
  if (result.minimized) {
    extras.text +=
        "minimized: " + std::to_string(result.minimized->steps_before) +
        " -> " + std::to_string(result.minimized->steps_after) +
        " steps\ntrace (minimized):\n" + TraceText(result.minimized->trace);
    extras.fields["minimized_steps"] = result.minimized->steps_after;
  }
  if (!gate.junit_path.empty()) {
    const Status written = report::WriteFileAtomically(
        gate.junit_path, report::JunitXml({Suite(gate, result)}));
    if (!written.ok()) return Fail(err, "check", written);
    extras.text += "junit: " + gate.junit_path + "\n";
    extras.fields["junit"] = gate.junit_path;
  }
  std::vector<std::string> unmet;
  if (!gate.expectations.empty()) {
    std::vector<NamedOutcome> outcomes = {
        {"verdict", VerdictText(result.verdict), result.invariant}};
    for (const Property& property : Properties(gate)) {
      outcomes.push_back(
          {property.name, PropertyVerdict(property, result), result.invariant});
    }
    unmet = Unmet(gate.expectations, outcomes);
    ReportExpectations(gate, unmet, &extras);
  }
  const int code = ReportCheckRun(*done, gate.run, extras, out, err);
  if (code == kExitUsage || gate.expectations.empty()) return code;
  for (const std::string& line : unmet)
    Fail(err, "check", "expectation not met: " + line);
  return unmet.empty() ? kExitOk : kExitViolation;
}

}  // namespace memwal::checker::cli
