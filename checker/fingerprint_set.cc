// Open-addressing fingerprint table (checker/fingerprint_set.h).
#include "checker/fingerprint_set.h"

#include "base/assert.h"

namespace memwal::checker {
namespace {

uint64_t Stored(uint64_t fingerprint, uint64_t zero_stand_in) {
  return fingerprint == 0 ? zero_stand_in : fingerprint;
}

}  // namespace

FingerprintSet::FingerprintSet(std::size_t capacity_max)
    : slots_(1024, 0), capacity_max_(capacity_max) {
  MEMWAL_ASSERT(capacity_max >= 1);
}

std::size_t FingerprintSet::Probe(uint64_t stored) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = static_cast<std::size_t>(stored ^ (stored >> 29)) & mask;
  while (slots_[slot] != 0 && slots_[slot] != stored) slot = (slot + 1) & mask;
  return slot;
}

bool FingerprintSet::Contains(uint64_t fingerprint) const {
  const uint64_t stored = Stored(fingerprint, kZeroStandIn);
  return slots_[Probe(stored)] == stored;
}

bool FingerprintSet::Insert(uint64_t fingerprint) {
  const uint64_t stored = Stored(fingerprint, kZeroStandIn);
  std::size_t slot = Probe(stored);
  if (slots_[slot] == stored) return false;
  MEMWAL_ASSERT(!full());
  if (2 * (size_ + 1) > slots_.size()) {
    Grow();
    slot = Probe(stored);
  }
  slots_[slot] = stored;
  ++size_;
  return true;
}

void FingerprintSet::Grow() {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(old.size() * 2, 0);
  for (uint64_t stored : old) {
    if (stored != 0) slots_[Probe(stored)] = stored;
  }
  MEMWAL_ASSERT((slots_.size() & (slots_.size() - 1)) == 0);
}

}  // namespace memwal::checker
