// memwal-check: the command-line entry point. Everything but argv handling is
// in lockstep_cli.h (check and replay, in lockstep by default) and cli.h.
#include <iostream>
#include <string>
#include <vector>

#include "checker/corpus.h"
#include "checker/lockstep_cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "corpus") {
    return memwal::checker::RunCorpusCommand(
        std::vector<std::string>(args.begin() + 1, args.end()), std::cout,
        std::cerr);
  }
  return memwal::checker::RunMemwalCheck(args, std::cout, std::cerr);
}
