// memwal-check: the command-line entry point. Everything but argv handling is
// in cli.h.
#include <iostream>
#include <string>
#include <vector>

#include "checker/cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto command = memwal::checker::ParseCommandLine(args);
  if (!command.ok()) {
    std::cerr << "memwal-check: " << command.status().message() << "\n";
    return memwal::checker::kExitUsage;
  }
  return memwal::checker::RunCommand(*command, std::cout, std::cerr);
}
