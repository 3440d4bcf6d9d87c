// memwal-check-report: an interim binary for `memwal-check report ...` until
// main.cc dispatches the report subcommand (see checker/report.h).
#include <iostream>
#include <string>
#include <vector>

#include "checker/report.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "report") args.erase(args.begin());
  return memwal::checker::RunReportCommand(args, std::cout, std::cerr);
}
