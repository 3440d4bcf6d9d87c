// MEMWAL_ASSERT: the always-on assertion for bugs in our own code (the house
// rule: broken internal invariants assert, in every build).
//
// It is on in every build type. It does not look at NDEBUG, so Release builds,
// which define NDEBUG, keep it: a checker that runs on after its own state is
// corrupt can report "no violation" for the wrong reason. On failure it prints
// the expression, file and line to stderr and aborts.
//
// Use it for broken data-structure invariants and unmet preconditions. Expected
// failures (bad input, I/O) are a Status (base/status.h); a protocol invariant
// that fails is a checker Violation, never an assertion.
//
// Base vocabulary lives directly in namespace memwal (not memwal::base), so
// every layer writes memwal::Status, and code inside memwal::model or
// memwal::impl just writes Status.
#ifndef MEMWAL_BASE_ASSERT_H_
#define MEMWAL_BASE_ASSERT_H_

namespace memwal::internal {

// Prints "<file>:<line>: MEMWAL_ASSERT(<expression>) failed" to stderr, then
// aborts.
[[noreturn]] void AssertFail(const char* expression, const char* file,
                             int line) noexcept;

}  // namespace memwal::internal

#define MEMWAL_ASSERT(cond)   \
  (static_cast<bool>(cond)    \
       ? static_cast<void>(0) \
       : ::memwal::internal::AssertFail(#cond, __FILE__, __LINE__))

#endif  // MEMWAL_BASE_ASSERT_H_
