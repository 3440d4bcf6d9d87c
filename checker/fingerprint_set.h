// The set of visited states of an exploration, stored as 64-bit fingerprints (8
// bytes per state) in one open-addressing table with linear probing.
//
// Slot value 0 marks an empty slot, so a real fingerprint 0 is stored as
// kZeroStandIn. The table doubles when half full and never holds more than
// `capacity_max` fingerprints (the memory bound). Thread-safety: none yet;
// every slot is one 64-bit word written once from empty, so the table can
// become lock-free by making Insert a compare-and-swap on the slot.
#ifndef MEMWAL_CHECKER_FINGERPRINT_SET_H_
#define MEMWAL_CHECKER_FINGERPRINT_SET_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memwal::checker {

class FingerprintSet {
 public:
  // REQUIRES: capacity_max >= 1.
  explicit FingerprintSet(std::size_t capacity_max);

  // Adds `fingerprint`; true when it was not yet in the set.
  // REQUIRES: !full() or the fingerprint is already present.
  bool Insert(uint64_t fingerprint);
  bool Contains(uint64_t fingerprint) const;

  std::size_t size() const { return size_; }
  bool full() const { return size_ >= capacity_max_; }
  // Bytes held by the table.
  std::size_t bytes() const { return slots_.size() * sizeof(uint64_t); }

 private:
  static constexpr uint64_t kZeroStandIn = 0x9e3779b97f4a7c15ULL;

  std::size_t Probe(
      uint64_t fingerprint) const;  // the slot holding it or the empty one
  void Grow();

  std::vector<uint64_t> slots_;
  std::size_t size_ = 0;
  std::size_t capacity_max_;
};

}  // namespace memwal::checker

#endif  // MEMWAL_CHECKER_FINGERPRINT_SET_H_
