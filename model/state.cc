// State helpers: Init (R4), uuid canonicalization (R3), the canonical encoding
// and its hash.
#include "model/state.h"

#include <cstddef>
#include <cstring>
#include <type_traits>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/assert.h"

namespace memwal::model {
namespace {

// The encoding is the fields in declaration order, one byte each, with the
// bools of a Version (and a Txn's marker and advance, and the State's two
// flags) folded into one byte. Runs of one-byte fields whose declaration order
// is the encoding's are copied as blocks; these asserts keep them so.
constexpr std::size_t kVersionPrefix =
    offsetof(Version, reader_bit);  // number .. catchup
constexpr std::size_t kOpBytes = sizeof(Op);
constexpr std::size_t kTxnPrefix = offsetof(Txn, marker);  // kind .. generation
constexpr std::size_t kTxnMiddle =
    offsetof(Txn, advance) - offsetof(Txn, fragment);  // fragment .. removed
constexpr std::size_t kStateMiddle =
    offsetof(State, activated) - offsetof(State, pending);  // pending .. cover
static_assert(std::is_standard_layout_v<State> &&
              std::is_trivially_copyable_v<State>);
static_assert(alignof(Version) == 1 && alignof(Txn) == 1 && alignof(Op) == 1);
static_assert(kVersionPrefix == 2 + kIndexesMax * kSegmentsMax * 2 +
                                    kShardsMax + kIndexesMax * kShardsMax);
static_assert(offsetof(Version, op) == kVersionPrefix + 4 &&
              sizeof(Version) == kVersionPrefix + 4 + kOpBytes &&
              kOpBytes == 6);
static_assert(kTxnPrefix == 4 && offsetof(Txn, fragment) == 5 &&
              kTxnMiddle == 6 && sizeof(Txn) == 12);
static_assert(kStateMiddle ==
                  3 + kFragmentsMax + 1 + kShardsMax * kGenerationsMax &&
              offsetof(State, foreign_legacy) ==
                  offsetof(State, activated) + 1);

uint8_t* Copy(uint8_t* out, const void* from, std::size_t bytes) {
  std::memcpy(out, from, bytes);
  return out + bytes;
}

uint8_t* EncodeVersion(const Version& v, uint8_t* out) {
  out = Copy(out, &v, kVersionPrefix);
  *out++ = static_cast<uint8_t>(v.reader_bit | (v.writer_bit << 1) |
                                (v.retained << 2) | (v.mem_wal_dropped << 3));
  return Copy(out, &v.op, kOpBytes);
}

uint8_t* EncodeTxn(const Txn& t, uint8_t* out) {
  out = Copy(out, &t, kTxnPrefix);
  // advance shares the marker's byte: 0 for every transaction of env none.
  *out++ = static_cast<uint8_t>(t.marker | (t.advance << 1));
  return Copy(out, &t.fragment, kTxnMiddle);
}

constexpr std::size_t kHeaderBytes = 2 + 2 * kShardsMax + kStateMiddle + 1;
static_assert(kHeaderBytes == kEncodedHeaderBytes);
constexpr std::size_t kVersionBytes = kVersionPrefix + 1 + kOpBytes;
constexpr std::size_t kTxnBytes = kTxnPrefix + 1 + kTxnMiddle;
static_assert(kHeaderBytes + kVersionsMax * kVersionBytes +
                  kInflightMax * kTxnBytes ==
              kEncodedMax);

}  // namespace

std::size_t EncodeTo(const State& state, uint8_t* out) {
  uint8_t* at = out;
  *at++ = state.version_count;
  *at++ = state.inflight_count;
  for (int s = 0; s < kShardsMax; ++s) {
    *at++ = state.flushed[s];
    *at++ = state.retired[s];
  }
  at = Copy(at, &state.pending, kStateMiddle);
  // foreign_legacy shares the byte: 0 for every state of env none.
  *at++ = static_cast<uint8_t>(state.activated | (state.foreign_legacy << 1));
  for (int v = 0; v < state.version_count; ++v)
    at = EncodeVersion(state.versions[v], at);
  for (int t = 0; t < state.inflight_count; ++t)
    at = EncodeTxn(state.inflight[t], at);
  const std::size_t size = static_cast<std::size_t>(at - out);
  MEMWAL_ASSERT(size <= kEncodedMax);
  return size;
}

namespace {

// The decoding copies the same blocks back; Decode checks the size first, so
// nothing reads past the input.
const uint8_t* DecodeVersion(const uint8_t* in, Version* v) {
  std::memcpy(static_cast<void*>(v), in, kVersionPrefix);
  in += kVersionPrefix;
  const uint8_t bits = *in++;
  v->reader_bit = bits & 1;
  v->writer_bit = (bits >> 1) & 1;
  v->retained = (bits >> 2) & 1;
  v->mem_wal_dropped = (bits >> 3) & 1;
  std::memcpy(&v->op, in, kOpBytes);
  return in + kOpBytes;
}

const uint8_t* DecodeTxn(const uint8_t* in, Txn* t) {
  std::memcpy(static_cast<void*>(t), in, kTxnPrefix);
  in += kTxnPrefix;
  const uint8_t marker = *in++;
  t->marker = marker & 1;
  t->advance = static_cast<uint8_t>(marker >> 1);
  std::memcpy(&t->fragment, in, kTxnMiddle);
  return in + kTxnMiddle;
}

// XXH3 (64 bits, seeded): a state fingerprint over the encoding. The
// hand-written word-at-a-time mix it replaced was one dependent multiply chain
// per word and cost 9% of the model-only search.
uint64_t HashBytes(const uint8_t* data, std::size_t size) {
  return XXH3_64bits_withSeed(data, size, 0x6d656d77616c2d31ULL);
}

class UuidMap {
 public:
  void Rename(uint8_t* uuid) {
    if (*uuid == 0) return;
    if (map_[*uuid] == 0) map_[*uuid] = ++last_;
    *uuid = map_[*uuid];
  }

