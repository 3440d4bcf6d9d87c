// Windows of a loaded table; see window.h.
#include "checker/validate/window.h"

#include <algorithm>
#include <set>

namespace memwal::checker::validate {
namespace {

uint64_t Renumber(const std::map<uint64_t, uint64_t>& ids, uint64_t id) {
  const auto it = ids.find(id);
  MEMWAL_ASSERT(it != ids.end());
  return it->second;
}

std::set<uint64_t> RenumberSet(const std::map<uint64_t, uint64_t>& ids,
                               const std::set<uint64_t>& in) {
  std::set<uint64_t> out;
  for (const uint64_t id : in) out.insert(Renumber(ids, id));
  return out;
}

model::FragmentSet ToWindowSet(const Window& window,
                               const std::vector<uint64_t>& ids) {
  model::FragmentSet set = 0;
  for (const uint64_t id : ids) {
    const auto it =
        std::find(window.fragments.begin(), window.fragments.end(), id);
    if (it == window.fragments.end()) continue;  // named outside the window
    set |= static_cast<model::FragmentSet>(
        1u << static_cast<unsigned>(it - window.fragments.begin()));
  }
  return set;
}

std::vector<uint64_t> ToTableIds(const Window& window, model::FragmentSet set) {
  std::vector<uint64_t> out;
  for (std::size_t f = 0; f < window.fragments.size(); ++f) {
    if (model::Contains(set, static_cast<int>(f)))
      out.push_back(window.fragments[f]);
  }
  return out;
}

// Ops whose Op::fragments is a fragment set (ReinstallMemWal uses it as a
// flag).
bool FragmentsAreIds(model::OpKind kind) {
  return kind != model::OpKind::kReinstallMemWal;
}

}  // namespace

Result<Window> MakeWindow(const LoadedTable& table, std::size_t first,
                          std::size_t last) {
  MEMWAL_ASSERT(first <= last && last < table.versions.size());
  Window window;
  std::set<uint64_t> ids;
  for (std::size_t k = first; k <= last; ++k) {
    const LoadedVersion& version = table.versions[k];
    MEMWAL_ASSERT(version.table.has_value());
    ids.insert(version.table->live.begin(), version.table->live.end());
    for (const auto& [index, segments] : version.table->segments) {
      for (const impl::SegmentView& segment : segments) {
        if (segment.covers.has_value())
          ids.insert(segment.covers->begin(), segment.covers->end());
      }
    }
  }
  if (ids.size() > static_cast<std::size_t>(model::kFragmentsMax)) {
    return Status::FailedPrecondition(
        "the model cannot represent it: versions " +
        std::to_string(table.versions[first].number) + ".." +
        std::to_string(table.versions[last].number) + " name " +
        std::to_string(ids.size()) +
        " fragments (live or covered); the model "
        "holds " +
        std::to_string(model::kFragmentsMax));
  }
  std::map<uint64_t, uint64_t> renumber;
  for (const uint64_t id : ids) {
    renumber.emplace(id, window.fragments.size());
    window.fragments.push_back(id);
  }
  for (std::size_t k = first; k <= last; ++k) {
    impl::TableVersion version = *table.versions[k].table;
    window.numbers.push_back(version.number);
    version.number = k - first + 1;
    version.live = RenumberSet(renumber, version.live);
    for (auto& [index, segments] : version.segments) {
      for (impl::SegmentView& segment : segments) {
        if (segment.covers.has_value())
          segment.covers = RenumberSet(renumber, *segment.covers);
      }
    }
    window.snapshot.versions.push_back(std::move(version));
  }
  if (table.rows.has_value()) {
    for (const auto& [id, rows] : table.rows->fragments) {
      const auto it = renumber.find(id);
      if (it != renumber.end())
        window.snapshot.rows.fragments[it->second] = rows;
    }
  }
  window.snapshot.wal.flushed.assign(table.shards, 0);
  window.snapshot.wal.retired.assign(table.shards, {});
  return window;
}

Window WithoutLast(const Window& window) {
  MEMWAL_ASSERT(window.snapshot.versions.size() >= 2);
  Window out = window;
  out.snapshot.versions.pop_back();
  out.numbers.pop_back();
  std::set<uint64_t> named;
  for (const impl::TableVersion& version : out.snapshot.versions) {
    named.insert(version.live.begin(), version.live.end());
    for (const auto& [index, segments] : version.segments) {
      for (const impl::SegmentView& segment : segments) {
        if (segment.covers.has_value())
          named.insert(segment.covers->begin(), segment.covers->end());
      }
    }
  }
  for (auto it = out.snapshot.rows.fragments.begin();
       it != out.snapshot.rows.fragments.end();) {
    it = named.contains(it->first) ? std::next(it)
                                   : out.snapshot.rows.fragments.erase(it);
  }
  return out;
}

Result<model::State> AbstractWindow(const model::Config& config,
                                    const Window& window,
                                    const model::State& ghost,
                                    const std::map<uint64_t, StoredOp>& ops,
                                    bool rows_known) {
  // The ops the model explained, placed where lockstep's abstraction borrows
  // a model op from (a version of the same position whose kind agrees).
  model::State borrowed;
  borrowed.version_count = static_cast<uint8_t>(
      std::min<std::size_t>(window.numbers.size(), model::kVersionsMax));
  for (std::size_t k = 0; k < borrowed.version_count; ++k) {
    const auto it = ops.find(window.numbers[k]);
    if (it == ops.end()) continue;
    model::Op op = it->second.op;
    if (FragmentsAreIds(op.kind))
      op.fragments = ToWindowSet(window, it->second.fragments);
    op.new_covers = ToWindowSet(window, it->second.new_covers);
    borrowed.versions[k].op = op;
  }
  lockstep::ImplSnapshot snapshot = window.snapshot;
  // The model has at least one shard; a table without a MemWAL has none.
  snapshot.wal.flushed.assign(config.bounds.shards, 0);
  snapshot.wal.retired.assign(config.bounds.shards, {});
  for (int s = 0; s < config.bounds.shards; ++s) {
    snapshot.wal.flushed[s] = ghost.flushed[s];
    snapshot.wal.retired[s].clear();
    for (int g = 1; g <= model::kGenerationsMax; ++g) {
      if (model::Contains(ghost.retired[s], g - 1))
        snapshot.wal.retired[s].insert(g);
    }
  }
  MEMWAL_ASSIGN_OR_RETURN(model::State out,
                          lockstep::Abstract(config, snapshot, borrowed));
  // What the bytes do not hold (refinement.h: ghost fields, the counters, the
  // in-flight list).
  out.inflight = ghost.inflight;
  out.inflight_count = ghost.inflight_count;
  out.committed = ghost.committed;
  out.retire_cover = ghost.retire_cover;
  out.activated = ghost.activated;
  out.foreign_legacy = ghost.foreign_legacy;
  out.deleted = ghost.deleted;
  out.pending = ghost.pending;
  if (!rows_known) out.rows = ghost.rows;
  int top = 0;
  for (int v = 0; v < out.version_count; ++v) {
    for (int f = 0; f < model::kFragmentsMax; ++f) {
      if (model::Contains(out.versions[v].live, f)) top = std::max(top, f + 1);
      for (const model::Segments& segments : out.versions[v].segments) {
        for (const model::Segment& segment : segments) {
          if (model::Contains(segment.covers, f)) top = std::max(top, f + 1);
        }
      }
    }
  }
  out.next_fragment = static_cast<uint8_t>(top);
  return out;
}

StoredOp StoreOp(const model::Op& op, const Window& window) {
  StoredOp out;
  out.op = op;
  if (FragmentsAreIds(op.kind))
    out.fragments = ToTableIds(window, op.fragments);
  out.new_covers = ToTableIds(window, op.new_covers);
  return out;
}

}  // namespace memwal::checker::validate
