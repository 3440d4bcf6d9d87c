// The visited-state set (checker/engine/seen_set.h).
#include "checker/engine/seen_set.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "base/assert.h"

namespace memwal::checker::engine {
namespace {

constexpr int kStoredBits = 40;
constexpr std::size_t kSlotBytes = 5;
constexpr uint64_t kStoredMask = (uint64_t{1} << kStoredBits) - 1;

uint64_t LoadSlot(const uint8_t* slot) {
  uint64_t value = 0;
  std::memcpy(&value, slot, kSlotBytes);  // little-endian machines only
  return value;
}

void StoreSlot(uint8_t* slot, uint64_t value) {
  std::memcpy(slot, &value, kSlotBytes);
}

// Exact mode arena blocks.
constexpr std::size_t kBlockBytes = std::size_t{4} << 20;

// An exact-mode slot: 1 + the entry's arena offset in the low 40 bits (0:
// empty), the fingerprint's top 24 bits above them, so that a probe passes
// most other entries without reading the arena.
constexpr int kOffsetBits = 40;
constexpr uint64_t kOffsetMask = (uint64_t{1} << kOffsetBits) - 1;
uint64_t TagOf(uint64_t fingerprint) { return fingerprint >> kOffsetBits; }

}  // namespace

// One open-addressing table of 40-bit values (0: empty).
struct SeenSet::Partition {
  std::vector<uint8_t> slots;
  uint32_t capacity = 0;
  uint32_t count = 0;

  uint32_t Home(uint64_t stored) const {
    return static_cast<uint32_t>((stored * capacity) >> kStoredBits);
  }
  uint32_t Distance(uint32_t position, uint64_t stored) const {
    const uint32_t home = Home(stored);
    return position >= home ? position - home : position + capacity - home;
  }
  uint64_t At(uint32_t position) const {
    return LoadSlot(&slots[std::size_t{position} * kSlotBytes]);
  }
  void Put(uint32_t position, uint64_t stored) {
    StoreSlot(&slots[std::size_t{position} * kSlotBytes], stored);
  }

  bool Contains(uint64_t stored) const {
    if (capacity == 0) return false;
    uint32_t position = Home(stored);
    for (uint32_t distance = 0;; ++distance) {
      const uint64_t here = At(position);
      if (here == stored) return true;
      if (here == 0 || Distance(position, here) < distance) return false;
      position = position + 1 == capacity ? 0 : position + 1;
    }
  }

  // Robin Hood: a value that travelled further takes the slot of one that
  // travelled less. REQUIRES: a free slot.
  bool Insert(uint64_t stored) {
    uint32_t position = Home(stored);
    uint32_t distance = 0;
    bool placed_new = false;
    for (;;) {
      const uint64_t here = At(position);
      if (here == 0) {
        Put(position, stored);
        ++count;
        return true;
      }
      if (!placed_new && here == stored) return false;
      const uint32_t here_distance = Distance(position, here);
      if (here_distance < distance) {
        if (!placed_new) {
          // Not present: a present value would have been met before a
          // slot whose value travelled less.
          placed_new = true;
        }
        Put(position, stored);
        stored = here;
        distance = here_distance;
      }
      position = position + 1 == capacity ? 0 : position + 1;
      ++distance;
    }
  }

  // `first`: the capacity of the first table, staggered over partitions
  // (SeenSet::SeenSet) so that they do not all grow at the same time.
  void Grow(uint32_t first) {
    std::vector<uint8_t> old;
    old.swap(slots);
    const uint32_t old_capacity = capacity;
    capacity = old_capacity == 0 ? first : old_capacity + old_capacity / 2;
    slots.assign(std::size_t{capacity} * kSlotBytes, 0);
    count = 0;
    for (uint32_t k = 0; k < old_capacity; ++k) {
      const uint64_t stored = LoadSlot(&old[std::size_t{k} * kSlotBytes]);
      if (stored != 0) Insert(stored);
    }
  }

