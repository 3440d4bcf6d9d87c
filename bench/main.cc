// memwal-bench: `memwal-check bench` as a stand-alone binary (checker/bench.h).
#include <iostream>
#include <string>
#include <vector>

#include "checker/cli/bench.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return memwal::checker::cli::RunBenchCommand(args, std::cout, std::cerr);
}
