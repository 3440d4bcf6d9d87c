// The human-readable form of a State (traces, test failures).
#include <sstream>
#include <string>

#include "model/state.h"

namespace memwal::model {
namespace {

void PutSet(std::ostream& out, uint8_t set) {
  out << '{';
  bool first = true;
  for (int k = 0; k < 8; ++k) {
    if (!Contains(set, k)) continue;
    out << (first ? "" : ",") << k;
    first = false;
  }
  out << '}';
}

void PutRows(std::ostream& out, RowSet rows) {
  out << '{';
  bool first = true;
  for (int bit = 0; bit < 8; ++bit) {
    if (!Contains(rows, bit)) continue;
    out << (first ? "" : ",") << '(' << bit / kGenerationsMax << ','
        << bit % kGenerationsMax + 1 << ')';
    first = false;
  }
  out << '}';
}

void PutVersion(std::ostream& out, const Version& v) {
  out << "v" << int{v.number} << " live=";
  PutSet(out, v.live);
  for (int i = 0; i < kIndexesMax; ++i) {
    if (!IsPresent(v, i)) continue;
    out << " idx_" << i << "=[";
    for (const Segment& s : v.segments[i]) {
      if (s.uuid == 0) continue;
      out << 'u' << int{s.uuid};
      PutSet(out, s.covers);
    }
    out << ']';
  }
  out << " compacted=[" << int{v.compacted[0]} << ',' << int{v.compacted[1]}
      << "] catchup=[";
  for (int i = 0; i < kIndexesMax; ++i) {
    out << (i > 0 ? " " : "") << int{v.catchup[i][0]} << ','
        << int{v.catchup[i][1]};
  }
  out << "] bits=" << v.reader_bit << v.writer_bit
      << (v.retained ? " retained" : "")
      << (v.mem_wal_dropped ? " no-mem-wal" : "") << " op=" << Name(v.op.kind);
}

void PutTxn(std::ostream& out, const Txn& t) {
  out << Name(t.kind) << " read=v" << int{t.read_version}
      << " shard=" << int{t.shard} << " generation=" << int{t.generation}
      << " marker=" << (t.marker ? "true" : "false")
      << " fragment=" << int{t.fragment} << " second=" << int{t.second_fragment}
      << " index=" << int{t.index} << " segment=u" << int{t.segment.uuid};
  PutSet(out, t.segment.covers);
  out << " removed=u" << int{t.removed_uuid};
  if (t.advance != 0) out << " advance=" << int{t.advance};
}

}  // namespace

std::string ToString(const State& state) {
  std::ostringstream out;
  for (int v = 0; v < state.version_count; ++v) {
    out << "  ";
    PutVersion(out, state.versions[v]);
    out << '\n';
  }
  for (int t = 0; t < state.inflight_count; ++t) {
    out << "  inflight[" << t << "] ";
    PutTxn(out, state.inflight[t]);
    out << '\n';
  }
  out << "  flushed=[" << int{state.flushed[0]} << ',' << int{state.flushed[1]}
      << "] retired=[";
  PutSet(out, static_cast<uint8_t>(state.retired[0] << 1));
  out << ',';
  PutSet(out, static_cast<uint8_t>(state.retired[1] << 1));
  out << "] pending=";
  PutRows(out, state.pending);
  out << " committed=" << int{state.committed}
      << " next_fragment=" << int{state.next_fragment} << " rows=[";
  for (int f = 0; f < state.next_fragment; ++f) {
    out << (f > 0 ? " " : "") << 'f' << f << ':';
    PutRows(out, state.rows[f]);
  }
  out << "] deleted=";
  PutRows(out, state.deleted);
  out << " activated=" << (state.activated ? "true" : "false")
      << (state.foreign_legacy ? " foreign-legacy" : "") << '\n';
  return out.str();
}

}  // namespace memwal::model
