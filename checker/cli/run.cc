// The help subcommands of the command line (checker/cli.h). `check` and
// `replay` run in checker/lockstep_cli.cc, on the search engine
// (checker/engine/search.h).
#include "checker/cli/cli.h"

namespace memwal::checker::cli {

int RunCommand(const Command& command, std::ostream& out, std::ostream& err) {
  switch (command.kind) {
    case Command::Kind::kHelp:
      out << MainHelp();
      return kExitOk;
    case Command::Kind::kCheckHelp:
      out << CheckHelp();
      return kExitOk;
    case Command::Kind::kReplayHelp:
      out << ReplayHelp();
      return kExitOk;
    case Command::Kind::kCheck:
    case Command::Kind::kReplay:
      err << "memwal-check: internal error: check and replay run in "
             "lockstep_cli\n";
      return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace memwal::checker::cli
