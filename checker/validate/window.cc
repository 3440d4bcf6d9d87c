// Windows of a loaded table; see window.h.
#include "checker/validate/window.h"

#include <algorithm>
#include <memory>
#include <optional>
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

// The fragment ids `transaction` names (a Delete's, an UpdateColumns', a
// Rewrite's old fragments) in the window's numbering; ids outside the window
// (a fragment its first version no longer lists) are dropped. A CreateIndex's
// covers are read from the published version (renumbered already), a
// merge-insert's new fragment only for a staged transaction.
// Its read version too, in the window's version numbering (0, which names no
// version, when it was read before the window's first version).
std::shared_ptr<const impl::pb::Transaction> RenumberTransaction(
    const std::map<uint64_t, uint64_t>& ids,
    const std::map<uint64_t, uint64_t>& versions,
    const impl::pb::Transaction& in) {
  auto out = std::make_shared<impl::pb::Transaction>(in);
  const auto read = versions.find(in.read_version());
  out->set_read_version(read == versions.end() ? 0 : read->second);
  const auto find = [&](uint64_t id) -> std::optional<uint64_t> {
    const auto it = ids.find(id);
    if (it == ids.end()) return std::nullopt;
    return it->second;
  };
  if (out->has_delete_()) {
    auto* deleted = out->mutable_delete_()->mutable_deleted_fragment_ids();
    std::vector<uint64_t> kept;
    for (const uint64_t id : *deleted) {
      if (const auto to = find(id)) kept.push_back(*to);
    }
    deleted->Clear();
    for (const uint64_t id : kept) deleted->Add(id);
  }
  const auto renumber_list = [&](auto* list) {
    for (int k = list->size() - 1; k >= 0; --k) {
      if (const auto to = find(list->Get(k).id())) {
        list->Mutable(k)->set_id(*to);
      } else {
        list->DeleteSubrange(k, 1);
      }
    }
  };
  if (out->has_update())
    renumber_list(out->mutable_update()->mutable_updated_fragments());
  if (out->has_rewrite()) {
    for (auto& group : *out->mutable_rewrite()->mutable_groups())
      renumber_list(group.mutable_old_fragments());
  }
  return out;
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
  std::map<uint64_t, uint64_t> version_numbers;
  for (std::size_t k = first; k <= last; ++k)
    version_numbers.emplace(table.versions[k].number, k - first + 1);
  for (std::size_t k = first; k <= last; ++k) {
    impl::TableVersion version = *table.versions[k].table;
    window.numbers.push_back(version.number);
    version.number = k - first + 1;
    version.live = RenumberSet(renumber, version.live);
    // The head's high-water mark: one below the window ids up to it.
    std::size_t below = 0;
    for (const uint64_t id : window.fragments)
      below += id <= version.max_fragment_id;
    version.max_fragment_id = static_cast<uint64_t>(below) - 1;  // wraps at 0
    if (version.transaction != nullptr)
      version.transaction =
          RenumberTransaction(renumber, version_numbers, *version.transaction);
    for (auto& [index, segments] : version.segments) {
      for (impl::SegmentView& segment : segments) {
        if (segment.covers.has_value())
          segment.covers = RenumberSet(renumber, *segment.covers);
      }
    }
    window.versions.push_back(std::move(version));
  }
  if (table.rows.has_value()) {
    for (const auto& [id, rows] : table.rows->fragments) {
      const auto it = renumber.find(id);
      if (it != renumber.end()) window.rows.fragments[it->second] = rows;
    }
  }
  window.shards.uuids = table.shard_uuids;
  return window;
}

Window WithoutLast(const Window& window) {
  MEMWAL_ASSERT(window.versions.size() >= 2);
  Window out = window;
  out.versions.pop_back();
  out.numbers.pop_back();
  std::set<uint64_t> named;
  for (const impl::TableVersion& version : out.versions) {
    named.insert(version.live.begin(), version.live.end());
    for (const auto& [index, segments] : version.segments) {
      for (const impl::SegmentView& segment : segments) {
        if (segment.covers.has_value())
          named.insert(segment.covers->begin(), segment.covers->end());
      }
    }
  }
  for (auto it = out.rows.fragments.begin(); it != out.rows.fragments.end();) {
    it = named.contains(it->first) ? std::next(it)
                                   : out.rows.fragments.erase(it);
  }
  return out;
}

Result<model::State> AbstractWindow(const model::Config& config,
                                    const Window& window,
                                    const model::State& ghost,
                                    bool rows_known) {
  std::vector<const impl::TableVersion*> lineage;
  for (const impl::TableVersion& version : window.versions)
    lineage.push_back(&version);
  // The WAL is set from the chain below: a table directory holds only the
  // WAL's final shard manifests, not the WAL at the window's head.
  impl::WalState wal;
  wal.flushed.assign(config.bounds.shards, 0);
  wal.retired.assign(config.bounds.shards, {});
  MEMWAL_ASSIGN_OR_RETURN(
      model::State out,
      lockstep::AbstractVersions(config, lineage, lineage.size(), window.rows,
                                 wal, {}, window.shards));
  // What a window's bytes do not hold (window.h): the history before the
  // window, the WAL at its head, the in-flight list, retire_cover.
  out.committed = ghost.committed;
  out.activated = ghost.activated;
  out.foreign_legacy = ghost.foreign_legacy;
  out.deleted = ghost.deleted;
  out.flushed = ghost.flushed;
  out.retired = ghost.retired;
  out.pending = ghost.pending;
  out.retire_cover = ghost.retire_cover;
  out.inflight = ghost.inflight;
  out.inflight_count = ghost.inflight_count;
  if (!rows_known) out.rows = ghost.rows;
  return out;
}

}  // namespace memwal::checker::validate
