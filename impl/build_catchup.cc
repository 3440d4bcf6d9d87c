// The catch-up and activation steps of build_manifest [spec R35 steps 3 and 6]:
// gathers the abstract inputs from the head, the read version and the built
// index list, runs the protocol's rule (catchup.h) and writes the result into
// the MemWAL system index, leaving the system index untouched when nothing
// changed (Lance keeps its uuid then [P §6.2 step 10]).
#include <set>

#include "impl/build.h"
#include "impl/feature_flags.h"

namespace memwal::impl {
namespace {

bool PublishesIndexWork(const pb::Transaction& t) {
  if (!t.has_create_index()) return false;
  for (const auto& index : t.create_index().new_indices()) {
    if (!IsMemWalIndex(index)) return true;
  }
  return false;
}

Result<DerivationInput> DerivationInputFor(
    const BuildInput& input, const ManifestFile& file,
    const pb::MemWalIndexDetails& details) {
  DerivationInput derivation;
  MEMWAL_ASSIGN_OR_RETURN(derivation.read,
                          ReadStateFor(input.protocol, input.read));
  MEMWAL_ASSIGN_OR_RETURN(const auto head_details,
                          MemWalDetails(input.head->file->index_section));
  if (head_details.has_value())
    derivation.head_compacted = Generations(head_details->compacted_sstables());
  // Lance takes the prior positions from the system index after the operation
  // [P §6.2 step 4]: the head's, except after a MemWAL (re)install, whose own
  // details replace them [spec R39].
  derivation.old_catchup = Catchup(details);
  // The segments before the operation: the head's (the new version's file
  // started as a copy of the head's index section), read only when a rule
  // runs.
  MEMWAL_ASSIGN_OR_RETURN(derivation.before,
                          UserSegments(input.head->file->index_section));
  MEMWAL_ASSIGN_OR_RETURN(derivation.after, UserSegments(file.index_section));
  derivation.new_compacted = Generations(details.compacted_sstables());
  return derivation;
}

Result<CatchupTable> RunAdvance(const BuildInput& input,
                                const DerivationInput& derived,
                                const ManifestFile& file,
                                bool requires_catchup) {
  AdvanceInput advance{
      .head_requires_catchup = requires_catchup,
      .has_system_index = FindMemWalIndex(file.index_section) != nullptr,
      .before = derived.before,
      .after = derived.after,
      .new_compacted = derived.new_compacted,
      .head_compacted = derived.head_compacted,
      .new_live = LiveFragments(file.manifest),
      .old_catchup = derived.old_catchup,
      .publishes_index_work = PublishesIndexWork(*input.transaction),
  };
  static const Advances kNone;
  const Advances& advances =
      input.transaction->has_create_index()
          ? input.transaction->create_index().mem_wal_index_catchup_advances()
          : kNone;
  return ApplyAdvances(advance, advances, input.bugs);
}

// Refuses an advance on a table without the system index (R34), which the
// derivation path below cannot see because it returns early without one.
Status CheckAdvanceTarget(const BuildInput& input, const ManifestFile& file) {
  if (input.protocol != Protocol::kAdvance ||
      !input.transaction->has_create_index()) {
    return Status::Ok();
  }
  if (input.transaction->create_index()
          .mem_wal_index_catchup_advances()
          .empty()) {
    return Status::Ok();
  }
  if (FindMemWalIndex(file.index_section) != nullptr) return Status::Ok();
  if (input.bugs.has(Bug::kAdvanceDroppedWithoutSystemIndex))
    return Status::Ok();
  return Status::FailedPrecondition(
      "catch-up advance on a table without __lance_mem_wal");
}

}  // namespace

Status ApplyCatchupRule(const BuildInput& input, ManifestFile* file) {
  MEMWAL_RETURN_IF_ERROR(CheckAdvanceTarget(input, *file));
  if (input.protocol == Protocol::kLegacy) return Status::Ok();
  const pb::IndexMetadata* system = FindMemWalIndex(file->index_section);
  if (system == nullptr) return Status::Ok();
  MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(*system));
  const bool requires_catchup =
      RequiresCatchup(input.protocol, input.head->file->manifest);
  // Bug invalidation-on-legacy: withdrawal runs on a table without the bit.
  const bool withdraw_only =
      !requires_catchup && input.bugs.has(Bug::kInvalidationOnLegacy);
  const bool has_advances = input.transaction->has_create_index() &&
                            !input.transaction->create_index()
                                 .mem_wal_index_catchup_advances()
                                 .empty();
  if (!requires_catchup && !withdraw_only && !has_advances) return Status::Ok();
  MEMWAL_ASSIGN_OR_RETURN(const DerivationInput derivation,
                          DerivationInputFor(input, *file, details));
  CatchupTable rebuilt;
  if (withdraw_only && !has_advances) {
    rebuilt = WithdrawChanged(derivation, input.bugs);
  } else if (input.protocol == Protocol::kAdvance) {
    MEMWAL_ASSIGN_OR_RETURN(
        rebuilt, RunAdvance(input, derivation, *file, requires_catchup));
  } else if (requires_catchup) {
    rebuilt = DeriveCatchup(derivation, input.bugs);
  } else {
    return Status::Ok();  // A derived-protocol transaction never carries
                          // advances.
  }
  if (SameCatchup(rebuilt, derivation.old_catchup)) return Status::Ok();
  WriteCatchup(rebuilt, &details);
  ReplaceMemWalIndex(details, file->manifest.version(), *input.new_uuid,
                     &file->index_section);
  return Status::Ok();
}

// R29 / R35.6: one-way activation, after the flags were reset so that it
// survives.
Status ApplyActivation(const BuildInput& input, ManifestFile* file) {
  const pb::Transaction& t = *input.transaction;
  if (!t.has_update_mem_wal_state() ||
      !t.update_mem_wal_state().require_index_catchup()) {
    return Status::Ok();
  }
  if (input.protocol != Protocol::kDerived &&
      input.protocol != Protocol::kAdvance) {
    return Status::FailedPrecondition(
        "activation exists only in the bit protocols");
  }
  const CatchupBits head_bits = ReadCatchupBits(input.head->file->manifest);
  if (head_bits.half())
    return Status::FailedPrecondition("the head is half-activated");
  if (head_bits.neither()) {
    const pb::IndexMetadata* system = FindMemWalIndex(file->index_section);
    if (system == nullptr)
      return Status::FailedPrecondition("activation needs __lance_mem_wal");
    MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                            UnpackMemWalDetails(*system));
    if (details.compacted_sstables_size() > 0) {
      return Status::FailedPrecondition(
          "the table carries beta-protocol compaction progress, which cannot "
          "be validated; "
          "drain or reset the table first");
    }
    if (details.index_catchup_size() > 0) {
      details.clear_index_catchup();
      ReplaceMemWalIndex(details, file->manifest.version(), *input.new_uuid,
                         &file->index_section);
    }
  }
  pb::Manifest& manifest = file->manifest;
  manifest.set_reader_feature_flags(manifest.reader_feature_flags() |
                                    kFlagMemWalIndexCatchup);
  manifest.set_writer_feature_flags(manifest.writer_feature_flags() |
                                    kFlagMemWalIndexCatchup);
  MEMWAL_ASSERT(ReadCatchupBits(manifest).both());
  return Status::Ok();
}

}  // namespace memwal::impl
