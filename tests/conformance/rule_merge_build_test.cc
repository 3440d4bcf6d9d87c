// The manifest the implementation builds for a committed Merge (Lance's
// add-columns operation; BuildManifest, impl/build.cc), on a table World
// wrote: two user indexes (idx_0 on field 0, idx_1 on field 1) and the
// MemWAL system index. World itself never commits a Merge (LanceDB does, and
// validate reads such tables), so the gate's searches never build one.
// Lance's build_manifest for Merge [P §5.1]:
//
// - the fragment list and the schema become the Merge's;
// - max_fragment_id rises to the Merge's highest fragment id;
// - retain_relevant_indices drops an index whose fields left the schema and
//   keeps the system index;
// - prune_merge_rewritten_fields_from_indices takes a fragment out of an
//   index's bitmap (in place: same uuid) when the data files holding the
//   index's fields changed, and adding columns in a new data file changes
//   none of them.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/bitmap.h"
#include "impl/build.h"
#include "impl/format.h"
#include "impl/rows.h"
#include "impl/table.h"
#include "impl/world.h"

namespace memwal {
namespace {

using impl::pb::Transaction;

struct Built {
  impl::ManifestFile before;
  impl::ManifestFile after;
};

// Builds the transaction `make` returns for the head onto the head of a
// World with one appended fragment.
template <typename Make>
Built BuildOnHead(Make make) {
  Result<impl::World> created =
      impl::World::Create(impl::Options{.shards = 1, .indexes = 2});
  EXPECT_TRUE(created.ok());
  impl::World world = std::move(created).value();
  EXPECT_TRUE(world.BeginAppend().ok());
  EXPECT_TRUE(world.Commit(0).ok());
  const impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  EXPECT_TRUE(head.ok());
  Transaction merge = make(*head->file);
  merge.set_read_version(head->version());
  int minted = 0;
  const impl::UuidSource uuids = [&minted] {
    return std::string(15, 'u') + static_cast<char>('a' + minted++);
  };
  impl::BuildInput input;
  input.head = &*head;
  input.read = &*head;
  input.transaction = &merge;
  input.transaction_file = "merge.txn";
  input.new_uuid = &uuids;
  Result<impl::ManifestFile> built = impl::BuildManifest(input);
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  return {*head->file, built.ok() ? *built : impl::ManifestFile{}};
}

template <typename Edit>
Built BuildMerge(Edit edit) {
  return BuildOnHead([&edit](const impl::ManifestFile& head) {
    Transaction merge;
    *merge.mutable_merge()->mutable_fragments() = head.manifest.fragments();
    *merge.mutable_merge()->mutable_schema() = head.manifest.fields();
    edit(merge.mutable_merge());
    return merge;
  });
}

const impl::pb::IndexMetadata* Named(const impl::ManifestFile& file,
                                     const std::string& name) {
  for (const auto& index : file.index_section.indices()) {
    if (index.name() == name) return &index;
  }
  return nullptr;
}

std::set<uint64_t> Covers(const impl::pb::IndexMetadata& index) {
  const auto covers = impl::DecodeFragmentBitmap(index.fragment_bitmap());
  EXPECT_TRUE(covers.ok() && covers->has_value());
  return covers.ok() && covers->has_value() ? **covers : std::set<uint64_t>{};
}

TEST(RuleFunctions, AMergeAddingAColumnKeepsEveryIndexWhole) {
  const Built built = BuildMerge([](Transaction::Merge* merge) {
    auto* field = merge->add_schema();
    *field = merge->schema(0);
    field->set_id(7);
    field->set_name("added");
    for (auto& fragment : *merge->mutable_fragments()) {
      auto* file = fragment.add_files();
      *file = fragment.files(0);
      file->set_path("added-" + std::to_string(fragment.id()) + ".lance");
      file->clear_fields();
      file->add_fields(7);
      file->clear_column_indices();
      file->add_column_indices(0);
    }
    auto* extra = merge->add_fragments();
    *extra = merge->fragments(0);
    extra->set_id(9);
  });
  const auto& manifest = built.after.manifest;
  ASSERT_EQ(manifest.fragments_size(),
            built.before.manifest.fragments_size() + 1);
  EXPECT_EQ(manifest.fields_size(), built.before.manifest.fields_size() + 1);
  EXPECT_EQ(manifest.max_fragment_id(), 9u);
  for (const char* name : {"idx_0", "idx_1"}) {
    const auto* before = Named(built.before, name);
    const auto* after = Named(built.after, name);
    ASSERT_NE(before, nullptr);
    ASSERT_NE(after, nullptr) << name;
    EXPECT_EQ(after->uuid().uuid(), before->uuid().uuid()) << name;
    EXPECT_EQ(Covers(*after), Covers(*before)) << name;
  }
  EXPECT_NE(impl::FindMemWalIndex(built.after.index_section), nullptr);
}

TEST(RuleFunctions, AMergeDroppingAFieldDropsItsIndexAndPrunesRewrittenFiles) {
  const Built built = BuildMerge([](Transaction::Merge* merge) {
    // Field 1 leaves the schema, and fragment 0's data file is rewritten.
    merge->mutable_schema()->DeleteSubrange(1, 1);
    auto* file = merge->mutable_fragments(0)->mutable_files(0);
    file->set_path("rewritten.lance");
  });
  EXPECT_EQ(built.after.manifest.fields_size(),
            built.before.manifest.fields_size() - 1);
  EXPECT_EQ(Named(built.after, "idx_1"), nullptr);
  const auto* before = Named(built.before, "idx_0");
  const auto* after = Named(built.after, "idx_0");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->uuid().uuid(), before->uuid().uuid());
  std::set<uint64_t> want = Covers(*before);
  ASSERT_EQ(want.count(0), 1u);
  want.erase(0);
  EXPECT_EQ(Covers(*after), want);
  EXPECT_NE(impl::FindMemWalIndex(built.after.index_section), nullptr);
}

TEST(RuleFunctions, AMergeDroppingTheFirstIndexedFieldKeepsTheOtherIndexWhole) {
  const Built built = BuildMerge([](Transaction::Merge* merge) {
    merge->mutable_schema()->DeleteSubrange(0, 1);  // field 0 leaves
  });
  EXPECT_EQ(Named(built.after, "idx_0"), nullptr);
  const auto* before = Named(built.before, "idx_1");
  const auto* after = Named(built.after, "idx_1");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->uuid().uuid(), before->uuid().uuid());
  EXPECT_EQ(Covers(*after), Covers(*before));
  EXPECT_NE(impl::FindMemWalIndex(built.after.index_section), nullptr);
  EXPECT_EQ(built.after.index_section.indices_size(),
            built.before.index_section.indices_size() - 1);
}

// Lance assigns the rows of an appended fragment without row ids the next
// stable row ids in order, from next_row_id up [P §10.1]. (World's own
// fragments hold one row each, so only a fragment of several rows tells
// next_row_id + k from anything else.)
TEST(RuleFunctions, AnAppendedFragmentTakesConsecutiveRowIdsFromNextRowId) {
  uint64_t next = 0;
  const Built built = BuildOnHead([&next](const impl::ManifestFile& head) {
    next = head.manifest.next_row_id();
    Transaction append;
    auto* fragment = append.mutable_append()->add_fragments();
    *fragment = head.manifest.fragments(0);
    fragment->clear_row_id_sequence();
    fragment->set_physical_rows(3);
    return append;
  });
  const auto& fragments = built.after.manifest.fragments();
  ASSERT_GT(fragments.size(), 0);
  const auto ids = impl::DecodeRowIdSequence(
      fragments[fragments.size() - 1].inline_row_ids());
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<uint64_t>{next, next + 1, next + 2}));
  EXPECT_EQ(built.after.manifest.next_row_id(), next + 3);
}

}  // namespace
}  // namespace memwal