  bool InsertGrowing(uint64_t stored, uint32_t first) {
    // At most 90% full after the insert; Insert itself finds a present value.
    if (uint64_t{count + 1} * 10 > uint64_t{capacity} * 9) {
      if (Contains(stored)) return false;
      Grow(first);
    }
    return Insert(stored);
  }
};

std::string_view Name(Storage storage) {
  return storage == Storage::kFingerprint ? "fingerprint" : "exact";
}

SeenSet::SeenSet(Storage storage) : storage_(storage) {
  if (storage_ == Storage::kFingerprint) {
    partitions_ = std::make_unique<Partition[]>(kPartitions);
    locks_ = std::make_unique<std::mutex[]>(kPartitions);
  }
}

SeenSet::~SeenSet() = default;

// Partition p starts at 16 * 1.5^(p / 4096) slots: growing by half each time,
// the partitions' capacities then stay spread evenly over one growth step, so
// the table as a whole is about 74% full at any size (not between 60% and 90%
// as it would be if every partition grew at once).
uint32_t SeenSet::FirstCapacity(std::size_t partition) {
  static const std::array<uint32_t, kPartitions> capacities = [] {
    std::array<uint32_t, kPartitions> out{};
    for (std::size_t p = 0; p < kPartitions; ++p) {
      out[p] = static_cast<uint32_t>(std::lround(
          16.0 * std::pow(1.5, static_cast<double>(p) /
                                   static_cast<double>(kPartitions))));
    }
    return out;
  }();
  return capacities[partition];
}

uint64_t SeenSet::StoredBits(uint64_t fingerprint) {
  const uint64_t stored =
      (fingerprint >> (64 - kPartitionBits - kStoredBits)) & kStoredMask;
  return stored == 0 ? 1 : stored;
}

bool SeenSet::InsertFingerprint(uint64_t fingerprint) {
  const std::size_t partition = fingerprint >> (64 - kPartitionBits);
  const bool added = partitions_[partition].InsertGrowing(
      StoredBits(fingerprint), FirstCapacity(partition));
  if (added) ++size_;
  return added;
}

bool SeenSet::ContainsFingerprint(uint64_t fingerprint) const {
  const std::size_t partition = fingerprint >> (64 - kPartitionBits);
  return partitions_[partition].Contains(StoredBits(fingerprint));
}

// The slot holding the entry equal to (fingerprint, packed), or the empty
// slot where it would go; *found tells which.
std::size_t SeenSet::FindExact(uint64_t fingerprint, std::string_view packed,
                               bool* found) const {
  const std::size_t mask = exact_slots_.size() - 1;
  for (std::size_t k = fingerprint & mask;; k = (k + 1) & mask) {
    const uint64_t slot = exact_slots_[k];
    if (slot == 0) {
      *found = false;
      return k;
    }
    if ((slot >> kOffsetBits) != TagOf(fingerprint)) continue;
    const std::size_t offset = (slot & kOffsetMask) - 1;
    const char* at = blocks_[offset / kBlockBytes].get() + offset % kBlockBytes;
    uint64_t stored = 0;
    uint16_t length = 0;
    std::memcpy(&stored, at, 8);
    std::memcpy(&length, at + 8, 2);
    if (stored == fingerprint && length == packed.size() &&
        std::memcmp(at + 10, packed.data(), length) == 0) {
      *found = true;
      return k;
    }
  }
}

// Doubles the slot table. The entries are read in arena order, block by
// block (sequential reads the prefetcher follows; walking the old slots read
// the arena at random, one entry per slot).
void SeenSet::GrowExact() {
  exact_slots_.assign(exact_slots_.empty() ? 1024 : 2 * exact_slots_.size(), 0);
  const std::size_t mask = exact_slots_.size() - 1;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const char* block = blocks_[b].get();
    const std::size_t used =
        b + 1 == blocks_.size() ? block_used_ : block_fills_[b];
    for (std::size_t at = 0; at < used;) {
      uint64_t fingerprint = 0;
      uint16_t length = 0;
      std::memcpy(&fingerprint, block + at, 8);
      std::memcpy(&length, block + at + 8, 2);
      std::size_t k = fingerprint & mask;
      while (exact_slots_[k] != 0) k = (k + 1) & mask;
      exact_slots_[k] =
          (TagOf(fingerprint) << kOffsetBits) | (b * kBlockBytes + at + 1);
      at += std::size_t{length} + 10;
    }
  }
}

