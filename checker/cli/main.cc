// memwal-check: the command-line entry point. It only picks the subcommand;
// each lives in its own file:
//   check, replay          checker/lockstep_cli.h (lockstep by default)
//   check --junit/--expect, variants, minimize
//                          checker/expect.h (the CI gate)
//   compare                checker/compare.h
//   corpus                 checker/corpus.h
//   report                 checker/report.h
//   bench                  checker/bench.h (bench/)
//   inspect                inspect/inspect.h
// Whatever the subcommand, standard output must have taken everything it
// printed (a full disk or /dev/full is exit 2, not a silent 0), and running
// out of memory is exit 2 with one line, not an abort.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "base/output_file.h"
#include "checker/cli/bench.h"
#include "checker/cli/check.h"
#include "checker/cli/compare.h"
#include "checker/cli/corpus.h"
#include "checker/cli/expect.h"
#include "checker/report/report.h"
#include "checker/validate/validate.h"
#include "inspect/inspect.h"

namespace {

using Args = std::vector<std::string>;
using Subcommand = int (*)(const Args&, std::ostream&, std::ostream&);

struct Entry {
  const char* name;
  Subcommand run;
};

// Subcommands that take their own arguments (the name itself excluded).
constexpr Entry kSubcommands[] = {
    {"compare", &memwal::checker::cli::RunCompareCommand},
    {"corpus", &memwal::checker::cli::RunCorpusCommand},
    {"report", &memwal::checker::report::RunReportCommand},
    {"bench", &memwal::checker::cli::RunBenchCommand},
    {"inspect", &memwal::inspect::RunInspectCommand},
    {"validate", &memwal::checker::validate::RunValidateCommand},
};

int Run(const Args& args) {
  if (!args.empty()) {
    for (const Entry& entry : kSubcommands) {
      if (args[0] != entry.name) continue;
      return entry.run(Args(args.begin() + 1, args.end()), std::cout,
                       std::cerr);
    }
  }
  if (const auto code =
          memwal::checker::cli::RunGateSubcommand(args, std::cout, std::cerr)) {
    return *code;
  }
  return memwal::checker::cli::RunMemwalCheck(args, std::cout, std::cerr);
}

// `code`, or 2 when standard output lost something.
int Finish(int code) {
  std::cout.flush();
  const memwal::Status flushed = memwal::FlushOutput(stdout, "standard output");
  if (std::cout.good() && flushed.ok()) return code;
  std::cerr << "memwal-check: "
            << (flushed.ok() ? "cannot write standard output"
                             : flushed.message())
            << "\n";
  return 2;
}

#if defined(__SANITIZE_ADDRESS__)
#define MEMWAL_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMWAL_LEAK_CHECKED 1
#endif
#endif

// Ends the process once everything is written. The per-thread decode caches
// hold the decodings of every World a search made; freeing them one by one at
// exit took seconds after a large run, for a process that is ending anyway.
// std::quick_exit runs only the at_quick_exit handlers (Open MPI's finalize,
// checker/engine/comm.cc). A sanitized build exits normally, so that its leak
// check runs.
[[noreturn]] void Exit(int code) {
  std::fflush(nullptr);
#ifdef MEMWAL_LEAK_CHECKED
  std::exit(code);
#else
  std::quick_exit(code);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // The one place an exception is caught: the standard library's allocation
  // failure, which project code cannot turn into a Status at every `new`.
  int code = 2;
  try {
    code = Finish(Run(Args(argv + 1, argv + argc)));
  } catch (const std::bad_alloc&) {
    std::fputs("memwal-check: out of memory\n", stderr);
  }
  Exit(code);
}
