// The command table (checker/cli/commands.h).
#include "checker/cli/commands.h"

#include <algorithm>

#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/bench.h"
#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/compare.h"
#include "checker/cli/corpus.h"
#include "checker/cli/gate.h"
#include "checker/cli/lance_diff.h"
#include "checker/cli/minimize.h"
#include "checker/cli/variants.h"
#include "checker/lockstep/switches.h"
#include "checker/report/report.h"
#include "checker/validate/validate.h"
#include "inspect/inspect.h"

namespace memwal::checker::cli {

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec> kCommands = {
      {"check", "[options]",
       "explore every interleaving within bounds; report the first broken\n"
       "invariant with a shortest trace",
       &CheckAbout, &CheckFlagTable, &RunCheckCommand},
      {"replay", "TRACE [options]",
       "re-execute a trace on the model and the implementation", &ReplayAbout,
       &ReplayFlagTable, &RunReplayCommand},
      {"variants", "[options]",
       "every protocol, read mode, gc mode and known bug side by side",
       &VariantsAbout, &VariantsFlagTable, &RunVariantsCommand},
      {"minimize", "TRACE [options]",
       "delta-debug a counterexample trace (model + implementation re-check)",
       &MinimizeAbout, &MinimizeFlagTable, &RunMinimizeCommand},
      {"compare", "A B [options]", "run two switch sets side by side",
       &CompareAbout, &CompareFlagTable, &RunCompareCommand},
      {"corpus", "--out DIR [options]",
       "write interleavings as a fuzzing corpus", &CorpusAbout,
       &CorpusFlagTable, &RunCorpusCommand},
      {"lance-diff", "[options]",
       "query the implementation's tables with LanceDB 0.39 (Lance 12)",
       &LanceDiffAbout, &LanceDiffFlagTable, &RunLanceDiffCommand},
      {"report", "TRACE --out FILE.html | --variants ROWS.json --out DIR",
       "render a trace as a self-contained HTML page", &report::ReportAbout,
       &report::ReportFlagTable, &report::RunReportCommand},
      {"bench", "[options]", "SPIN's pan against our search on the same model",
       &BenchAbout, &BenchFlagTable, &RunBenchCommand},
      {"gate", "[options]",
       "the gate: every entry of gate.txt, one line each and one verdict\n"
       "(./memwal check)",
       &GateAbout, &GateFlagTable, &RunGateCommand},
      {"properties", "[options]",
       "the rule-function properties under a seeded rapidcheck",
       &PropertiesAbout, &PropertiesFlagTable, &RunPropertiesCommand},
      {"inspect", "TABLE_DIR [options]",
       "read a Lance table directory: manifests, indexes, MemWAL state,\n"
       "findings",
       &inspect::InspectAbout, &inspect::InspectFlagTable,
       &inspect::RunInspectCommand},
      {"validate", "TABLE_DIR [options]",
       "trace validation: explain a Lance table's history by model steps",
       &validate::ValidateAbout, &validate::ValidateFlagTable,
       &validate::RunValidateCommand},
  };
  return kCommands;
}

const CommandSpec* FindCommand(std::string_view name) {
  for (const CommandSpec& command : Commands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::string MainHelp() {
  std::string help =
      "memwal-check: a model checker for Lance's MemWAL index catch-up "
      "protocol\n\nusage: memwal-check COMMAND [options]   (COMMAND --help "
      "for its options)\n\ncommands:\n";
  // The summaries start one column after the longest name (at least 12).
  std::size_t width = 12;
  for (const CommandSpec& command : Commands())
    width = std::max(width, command.name.size() + 3);
  for (const CommandSpec& command : Commands()) {
    std::string line = "  " + std::string(command.name);
    line.resize(width, ' ');
    for (char c : command.summary) {
      line += c;
      if (c == '\n') line += std::string(width, ' ');
    }
    help += line + "\n";
  }
  return help +
         "\nexit codes: 0 ok, 1 violation or missed goal, 2 bad usage or "
         "input, 3 budget ran out\n";
}

std::string CommandHelp(const CommandSpec& command) {
  return "usage: memwal-check " + std::string(command.name) + " " +
         std::string(command.operands) + "\n\n" + command.about() +
         "\noptions:\n" + FlagsHelp(command.flags());
}

int RunMemwalCheck(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.empty())
    return Fail(err, "", "missing command (see memwal-check --help)");
  const std::string& name = args[0];
  if (name == "--help" || name == "-h" || name == "help") {
    out << MainHelp();
    return 0;
  }
  const CommandSpec* command = FindCommand(name);
  if (command == nullptr) {
    return Fail(err, "",
                "unknown command '" + Escaped(name, 40) +
                    "' (see memwal-check --help)");
  }
  const Args rest(args.begin() + 1, args.end());
  if (AsksForHelp(rest, command->flags())) {
    out << CommandHelp(*command);
    return 0;
  }
  // What main prints if memory runs out from here on (base/memory.h); the
  // command adds its counts as it goes.
  BeginPartialReport(command->name, std::find(rest.begin(), rest.end(),
                                              "--json") != rest.end());
  // Every variant switch has both halves, model/ and impl/ (an assertion);
  // joined after the partial report knows its command, as it allocates.
  lockstep::JoinedSwitches();
  return command->run(rest, out, err);
}

int Fail(std::ostream& err, std::string_view command, std::string_view message,
         int code) {
  err << "memwal-check" << (command.empty() ? "" : " ") << command << ": "
      << message << "\n";
  return code;
}

int Fail(std::ostream& err, std::string_view command, const Status& status,
         int code) {
  return Fail(err, command, status.message(), code);
}

}  // namespace memwal::checker::cli
