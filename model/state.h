// The model's state (spec/protocol.md R2-R4): the committed versions of the
// current table, the WAL-side progress, the in-flight transactions and the
// ghost record the invariants use.
//
// State is a small value type made of fixed-size arrays (at most kVersionsMax
// versions, kInflightMax transactions, kFragmentsMax fragments, ...), so that
// copying it is cheap and Apply allocates nothing. Sets of fragments, rows and
// indexes are bitmasks. Slots past `version_count` / `inflight_count` are
// always zero, so the defaulted operator== is equality of the abstract state.
// Uuids are canonical (R3): Canonicalize() renumbers them in order of first
// appearance, and every Apply ends with it.
//
// Encode() is the canonical byte encoding (explicit little-endian, fixed field
// order) and Fingerprint() a fixed 64-bit hash of it, stable across builds and
// platforms.
#ifndef MEMWAL_MODEL_STATE_H_
#define MEMWAL_MODEL_STATE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/assert.h"
#include "model/bounds.h"

namespace memwal::model {

using FragmentSet = uint8_t;    // bit f: fragment id f
using RowSet = uint8_t;         // bit RowBit(s, g): the MemWAL row (s,g)
using IndexSet = uint8_t;       // bit i: index idx_i
using GenerationSet = uint8_t;  // bit g-1: generation g

static_assert(kFragmentsMax <= 8 && kShardsMax * kGenerationsMax <= 8 &&
              kIndexesMax <= 8);

// The row (s,g) of SSTable generation g of shard s, as a RowSet bit.
constexpr RowSet RowBit(int shard, int generation) {
  return static_cast<RowSet>(1u << (shard * kGenerationsMax + generation - 1));
}

// What produced a version: the spec action whose publish committed it (R2
// `op`).
enum class OpKind : uint8_t {
  kInit,
  kAppend,
  kDeleteFragment,
  kCompactSsTable,
  kUpdateColumns,
  kRewriteFragments,
  kCreateIndex,
  kOptimizeIndex,
  kDropIndex,
  kRecordProgress,
  kActivate,
  kRestore,
  // Section 10 (env foreign): commits of writers outside this protocol
  // version's code path. Lance sees both as a CreateIndex that names no user
  // index (R31 classifies them so; Op::index is kForeignIndex).
  kForeignHalfSet,     // R60
  kResetMemWal,        // R62
  kDropMemWal,         // R63
  kForeignCompaction,  // R64
  // R39: a CreateIndex that re-installs __lance_mem_wal (this protocol's own
  // code path, env none). Lance sees a CreateIndex naming no user index
  // (Op::index is kForeignIndex) that installs the system index.
  kReinstallMemWal,
};

// Op::index of a foreign commit or a MemWAL install: no user index has this
// name.
inline constexpr uint8_t kForeignIndex = 0xff;

// The user index names a CreateIndex-class op works on (R31 "same index
// name"): none for a foreign commit; else Op::index's name, and the second
// one an R61 other-index advance named.
inline uint8_t IndexNamesOf(uint8_t op_index) {
  if (op_index == kForeignIndex) return 0;
  const int second = op_index >> 4;
  return static_cast<uint8_t>((1u << (op_index & 0x0f)) |
                              (second != 0 ? 1u << (second - 1) : 0u));
}

// The commit installs __lance_mem_wal (R39, R62): Lance's singleton rules for
// the system index apply to it (R31 note b).
inline bool InstallsMemWal(OpKind kind) {
  return kind == OpKind::kReinstallMemWal || kind == OpKind::kResetMemWal;
}

// The commit was written by a writer outside this protocol version (R60, R62).
inline bool IsForeignOp(OpKind kind) {
  return kind == OpKind::kForeignHalfSet || kind == OpKind::kResetMemWal ||
         kind == OpKind::kDropMemWal || kind == OpKind::kForeignCompaction;
}

// Lance's operation classes, the rows and columns of the conflict table (R31).
enum class LanceOp : uint8_t {
  kInit,  // the version Init installs; never classified (it is never after a
          // read version)
  kAppend,
  kDelete,
  kUpdate,
  kRewrite,
  kCreateIndex,  // a user index: CreateIndex, OptimizeIndex, DropIndex
  kUpdateMemWalState,
  kRestore,
};

LanceOp Classify(OpKind kind);
std::string_view Name(OpKind kind);
std::string_view Name(LanceOp op);

// R2 `op`: what the conflict rules and the last-commit invariants need to know
// about a committed operation. Fields a kind does not use are zero.
struct Op {
  OpKind kind = OpKind::kInit;
  FragmentSet fragments =
      0;  // Delete {f}; UpdateColumns {f} (updated); Rewrite {f1, f2};
          // ReinstallMemWal: 1 when it published rebased (R39: the details it
          // read replaced newer ones)
  FragmentSet new_covers =
      0;  // user CreateIndex: union of the published new segments' covers
  uint8_t index =
      0;  // UpdateColumns: the field modified; user CreateIndex: the name in
          // bits 0-3, and (R61 other-index) 1 + the second name in bits 4-7
  uint8_t progress_shard = 0;  // the compacted_sstables entry it carried, if
  uint8_t progress_generation = 0;  // progress_generation > 0

