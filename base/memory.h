// Running out of memory, on any thread, as a budget (design.md section 8:
// every run stops cleanly with a partial report; issue 42).
//
// Project code does not throw, and an allocation can fail in any of thousands
// of places (a seen set growing, a World decoded, a string appended), on any
// of the search's threads. So the process keeps a reserve:
//
//   1. InstallMemoryReserve() (once, in main) allocates a reserve of address
//      space and installs a new-handler.
//   2. The first allocation that fails, on whatever thread, enters the
//      handler, which frees the reserve and raises the flag MemoryExhausted();
//      the allocation is retried and succeeds from the freed reserve.
//   3. Every budget check (the search, the level engine, liveness, corpus,
//      variants) polls MemoryExhausted() as it polls an interrupt and stops
//      with the reason "memory-limit": exit 3 and the partial report, made
//      from the memory the reserve gave back.
//   4. An allocation that fails again after that (the reserve spent before a
//      budget check came) makes the handler throw std::bad_alloc. The one
//      place it is caught is a thread's outermost frame: CatchMemoryExhaustion
//      (used by every worker thread and by main) records it, so a worker's
//      job ends early, the flag stays raised, and the search stops at its next
//      budget check; in main it ends the process with exit 3 and
//      "memwal-check: memory-limit: ..." when no report could be made.
//
// An uncaught exception on a worker thread would call std::terminate (the
// abort, exit 134, this replaces). So would one thrown where the exception
// cannot pass: a library's noexcept function or destructor that allocates
// (nlohmann::json's destructor does, to free a deep document without
// recursion). So InstallMemoryReserve also installs a terminate handler: when
// std::terminate is called after memory ran out, it writes the partial report
// (WriteMemoryLimitEnd) and ends the process with exit 3 (std::_Exit: no
// destructor runs, nothing more is allocated); any other terminate goes to
// the previous handler (the abort with its message).
//
// Thread-safety: all functions may be called from any thread.
#ifndef MEMWAL_BASE_MEMORY_H_
#define MEMWAL_BASE_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string_view>

namespace memwal {

inline constexpr std::size_t kMemoryReserveBytes = std::size_t{32} << 20;

// Allocates the reserve (again, after a RestoreMemoryReserve) and installs the
// handler. Idempotent.
void InstallMemoryReserve(std::size_t bytes = kMemoryReserveBytes);

// Whether an allocation failed since the reserve was installed.
bool MemoryExhausted();

// Whether InstallMemoryReserve ran (main's first step; before it, during
// static initialization, running out of memory cannot be reported).
bool MemoryReserveInstalled();

// Runs `body`; a std::bad_alloc escaping it is caught here, raises
// MemoryExhausted(), and makes this return false (true when `body` returned).
// The only catch of project code: at a thread's outermost frame.
bool CatchMemoryExhaustion(const std::function<void()>& body);

// The partial report: what the running command has done so far, kept in a
// fixed record that needs no allocation to update or to print, so that main
// can report it when memory runs out outside a search's budget checks (while
// a report is written, in corpus, replay, validate, compare, variants...):
//
//   memwal-check check: out of memory (memory-limit); partial report:
//   verdict: memory-limit
//   states: 1234
//   note: found NoRowIsLost at step 7; its trace was not written
//
// or, when the command was asked for --json, one line
//   {"command":"check","verdict":"memory-limit","stopped_by":"memory-limit",
//    "partial":true,"counts":{"states":1234},"note":"..."}
// A command sets the counts as it goes (each a name that is a string literal
// and a number; at most kPartialCounts names, later ones are dropped).
inline constexpr int kPartialCounts = 12;
// Starts the record for `command` (copied; the counts and note are cleared).
void BeginPartialReport(std::string_view command, bool json);
void SetPartialCount(const char* name, std::uint64_t value);
// One line (copied, at most 255 bytes; control bytes become spaces).
void SetPartialNote(std::string_view note);
// Writes the record to `out` (main's standard output) without allocating.
void WritePartialReport(std::FILE* out);
// The end of a run that met the memory limit: flushes standard output (what
// the command printed stays), writes the partial report to it and one line
// to standard error ("cut off": the command did not finish; otherwise it
// finished on the reserve). Allocates nothing.
void WriteMemoryLimitEnd(bool cut_off);

// For tests: lowers the flag and allocates the reserve again.
void ResetMemoryExhaustionForTesting();

}  // namespace memwal

#endif  // MEMWAL_BASE_MEMORY_H_
