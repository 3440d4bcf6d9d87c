// memwal-check-gate: an interim entry point for the CI gate's subcommands
// (variants, minimize, check --junit/--expect) until main.cc dispatches them
// through RunGateSubcommand (checker/expect.h). Any other command line goes to
// the lockstep command line (RunMemwalCheck).
#include <iostream>
#include <string>
#include <vector>

#include "checker/expect.h"
#include "checker/lockstep_cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (const auto code =
          memwal::checker::RunGateSubcommand(args, std::cout, std::cerr)) {
    return *code;
  }
  return memwal::checker::RunMemwalCheck(args, std::cout, std::cerr);
}
