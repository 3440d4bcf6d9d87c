// The liveness window (model/window.h, spec/protocol.md R70).
#include "model/window.h"

#include <algorithm>
#include <array>
#include <bitset>

#include "model/read.h"

namespace memwal::model {
namespace {

// The in-flight kinds whose Txn::fragment (and second_fragment) name one.
bool NamesFragment(OpKind kind) {
  return kind == OpKind::kDeleteFragment || kind == OpKind::kUpdateColumns ||
         kind == OpKind::kRewriteFragments;
}

// Op::fragments is a fragment set for these kinds (ReinstallMemWal keeps a
// flag there).
bool OpNamesFragments(OpKind kind) { return NamesFragment(kind); }

bool Keeps(const State& state, int v, int oldest_read) {
  const Version& version = state.versions[v];
  return v + 1 == state.version_count || version.retained ||
         version.number >= oldest_read;
}

// A monotone renaming of fragment ids: `to[f]` is f's new id.
struct FragmentMap {
  std::array<uint8_t, kFragmentsMax> to{};
  FragmentSet Map(FragmentSet set) const {
    FragmentSet out = 0;
    for (unsigned left = set; left != 0; left &= left - 1)
      out |= FragmentSet(1u << to[__builtin_ctz(left)]);
    return out;
  }
};

FragmentSet NamedFragments(const State& state) {
  FragmentSet named = 0;
  for (int v = 0; v < state.version_count; ++v) {
    const Version& version = state.versions[v];
    named |= version.live | version.op.new_covers;
    if (OpNamesFragments(version.op.kind)) named |= version.op.fragments;
    for (const Segments& segments : version.segments) {
      for (const Segment& segment : segments) named |= segment.covers;
    }
  }
  for (int t = 0; t < state.inflight_count; ++t) {
    const Txn& txn = state.inflight[t];
    named |= txn.segment.covers;
    if (!NamesFragment(txn.kind)) continue;
    named |= FragmentSet(1u << txn.fragment);
    if (txn.kind == OpKind::kRewriteFragments)
      named |= FragmentSet(1u << txn.second_fragment);
  }
  return named;
}

void Renumber(const FragmentMap& map, FragmentSet named, State* state) {
  // Rows matter to a guard only in a fragment live in a kept version (R28's
  // guard reads the head's; a Restore makes a kept version's live again).
  FragmentSet live = 0;
  for (int v = 0; v < state->version_count; ++v)
    live |= state->versions[v].live;
  for (int v = 0; v < state->version_count; ++v) {
    Version& version = state->versions[v];
    version.live = map.Map(version.live);
    version.op.new_covers = map.Map(version.op.new_covers);
    if (OpNamesFragments(version.op.kind))
      version.op.fragments = map.Map(version.op.fragments);
    for (Segments& segments : version.segments) {
      for (Segment& segment : segments)
        segment.covers = map.Map(segment.covers);
    }
  }
  for (int t = 0; t < state->inflight_count; ++t) {
    Txn& txn = state->inflight[t];
    txn.segment.covers = map.Map(txn.segment.covers);
    if (!NamesFragment(txn.kind)) continue;
    txn.fragment = map.to[txn.fragment];
    if (txn.kind == OpKind::kRewriteFragments)
      txn.second_fragment = map.to[txn.second_fragment];
  }
  std::array<RowSet, kFragmentsMax> rows{};
  for (int f = 0; f < kFragmentsMax; ++f) {
    if (Contains(named, f) && Contains(live, f))
      rows[map.to[f]] = state->rows[f];
  }
  state->rows = rows;
}

// Every fragment set of the state, in a fixed order, through `visit`.
template <typename Visit>
void ForEachSet(State* state, Visit visit) {
  for (int v = 0; v < state->version_count; ++v) {
    Version& version = state->versions[v];
    visit(&version.live);
    visit(&version.op.new_covers);
    if (OpNamesFragments(version.op.kind)) visit(&version.op.fragments);
    for (Segments& segments : version.segments) {
      for (Segment& segment : segments) visit(&segment.covers);
    }
  }
  for (int t = 0; t < state->inflight_count; ++t)
    visit(&state->inflight[t].segment.covers);
}

// Merges fragments that every set of the state treats alike (and no in-flight
// transaction names alone) into the lowest of them, its rows the union.
// Whether any merged.
bool MergeAlike(State* state) {
  // Byte f of `differ`: the fragments some set holds without f, or holds f
  // without; byte f of kSpread[in] is 0xff when f is in `in`.
  static constexpr auto kSpread = [] {
    std::array<uint64_t, 256> spread{};
    for (unsigned in = 0; in < 256; ++in) {
      for (int f = 0; f < kFragmentsMax; ++f)
        if ((in >> f) & 1u) spread[in] |= uint64_t{0xff} << (8 * f);
    }
    return spread;
  }();
  static_assert(kFragmentsMax == 8 && sizeof(FragmentSet) == 1);
  uint64_t differ = 0;
  FragmentSet named = 0;
  ForEachSet(state, [&](FragmentSet* set) {
    const FragmentSet in = *set;
    named |= in;
    differ |= (uint64_t{in} * 0x0101010101010101ull) ^ kSpread[in];
  });
  // A fragment an in-flight transaction names is like no other.
  FragmentSet alone = 0;
  for (int t = 0; t < state->inflight_count; ++t) {
    const Txn& txn = state->inflight[t];
    if (!NamesFragment(txn.kind)) continue;
    alone |= FragmentSet(1u << txn.fragment);
    if (txn.kind == OpKind::kRewriteFragments)
      alone |= FragmentSet(1u << txn.second_fragment);
  }
  const FragmentSet mergeable = named & FragmentSet(~alone);
  FragmentSet away = 0;
  for (int f = 1; f < kFragmentsMax; ++f) {
    if (!Contains(mergeable, f)) continue;
    // The lowest fragment alike (never itself merged away).
    const auto differs = static_cast<FragmentSet>(differ >> (8 * f));
    const unsigned like = mergeable & FragmentSet(~differs) & ((1u << f) - 1);
    if (like == 0) continue;
    const int r = __builtin_ctz(like);
    state->rows[r] |= state->rows[f];
    state->rows[f] = 0;
    away |= FragmentSet(1u << f);
  }
  if (away == 0) return false;
  ForEachSet(state, [away](FragmentSet* set) { *set &= FragmentSet(~away); });
  return true;
}

// A version other than the head that no in-flight transaction read is read
// only by R30's rebase (its op, when after a transaction's read version) and
// by R12 (when retained), and CleanupVersions clears `retained` of all such
// versions at once (R38). So it keeps its number, op and `retained`, and of
// the rest only how far R12 holds in it per shard (as `compacted`, with no
// index present). Those before the oldest read version then differ only in
// that number, so the retained ones merge into one holding the least of it.
// A MemWAL install's version is kept whole (R31 note b reads its details).
void Summarize(const Config& config, int oldest_read, State* state) {
  std::bitset<256> read;  // by version number
  for (int t = 0; t < state->inflight_count; ++t)
    read.set(state->inflight[t].read_version);
  // In place: version v is read before slot count <= v is written.
  std::array<Version, kVersionsMax>& out = state->versions;
  int count = 0;
  int past = -1;  // the merged retained version before oldest_read
  for (int v = 0; v < state->version_count; ++v) {
    const Version& version = state->versions[v];
    if (v + 1 == state->version_count || read[version.number] ||
        InstallsMemWal(version.op.kind)) {
      if (count != v) out[count] = version;
      ++count;
      continue;
    }
    Version projected{.number = version.number,
                      .retained = version.retained,
                      .op = version.op};
    if (version.retained) {
      for (int s = 0; s < config.bounds.shards; ++s)
        projected.compacted[s] =
            static_cast<uint8_t>(RetirableThrough(config, version, s));
    }
    if (version.number >= oldest_read) {
      out[count++] = projected;
      continue;
    }
    if (!version.retained) continue;  // FoldVersions drops it anyway
    projected.op = Op{};
    if (past < 0) {
      past = count;
      out[count++] = projected;
      continue;
    }
    for (int s = 0; s < config.bounds.shards; ++s)
      out[past].compacted[s] =
          std::min(out[past].compacted[s], projected.compacted[s]);
  }
  for (int v = count; v < state->version_count; ++v) out[v] = Version{};
  state->version_count = static_cast<uint8_t>(count);
}

}  // namespace

void Fold(const Config& config, State* state) {
  FoldVersions(config, state);
  // FoldVersions is idempotent: only a merge leaves it more to drop.
  if (MergeAlike(state)) FoldVersions(config, state);
}

void FoldVersions(const Config& config, State* state) {
  // Versions: keep the observable ones, renumber them 1, 2, ...
  int oldest_read = 256;
  for (int t = 0; t < state->inflight_count; ++t)
    oldest_read = std::min<int>(oldest_read, state->inflight[t].read_version);
  Summarize(config, oldest_read, state);
  // In place: version v is read before slot count <= v is written.
  std::array<Version, kVersionsMax>& kept = state->versions;
  std::array<uint8_t, kVersionsMax> old_number{};  // of kept[k], before
  int count = 0;
  for (int v = 0; v < state->version_count; ++v) {
    if (!Keeps(*state, v, oldest_read)) continue;
    const uint8_t number = state->versions[v].number;
    if (count != v) kept[count] = state->versions[v];
    // An op is read only by the rebase of a transaction that read an older
    // version (R30) and, for a re-install, by the reinstalls bound (R39).
    if (number <= oldest_read &&
        kept[count].op.kind != OpKind::kReinstallMemWal)
      kept[count].op = Op{};
    old_number[count] = number;
    kept[count].number = static_cast<uint8_t>(count + 1);
    ++count;
  }
  for (int v = count; v < state->version_count; ++v) kept[v] = Version{};
  state->version_count = static_cast<uint8_t>(count);
  for (int t = 0; t < state->inflight_count; ++t) {
    Txn& txn = state->inflight[t];
    int k = 0;
    while (k < count && old_number[k] != txn.read_version) ++k;
    MEMWAL_ASSERT(k < count);  // a read version is kept
    txn.read_version = static_cast<uint8_t>(k + 1);
  }
  // Fragments: keep the named ones, renumber them 0, 1, ... in order.
  const FragmentSet named = NamedFragments(*state);
  FragmentMap map;
  int next = 0;
  for (int f = 0; f < kFragmentsMax; ++f) {
    if (Contains(named, f)) map.to[f] = static_cast<uint8_t>(next++);
  }
  if (named == FragmentSet((1u << next) - 1)) {
    // Already numbered 0, 1, ...: only the rows Renumber drops.
    FragmentSet live = 0;
    for (int v = 0; v < state->version_count; ++v)
      live |= state->versions[v].live;
    for (int f = 0; f < kFragmentsMax; ++f) {
      if (!Contains(named & live, f)) state->rows[f] = 0;
    }
  } else {
    Renumber(map, named, state);
  }
  // Section 2's well-formedness wants at least one allocated id.
  state->next_fragment = static_cast<uint8_t>(std::max(next, 1));
  state->committed = static_cast<uint8_t>(count - 1);
  // Ghost fields only the safety invariants read.
  state->deleted = 0;
  state->retire_cover = {};
  state->foreign_legacy = false;
  Canonicalize(state);
}

}  // namespace memwal::model
