// Conflict classes (spec R31, R32): every cell of the R31 table, table-driven.
#include "impl/conflicts.h"

#include <gtest/gtest.h>

#include "impl/bitmap.h"

namespace memwal::impl {
namespace {

const std::string kShard(16, 's');

// Tokens: A Append | D<f> Delete(f) | U<f> Update rewriting field 0 of f | U+
// Update with a new fragment | G<n> Update compacting the shard to n | R<a><b>
// Rewrite(a,b) | C<i>:<frags> CreateIndex idx_i with a segment covering frags |
// P<n> UpdateMemWalState progress n | M<n> CreateIndex installing
// __lance_mem_wal whose details carry progress n (none for 0) | X Restore.
pb::Transaction Parse(const std::string& token) {
  pb::Transaction t;
  const char kind = token[0];
  const std::string rest = token.substr(1);
  if (kind == 'A') t.mutable_append()->add_fragments();
  if (kind == 'D')
    t.mutable_delete_()->add_deleted_fragment_ids(std::stoull(rest));
  if (kind == 'U' && rest == "+") t.mutable_update()->add_new_fragments();
  if (kind == 'U' && rest != "+") {
    t.mutable_update()->add_updated_fragments()->set_id(std::stoull(rest));
    t.mutable_update()->add_fields_modified(0);
  }
  auto progress =
      [&](google::protobuf::RepeatedPtrField<pb::CompactedSsTable>* list) {
        pb::CompactedSsTable* entry = list->Add();
        entry->mutable_shard_id()->set_uuid(kShard);
        entry->set_generation(std::stoull(rest));
      };
  if (kind == 'G') {
    t.mutable_update()->add_new_fragments();
    progress(t.mutable_update()->mutable_compacted_sstables());
  }
  if (kind == 'P')
    progress(t.mutable_update_mem_wal_state()->mutable_compacted_sstables());
  if (kind == 'R') {
    auto* group = t.mutable_rewrite()->add_groups();
    group->add_old_fragments()->set_id(static_cast<uint64_t>(rest[0] - '0'));
    group->add_old_fragments()->set_id(static_cast<uint64_t>(rest[1] - '0'));
    group->add_new_fragments();
  }
  if (kind == 'C') {
    pb::IndexMetadata* index = t.mutable_create_index()->add_new_indices();
    index->set_name("idx_" + rest.substr(0, 1));
    index->add_fields(rest[0] - '0');
    FragmentSet covers;
    for (const char c : rest.substr(2))
      covers.insert(static_cast<uint64_t>(c - '0'));
    index->set_fragment_bitmap(EncodeFragmentBitmap(covers));
  }
  if (kind == 'M') {
    pb::MemWalIndexDetails details;
    if (std::stoull(rest) > 0) progress(details.mutable_compacted_sstables());
    pb::IndexMetadata* index = t.mutable_create_index()->add_new_indices();
    index->set_name(std::string(kMemWalIndexName));
    index->mutable_uuid()->set_uuid(std::string(16, 'm'));
    PackMemWalDetails(details, index);
  }
  if (kind == 'X') t.mutable_restore()->set_version(1);
  MEMWAL_ASSERT(t.operation_case() != pb::Transaction::OPERATION_NOT_SET);
  return t;
}

constexpr ConflictClass ok = ConflictClass::kCompatible;
constexpr ConflictClass retry = ConflictClass::kRetryable;
constexpr ConflictClass never = ConflictClass::kIncompatible;

TEST(Conflicts, EveryCellOfTheR31TableClassifiesAsSpecified) {
  // Legend: self = transaction to commit, committed = what published after its
  // read version.
  struct Case {
    const char* self;
    const char* committed;
    ConflictClass want;
  };
  const Case kCases[] = {
      // Append row.
      {"A", "A", ok},
      {"A", "D0", ok},
      {"A", "U0", ok},
      {"A", "R01", ok},
      {"A", "C0:0", ok},
      {"A", "P1", never},
      {"A", "X", never},
      // Delete(f) row.
      {"D0", "A", ok},
      {"D0", "D0", retry},
      {"D0", "D1", ok},
      {"D0", "U0", retry},
      {"D0", "U1", ok},
      {"D0", "R01", retry},
      {"D2", "R01", ok},
      {"D0", "C0:0", ok},
      {"D0", "P1", never},
      {"D0", "X", never},
      // Update row.
      {"U0", "A", ok},
      {"U0", "D0", retry},
      {"U0", "D1", ok},
      {"U0", "U0", retry},
      {"U0", "U1", ok},
      {"U0", "R01", retry},
      {"U2", "R01", ok},
      {"U0", "C0:0", ok},
      {"G2", "P1", retry},
      {"G2", "P2", never},
      {"G2", "P3", never},
      {"U+", "P1", ok},
      {"G2", "G2", ok},
      {"U0", "X", never},
      // Rewrite row.
      {"R01", "A", ok},
      {"R01", "D1", retry},
      {"R01", "D2", ok},
      {"R01", "U1", retry},
      {"R01", "U2", ok},
      {"R01", "R12", retry},
      {"R01", "R23", ok},
      {"R01", "C0:1", retry},
      {"R01", "C0:2", ok},
      {"R01", "P1", ok},
      {"R01", "X", never},
      // CreateIndex (user) row.
      {"C0:0", "A", ok},
      {"C0:0", "D0", ok},
      {"C0:0", "U0", ok},
      {"C0:01", "R12", retry},
      {"C0:0", "R12", ok},
      {"C0:0", "C0:1", retry},
      {"C0:0", "C1:0", ok},
      {"C0:0", "P1", never},
      {"C0:0", "X", never},
      // UpdateMemWalState row.
      {"P1", "A", never},
      {"P1", "D0", never},
      {"P2", "G1", retry},
      {"P2", "G2", never},
      {"P1", "U0", ok},
      {"P1", "R01", ok},
      {"P1", "C0:0", ok},
      {"P2", "P1", retry},
      {"P2", "P2", never},
      {"P1", "X", never},
      // MemWAL installs (spec R39).
      {"P2", "M1", retry},
      {"P2", "M2", never},
      {"P2", "M3", never},
      {"P1", "M0", ok},
      {"M0", "P1", ok},
      {"M1", "M0", retry},
      {"M0", "C0:0", ok},
      {"C0:0", "M0", ok},
      {"M0", "G1", ok},
      {"M0", "X", never},
  };
  for (const Case& c : kCases) {
    pb::Transaction self = Parse(c.self);
    const auto got = ClassifyConflict(&self, Parse(c.committed));
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, c.want) << c.self << " vs committed " << c.committed;
  }
}

TEST(Conflicts, ACreateIndexRebasedOverAnUpdatePrunesItsNewSegments) {
  pb::Transaction self = Parse("C0:012");
  ASSERT_EQ(*ClassifyConflict(&self, Parse("U1")), ConflictClass::kCompatible);
  const auto covers = DecodeFragmentBitmap(
      self.create_index().new_indices(0).fragment_bitmap());
  ASSERT_TRUE(covers.ok());
  EXPECT_EQ(**covers, (FragmentSet{0, 2}));
  pb::Transaction other_field = Parse("C1:012");
  ASSERT_EQ(*ClassifyConflict(&other_field, Parse("U1")),
            ConflictClass::kCompatible);
  const auto kept = DecodeFragmentBitmap(
      other_field.create_index().new_indices(0).fragment_bitmap());
  EXPECT_EQ(**kept, (FragmentSet{0, 1, 2}));
}

TEST(Conflicts, AMemWalInstallRebasedOverProgressKeepsTheHigherGeneration) {
  pb::Transaction self = Parse("M2");
  ASSERT_EQ(*ClassifyConflict(&self, Parse("P3")), ConflictClass::kCompatible);
  auto details = UnpackMemWalDetails(self.create_index().new_indices(0));
  ASSERT_TRUE(details.ok());
  ASSERT_EQ(details->compacted_sstables_size(), 1);
  EXPECT_EQ(details->compacted_sstables(0).generation(), 3u);
  ASSERT_EQ(*ClassifyConflict(&self, Parse("P1")), ConflictClass::kCompatible);
  details = UnpackMemWalDetails(self.create_index().new_indices(0));
  EXPECT_EQ(details->compacted_sstables(0).generation(), 3u);
}

TEST(Conflicts, FinishingAnInstallRemovesEveryOtherSystemIndexOfTheHead) {
  pb::Transaction self = Parse("M0");
  pb::IndexSection head;
  pb::IndexMetadata* old = head.add_indices();
  old->set_name(std::string(kMemWalIndexName));
  old->mutable_uuid()->set_uuid(std::string(16, 'o'));
  pb::IndexMetadata* user = head.add_indices();
  user->set_name("idx_0");
  user->mutable_uuid()->set_uuid(std::string(16, 'u'));
  FinishMemWalInstall(head, 4, false, "", &self);
  ASSERT_EQ(self.create_index().removed_indices_size(), 1);
  EXPECT_EQ(self.create_index().removed_indices(0).uuid().uuid(),
            std::string(16, 'o'));
  EXPECT_EQ(self.create_index().new_indices(0).uuid().uuid(),
            std::string(16, 'm'));
  // Again (a second attempt): nothing added twice; a merge re-mints the entry.
  FinishMemWalInstall(head, 5, true, std::string(16, 'n'), &self);
  EXPECT_EQ(self.create_index().removed_indices_size(), 1);
  EXPECT_EQ(self.create_index().new_indices(0).uuid().uuid(),
            std::string(16, 'n'));
  EXPECT_EQ(self.create_index().new_indices(0).dataset_version(), 5u);
}

TEST(Conflicts, TwoRepairsOfOneIndexConflictByName) {
  pb::Transaction repair;
  repair.mutable_create_index();
  (*repair
        .mutable_transaction_properties())[std::string(kRepairIndexProperty)] =
      "idx_0";
  pb::Transaction self = repair;
  EXPECT_EQ(*ClassifyConflict(&self, repair), ConflictClass::kRetryable);
  EXPECT_EQ(*ClassifyConflict(&self, Parse("C1:0")),
            ConflictClass::kCompatible);
}

TEST(Conflicts, ProgressCheckUsesTheFirstSharedShard) {
  pb::Transaction committed = Parse("P3");
  pb::Transaction proposed = Parse("P4");
  EXPECT_EQ(CheckCompactedSsTablesConflict(
                committed.update_mem_wal_state().compacted_sstables(),
                proposed.update_mem_wal_state().compacted_sstables()),
            ConflictClass::kRetryable);
  EXPECT_EQ(CheckCompactedSsTablesConflict(
                proposed.update_mem_wal_state().compacted_sstables(),
                committed.update_mem_wal_state().compacted_sstables()),
            ConflictClass::kIncompatible);
}

}  // namespace
}  // namespace memwal::impl
