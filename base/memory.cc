// The memory reserve (base/memory.h).
#include "base/memory.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>

namespace memwal {
namespace {

std::atomic<bool> exhausted{false};
std::mutex reserve_lock;
void* reserve = nullptr;
std::size_t reserve_bytes = 0;

void OnAllocationFailure() {
  exhausted.store(true);
  void* spare = nullptr;
  {
    std::lock_guard<std::mutex> lock(reserve_lock);
    spare = reserve;
    reserve = nullptr;
  }
  if (spare != nullptr) {
    std::free(spare);
    return;  // operator new retries
  }
  throw std::bad_alloc();
}

void Allocate(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(reserve_lock);
  reserve_bytes = bytes;
  if (reserve == nullptr) {
    // Address space, not touched: `ulimit -v` counts it, resident memory
    // does not grow.
    reserve = std::malloc(bytes);
  }
}

}  // namespace

void InstallMemoryReserve(std::size_t bytes) {
  Allocate(bytes);
  std::set_new_handler(&OnAllocationFailure);
}

bool MemoryExhausted() { return exhausted.load(std::memory_order_relaxed); }

bool CatchMemoryExhaustion(const std::function<void()>& body) {
  try {
    body();
    return true;
  } catch (const std::bad_alloc&) {
    exhausted.store(true);
    return false;
  }
}

void ResetMemoryExhaustionForTesting() {
  exhausted.store(false);
  Allocate(reserve_bytes == 0 ? kMemoryReserveBytes : reserve_bytes);
}

void SimulateMemoryExhaustionForTesting() {
  exhausted.store(true);
  std::lock_guard<std::mutex> lock(reserve_lock);
  std::free(reserve);
  reserve = nullptr;
}

}  // namespace memwal
