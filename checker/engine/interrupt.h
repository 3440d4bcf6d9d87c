// SIGINT and SIGTERM as a budget (design.md section 8: every run stops
// cleanly with a partial report): CatchInterrupts() installs handlers that
// only set a flag; the search (checker/engine/search.cc, its budget check), the
// corpus builder and the variants loop poll Interrupted() and stop as they do
// at a time limit, with verdict incomplete and exit 3. A second signal of
// either kind ends the process at once (the default action), so a run that does
// not poll cannot hang the user.
//
// Thread-safety: Interrupted() may be polled from any thread.
#ifndef MEMWAL_CHECKER_ENGINE_INTERRUPT_H_
#define MEMWAL_CHECKER_ENGINE_INTERRUPT_H_

#include <string_view>

namespace memwal::checker::engine {

// Idempotent.
void CatchInterrupts();

// Whether SIGINT or SIGTERM arrived since CatchInterrupts().
bool Interrupted();

// "interrupted by SIGINT" / "... SIGTERM", "" when none arrived.
std::string_view InterruptName();

// For tests: as if a signal had arrived (`on`), or none had.
void SetInterruptedForTesting(bool on);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_INTERRUPT_H_