bool SeenSet::InsertExact(uint64_t fingerprint, std::string_view packed) {
  MEMWAL_ASSERT(packed.size() + 10 <= kBlockBytes && packed.size() < 65536);
  if ((size_ + 1) * 2 > exact_slots_.size()) GrowExact();
  bool found = false;
  const std::size_t k = FindExact(fingerprint, packed, &found);
  if (found) return false;
  const std::size_t need = packed.size() + 10;
  if (blocks_.empty() || block_used_ + need > kBlockBytes) {
    if (!blocks_.empty()) block_fills_.push_back(block_used_);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockBytes));
    block_used_ = 0;
  }
  char* at = blocks_.back().get() + block_used_;
  const uint16_t length = static_cast<uint16_t>(packed.size());
  std::memcpy(at, &fingerprint, 8);
  std::memcpy(at + 8, &length, 2);
  std::memcpy(at + 10, packed.data(), packed.size());
  const uint64_t offset = (blocks_.size() - 1) * kBlockBytes + block_used_;
  MEMWAL_ASSERT(offset + 1 <= kOffsetMask);
  exact_slots_[k] = (TagOf(fingerprint) << kOffsetBits) | (offset + 1);
  block_used_ += need;
  ++size_;
  return true;
}

bool SeenSet::ContainsExact(uint64_t fingerprint,
                            std::string_view packed) const {
  if (exact_slots_.empty()) return false;
  bool found = false;
  FindExact(fingerprint, packed, &found);
  return found;
}

bool SeenSet::Insert(uint64_t fingerprint, std::string_view packed) {
  return storage_ == Storage::kFingerprint ? InsertFingerprint(fingerprint)
                                           : InsertExact(fingerprint, packed);
}

bool SeenSet::InsertShared(uint64_t fingerprint, std::string_view packed) {
  if (storage_ == Storage::kExact) {
    std::lock_guard<std::mutex> lock(exact_lock_);
    return InsertExact(fingerprint, packed);
  }
  const std::size_t partition = fingerprint >> (64 - kPartitionBits);
  bool added = false;
  {
    std::lock_guard<std::mutex> lock(locks_[partition]);
    added = partitions_[partition].InsertGrowing(StoredBits(fingerprint),
                                                 FirstCapacity(partition));
  }
  if (added) shared_size_.fetch_add(1, std::memory_order_relaxed);
  return added;
}

bool SeenSet::Contains(uint64_t fingerprint, std::string_view packed) const {
  return storage_ == Storage::kFingerprint ? ContainsFingerprint(fingerprint)
                                           : ContainsExact(fingerprint, packed);
}

void SeenSet::Prefetch(uint64_t fingerprint) const {
  if (storage_ == Storage::kExact) {
    if (exact_slots_.empty()) return;
    __builtin_prefetch(&exact_slots_[fingerprint & (exact_slots_.size() - 1)]);
    return;
  }
  const Partition& partition =
      partitions_[fingerprint >> (64 - kPartitionBits)];
  if (partition.capacity == 0) return;
  __builtin_prefetch(
      &partition.slots[std::size_t{partition.Home(StoredBits(fingerprint))} *
                       kSlotBytes]);
}

void SeenSet::PrefetchEntry(uint64_t fingerprint) const {
  if (storage_ != Storage::kExact || exact_slots_.empty()) return;
  const std::size_t mask = exact_slots_.size() - 1;
  // The first few slots of the probe (most lookups end within them).
  for (std::size_t k = fingerprint & mask, n = 0; n < 4;
       k = (k + 1) & mask, ++n) {
    const uint64_t slot = exact_slots_[k];
    if (slot == 0) return;
    if ((slot >> kOffsetBits) != TagOf(fingerprint)) continue;
    const std::size_t offset = (slot & kOffsetMask) - 1;
    // An entry is about 90 bytes: its first two cache lines.
    const char* at = blocks_[offset / kBlockBytes].get() + offset % kBlockBytes;
    __builtin_prefetch(at);
    __builtin_prefetch(at + 64);
    return;
  }
}

uint64_t SeenSet::size() const {
  return size_ + shared_size_.load(std::memory_order_relaxed);
}

std::size_t SeenSet::bytes() const {
  if (storage_ == Storage::kExact) {
    return exact_slots_.size() * sizeof(uint64_t) +
           blocks_.size() * kBlockBytes;
  }
  std::size_t total = kPartitions * (sizeof(Partition) + sizeof(std::mutex));
  for (std::size_t p = 0; p < kPartitions; ++p)
    total += partitions_[p].slots.capacity();
  return total;
}

double SeenSet::CollisionProbability() const {
  if (storage_ == Storage::kExact) return 0;
  const double n = static_cast<double>(size());
  return std::min(1.0, n * (n - 1) / 2 * std::ldexp(1.0, -bits()));
}

}  // namespace memwal::checker::engine
