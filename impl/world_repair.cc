// World: OptimizeIndex, the index repair [spec R26; P §5 optimize_indices]. A
// repair adds a delta segment over unindexed fragments (or merges it into the
// newest of two segments); with nothing unindexed it is the "no-work repair",
// which still commits where catch-up would advance (derived, unconditional) or
// always (advance, where it carries the advance).
#include <algorithm>

#include "impl/world.h"

namespace memwal::impl {
namespace {

using CreateIndexOp = pb::Transaction::CreateIndex;
using Advance = CreateIndexOp::IndexCatchupAdvance;

std::string IndexName(uint32_t index) { return "idx_" + std::to_string(index); }

Result<FragmentSet> CoversOf(const pb::IndexMetadata& segment) {
  MEMWAL_ASSIGN_OR_RETURN(const Coverage covers,
                          DecodeFragmentBitmap(segment.fragment_bitmap()));
  if (!covers.has_value())
    return Status::FailedPrecondition("segment without a bitmap");
  return *covers;
}

}  // namespace

Result<pb::Transaction> World::OptimizeTransaction(const Snapshot& read,
                                                   uint32_t index) {
  const std::string name = IndexName(index);
  // The head's segments, read in place (most tries end in a refusal).
  std::vector<const pb::IndexMetadata*> segments;
  for (const auto& segment : read.file->index_section.indices()) {
    if (segment.name() == name) segments.push_back(&segment);
  }
  if (segments.empty())
    return Status::FailedPrecondition("index is not present");
  FragmentSet unindexed = LiveFragments(read.file->manifest);
  for (const pb::IndexMetadata* segment : segments) {
    MEMWAL_ASSIGN_OR_RETURN(const FragmentSet covers, CoversOf(*segment));
    for (const uint64_t id : covers) unindexed.erase(id);
  }
  pb::Transaction t;
  t.set_read_version(read.version());
  CreateIndexOp* op = t.mutable_create_index();
  if (!unindexed.empty()) {
    pb::IndexMetadata delta = *segments.back();
    FragmentSet covers = unindexed;
    if (segments.size() >=
        2) {  // Lance merges the newest delta instead of adding a third.
      MEMWAL_ASSIGN_OR_RETURN(const FragmentSet newest,
                              CoversOf(*segments.back()));
      covers.insert(newest.begin(), newest.end());
      *op->add_removed_indices() = *segments.back();
    }
    delta.mutable_uuid()->set_uuid(NewUuid());
    // Written by this table into its own _indices/, even where the segment
    // it extends is a clone source's (Lance: a new segment has no base_id).
    delta.clear_base_id();
    delta.set_dataset_version(read.version());
    delta.set_fragment_bitmap(EncodeFragmentBitmap(covers));
    *op->add_new_indices() = delta;
  } else {
    if (options_.protocol == Protocol::kLegacy) {
      return Status::FailedPrecondition("nothing to optimize");
    }
    // Bug no-work-repair-records-nothing: optimize returns before it can record
    // anything.
    if (bugs_.has(Bug::kNoWorkRepairRecordsNothing)) {
      return Status::FailedPrecondition(
          "nothing to optimize (no-work-repair-records-nothing)");
    }
    if (options_.protocol != Protocol::kAdvance) {
      MEMWAL_ASSIGN_OR_RETURN(const bool advances, RepairWouldAdvance(read));
      if (!advances)
        return Status::FailedPrecondition("catch-up would not advance");
    }
    (*t.mutable_transaction_properties())[std::string(kRepairIndexProperty)] =
        name;
  }
  if (options_.protocol == Protocol::kAdvance) {
    MEMWAL_ASSIGN_OR_RETURN(auto advance, BuildAdvance(read, name, *op));
    if (advance.has_value())
      *op->add_mem_wal_index_catchup_advances() = *advance;
  }
  return t;
}

// Lance: mem_wal_catch_up_would_advance: a dry run of the derivation on the
// head with the head as the read version [P §5].
Result<bool> World::RepairWouldAdvance(const Snapshot& head) const {
  if (!RequiresCatchup(options_.protocol, head.file->manifest)) return false;
  MEMWAL_ASSIGN_OR_RETURN(const auto details,
                          MemWalDetails(head.file->index_section));
  if (!details.has_value()) return false;
  DerivationInput input;
  MEMWAL_ASSIGN_OR_RETURN(input.read, ReadStateFor(options_.protocol, &head));
  input.head_compacted = Generations(details->compacted_sstables());
  MEMWAL_ASSIGN_OR_RETURN(input.before, UserSegments(head.file->index_section));
  input.after = input.before;
  input.new_compacted = input.head_compacted;
  input.old_catchup = Catchup(*details);
  return !SameCatchup(DeriveCatchup(input, bugs_), input.old_catchup);
}

// R26 (advance only): the claim the repair makes, built at begin from the read
// version.
Result<std::optional<Advance>> World::BuildAdvance(
    const Snapshot& read, const std::string& name,
    const CreateIndexOp& op) const {
  std::set<std::string> removed;
  for (const auto& segment : op.removed_indices())
    removed.insert(segment.uuid().uuid());
  Advance advance;
  advance.set_index_name(name);
  FragmentSet expected;
  auto add = [&](const pb::IndexMetadata& segment) -> Status {
    advance.add_expected_index_segment_uuids()->set_uuid(segment.uuid().uuid());
    MEMWAL_ASSIGN_OR_RETURN(const FragmentSet covers, CoversOf(segment));
    expected.insert(covers.begin(), covers.end());
    return Status::Ok();
  };
  for (const auto& segment : read.file->index_section.indices()) {
    if (segment.name() != name || removed.count(segment.uuid().uuid()) != 0)
      continue;
    MEMWAL_RETURN_IF_ERROR(add(segment));
  }
  for (const auto& segment : op.new_indices())
    MEMWAL_RETURN_IF_ERROR(add(segment));
  advance.set_expected_fragment_bitmap(EncodeFragmentBitmap(expected));
  advance.set_inspected_fragments(
      EncodeFragmentBitmap(LiveFragments(read.file->manifest)));
  MEMWAL_ASSIGN_OR_RETURN(const auto details,
                          MemWalDetails(read.file->index_section));
  if (details.has_value()) {
    for (const auto& entry : details->compacted_sstables()) {
      if (entry.generation() > 0) *advance.add_caught_up_generations() = entry;
    }
  }
  return std::optional<Advance>(std::move(advance));
}

}  // namespace memwal::impl
