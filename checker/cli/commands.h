// The command table of memwal-check: every subcommand, its flags, its help
// text and its runner, declared once. main.cc hands argv to RunMemwalCheck,
// which finds the command here, answers --help from the table (the options
// listed are the very table the command parses with, so none can be left
// out), and runs the command.
//
// A command's file provides three things, named in its row of Commands():
//   std::string XAbout();              what it does, its operands, exit codes
//   std::vector<Flag> XFlagTable();    its flags with their help (HelpTable)
//   int RunXCommand(args, out, err);   the run; `args` exclude the name
// Errors go to `err` as one line, "memwal-check NAME: message" (Fail).
#ifndef MEMWAL_CHECKER_CLI_COMMANDS_H_
#define MEMWAL_CHECKER_CLI_COMMANDS_H_

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/flags.h"
#include "base/status.h"

namespace memwal::checker::cli {

using Args = std::vector<std::string>;

struct CommandSpec {
  std::string_view name;      // "check"
  std::string_view operands;  // the usage line after the name: "TRACE"
  std::string_view summary;   // one line for memwal-check --help
  std::string (*about)();     // printed between usage and options
  std::vector<Flag> (*flags)();
  int (*run)(const Args& args, std::ostream& out, std::ostream& err);
};

// Every subcommand, in the order memwal-check --help lists them.
const std::vector<CommandSpec>& Commands();

// The row named `name`, or nullptr.
const CommandSpec* FindCommand(std::string_view name);

std::string MainHelp();
// `memwal-check NAME --help`: usage, about, and every flag of the table.
std::string CommandHelp(const CommandSpec& command);

// The whole command line (argv without the program name). Returns the exit
// code; results go to `out`, diagnostics to `err`.
int RunMemwalCheck(const Args& args, std::ostream& out, std::ostream& err);

// Writes "memwal-check COMMAND: MESSAGE" to `err`; returns `code`.
int Fail(std::ostream& err, std::string_view command, std::string_view message,
         int code = 2);
int Fail(std::ostream& err, std::string_view command, const Status& status,
         int code = 2);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_COMMANDS_H_
