// State helpers: Init (R4), uuid canonicalization (R3), the canonical encoding
// and its hash.
#include "model/state.h"

#include <bit>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/assert.h"

namespace memwal::model {
namespace {

class Writer {
 public:
  explicit Writer(uint8_t* out) : out_(out) {}
  void Byte(uint8_t value) { out_[size_++] = value; }
  void Bool(bool value) { Byte(value ? 1 : 0); }
  std::size_t size() const { return size_; }

 private:
  uint8_t* out_;
  std::size_t size_ = 0;
};

void EncodeVersion(const Version& v, Writer* w) {
  w->Byte(v.number);
  w->Byte(v.live);
  for (const Segments& segments : v.segments) {
    for (const Segment& segment : segments) {
      w->Byte(segment.uuid);
      w->Byte(segment.covers);
    }
  }
  for (uint8_t c : v.compacted) w->Byte(c);
  for (const auto& per_shard : v.catchup) {
    for (uint8_t p : per_shard) w->Byte(p);
  }
  w->Byte(static_cast<uint8_t>(v.reader_bit | (v.writer_bit << 1) |
                               (v.retained << 2) | (v.mem_wal_dropped << 3)));
  w->Byte(static_cast<uint8_t>(v.op.kind));
  w->Byte(v.op.fragments);
  w->Byte(v.op.new_covers);
  w->Byte(v.op.index);
  w->Byte(v.op.progress_shard);
  w->Byte(v.op.progress_generation);
}

void EncodeTxn(const Txn& t, Writer* w) {
  w->Byte(static_cast<uint8_t>(t.kind));
  w->Byte(t.read_version);
  w->Byte(t.shard);
  w->Byte(t.generation);
  // advance shares the marker's byte: 0 for every transaction of env none.
  w->Byte(static_cast<uint8_t>(t.marker | (t.advance << 1)));
  w->Byte(t.fragment);
  w->Byte(t.second_fragment);
  w->Byte(t.index);
  w->Byte(t.segment.uuid);
  w->Byte(t.segment.covers);
  w->Byte(t.removed_uuid);
}

}  // namespace

std::size_t EncodeTo(const State& state, uint8_t* out) {
  Writer w(out);
  w.Byte(state.version_count);
  w.Byte(state.inflight_count);
  for (int s = 0; s < kShardsMax; ++s) {
    w.Byte(state.flushed[s]);
    w.Byte(state.retired[s]);
  }
  w.Byte(state.pending);
  w.Byte(state.committed);
  w.Byte(state.next_fragment);
  for (RowSet rows : state.rows) w.Byte(rows);
  w.Byte(state.deleted);
  for (IndexSet cover : state.retire_cover) w.Byte(cover);
  // foreign_legacy shares the byte: 0 for every state of env none.
  w.Byte(static_cast<uint8_t>(state.activated | (state.foreign_legacy << 1)));
  for (int v = 0; v < state.version_count; ++v)
    EncodeVersion(state.versions[v], &w);
  for (int t = 0; t < state.inflight_count; ++t)
    EncodeTxn(state.inflight[t], &w);
  MEMWAL_ASSERT(w.size() <= kEncodedMax);
  return w.size();
}

namespace {

// Reads what Writer wrote; every read is bounds-checked, and a short input sets
// !ok().
class Reader {
 public:
  Reader(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  uint8_t Byte() {
    if (next_ >= size_) {
      ok_ = false;
      return 0;
    }
    return data_[next_++];
  }
  bool Bool() { return Byte() != 0; }
  bool ok() const { return ok_; }
  bool done() const { return next_ == size_; }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t next_ = 0;
  bool ok_ = true;
};

void DecodeVersion(Reader* r, Version* v) {
  v->number = r->Byte();
  v->live = r->Byte();
  for (Segments& segments : v->segments) {
    for (Segment& segment : segments) {
      segment.uuid = r->Byte();
      segment.covers = r->Byte();
    }
  }
  for (uint8_t& c : v->compacted) c = r->Byte();
  for (auto& per_shard : v->catchup) {
    for (uint8_t& p : per_shard) p = r->Byte();
  }
  const uint8_t bits = r->Byte();
  v->reader_bit = bits & 1;
  v->writer_bit = (bits >> 1) & 1;
  v->retained = (bits >> 2) & 1;
  v->mem_wal_dropped = (bits >> 3) & 1;
  v->op.kind = static_cast<OpKind>(r->Byte());
  v->op.fragments = r->Byte();
  v->op.new_covers = r->Byte();
  v->op.index = r->Byte();
  v->op.progress_shard = r->Byte();
  v->op.progress_generation = r->Byte();
}

void DecodeTxn(Reader* r, Txn* t) {
  t->kind = static_cast<OpKind>(r->Byte());
  t->read_version = r->Byte();
  t->shard = r->Byte();
  t->generation = r->Byte();
  const uint8_t marker = r->Byte();
  t->marker = marker & 1;
  t->advance = static_cast<uint8_t>(marker >> 1);
  t->fragment = r->Byte();
  t->second_fragment = r->Byte();
  t->index = r->Byte();
  t->segment.uuid = r->Byte();
  t->segment.covers = r->Byte();
  t->removed_uuid = r->Byte();
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

const Version& Head(const State& state) {
  MEMWAL_ASSERT(state.version_count >= 1);
  MEMWAL_ASSERT(state.version_count <= kVersionsMax);
  return state.versions[state.version_count - 1];
}

Version& MutableHead(State& state) {
  MEMWAL_ASSERT(state.version_count >= 1);
  MEMWAL_ASSERT(state.version_count <= kVersionsMax);
  return state.versions[state.version_count - 1];
}

const Version& VersionNumbered(const State& state, int number) {
  for (int v = 0; v < state.version_count; ++v) {
    if (state.versions[v].number == number) return state.versions[v];
  }
  MEMWAL_ASSERT(false && "version not in the history");
  return state.versions[0];
}

bool IsPresent(const Version& version, int index) {
  return version.segments[index][0].uuid != 0;
}

FragmentSet CoveredBy(const Version& version, int index) {
  FragmentSet covers = 0;
  for (const Segment& segment : version.segments[index])
    covers |= segment.covers;
  return covers;
}

IndexSet PresentIndexes(const Version& version, int indexes) {
  IndexSet present = 0;
  for (int i = 0; i < indexes; ++i) {
    if (IsPresent(version, i)) present |= static_cast<IndexSet>(1u << i);
  }
  return present;
}

RowSet LiveRows(const State& state, const Version& version) {
  RowSet rows = 0;
  for (int f = 0; f < kFragmentsMax; ++f) {
    if (Contains(version.live, f)) rows |= state.rows[f];
  }
  return rows;
}

void Canonicalize(State* state) {
  UuidMap map;
  for (int v = 0; v < state->version_count; ++v) {
    for (Segments& segments : state->versions[v].segments) {
      for (Segment& segment : segments) map.Rename(&segment.uuid);
    }
  }
  for (int t = 0; t < state->inflight_count; ++t) {
    map.Rename(&state->inflight[t].removed_uuid);
    map.Rename(&state->inflight[t].segment.uuid);
  }
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
  Reader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  State state;
  state.version_count = r.Byte();
  state.inflight_count = r.Byte();
  if (state.version_count > kVersionsMax || state.inflight_count > kInflightMax)
    return false;
  for (int s = 0; s < kShardsMax; ++s) {
    state.flushed[s] = r.Byte();
    state.retired[s] = r.Byte();
  }
  state.pending = r.Byte();
  state.committed = r.Byte();
  state.next_fragment = r.Byte();
  for (RowSet& rows : state.rows) rows = r.Byte();
  state.deleted = r.Byte();
  for (IndexSet& cover : state.retire_cover) cover = r.Byte();
  const uint8_t activated = r.Byte();
  state.activated = activated & 1;
  state.foreign_legacy = (activated >> 1) & 1;
  for (int v = 0; v < state.version_count; ++v)
    DecodeVersion(&r, &state.versions[v]);
  for (int t = 0; t < state.inflight_count; ++t)
    DecodeTxn(&r, &state.inflight[t]);
  if (!r.ok() || !r.done()) return false;
  *out = state;
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
