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
// abort, exit 134, this replaces).
//
// Thread-safety: all functions may be called from any thread.
#ifndef MEMWAL_BASE_MEMORY_H_
#define MEMWAL_BASE_MEMORY_H_

#include <cstddef>
#include <functional>

namespace memwal {

inline constexpr std::size_t kMemoryReserveBytes = std::size_t{32} << 20;

// Allocates the reserve (again, after a RestoreMemoryReserve) and installs the
// handler. Idempotent.
void InstallMemoryReserve(std::size_t bytes = kMemoryReserveBytes);

// Whether an allocation failed since the reserve was installed.
bool MemoryExhausted();

// Runs `body`; a std::bad_alloc escaping it is caught here, raises
// MemoryExhausted(), and makes this return false (true when `body` returned).
// The only catch of project code: at a thread's outermost frame.
bool CatchMemoryExhaustion(const std::function<void()>& body);

// For tests: lowers the flag and allocates the reserve again.
void ResetMemoryExhaustionForTesting();
// For tests: as if an allocation had failed (the reserve is freed).
void SimulateMemoryExhaustionForTesting();

}  // namespace memwal

#endif  // MEMWAL_BASE_MEMORY_H_
