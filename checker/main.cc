// memwal-check: the command-line entry point. It only picks the subcommand;
// each lives in its own file:
//   check, replay          checker/lockstep_cli.h (lockstep by default)
//   check --junit/--expect, variants, minimize
//                          checker/expect.h (the CI gate)
//   corpus                 checker/corpus.h
//   report                 checker/report.h
//   bench                  checker/bench.h (bench/)
//   inspect                inspect/inspect.h
#include <iostream>
#include <string>
#include <vector>

#include "checker/bench.h"
#include "checker/corpus.h"
#include "checker/expect.h"
#include "checker/lockstep_cli.h"
#include "checker/report.h"
#include "inspect/inspect.h"

namespace {

using Args = std::vector<std::string>;
using Subcommand = int (*)(const Args&, std::ostream&, std::ostream&);

struct Entry {
  const char* name;
  Subcommand run;
};

// Subcommands that take their own arguments (the name itself excluded).
constexpr Entry kSubcommands[] = {
    {"corpus", &memwal::checker::RunCorpusCommand},
    {"report", &memwal::checker::RunReportCommand},
    {"bench", &memwal::checker::RunBenchCommand},
    {"inspect", &memwal::inspect::RunInspectCommand},
};

}  // namespace

int main(int argc, char** argv) {
  const Args args(argv + 1, argv + argc);
  if (!args.empty()) {
    for (const Entry& entry : kSubcommands) {
      if (args[0] != entry.name) continue;
      return entry.run(Args(args.begin() + 1, args.end()), std::cout,
                       std::cerr);
    }
  }
  if (const auto code =
          memwal::checker::RunGateSubcommand(args, std::cout, std::cerr)) {
    return *code;
  }
  return memwal::checker::RunMemwalCheck(args, std::cout, std::cerr);
}