  friend bool operator==(const Op&, const Op&) = default;
};

// One segment of an index (R2): uuid 0 marks an empty slot.
struct Segment {
  uint8_t uuid = 0;
  FragmentSet covers = 0;

  friend bool operator==(const Segment&, const Segment&) = default;
};

using Segments =
    std::array<Segment, kSegmentsMax>;  // present segments first, in order

// One committed table version (R2).
struct Version {
  uint8_t number = 0;
  FragmentSet live = 0;
  std::array<Segments, kIndexesMax> segments{};
  std::array<uint8_t, kShardsMax> compacted{};  // 0 = no entry
  std::array<std::array<uint8_t, kShardsMax>, kIndexesMax>
      catchup{};  // 0 = no entry
  bool reader_bit = false;
  bool writer_bit = false;
  bool retained = false;
  // R63 (env foreign): __lance_mem_wal was dropped; false in every version of
  // env none (R2: the system index exists in every version).
  bool mem_wal_dropped = false;
  Op op{};

  friend bool operator==(const Version&, const Version&) = default;
};

// A begun, not yet committed transaction (section 5): what its begin action
// prepared.
struct Txn {
  OpKind kind = OpKind::kInit;  // the begin action
  uint8_t read_version = 0;     // number of the version it read
  uint8_t shard = 0;            // CompactSsTable, RecordProgress
  uint8_t generation =
      0;                // CompactSsTable, RecordProgress: read.compacted[s] + 1
  bool marker = false;  // CompactSsTable
  uint8_t fragment = 0;  // DeleteFragment, UpdateColumns, RewriteFragments (f1)
  uint8_t second_fragment = 0;  // RewriteFragments (f2)
  uint8_t index =
      0;  // UpdateColumns (field), CreateIndex, OptimizeIndex, DropIndex
  Segment
      segment{};  // CreateIndex, OptimizeIndex: the new segment (uuid 0: none)
  uint8_t removed_uuid =
      0;                // OptimizeIndex: the read segment it replaces (0: none)
  uint8_t advance = 0;  // OptimizeIndex begun by CallerAdvance (R61): the
                        // AdvanceOffer + 1; 0 = the protocol's own advance

  friend bool operator==(const Txn&, const Txn&) = default;
};

// R3.
struct State {
  std::array<Version, kVersionsMax>
      versions{};  // oldest first; the head is the last
  uint8_t version_count = 0;
  std::array<Txn, kInflightMax> inflight{};  // in begin order
  uint8_t inflight_count = 0;
  std::array<uint8_t, kShardsMax> flushed{};
  std::array<GenerationSet, kShardsMax> retired{};
  RowSet pending =
      0;  // decided, not yet executed retirements (gc stale-read/recheck)
  uint8_t committed = 0;      // commits after Init (counts across ShallowClone)
  uint8_t next_fragment = 0;  // one past the largest fragment id ever allocated
  // Ghost state, read only by invariants.
  std::array<RowSet, kFragmentsMax> rows{};
  RowSet deleted = 0;
  std::array<IndexSet, kShardsMax * kGenerationsMax>
      retire_cover{};  // by row bit position
  bool activated = false;
  // R64 (env foreign): a foreign compactor wrote this table while it had no
  // bit; never cleared (what its legacy reading let GC retire stays retired).
  bool foreign_legacy = false;

