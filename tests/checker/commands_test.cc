// The command table (checker/cli/commands.h): every command's --help lists
// every flag of the table it parses with, errors carry one prefix, and no
// `seed=` line is written outside the report.
#include "checker/cli/commands.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace memwal::checker {
namespace {

struct Ran {
  int code;
  std::string out;
  std::string err;
};

Ran RunCli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::RunMemwalCheck(args, out, err);
  return Ran{code, out.str(), err.str()};
}

// The flag names the options section of `help` lists, in order: the first
// word of every line that starts with "  --".
std::vector<std::string> ListedFlags(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream lines(help.substr(help.find("\noptions:\n")));
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  --")) continue;
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

TEST(CommandTable, EveryCommandsHelpListsExactlyTheFlagsOfItsTable) {
  for (const cli::CommandSpec& command : cli::Commands()) {
    SCOPED_TRACE(std::string(command.name));
    const Ran help = RunCli({std::string(command.name), "--help"});
    EXPECT_EQ(help.code, 0);
    EXPECT_EQ(help.err, "");
    std::vector<std::string> table;
    for (const Flag& flag : command.flags()) {
      table.push_back(flag.name);
      EXPECT_FALSE(flag.help.empty()) << flag.name << " has no help text";
    }
    EXPECT_EQ(ListedFlags(help.out), table);
  }
}

TEST(CommandTable, CheckHelpListsTheGateFlagsAndTheFence) {
  const Ran help = RunCli({"check", "--help"});
  for (const char* flag : {"--junit", "--expect", "--fence", "--no-minimize",
                           "--checkpoint", "--resume"}) {
    EXPECT_NE(help.out.find(std::string("\n  ") + flag + " "),
              std::string::npos)
        << flag;
  }
}

TEST(CommandTable, MainHelpListsEveryCommand) {
  const Ran help = RunCli({"--help"});
  EXPECT_EQ(help.code, 0);
  for (const cli::CommandSpec& command : cli::Commands()) {
    EXPECT_NE(help.out.find("\n  " + std::string(command.name) + " "),
              std::string::npos)
        << command.name;
  }
}

TEST(CommandTable, HelpAsAFlagsValueIsTheValueNotARequestForHelp) {
  // --out takes the next argument whatever it looks like.
  const Ran ran = RunCli({"minimize", "--out", "--help"});
  EXPECT_EQ(ran.code, 2);
  EXPECT_EQ(ran.out, "");
}

TEST(CommandTable, EveryCommandsUsageErrorIsOneLineWithOnePrefix) {
  for (const cli::CommandSpec& command : cli::Commands()) {
    SCOPED_TRACE(std::string(command.name));
    const std::vector<std::string> args =
        command.name == "compare"
            ? std::vector<std::string>{"compare", "default", "default",
                                       "--no-such-flag"}
            : std::vector<std::string>{std::string(command.name),
                                       "--no-such-flag"};
    const Ran ran = RunCli(args);
    EXPECT_EQ(ran.code, 2);
    const std::string prefix =
        "memwal-check " + std::string(command.name) + ": ";
    EXPECT_TRUE(ran.err.starts_with(prefix)) << ran.err;
    EXPECT_EQ(ran.err.find(std::string(command.name) + ": ", prefix.size()),
              std::string::npos)
        << "doubled prefix: " << ran.err;
    EXPECT_NE(ran.err.find("unknown option '--no-such-flag'"),
              std::string::npos)
        << ran.err;
    EXPECT_EQ(ran.err.find('\n'), ran.err.size() - 1) << ran.err;
  }
}

TEST(CommandTable, AnUnknownCommandIsOneLine) {
  const Ran ran = RunCli({"chekc"});
  EXPECT_EQ(ran.code, 2);
  EXPECT_EQ(
      ran.err,
      "memwal-check: unknown command 'chekc' (see memwal-check --help)\n");
}

TEST(CommandTable, TheSeedIsInTheReportAndNotOnStandardError) {
  const Ran ran =
      RunCli({"check", "--model-only", "--preset", "tiny", "--no-liveness",
              "--seed", "7", "--max-states", "50"});
  EXPECT_EQ(ran.code, 3);
  EXPECT_EQ(ran.err.find("seed="), std::string::npos) << ran.err;
  EXPECT_NE(ran.out.find("seed=7"), std::string::npos) << ran.out;
}

}  // namespace
}  // namespace memwal::checker
