// memwal-check-lockstep: the command line with the lockstep options, for the
// conformance tests and measurements (the same entry point checker/main.cc
// uses).
#include <iostream>
#include <string>
#include <vector>

#include "checker/lockstep_cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return memwal::checker::RunMemwalCheck(args, std::cout, std::cerr);
}
