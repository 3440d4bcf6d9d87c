// The set of visited states of a search: one interface, two storages.
//
// Fingerprint mode (the default) keeps 52 bits of each state's 64-bit
// fingerprint in 5 bytes: the top 12 bits pick one of 4096 partitions, the
// next 40 bits are stored in that partition's open-addressing table (Robin
// Hood linear probing; a slot's home is a monotone function of its stored
// bits, so a partition rehashes from what it stores). A partition grows by
// half when 90% full; the partitions' first sizes are staggered, so the table
// as a whole is about 74% full: about 7 bytes per stored state. Two states
// whose fingerprints agree in those 52 bits are taken for one;
// CollisionProbability() estimates the chance that this happened in a run (as
// TLC does).
//
// Exact mode keeps every state's packed encoding (checker/engine/packed.h) in
// an arena, found by its full fingerprint: no collision is possible, at the
// cost of the encoding's size per state. It is the mode to compare with SPIN's
// exact storage (-DSAFETY).
//
// Thread-safety: Contains may run on many threads while nobody inserts (a BFS
// level's expansion). InsertShared may run on many threads at once (random
// walks); Insert is for one thread (a BFS merge, DFS).
#ifndef MEMWAL_CHECKER_ENGINE_SEEN_SET_H_
#define MEMWAL_CHECKER_ENGINE_SEEN_SET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace memwal::checker::engine {

enum class Storage { kFingerprint, kExact };
std::string_view Name(Storage storage);

class SeenSet {
 public:
  explicit SeenSet(Storage storage);
  ~SeenSet();
  SeenSet(const SeenSet&) = delete;
  SeenSet& operator=(const SeenSet&) = delete;

  Storage storage() const { return storage_; }

  // `packed` is the state's packed encoding; the fingerprint mode ignores it.
  // True when the state was not yet in the set.
  bool Insert(uint64_t fingerprint, std::string_view packed);
  bool InsertShared(uint64_t fingerprint, std::string_view packed);
  bool Contains(uint64_t fingerprint, std::string_view packed) const;
  // Asks the cache for the slot a lookup of `fingerprint` starts at.
  void Prefetch(uint64_t fingerprint) const;
  // Exact mode, once that slot is in the cache: asks for the stored entry of
  // the first slot whose tag matches, which a lookup of a state met before
  // compares with (a second miss that would otherwise wait on the first).
  void PrefetchEntry(uint64_t fingerprint) const;

  uint64_t size() const;
  // Bytes the set holds (tables and arena), measured, not estimated.
  std::size_t bytes() const;
  // The fingerprint bits a state is told apart by (52; 0 in exact mode).
  int bits() const { return storage_ == Storage::kFingerprint ? 52 : 0; }
  // The estimated probability that two of the `size()` distinct states met
  // share a stored fingerprint: n(n-1)/2 pairs, each equal with probability
  // 2^-bits (0 in exact mode).
  double CollisionProbability() const;

 private:
  struct Partition;
  static constexpr int kPartitionBits = 12;
  static constexpr std::size_t kPartitions = std::size_t{1} << kPartitionBits;

  static uint64_t StoredBits(uint64_t fingerprint);
  static uint32_t FirstCapacity(std::size_t partition);
  bool InsertFingerprint(uint64_t fingerprint);
  bool ContainsFingerprint(uint64_t fingerprint) const;
  bool InsertExact(uint64_t fingerprint, std::string_view packed);
  bool ContainsExact(uint64_t fingerprint, std::string_view packed) const;
  std::size_t FindExact(uint64_t fingerprint, std::string_view packed,
                        bool* found) const;
  void GrowExact();

  Storage storage_;
  uint64_t size_ = 0;                     // by Insert
  std::atomic<uint64_t> shared_size_{0};  // by InsertShared
  // Fingerprint mode.
  std::unique_ptr<Partition[]> partitions_;
  std::unique_ptr<std::mutex[]> locks_;
  // Exact mode: slots hold 1 + the arena offset of an entry (0: empty); an
  // entry is fingerprint (8 bytes), length (2 bytes), packed bytes.
  std::vector<uint64_t> exact_slots_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // 4 MiB each
  // Bytes used of every block but the last, and of the last.
  std::vector<std::size_t> block_fills_;
  std::size_t block_used_ = 0;
  mutable std::mutex exact_lock_;
};

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_SEEN_SET_H_
