// memwal-bench: `memwal-check bench` as a stand-alone binary, through the
// command table (checker/cli/commands.h), so --help and errors are bench's.
#include <iostream>
#include <string>
#include <vector>

#include "checker/cli/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args = {"bench"};
  args.insert(args.end(), argv + 1, argv + argc);
  return memwal::checker::cli::RunMemwalCheck(args, std::cout, std::cerr);
}
