// memwal-check-starved: memwal-check (the same main.cc and libraries) whose
// allocations start to fail at a chosen moment, for tests/faults/memory.sh
// (issue 42: memory exhaustion anywhere stops the run with exit 3 and the
// partial report). A `ulimit -v` lands wherever the address space happens to
// run out; this lands at the Nth allocation, the same one in every run with
// one thread, so a test can starve a command early, midway and late.
//
// Allocations are counted from the moment main installs the memory reserve.
//   MEMWAL_STARVE_AFTER=N   allocations 1..N succeed; from N+1 on every
//                           allocation fails until the memory reserve is
//                           given back (base/memory.h: the new-handler frees
//                           it and raises the flag), then MEMWAL_STARVE_GRACE
//                           more succeed (default 2000, what the reserve
//                           would hold), then every one fails for good, as
//                           when address space is gone.
//   MEMWAL_STARVE_COUNT=1   counts only; prints "allocations: N" to standard
//                           error at exit (to choose N for a command).
//
// Only this binary replaces operator new; memwal-check itself does not.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "base/memory.h"

namespace {

std::atomic<unsigned long long> allocations{0};

// ULLONG_MAX: no starving.
std::atomic<unsigned long long> starve_after{~0ULL};
std::atomic<unsigned long long> grace{0};

unsigned long long FromEnvironment(const char* name,
                                   unsigned long long otherwise) {
  const char* text = std::getenv(name);  // getenv does not allocate
  if (text == nullptr || *text == '\0') return otherwise;
  return std::strtoull(text, nullptr, 10);
}

bool Allowed() {
  // Counted from main's first step on (memory that runs out during static
  // initialization is not the tool's to report; the settings below are read
  // by then).
  if (!memwal::MemoryReserveInstalled()) return true;
  const unsigned long long count = ++allocations;
  const unsigned long long after = starve_after.load();
  if (count <= after) return true;
  // The reserve is given back (and the flag raised) by the new-handler the
  // first time an allocation fails; what it held serves `grace` more.
  return memwal::MemoryExhausted() && count <= after + grace.load();
}

void ReportCount() {
  char line[64];
  const int n = std::snprintf(line, sizeof(line), "allocations: %llu\n",
                              allocations.load());
  if (n > 0) (void)!::write(2, line, static_cast<std::size_t>(n));
}

// Reads the settings once, at static initialization, and removes them from
// the environment: the processes this one starts (the gate's entries) run
// unstarved, so that what a test sees is this process running out.
struct Settings {
  Settings() {
    starve_after.store(FromEnvironment("MEMWAL_STARVE_AFTER", ~0ULL));
    grace.store(FromEnvironment("MEMWAL_STARVE_GRACE", 2000));
    if (std::getenv("MEMWAL_STARVE_COUNT") != nullptr) {
      std::at_quick_exit(&ReportCount);
      std::atexit(&ReportCount);
    }
    ::unsetenv("MEMWAL_STARVE_AFTER");
    ::unsetenv("MEMWAL_STARVE_GRACE");
    ::unsetenv("MEMWAL_STARVE_COUNT");
  }
} settings;

}  // namespace

void* operator new(std::size_t size) {
  for (;;) {
    if (Allowed()) {
      if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    }
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* operator new[](std::size_t size) { return ::operator new(size); }

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
