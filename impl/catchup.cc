// Catch-up derivation and advance; see catchup.h. Each rule cites spec R33/R34.
#include "impl/catchup.h"

#include <algorithm>
#include <set>

namespace memwal::impl {
namespace {

const ShardGenerations* EntryOf(const CatchupTable& table,
                                const std::string& name) {
  const auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

// Union of covers; nullopt if some segment's coverage is unknown.
Coverage UnionOf(const std::vector<Segment>& segments) {
  FragmentSet all;
  for (const Segment& segment : segments) {
    if (!segment.covers.has_value()) return std::nullopt;
    all.insert(segment.covers->begin(), segment.covers->end());
  }
  return all;
}

// R33 proven(i). A read version with no fragments proves nothing (Lance's guard
// against pre-#8438 empty manifests [P §6.2 step 8]).
bool Proven(const std::optional<ReadVersionState>& read,
            const std::vector<Segment>& after) {
  if (!read.has_value() || read->live.empty()) return false;
  const Coverage all = UnionOf(after);
  if (!all.has_value()) return false;
  return std::includes(all->begin(), all->end(), read->live.begin(),
                       read->live.end());
}

ShardGenerations DeriveIndex(const DerivationInput& input,
                             const std::string& name, BugSet bugs) {
  const std::vector<Segment>& after = SegmentsOf(input.after, name);
  const bool proven = Proven(input.read, after);
  const bool unchanged = Unchanged(SegmentsOf(input.before, name), after, bugs);
  const ShardGenerations* old = EntryOf(input.old_catchup, name);
  const bool clamp = !bugs.has(Bug::kCoveragePastCompaction);
  ShardGenerations positions;
  for (const auto& [shard, committed] : input.new_compacted) {
    uint64_t credit = 0;
    if (proven) {
      // Bug claim-past-read-version: credit the head's progress, not the read
      // version's.
      credit = bugs.has(Bug::kClaimPastReadVersion)
                   ? GenerationFor(input.head_compacted, shard)
                   : GenerationFor(input.read->compacted, shard);
    }
    if (clamp)
      credit =
          std::min(credit, committed);  // Never past this commit's progress.
    uint64_t position = credit;
    if (unchanged && old != nullptr) {
      uint64_t carried = GenerationFor(*old, shard);
      if (clamp) carried = std::min(carried, committed);
      position = std::max(carried, credit);
    }
    positions.emplace_back(shard, position);
  }
  // Lance writes a shard at 0 explicitly when another shard of the entry is
  // non-zero, and omits an entry that would be all zeros [P §6.2 step 9].
  const bool all_zero =
      std::all_of(positions.begin(), positions.end(),
                  [](const auto& entry) { return entry.second == 0; });
  if (all_zero) positions.clear();
  return positions;
}

}  // namespace

CatchupTable DeriveCatchup(const DerivationInput& input, BugSet bugs) {
  CatchupTable rebuilt;
  for (const auto& [name, segments] : input.after) {
    MEMWAL_ASSERT(!segments.empty());
    ShardGenerations positions = DeriveIndex(input, name, bugs);
    if (!positions.empty()) rebuilt[name] = std::move(positions);
  }
  for (const auto& [name, positions] : rebuilt)
    MEMWAL_ASSERT(input.after.count(name) == 1);
  return rebuilt;
}

CatchupTable WithdrawChanged(const DerivationInput& input, BugSet bugs) {
  CatchupTable kept;
  for (const auto& [name, positions] : input.old_catchup) {
    // A dropped index (absent after the operation) loses its entry too.
    if (input.after.count(name) != 0 &&
        Unchanged(SegmentsOf(input.before, name), SegmentsOf(input.after, name),
                  bugs))
      kept[name] = positions;
  }
  return kept;
}

bool SameCatchup(const CatchupTable& a, const CatchupTable& b) {
  return a == b;
}

void WriteCatchup(const CatchupTable& table, pb::MemWalIndexDetails* details) {
  MEMWAL_ASSERT(details != nullptr);
  details->clear_index_catchup();
  for (const auto& [name, positions] : table) {
    MEMWAL_ASSERT(!positions.empty());
    pb::IndexCatchupProgress* progress = details->add_index_catchup();
    progress->set_index_name(name);
    SetGenerations(positions, progress->mutable_caught_up_generations());
  }
}

bool Unchanged(const std::vector<Segment>& before,
               const std::vector<Segment>& after, BugSet bugs) {
  if (!bugs.has(Bug::kUnchangedByUuidOnly)) return before == after;
  if (before.size() != after.size()) return false;
  for (size_t k = 0; k < before.size(); ++k) {
    if (before[k].uuid != after[k].uuid) return false;
  }
  return true;
}

const std::vector<Segment>& SegmentsOf(const Segments& segments,
                                       const std::string& name) {
  static const std::vector<Segment> kNone;
  const auto it = segments.find(name);
  return it == segments.end() ? kNone : it->second;
}

}  // namespace memwal::impl
