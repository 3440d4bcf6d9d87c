// Interrupts as a budget (checker/engine/interrupt.h).
#include "checker/engine/interrupt.h"

#include <signal.h>

#include <atomic>

namespace memwal::checker::engine {
namespace {

// A lock-free atomic int is async-signal-safe to store from a handler.
std::atomic<int> caught{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnInterrupt(int signal_number) {
  caught.store(signal_number, std::memory_order_relaxed);
  // The next one takes the default action: ends the process.
  ::signal(signal_number, SIG_DFL);
}

}  // namespace

void CatchInterrupts() {
  struct sigaction action = {};
  action.sa_handler = &OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

bool Interrupted() { return caught.load(std::memory_order_relaxed) != 0; }

std::string_view InterruptName() {
  switch (caught.load(std::memory_order_relaxed)) {
    case 0:
      return "";
    case SIGINT:
      return "interrupted by SIGINT";
    case SIGTERM:
      return "interrupted by SIGTERM";
    default:
      return "interrupted";
  }
}

void SetInterruptedForTesting(bool on) {
  caught.store(on ? SIGINT : 0, std::memory_order_relaxed);
}

}  // namespace memwal::checker::engine
