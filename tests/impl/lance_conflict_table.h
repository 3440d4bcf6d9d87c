// The conflict table of Lance's resolver (conflict_resolver.rs: check_txn's
// two pre-checks, then check_*_txn per operation), as read at
// lance-format/lance 7c800fd0fc9d99f95832b1144e0f6e33f2dc5e5d, written down as
// two tables of letters (C compatible, R retryable, I incompatible), not
// derived from the implementation. Each operation is one representative
// transaction, built twice: touching what the transaction to commit touches
// (fragment 1, field 0, index idx_0, config key k, shard A, base path p; a
// progress commit's generation 1 below the transaction's 2) or touching none
// of it (fragment 2, field 1, idx_1, key j, shard B, path q). ReserveRowIds is
// not a row or a column: Lance handles it with ReserveFragments in every arm,
// and its transaction has no field here.
//
// Where impl/conflicts.cc differs from Lance on purpose, the cell is in
// kDifferences with the reason. Two readers: the impl test
// (tests/impl/conflict_table_test.cc, a test per cell, and docs/conflicts.md
// rendered from the same data) and the gate's rule-function properties
// (tests/conformance/rule_lance_conflicts_test.cc), which check every cell in
// the binary under test, so that a mutant of a conflict row fails the gate.
#pragma once

#include <array>
#include <string>

#include "impl/bitmap.h"
#include "impl/conflicts.h"
#include "impl/format.h"

