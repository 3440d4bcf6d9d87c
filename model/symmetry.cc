// Shard and index permutations of a state (model/symmetry.h).
#include "model/symmetry.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <variant>
#include <vector>

namespace memwal::model {
namespace {

// A shard's rows are kGenerationsMax consecutive bits (RowBit): they move
// as one group.
RowSet PermuteRows(RowSet rows, const Permutation& p) {
  if constexpr (kShardsMax == 2 && kGenerationsMax == 4) {
    // Two shards: the identity, or the two nibbles swapped.
    return p.shards[0] == 0 ? rows
                            : static_cast<RowSet>((rows >> 4) | (rows << 4));
  }
  constexpr unsigned kGroup = (1u << kGenerationsMax) - 1;
  unsigned out = 0;
  for (int s = 0; s < kShardsMax; ++s) {
    out |= ((static_cast<unsigned>(rows) >> (s * kGenerationsMax)) & kGroup)
           << (p.shards[s] * kGenerationsMax);
  }
  return static_cast<RowSet>(out);
}

IndexSet PermuteIndexes(IndexSet set, const Permutation& p) {
  if (set == 0) return 0;
  IndexSet out = 0;
  for (int i = 0; i < kIndexesMax; ++i) {
    if (Contains(set, i)) out |= static_cast<IndexSet>(1u << p.indexes[i]);
  }
  return out;
}

// Op::index of a user CreateIndex-class op: the name in bits 0-3, 1 + a
// second name in bits 4-7 (R61; 0 in env none).
uint8_t PermuteIndexName(uint8_t index, const Permutation& p) {
  if (index == kForeignIndex) return index;
  const int second = index >> 4;
  const uint8_t first = p.indexes[index & 0x0f];
  return static_cast<uint8_t>(
      first | (second != 0 ? (p.indexes[second - 1] + 1) << 4 : 0));
}

bool OpNamesIndex(OpKind kind) {
  return kind == OpKind::kUpdateColumns || kind == OpKind::kCreateIndex ||
         kind == OpKind::kOptimizeIndex || kind == OpKind::kDropIndex;
}

bool TxnNamesShard(OpKind kind) {
  return kind == OpKind::kCompactSsTable || kind == OpKind::kRecordProgress;
}

// *out holds a copy of `in`: only what the permutation moves is written.
void PermuteVersion(const Version& in, const Permutation& p, bool shards,
                    bool indexes, Version* out) {
  if (indexes) {
    for (int i = 0; i < kIndexesMax; ++i)
      out->segments[p.indexes[i]] = in.segments[i];
  }
  for (int i = 0; i < kIndexesMax; ++i) {
    for (int s = 0; s < kShardsMax; ++s)
      out->catchup[p.indexes[i]][p.shards[s]] = in.catchup[i][s];
  }
  if (shards) {
    for (int s = 0; s < kShardsMax; ++s)
      out->compacted[p.shards[s]] = in.compacted[s];
  }
  if (indexes && OpNamesIndex(in.op.kind))
    out->op.index = PermuteIndexName(in.op.index, p);
  if (shards && in.op.progress_generation > 0)
    out->op.progress_shard = p.shards[in.op.progress_shard];
}

// memcmp's sign for two records of n bytes, compared inline eight bytes at a
// time: the records compared here are short (a header of
// kEncodedHeaderBytes, a version's 29 bytes, a transaction's 11), and the
// library's memcmp, called for each, was 7% of the liveness pass at `large`.
int CompareBytes(const uint8_t* a, const uint8_t* b, std::size_t n) {
  static_assert(std::endian::native == std::endian::little);
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t x = 0;
    uint64_t y = 0;
    std::memcpy(&x, a + k, 8);
    std::memcpy(&y, b + k, 8);
    if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
  }
  for (; k < n; ++k) {
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return 0;
}

bool IdentityOn(const uint8_t* order, int n) {
  for (int k = 0; k < n; ++k) {
    if (order[k] != k) return false;
  }
  return true;
}

void Factorials(int n, std::vector<std::vector<uint8_t>>* out) {
  std::vector<uint8_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), uint8_t{0});
  out->clear();
  do {
    out->push_back(order);
  } while (std::next_permutation(order.begin(), order.end()));
}

}  // namespace

