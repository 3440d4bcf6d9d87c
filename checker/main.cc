// memwal-check: the command-line entry point. Everything but argv handling is
// in lockstep_cli.h (check and replay, in lockstep by default) and cli.h.
#include <iostream>
#include <string>
#include <vector>

#include "checker/lockstep_cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return memwal::checker::RunMemwalCheck(args, std::cout, std::cerr);
}