 private:
  std::array<uint8_t, 256> map_{};
  uint8_t last_ = 0;
};

// Calls visit on each uuid of `state` in R3's order (versions oldest first,
// indexes in order, segments in order, then the in-flight transactions' removed
// and new segments) until it returns false; false if it did.
template <typename S, typename Visit>
bool ForEachUuid(S& state, const Visit& visit) {
  for (int v = 0; v < state.version_count; ++v) {
    for (auto& segments : state.versions[v].segments) {
      for (auto& segment : segments) {
        if (!visit(segment.uuid)) return false;
      }
    }
  }
  for (int t = 0; t < state.inflight_count; ++t) {
    if (!visit(state.inflight[t].removed_uuid) ||
        !visit(state.inflight[t].segment.uuid))
      return false;
  }
  return true;
}

// True when the uuids already appear as 1, 2, ... in the order Canonicalize
// reads them (each new one is one above the largest before it): then the
// renaming is the identity. Most successors are so, and this check costs no
// table.
bool InCanonicalOrder(const State& state) {
  int next = 1;
  return ForEachUuid(state, [&next](uint8_t uuid) {
    if (uuid == 0 || uuid < next) return true;  // none, or met before
    if (uuid != next) return false;
    ++next;
    return true;
  });
}

}  // namespace

LanceOp Classify(OpKind kind) {
  switch (kind) {
    case OpKind::kInit:
      return LanceOp::kInit;
    case OpKind::kAppend:
      return LanceOp::kAppend;
    case OpKind::kDeleteFragment:
      return LanceOp::kDelete;
    case OpKind::kCompactSsTable:
    case OpKind::kUpdateColumns:
      return LanceOp::kUpdate;
    case OpKind::kRewriteFragments:
      return LanceOp::kRewrite;
    case OpKind::kCreateIndex:
    case OpKind::kOptimizeIndex:
    case OpKind::kDropIndex:
      return LanceOp::kCreateIndex;
    case OpKind::kRecordProgress:
    case OpKind::kActivate:
      return LanceOp::kUpdateMemWalState;
    case OpKind::kRestore:
      return LanceOp::kRestore;
    case OpKind::kForeignHalfSet:
    case OpKind::kResetMemWal:
    case OpKind::kDropMemWal:
    case OpKind::kReinstallMemWal:
      return LanceOp::kCreateIndex;
    case OpKind::kForeignCompaction:
      return LanceOp::kUpdate;
  }
  MEMWAL_ASSERT(false && "OpKind out of range");
  return LanceOp::kInit;
}

std::string_view Name(OpKind kind) {
  static constexpr std::string_view kNames[] = {
      "Init",           "Append",
      "DeleteFragment", "CompactSsTable",
      "UpdateColumns",  "RewriteFragments",
      "CreateIndex",    "OptimizeIndex",
      "DropIndex",      "RecordProgress",
      "Activate",       "Restore",
      "ForeignHalfSet", "ResetMemWal",
      "DropMemWal",     "ForeignCompaction",
      "ReinstallMemWal"};
  const auto i = static_cast<std::size_t>(kind);
  MEMWAL_ASSERT(i < std::size(kNames));
  return kNames[i];
}

std::string_view Name(LanceOp op) {
  static constexpr std::string_view kNames[] = {"Init",
                                                "Append",
                                                "Delete",
                                                "Update",
                                                "Rewrite",
                                                "CreateIndex",
                                                "UpdateMemWalState",
                                                "Restore"};
  const auto i = static_cast<std::size_t>(op);
  MEMWAL_ASSERT(i < std::size(kNames));
  return kNames[i];
}

State Init(const Bounds& bounds) {
  MEMWAL_ASSERT(CheckBounds(bounds).ok());
  State state;
  Version& v = state.versions[0];
  v.number = 1;
  v.live = 1;  // {0}
  v.retained = true;
  for (int i = 0; i < bounds.indexes; ++i) {
    v.segments[i][0] =
        Segment{.uuid = static_cast<uint8_t>(i + 1), .covers = 1};
  }
  state.version_count = 1;
  state.next_fragment = 1;
  Canonicalize(&state);
  return state;
}

const Version& VersionNumbered(const State& state, int number) {
  for (int v = 0; v < state.version_count; ++v) {
    if (state.versions[v].number == number) return state.versions[v];
  }
  MEMWAL_ASSERT(false && "version not in the history");
  return state.versions[0];
}

void Canonicalize(State* state) {
  if (InCanonicalOrder(*state)) return;
  UuidMap map;
  ForEachUuid(*state, [&map](uint8_t& uuid) {
    map.Rename(&uuid);
    return true;
  });
}

void AssertWellFormed(const State& state, const Bounds& bounds) {
  MEMWAL_ASSERT(state.version_count >= 1 &&
                state.version_count <= bounds.commits + 1);
  MEMWAL_ASSERT(state.inflight_count <= bounds.inflight);
  MEMWAL_ASSERT(state.committed + state.inflight_count <= bounds.commits);
  MEMWAL_ASSERT(state.next_fragment >= 1 &&
                state.next_fragment <= bounds.fragments);
  for (int v = state.version_count; v < kVersionsMax; ++v) {
    MEMWAL_ASSERT(state.versions[v] == Version{});
  }
  for (int t = state.inflight_count; t < kInflightMax; ++t) {
    MEMWAL_ASSERT(state.inflight[t] == Txn{});
  }
  for (int v = 0; v < state.version_count; ++v) {
    const Version& version = state.versions[v];
    MEMWAL_ASSERT(v == 0 || version.number == state.versions[v - 1].number + 1);
    MEMWAL_ASSERT((version.live >> state.next_fragment) == 0);
    for (int i = 0; i < kIndexesMax; ++i) {
      MEMWAL_ASSERT(i < bounds.indexes || !IsPresent(version, i));
      MEMWAL_ASSERT(version.segments[i][0].uuid != 0 ||
                    version.segments[i][1].uuid == 0);
      MEMWAL_ASSERT(version.segments[i][1].uuid == 0 ||
                    version.segments[i][1].uuid != version.segments[i][0].uuid);
    }
    for (int s = bounds.shards; s < kShardsMax; ++s)
      MEMWAL_ASSERT(version.compacted[s] == 0);
  }
  MEMWAL_ASSERT(Head(state).retained);
  for (int t = 0; t < state.inflight_count; ++t) {
    const Txn& txn = state.inflight[t];
    MEMWAL_ASSERT(txn.read_version >= state.versions[0].number);
    MEMWAL_ASSERT(txn.read_version <= Head(state).number);
  }
  for (int s = 0; s < bounds.shards; ++s) {
    MEMWAL_ASSERT(state.flushed[s] <= bounds.generations);
    MEMWAL_ASSERT((state.retired[s] >> state.flushed[s]) == 0);
  }
  State canonical = state;
  Canonicalize(&canonical);
  MEMWAL_ASSERT(canonical == state);
}

void Encode(const State& state, std::string* out) {
  uint8_t buffer[kEncodedMax];
  const std::size_t size = EncodeTo(state, buffer);
  out->assign(reinterpret_cast<const char*>(buffer), size);
}

bool Decode(std::string_view bytes, State* out) {
  if (bytes.size() < kHeaderBytes) return false;
  const auto* in = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t versions = in[0];
  const uint8_t inflight = in[1];
  if (versions > kVersionsMax || inflight > kInflightMax) return false;
  if (bytes.size() !=
      kHeaderBytes + versions * kVersionBytes + inflight * kTxnBytes)
    return false;
  // Checked: the bytes are one state's. It is decoded in place.
  State& state = *out;
  state = State{};
  state.version_count = versions;
  state.inflight_count = inflight;
  in += 2;
  for (int s = 0; s < kShardsMax; ++s) {
    state.flushed[s] = *in++;
    state.retired[s] = *in++;
  }
  std::memcpy(&state.pending, in, kStateMiddle);
  in += kStateMiddle;
  const uint8_t activated = *in++;
  state.activated = activated & 1;
  state.foreign_legacy = (activated >> 1) & 1;
  for (int v = 0; v < state.version_count; ++v)
    in = DecodeVersion(in, &state.versions[v]);
  for (int t = 0; t < state.inflight_count; ++t)
    in = DecodeTxn(in, &state.inflight[t]);
  return true;
}

uint64_t Fingerprint(const State& state) {
  uint8_t buffer[kEncodedMax];
  const std::size_t size = EncodeTo(state, buffer);
  return HashBytes(buffer, size);
}

uint64_t Hash64(std::string_view bytes) {
  return HashBytes(reinterpret_cast<const uint8_t*>(bytes.data()),
                   bytes.size());
}

}  // namespace memwal::model