Symmetry SymmetryOf(const Config& config) {
  if (config.env != Env::kNone) return Symmetry{};
  Symmetry symmetry;
  symmetry.shards = config.bounds.shards > 1;
  symmetry.indexes = config.bounds.indexes > 1 &&
                     config.read != ReadMode::kSingleIndex &&
                     !Has(config, Bug::kSingleIndexWatermark);
  return symmetry;
}

std::string SymmetryNote(const Config& config) {
  if (config.env != Env::kNone &&
      (config.bounds.shards > 1 || config.bounds.indexes > 1))
    return "no symmetry under env foreign (its advance offers single out "
           "indexes)";
  if (config.bounds.indexes > 1 && !SymmetryOf(config).indexes)
    return "indexes are not interchangeable: the single-index reader caps by "
           "the lowest-numbered index";
  return "";
}

State Permute(const State& state, const Permutation& p) {
  State out = state;
  const bool shards = !IdentityOn(p.shards.data(), kShardsMax);
  const bool indexes = !IdentityOn(p.indexes.data(), kIndexesMax);
  if (!shards && !indexes) {
    Canonicalize(&out);
    return out;
  }
  for (int v = 0; v < state.version_count; ++v)
    PermuteVersion(state.versions[v], p, shards, indexes, &out.versions[v]);
  for (int t = 0; t < state.inflight_count; ++t) {
    const Txn& in = state.inflight[t];
    Txn& txn = out.inflight[t];
    if (TxnNamesShard(in.kind)) txn.shard = p.shards[in.shard];
    if (OpNamesIndex(in.kind)) txn.index = p.indexes[in.index];
  }
  if (shards) {
    for (int s = 0; s < kShardsMax; ++s) {
      out.flushed[p.shards[s]] = state.flushed[s];
      out.retired[p.shards[s]] = state.retired[s];
    }
    out.pending = PermuteRows(state.pending, p);
    out.deleted = PermuteRows(state.deleted, p);
    for (int f = 0; f < kFragmentsMax; ++f)
      out.rows[f] = PermuteRows(state.rows[f], p);
  }
  for (int s = 0; s < kShardsMax; ++s) {
    for (int g = 1; g <= kGenerationsMax; ++g) {
      const int from = s * kGenerationsMax + g - 1;
      const int to = p.shards[s] * kGenerationsMax + g - 1;
      out.retire_cover[to] = indexes
                                 ? PermuteIndexes(state.retire_cover[from], p)
                                 : state.retire_cover[from];
    }
  }
  Canonicalize(&out);
  return out;
}

int PermutationCount(const Bounds& bounds, Symmetry symmetry) {
  auto factorial = [](int n) {
    int f = 1;
    for (int k = 2; k <= n; ++k) f *= k;
    return f;
  };
  return (symmetry.shards ? factorial(bounds.shards) : 1) *
         (symmetry.indexes ? factorial(bounds.indexes) : 1);
}

std::vector<Permutation> Permutations(const Bounds& bounds, Symmetry symmetry) {
  std::vector<std::vector<uint8_t>> shard_orders;
  std::vector<std::vector<uint8_t>> index_orders;
  Factorials(symmetry.shards ? bounds.shards : 1, &shard_orders);
  Factorials(symmetry.indexes ? bounds.indexes : 1, &index_orders);
  std::vector<Permutation> out;
  for (const auto& shards : shard_orders) {
    for (const auto& indexes : index_orders) {
      Permutation p;
      for (int s = 0; s < kShardsMax; ++s)
        p.shards[s] = static_cast<uint8_t>(s);
      for (int i = 0; i < kIndexesMax; ++i)
        p.indexes[i] = static_cast<uint8_t>(i);
      std::copy(shards.begin(), shards.end(), p.shards.begin());
      std::copy(indexes.begin(), indexes.end(), p.indexes.begin());
      out.push_back(p);
    }
  }
  return out;
}

Permutation Compose(const Permutation& second, const Permutation& first) {
  Permutation out;
  for (int s = 0; s < kShardsMax; ++s)
    out.shards[s] = second.shards[first.shards[s]];
  for (int i = 0; i < kIndexesMax; ++i)
    out.indexes[i] = second.indexes[first.indexes[i]];
  return out;
}

Permutation Inverse(const Permutation& permutation) {
  Permutation out;
  for (int s = 0; s < kShardsMax; ++s)
    out.shards[permutation.shards[s]] = static_cast<uint8_t>(s);
  for (int i = 0; i < kIndexesMax; ++i)
    out.indexes[permutation.indexes[i]] = static_cast<uint8_t>(i);
  return out;
}

