// A fixed-capacity, lock-free set of 64-bit state fingerprints for threads
// that insert concurrently (random walks) or read while nobody writes (the
// expansion phase of a BFS level).
//
// Open addressing with linear probing over std::atomic<uint64_t> slots: an
// insert claims an empty slot with one compare-and-swap, so two threads
// inserting the same fingerprint agree on exactly one winner. Slot value 0
// marks an empty slot; a real fingerprint 0 is stored as a fixed stand-in.
// The table never grows while threads use it: Reserve() (single-threaded,
// between phases) rehashes it so that it stays at most half full.
#ifndef MEMWAL_CHECKER_PARALLEL_SET_H_
#define MEMWAL_CHECKER_PARALLEL_SET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace memwal::checker {

class ConcurrentFingerprintSet {
 public:
  // Room for `capacity` fingerprints before Reserve is needed.
  explicit ConcurrentFingerprintSet(std::size_t capacity);

  // Thread-safe. True when `fingerprint` was not yet in the set. Returns
  // false without inserting when the set is at its capacity (check full()).
  bool Insert(uint64_t fingerprint);
  // Thread-safe against concurrent Insert (may miss a racing insert).
  bool Contains(uint64_t fingerprint) const;

  // Not thread-safe: makes room for `capacity` fingerprints in total.
  void Reserve(std::size_t capacity);

  std::size_t size() const { return size_.load(std::memory_order_relaxed); }
  bool full() const { return size() >= capacity_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t bytes() const { return slot_count_ * sizeof(uint64_t); }

 private:
  static constexpr uint64_t kZeroStandIn = 0x9e3779b97f4a7c15ULL;
  static uint64_t Stored(uint64_t fingerprint) {
    return fingerprint == 0 ? kZeroStandIn : fingerprint;
  }
  std::size_t Home(uint64_t stored) const {
    return static_cast<std::size_t>(stored ^ (stored >> 29)) &
           (slot_count_ - 1);
  }

  std::unique_ptr<std::atomic<uint64_t>[]> slots_;
  std::size_t slot_count_ = 0;  // a power of two, at least 2 * capacity_
  std::size_t capacity_ = 0;
  std::atomic<std::size_t> size_{0};
};

}  // namespace memwal::checker

#endif  // MEMWAL_CHECKER_PARALLEL_SET_H_
