// Lock-free fingerprint set (checker/parallel_set.h).
#include "checker/parallel_set.h"

#include "base/assert.h"

namespace memwal::checker {
namespace {

std::size_t SlotsFor(std::size_t capacity) {
  std::size_t slots = 1024;
  while (slots < 2 * capacity) slots *= 2;
  return slots;
}

}  // namespace

ConcurrentFingerprintSet::ConcurrentFingerprintSet(std::size_t capacity) {
  Reserve(capacity);
}

bool ConcurrentFingerprintSet::Insert(uint64_t fingerprint) {
  const uint64_t stored = Stored(fingerprint);
  const std::size_t mask = slot_count_ - 1;
  for (std::size_t slot = Home(stored);; slot = (slot + 1) & mask) {
    uint64_t seen = slots_[slot].load(std::memory_order_acquire);
    if (seen == stored) return false;
    if (seen != 0) continue;
    // Claim the slot only while the set has room: size_ counts claims.
    std::size_t size = size_.load(std::memory_order_relaxed);
    do {
      if (size >= capacity_) return false;
    } while (!size_.compare_exchange_weak(size, size + 1,
                                          std::memory_order_relaxed));
    if (slots_[slot].compare_exchange_strong(seen, stored,
                                             std::memory_order_acq_rel)) {
      return true;
    }
    size_.fetch_sub(1, std::memory_order_relaxed);
    if (seen == stored) return false;  // another thread inserted it here
  }
}

bool ConcurrentFingerprintSet::Contains(uint64_t fingerprint) const {
  const uint64_t stored = Stored(fingerprint);
  const std::size_t mask = slot_count_ - 1;
  for (std::size_t slot = Home(stored);; slot = (slot + 1) & mask) {
    const uint64_t seen = slots_[slot].load(std::memory_order_acquire);
    if (seen == stored) return true;
    if (seen == 0) return false;
  }
}

void ConcurrentFingerprintSet::Reserve(std::size_t capacity) {
  if (capacity <= capacity_ && slots_ != nullptr) return;
  const std::size_t slot_count = SlotsFor(capacity);
  auto slots = std::make_unique<std::atomic<uint64_t>[]>(slot_count);
  for (std::size_t k = 0; k < slot_count; ++k) slots[k].store(0);
  std::unique_ptr<std::atomic<uint64_t>[]> old = std::move(slots_);
  const std::size_t old_count = slot_count_;
  slots_ = std::move(slots);
  slot_count_ = slot_count;
  capacity_ = capacity;
  const std::size_t mask = slot_count_ - 1;
  for (std::size_t k = 0; k < old_count; ++k) {
    const uint64_t stored = old[k].load(std::memory_order_relaxed);
    if (stored == 0) continue;
    std::size_t slot = Home(stored);
    while (slots_[slot].load(std::memory_order_relaxed) != 0)
      slot = (slot + 1) & mask;
    slots_[slot].store(stored, std::memory_order_relaxed);
  }
  MEMWAL_ASSERT((slot_count_ & mask) == 0);
}

}  // namespace memwal::checker