Action Permute(const Action& action, const Permutation& p) {
  const auto shard = [&p](int s) { return static_cast<int>(p.shards[s]); };
  const auto index = [&p](int i) { return static_cast<int>(p.indexes[i]); };
  return std::visit(
      [&](auto a) -> Action {
        using A = decltype(a);
        if constexpr (std::is_same_v<A, FlushMemTable> ||
                      std::is_same_v<A, RetireSsTable> ||
                      std::is_same_v<A, RetireDecide> ||
                      std::is_same_v<A, RetireExecute> ||
                      std::is_same_v<A, CompactSsTable> ||
                      std::is_same_v<A, RecordProgress> ||
                      std::is_same_v<A, ForeignCompaction>) {
          a.shard = shard(a.shard);
        } else if constexpr (std::is_same_v<A, UpdateColumns> ||
                             std::is_same_v<A, CreateIndex> ||
                             std::is_same_v<A, OptimizeIndex> ||
                             std::is_same_v<A, DropIndex> ||
                             std::is_same_v<A, CallerAdvance>) {
          a.index = index(a.index);
        }
        return a;
      },
      action);
}

void PermutedHeader(const State& state, const Permutation& p, uint8_t* out) {
  // EncodeTo's first kEncodedHeaderBytes bytes of Permute(state, p), written
  // field by field in EncodeTo's order; none of them holds a uuid, so the
  // renaming of R3 does not change them.
  const bool indexes = !IdentityOn(p.indexes.data(), kIndexesMax);
  uint8_t* at = out;
  *at++ = state.version_count;
  *at++ = state.inflight_count;
  uint8_t* shards = at;
  for (int s = 0; s < kShardsMax; ++s) {
    shards[2 * p.shards[s]] = state.flushed[s];
    shards[2 * p.shards[s] + 1] = state.retired[s];
  }
  at += 2 * kShardsMax;
  *at++ = PermuteRows(state.pending, p);
  *at++ = state.committed;
  *at++ = state.next_fragment;
  for (int f = 0; f < kFragmentsMax; ++f) *at++ = PermuteRows(state.rows[f], p);
  *at++ = PermuteRows(state.deleted, p);
  uint8_t* cover = at;
  for (int s = 0; s < kShardsMax; ++s) {
    for (int g = 1; g <= kGenerationsMax; ++g) {
      const int from = s * kGenerationsMax + g - 1;
      const int to = p.shards[s] * kGenerationsMax + g - 1;
      cover[to] = indexes ? PermuteIndexes(state.retire_cover[from], p)
                          : state.retire_cover[from];
    }
  }
  at += kShardsMax * kGenerationsMax;
  *at++ = static_cast<uint8_t>(state.activated | (state.foreign_legacy << 1));
  MEMWAL_ASSERT(at == out + kEncodedHeaderBytes);
}

