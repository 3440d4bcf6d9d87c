// The `advance` protocol (Lance PR 8263, beta.4-5) [spec R34; P §6.4]:
// positions are written only by an explicit IndexCatchupAdvance on a
// CreateIndex, validated against the final index list at build time; every
// changed index without a valid advance loses its entry.
#include <algorithm>
#include <set>

#include "impl/catchup.h"

namespace memwal::impl {
namespace {

using Advance = pb::Transaction::CreateIndex::IndexCatchupAdvance;

Status Refuse(const std::string& name, const std::string& why) {
  return Status::FailedPrecondition("catch-up advance for " + name + ": " +
                                    why);
}

// Validates the segment fence: exact uuid set, exact union, inspected fragments
// covered.
Status CheckSegments(const AdvanceInput& input, const Advance& advance,
                     BugSet bugs) {
  const std::string& name = advance.index_name();
  const std::vector<Segment>& after = SegmentsOf(input.after, name);
  std::set<std::string> expected, actual;
  for (const pb::UUID& uuid : advance.expected_index_segment_uuids()) {
    // Lance: a repeated expected uuid is invalid input, not a conflict.
    if (!expected.insert(uuid.uuid()).second) {
      return Status::InvalidArgument("catch-up advance for " +
                                     advance.index_name() +
                                     ": an expected segment uuid repeats");
    }
  }
  FragmentSet covered;
  for (const Segment& segment : after) {
    actual.insert(segment.uuid);
    if (!segment.covers.has_value())
      return Refuse(name, "a segment has no fragment bitmap");
    covered.insert(segment.covers->begin(), segment.covers->end());
  }
  if (expected != actual)
    return Refuse(name, "segment uuids differ from the expected set");
  MEMWAL_ASSIGN_OR_RETURN(
      const Coverage expected_covers,
      DecodeFragmentBitmap(advance.expected_fragment_bitmap()));
  if (!expected_covers.has_value() || *expected_covers != covered) {
    return Refuse(name, "coverage differs from the expected fragment bitmap");
  }
  MEMWAL_ASSIGN_OR_RETURN(const Coverage inspected,
                          DecodeFragmentBitmap(advance.inspected_fragments()));
  // Bug index-work-per-transaction: any published index work excuses every
  // advance.
  const bool skip_inspected =
      bugs.has(Bug::kAdvanceWithoutInspected) ||
      (bugs.has(Bug::kIndexWorkPerTransaction) && input.publishes_index_work);
  if (!skip_inspected &&
      (!inspected.has_value() ||
       !std::includes(covered.begin(), covered.end(), inspected->begin(),
                      inspected->end()))) {
    return Refuse(name, "does not cover every inspected fragment");
  }
  if (bugs.has(Bug::kRepairSpansLiveAtCommit) &&
      !std::includes(covered.begin(), covered.end(), input.new_live.begin(),
                     input.new_live.end())) {
    return Refuse(name, "does not cover every fragment live at commit");
  }
  return Status::Ok();
}

// Validates the claims and returns them as shard generations.
Result<ShardGenerations> CheckClaims(const AdvanceInput& input,
                                     const Advance& advance, BugSet bugs) {
  const std::string& name = advance.index_name();
  // Bug advance-bound-at-commit: the claim is the head's progress at commit
  // time.
  ShardGenerations claims = bugs.has(Bug::kAdvanceBoundAtCommit)
                                ? input.head_compacted
                                : Generations(advance.caught_up_generations());
  std::set<std::string> shards;
  for (const auto& [shard, generation] : claims) {
    if (!shards.insert(shard).second)
      return Refuse(name, "names a shard twice");
    const uint64_t compacted = GenerationFor(input.new_compacted, shard);
    if (compacted == 0)
      return Refuse(name, "names a shard without compaction progress");
    if (generation > compacted)
      return Refuse(name, "claims past the compaction progress");
  }
  return claims;
}

// Merge of a valid advance onto the old entry (R34): unchanged index keeps
// unnamed shards and takes the per-shard maximum; a changed index takes the
// claim alone.
// Lance keeps the merged positions keyed by shard: ordered by shard uuid.
ShardGenerations ByShard(ShardGenerations positions) {
  std::sort(positions.begin(), positions.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return positions;
}

ShardGenerations Merge(const ShardGenerations* old,
                       const ShardGenerations& claims, bool unchanged,
                       BugSet bugs) {
  if (!unchanged || old == nullptr || bugs.has(Bug::kAdvanceReplacesPosition))
    return ByShard(claims);
  ShardGenerations merged = *old;
  for (const auto& [shard, generation] : claims) {
    auto it =
        std::find_if(merged.begin(), merged.end(),
                     [&](const auto& entry) { return entry.first == shard; });
    if (it == merged.end()) {
      merged.emplace_back(shard, generation);
    } else {
      it->second = std::max(it->second, generation);
    }
  }
  return ByShard(std::move(merged));
}

ShardGenerations WithoutZeros(ShardGenerations positions) {
  std::erase_if(positions, [](const auto& entry) { return entry.second == 0; });
  return positions;
}

}  // namespace

Result<CatchupTable> ApplyAdvances(const AdvanceInput& input,
                                   const Advances& advances, BugSet bugs) {
  std::map<std::string, ShardGenerations> claims;
  const bool drop = !input.has_system_index &&
                    bugs.has(Bug::kAdvanceDroppedWithoutSystemIndex);
  for (const Advance& advance : drop ? Advances() : advances) {
    const std::string& name = advance.index_name();
    if (!input.head_requires_catchup)
      return Refuse(name, "the table does not require catch-up");
    if (!input.has_system_index)
      return Refuse(name, "the table has no __lance_mem_wal index");
    if (claims.count(name) != 0)
      return Refuse(name, "two advances name one index");
    MEMWAL_RETURN_IF_ERROR(CheckSegments(input, advance, bugs));
    MEMWAL_ASSIGN_OR_RETURN(claims[name], CheckClaims(input, advance, bugs));
  }
  CatchupTable rebuilt;
  for (const auto& [name, after] : input.after) {
    const auto old_it = input.old_catchup.find(name);
    const ShardGenerations* old =
        old_it == input.old_catchup.end() ? nullptr : &old_it->second;
    const bool unchanged =
        Unchanged(SegmentsOf(input.before, name), after, bugs);
    ShardGenerations positions;
    if (claims.count(name) != 0) {
      positions = Merge(old, claims[name], unchanged, bugs);
    } else if (unchanged && old != nullptr) {
      positions = *old;
    }
    positions = WithoutZeros(std::move(positions));
    if (!positions.empty()) rebuilt[name] = std::move(positions);
  }
  return rebuilt;
}

}  // namespace memwal::impl