namespace memwal::impl::lance_conflicts {

enum Kind {
  kAppend,
  kDelete,
  kOverwrite,
  kIndexBuild,
  kMemWalInstall,
  kRewrite,
  kMerge,
  kRestore,
  kReserveFragments,
  kUpdate,
  kProject,
  kUpdateConfig,
  kDataReplacement,
  kUpdateMemWalState,
  kClone,
  kUpdateBases,
  kDataOverlay,
  kKinds
};

struct KindInfo {
  const char* name;        // in test names
  const char* short_name;  // in the document's columns
  const char* what;        // in the document's rows
};

inline constexpr std::array<KindInfo, kKinds> kInfo = {{
    {"Append", "Ap", "Append"},
    {"Delete", "De", "Delete (a whole fragment)"},
    {"Overwrite", "Ow", "Overwrite"},
    {"IndexBuild", "CI", "CreateIndex (a user index)"},
    {"MemWalInstall", "MW", "CreateIndex (installs __lance_mem_wal)"},
    {"Rewrite", "Rw", "Rewrite (no fragment-reuse index)"},
    {"Merge", "Me", "Merge (may alter nullability)"},
    {"Restore", "Rs", "Restore"},
    {"ReserveFragments", "RF", "ReserveFragments (and ReserveRowIds)"},
    {"Update", "Up", "Update (moves a fragment's rows)"},
    {"Project", "Pj", "Project (may alter nullability)"},
    {"UpdateConfig", "UC", "UpdateConfig (a config key)"},
    {"DataReplacement", "DR", "DataReplacement"},
    {"UpdateMemWalState", "UMS", "UpdateMemWalState"},
    {"Clone", "Cl", "Clone"},
    {"UpdateBases", "UB", "UpdateBases"},
    {"DataOverlay", "DO", "DataOverlay"},
}};

// Lance's answers. Row = the transaction to commit, column = the committed
// one, in the order of Kind. With shared targets:
inline constexpr std::array<const char*, kKinds> kLanceShared = {{
    // Ap De Ow CI MW Rw Me Rs RF Up Pj UC DR UMS Cl UB DO
    "CCICCCRICCRCCICCC",  // Append
    "CRICCRRICRCCRICCC",  // Delete
    "CCRCCCCCCCCCCICCC",  // Overwrite
    "CCIRCRCICCCCRICCC",  // CreateIndex (user)
    "CCICRRRICCCCCCCCC",  // CreateIndex (MemWAL install)
    "CRIRRRRICRCCRCCCR",  // Rewrite
    "RRICRRRICRICRICCR",  // Merge
    "CCCCCCCCCCCCCICCC",  // Restore
    "CCICCCCICCCCCCCCC",  // ReserveFragments
    "CRICCRRICRRCRCCCR",  // Update
    "RCICCCRICRRCRICCR",  // Project
    "CCCCCCCCCCCICCCCC",  // UpdateConfig
    "CIIRCRRICIRCRICCC",  // DataReplacement
    "IIICRCIICCICIRICI",  // UpdateMemWalState
    "CCCCCCCCCCCCCCCCC",  // Clone
    "CCCCCCCCCCCCCCCIC",  // UpdateBases
    "CRICCRRICRRCCICCC",  // DataOverlay
}};
// With disjoint targets:
inline constexpr std::array<const char*, kKinds> kLanceDisjoint = {{
    // Ap De Ow CI MW Rw Me Rs RF Up Pj UC DR UMS Cl UB DO
    "CCICCCRICCRCCICCC",  // Append
    "CCICCCRICCCCCICCC",  // Delete
    "CCRCCCCCCCCCCICCC",  // Overwrite
    "CCICCCCICCCCCICCC",  // CreateIndex (user)
    "CCICRRRICCCCCCCCC",  // CreateIndex (MemWAL install)
    "CCICRCRICCCCCCCCC",  // Rewrite
    "RRICRRRICRICRICCR",  // Merge
    "CCCCCCCCCCCCCICCC",  // Restore
    "CCICCCCICCCCCCCCC",  // ReserveFragments
    "CCICCCRICCRCCCCCC",  // Update
    "RCICCCRICRRCRICCR",  // Project
    "CCCCCCCCCCCCCCCCC",  // UpdateConfig
    "CCICCCRICCRCCICCC",  // DataReplacement
    "IIICCCIICCICICICI",  // UpdateMemWalState
    "CCCCCCCCCCCCCCCCC",  // Clone
    "CCCCCCCCCCCCCCCCC",  // UpdateBases
    "CCICCCRICCRCCICCC",  // DataOverlay
}};

// Cells where the implementation (and the model, spec R31 note b) answers
// otherwise, both with shared and with disjoint targets.
struct Difference {
  Kind pending;
  Kind committed;
  char ours;
  const char* why;
};
inline constexpr Difference kDifferences[] = {
    {kMemWalInstall, kRewrite, 'C',
     "Lance retries any index build against a rewrite when one of its new "
     "indices has no fragment bitmap, and the __lance_mem_wal entry never has "
     "one (new_mem_wal_index_meta), also at beta.16 "
     "[P §4.3]; spec R31 note b and the "
     "model treat the install as having no user segment, so a rewrite meets "
     "nothing"},
    {kRewrite, kMemWalInstall, 'C',
     "the same rule from the other side: Lance's Rewrite retries against a "
     "committed index build with an index lacking a bitmap; the model's "
     "Rewrite meets only committed user segments"},
};

inline const Difference* DifferenceAt(Kind pending, Kind committed) {
  for (const Difference& d : kDifferences) {
    if (d.pending == pending && d.committed == committed) return &d;
  }
  return nullptr;
}

inline char Lance(Kind pending, Kind committed, bool shared) {
  return (shared ? kLanceShared : kLanceDisjoint)[pending][committed];
}

inline char Letter(ConflictClass c) {
  switch (c) {
    case ConflictClass::kCompatible:
      return 'C';
    case ConflictClass::kRetryable:
      return 'R';
    case ConflictClass::kIncompatible:
      return 'I';
  }
  return '?';
}

inline const char* Word(char letter) {
  return letter == 'C'   ? "Compatible"
         : letter == 'R' ? "Retryable"
                         : "Incompatible";
}

// The targets a representative touches.
struct Targets {
  uint64_t fragment;
  int32_t field;
  std::string index;
  std::string key;
  std::string shard;
  uint64_t generation;
  std::string path;
};

inline Targets TargetsOf(bool pending, bool shared) {
  if (pending || shared)
    return {1, 0, "idx_0", "k", std::string(16, 'A'), pending ? 2u : 1u, "p"};
  return {2, 1, "idx_1", "j", std::string(16, 'B'), 1, "q"};
}

inline void AddProgress(
    const Targets& t,
    google::protobuf::RepeatedPtrField<pb::CompactedSsTable>* list) {
  pb::CompactedSsTable* entry = list->Add();
  entry->mutable_shard_id()->set_uuid(t.shard);
  entry->set_generation(t.generation);
}

inline pb::Transaction Representative(Kind kind, const Targets& t) {
  pb::Transaction x;
  x.set_read_version(3);
  switch (kind) {
    case kAppend:
      x.mutable_append()->add_fragments()->set_id(9);
      break;
    case kDelete:
      x.mutable_delete_()->add_deleted_fragment_ids(t.fragment);
      break;
    case kOverwrite:
      x.mutable_overwrite()->add_fragments()->set_id(0);
      break;
    case kIndexBuild: {
      pb::IndexMetadata* index = x.mutable_create_index()->add_new_indices();
      index->set_name(t.index);
      index->add_fields(t.field);
      index->set_fragment_bitmap(EncodeFragmentBitmap(FragmentSet{t.fragment}));
      break;
    }
    case kMemWalInstall: {
      pb::MemWalIndexDetails details;
      AddProgress(t, details.mutable_compacted_sstables());
      pb::IndexMetadata* index = x.mutable_create_index()->add_new_indices();
      index->set_name(std::string(kMemWalIndexName));
      index->mutable_uuid()->set_uuid(std::string(16, 'm'));
      PackMemWalDetails(details, index);
      break;
    }
    case kRewrite: {
      auto* group = x.mutable_rewrite()->add_groups();
      group->add_old_fragments()->set_id(t.fragment);
      group->add_new_fragments()->set_id(9);
      break;
    }
    case kMerge:
      x.mutable_merge()->add_fragments()->set_id(t.fragment);
      x.mutable_merge()->add_schema()->set_id(0);
      x.mutable_merge()->add_schema()->set_id(1);
      break;
    case kRestore:
      x.mutable_restore()->set_version(1);
      break;
    case kReserveFragments:
      x.mutable_reserve_fragments()->set_num_fragments(1);
      break;
    case kUpdate:
      x.mutable_update()->add_removed_fragment_ids(t.fragment);
      x.mutable_update()->add_new_fragments()->set_id(9);
      x.mutable_update()->add_fields_modified(static_cast<uint32_t>(t.field));
      break;
    case kProject:
      // Keeps every field but the one the targets name.
      x.mutable_project()->add_schema()->set_id(1 - t.field);
      break;
    case kUpdateConfig: {
      auto* entry = x.mutable_update_config()
                        ->mutable_config_updates()
                        ->add_update_entries();
      entry->set_key(t.key);
      entry->set_value("v");
      break;
    }
    case kDataReplacement: {
      auto* group = x.mutable_data_replacement()->add_replacements();
      group->set_fragment_id(t.fragment);
      group->mutable_new_file()->add_fields(t.field);
      break;
    }
    case kUpdateMemWalState:
      AddProgress(
          t, x.mutable_update_mem_wal_state()->mutable_compacted_sstables());
      break;
    case kClone:
      x.mutable_clone()->set_is_shallow(true);
      break;
    case kUpdateBases:
      x.mutable_update_bases()->add_new_bases()->set_path(t.path);
      break;
    case kDataOverlay:
      x.mutable_data_overlay()->add_groups()->set_fragment_id(t.fragment);
      break;
    case kKinds:
      break;
  }
  return x;
}

// The implementation's answer for one cell: the representative of `pending`
// (the transaction to commit) against the representative of `committed`.
inline Result<ConflictClass> Classify(Kind pending, Kind committed,
                                      bool shared) {
  pb::Transaction self = Representative(pending, TargetsOf(true, shared));
  return ClassifyConflict(&self,
                          Representative(committed, TargetsOf(false, shared)));
}

// What the implementation must answer: Lance's letter, or ours where the
// difference is documented.
inline char Expected(Kind pending, Kind committed, bool shared) {
  const Difference* difference = DifferenceAt(pending, committed);
  return difference != nullptr ? difference->ours
                               : Lance(pending, committed, shared);
}

}  // namespace memwal::impl::lance_conflicts