namespace {

// R3's renaming of Permute: uuids numbered 1, 2, ... in the order
// Canonicalize reads them (versions oldest first, indexes and segments in
// order, then each in-flight transaction's removed and new segment). A
// canonical state's uuids are 1, 2, ... (fewer than 64: at most two segments
// per index and version, and two per in-flight transaction); a table that
// small costs less to clear. A larger one sets `wide`, and the caller falls
// back to the permuted state.
struct UuidRenaming {
  static_assert(kVersionsMax * kIndexesMax * kSegmentsMax + 2 * kInflightMax <
                64);
  std::array<uint8_t, 64> renamed{};
  uint8_t last = 0;
  bool wide = false;
  uint8_t operator()(uint8_t uuid) {
    if (uuid == 0) return 0;
    if (uuid >= renamed.size()) {
      wide = true;
      return 0;
    }
    if (renamed[uuid] == 0) renamed[uuid] = ++last;
    return renamed[uuid];
  }
};

// One version as EncodeTo writes it, permuted: its fields as declared, its
// four flags in one byte, its op. Index j of the permuted state is index
// from_index[j] of the state; shard t is shard from_shard[t].
uint8_t* EncodePermutedVersion(
    const Version& in, const Permutation& p,
    const std::array<uint8_t, kIndexesMax>& from_index,
    const std::array<uint8_t, kShardsMax>& from_shard, UuidRenaming* rename,
    uint8_t* at) {
  *at++ = in.number;
  *at++ = in.live;
  for (int j = 0; j < kIndexesMax; ++j) {
    for (const Segment& segment : in.segments[from_index[j]]) {
      *at++ = (*rename)(segment.uuid);
      *at++ = segment.covers;
    }
  }
  for (int t = 0; t < kShardsMax; ++t) *at++ = in.compacted[from_shard[t]];
  for (int j = 0; j < kIndexesMax; ++j) {
    for (int t = 0; t < kShardsMax; ++t)
      *at++ = in.catchup[from_index[j]][from_shard[t]];
  }
  *at++ = static_cast<uint8_t>(in.reader_bit | (in.writer_bit << 1) |
                               (in.retained << 2) | (in.mem_wal_dropped << 3));
  *at++ = static_cast<uint8_t>(in.op.kind);
  *at++ = in.op.fragments;
  *at++ = in.op.new_covers;
  *at++ =
      OpNamesIndex(in.op.kind) ? PermuteIndexName(in.op.index, p) : in.op.index;
  *at++ = in.op.progress_generation > 0 ? p.shards[in.op.progress_shard]
                                        : in.op.progress_shard;
  *at++ = in.op.progress_generation;
  return at;
}

// EncodePermutedTo, or with `below` (an encoding of the same size whose
// header is this one's) only when the permuted encoding is smaller: 0 as
// soon as a version or transaction shows it is not, and the header copied
// from `below`.
std::size_t EncodePermuted(const State& state, const Permutation& p,
                           const uint8_t* below, uint8_t* out) {
  UuidRenaming rename;
  // Index j of the permuted state is index from_index[j] of `state`; shard t
  // is shard from_shard[t].
  std::array<uint8_t, kIndexesMax> from_index{};
  std::array<uint8_t, kShardsMax> from_shard{};
  for (int i = 0; i < kIndexesMax; ++i)
    from_index[p.indexes[i]] = static_cast<uint8_t>(i);
  for (int s = 0; s < kShardsMax; ++s)
    from_shard[p.shards[s]] = static_cast<uint8_t>(s);
  // With `below` the header is copied at the end, and only when this
  // encoding is smaller (copied now, its bytes would be read while the
  // stores that wrote them are still in flight).
  if (below == nullptr) PermutedHeader(state, p, out);
  uint8_t* at = out + kEncodedHeaderBytes;
  // Against `below`: 0 while the bytes so far are equal, < 0 once smaller.
  int order = 0;
  const auto compared = [&](const uint8_t* from) {
    if (below == nullptr || order != 0) return true;
    order = CompareBytes(from, below + (from - out),
                         static_cast<std::size_t>(at - from));
    return order <= 0;
  };
  // EncodeTo's order: each version, then each transaction.
  for (int v = 0; v < state.version_count; ++v) {
    uint8_t* const from = at;
    at = EncodePermutedVersion(state.versions[v], p, from_index, from_shard,
                               &rename, at);
    if (!rename.wide && !compared(from)) return 0;
  }
  for (int t = 0; t < state.inflight_count; ++t) {
    const Txn& in = state.inflight[t];
    const uint8_t removed = rename(in.removed_uuid);  // read first (R3)
    const uint8_t uuid = rename(in.segment.uuid);
    uint8_t* const from = at;
    *at++ = static_cast<uint8_t>(in.kind);
    *at++ = in.read_version;
    *at++ = TxnNamesShard(in.kind) ? p.shards[in.shard] : in.shard;
    *at++ = in.generation;
    *at++ = static_cast<uint8_t>(in.marker | (in.advance << 1));
    *at++ = in.fragment;
    *at++ = in.second_fragment;
    *at++ = OpNamesIndex(in.kind) ? p.indexes[in.index] : in.index;
    *at++ = uuid;
    *at++ = in.segment.covers;
    *at++ = removed;
    if (!rename.wide && !compared(from)) return 0;
  }
  if (rename.wide) {
    const std::size_t size = EncodeTo(Permute(state, p), out);
    if (below == nullptr) return size;
    return std::memcmp(out, below, size) < 0 ? size : 0;
  }
  if (below != nullptr && order == 0) return 0;  // equal: not smaller
  if (below != nullptr) std::memcpy(out, below, kEncodedHeaderBytes);
  const std::size_t size = static_cast<std::size_t>(at - out);
  MEMWAL_ASSERT(size <= kEncodedMax);
  return size;
}

}  // namespace

