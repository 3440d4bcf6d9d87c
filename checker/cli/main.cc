// memwal-check: the command-line entry point. The subcommands, their flags,
// help and runners are one table (checker/cli/commands.h); this file only
// hands argv to it. Whatever the subcommand, standard output must have taken
// everything it printed (a full disk or /dev/full is exit 2, not a silent 0),
// and running out of memory on any thread is the memory-limit budget
// (base/memory.h): exit 3 with the partial report, or, when not even that
// could be made, exit 3 with one line; never an abort.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "base/memory.h"
#include "base/output_file.h"
#include "checker/cli/commands.h"

// jemalloc's options for this binary (read at its start; other allocators
// ignore the symbol): larger per-thread caches of freed blocks. A lockstep
// step frees whole decoded protobuf trees at once, and with the default
// bin sizes about one free in 250 overflowed its bin and flushed it to the
// arena (jemalloc's flush was 4.4% of a lockstep run's instructions).
// callgrind, check --preset small --no-liveness --threads 1 --max-states
// 15000 --mode dfs: 1,913,485,114 instructions without, 1,864,222,781 with;
// peak resident set of the whole small dfs run unchanged (37.8 MB).
extern "C" {
// NOLINTNEXTLINE: the name and type jemalloc looks up.
const char* malloc_conf =
    "lg_tcache_nslots_mul:4,tcache_nslots_small_max:8000,"
    "tcache_nslots_small_min:200,tcache_nslots_large:200";
}

namespace {

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
// A --coverage build (./memwal coverage, MEMWAL_COVERAGE) exits normally too:
// gcov writes its counts from an exit handler that quick_exit skips.
#if defined(MEMWAL_LEAK_CHECKED) || defined(MEMWAL_COVERAGE)
  std::exit(code);
#else
  std::quick_exit(code);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // A file size limit (ulimit -f) makes a write fail with EFBIG, reported as
  // any full disk is, instead of killing the process halfway through a file.
  std::signal(SIGXFSZ, SIG_IGN);
  memwal::InstallMemoryReserve();
  int code = 3;
  // The main thread's outermost frame: the standard library's allocation
  // failure, which project code cannot turn into a Status at every `new`,
  // once the reserve is spent. Whatever the command had printed stays; the
  // partial report (base/memory.h) follows it.
  const bool finished = memwal::CatchMemoryExhaustion([&] {
    code = memwal::checker::cli::RunMemwalCheck(
        std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
  });
  // Memory ran out: the command was cut off (the reserve was spent), or it
  // finished on the reserve (its report is whole, but the run met the memory
  // limit: the verdict is memory-limit, exit 3). A command that stopped at its
  // own budget check (exit 3) printed its own memory-limit report; a refused
  // input (exit 2) stays refused.
  if (!finished || (memwal::MemoryExhausted() && code != 3 && code != 2)) {
    std::cout.clear();
    memwal::WriteMemoryLimitEnd(!finished);
    code = 3;
  }
  code = Finish(code);
  Exit(code);
}