  friend bool operator==(const State&, const State&) = default;
};

// R4: one version, number 1, with fragment 0 and one segment per index covering
// {0}.
State Init(const Bounds& bounds);

// Inline, as the accessors below: the invariants and actions call them for
// every state, and out of line they were a tenth of the model-only search.
inline const Version& Head(const State& state) {
  MEMWAL_ASSERT(state.version_count >= 1);
  MEMWAL_ASSERT(state.version_count <= kVersionsMax);
  return state.versions[state.version_count - 1];
}
inline Version& MutableHead(State& state) {
  MEMWAL_ASSERT(state.version_count >= 1);
  MEMWAL_ASSERT(state.version_count <= kVersionsMax);
  return state.versions[state.version_count - 1];
}
// The version with this number. REQUIRES: it is in the history.
const Version& VersionNumbered(const State& state, int number);

inline bool Contains(uint8_t set, int element) { return (set >> element) & 1u; }
inline int Count(uint8_t set) { return __builtin_popcount(set); }

// Index i is present in `version` (has at least one segment).
inline bool IsPresent(const Version& version, int index) {
  return version.segments[index][0].uuid != 0;
}
// The union of the covers of index i's segments in `version`.
inline FragmentSet CoveredBy(const Version& version, int index) {
  FragmentSet covers = 0;
  for (const Segment& segment : version.segments[index])
    covers |= segment.covers;
  return covers;
}
// Present indexes as a set.
inline IndexSet PresentIndexes(const Version& version, int indexes) {
  IndexSet present = 0;
  for (int i = 0; i < indexes; ++i) {
    if (IsPresent(version, i)) present |= static_cast<IndexSet>(1u << i);
  }
  return present;
}
// `version` has both feature bits / neither / exactly one.
inline bool HasBothBits(const Version& v) {
  return v.reader_bit && v.writer_bit;
}
inline bool HasNoBit(const Version& v) {
  return !v.reader_bit && !v.writer_bit;
}
// The MemWAL rows held by live fragments of `version`.
inline RowSet LiveRows(const State& state, const Version& version) {
  RowSet rows = 0;
  for (int f = 0; f < kFragmentsMax; ++f) {
    if (Contains(version.live, f)) rows |= state.rows[f];
  }
  return rows;
}

// R3: renumbers every uuid 1, 2, ... in order of first appearance (versions
// oldest first, indexes in order, segments in order, then in-flight
// transactions). Idempotent.
void Canonicalize(State* state);

// Asserts the structural invariants of the representation (zeroed unused slots,
// segment order, bounds respected, canonical uuids). For tests and the
// checker's debug paths.
void AssertWellFormed(const State& state, const Bounds& bounds);

// The canonical byte encoding: equal states encode equally, different states
// differently.
// The most bytes Encode writes for any state within the compile-time maxima.
// The encoding's first bytes, before the versions: counts, shard counters,
// the state's one-byte fields and its flags (no uuid among them).
inline constexpr std::size_t kEncodedHeaderBytes =
    2 + 2 * kShardsMax + 3 + kFragmentsMax + 1 + kShardsMax * kGenerationsMax +
    1;

inline constexpr std::size_t kEncodedMax =
    (2 + 2 * kShardsMax + 3 + kFragmentsMax + 1 + kShardsMax * kGenerationsMax +
     1) +
    kVersionsMax * (2 + kIndexesMax * kSegmentsMax * 2 + kShardsMax +
                    kIndexesMax * kShardsMax + 1 + 6) +
    kInflightMax * 11;

void Encode(const State& state, std::string* out);
// Encode into a caller's buffer of kEncodedMax bytes; returns the size.
std::size_t EncodeTo(const State& state, uint8_t* out);
// The inverse of Encode: false (and *out untouched) when `bytes` is not exactly
// one encoding of the right length. Does not check that the decoded state is
// reachable or well formed.
bool Decode(std::string_view bytes, State* out);
// A fixed 64-bit hash of Encode(state); stable across builds and platforms.
uint64_t Fingerprint(const State& state);
// The same hash over arbitrary bytes (exposed so tests can check Fingerprint =
// Hash(Encode)).
uint64_t Hash64(std::string_view bytes);

// Human-readable multi-line dump (for traces and test failures).
std::string ToString(const State& state);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_STATE_H_