std::size_t EncodePermutedTo(const State& state, const Permutation& p,
                             uint8_t* out) {
  return EncodePermuted(state, p, nullptr, out);
}

std::size_t CanonicalPosition(const std::vector<Permutation>& permutations,
                              const State& state, std::string* encoding) {
  // Every permuted state has the same encoded size, so the smallest encoding
  // is among those with the smallest header (PermutedHeader), which costs no
  // permuted state: only permutations tied on it are built and encoded, in
  // list order (the first of the smallest wins, as when all were).
  constexpr std::size_t kTried = 16;
  MEMWAL_ASSERT(permutations.size() <= kTried);
  // The smallest header so far in headers[best_header], the next one computed
  // into the other.
  uint8_t headers[2][kEncodedHeaderBytes];
  int best_header = 0;
  std::size_t tied[kTried];
  std::size_t ties = 0;
  // Without retire covers (a folded state has none) the header does not
  // depend on the index order: permutations that move shards alike share it
  // (Permutations lists them one after another).
  static_assert(sizeof(state.retire_cover) == sizeof(uint64_t));
  uint64_t covers = 0;
  std::memcpy(&covers, state.retire_cover.data(), sizeof(covers));
  bool last_tied = false;  // the last header computed ties the smallest
  for (std::size_t k = 0; k < permutations.size(); ++k) {
    if (k > 0 && covers == 0 &&
        permutations[k].shards == permutations[k - 1].shards) {
      // k - 1's header: tied with the smallest exactly when k - 1's was.
      if (last_tied) tied[ties++] = k;
      continue;
    }
    const int slot = ties == 0 ? best_header : 1 - best_header;
    PermutedHeader(state, permutations[k], headers[slot]);
    const int order = ties == 0
                          ? -1
                          : CompareBytes(headers[slot], headers[best_header],
                                         kEncodedHeaderBytes);
    last_tied = order <= 0;
    if (order < 0) {
      ties = 0;
      best_header = slot;
    }
    if (order <= 0) tied[ties++] = k;
  }
  // The encodings in fixed buffers (they were strings, one allocated per
  // permutation and state), compared as std::string compares: bytes as
  // unsigned, then the shorter first.
  // Every tied permutation's encoding has the same header, hence the same
  // size (the header holds the counts of versions and transactions): a later
  // one replaces the best only when smaller, and its encoding stops at the
  // first version or transaction that shows it is not (EncodePermuted).
  uint8_t buffers[2][kEncodedMax];
  uint8_t* best = buffers[0];
  uint8_t* candidate = buffers[1];
  std::size_t best_k = tied[0];
  std::size_t best_size =
      best_k == 0 ? EncodeTo(state, best)
                  : EncodePermuted(state, permutations[best_k], nullptr, best);
  for (std::size_t t = 1; t < ties; ++t) {
    const std::size_t k = tied[t];
    const std::size_t size =
        EncodePermuted(state, permutations[k], best, candidate);
    if (size == 0) continue;
    MEMWAL_ASSERT(size == best_size);
    std::swap(best, candidate);
    best_k = k;
  }
  encoding->assign(reinterpret_cast<const char*>(best), best_size);
  return best_k;
}

void CanonicalEncoding(const Bounds& bounds, Symmetry symmetry,
                       const State& state, std::string* out) {
  if (PermutationCount(bounds, symmetry) == 1) {
    Encode(state, out);
    return;
  }
  // The permutation list of each (bounds, symmetry), built once per thread.
  thread_local Bounds cached_bounds{};
  thread_local Symmetry cached_symmetry{};
  thread_local std::vector<Permutation> permutations;
  if (permutations.empty() || !(cached_bounds == bounds) ||
      !(cached_symmetry == symmetry)) {
    permutations = Permutations(bounds, symmetry);
    cached_bounds = bounds;
    cached_symmetry = symmetry;
  }
  CanonicalPosition(permutations, state, out);
}

uint64_t CanonicalFingerprint(const Bounds& bounds, Symmetry symmetry,
                              const State& state) {
  if (PermutationCount(bounds, symmetry) == 1) return Fingerprint(state);
  std::string encoding;
  CanonicalEncoding(bounds, symmetry, state, &encoding);
  return Hash64(encoding);
}

}  // namespace memwal::model
