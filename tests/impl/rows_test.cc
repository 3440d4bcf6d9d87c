// Row identity in the store (impl/rows.h): the codecs, and the rows a World
// persists through flush, compaction, rewrite, delete and clones.
#include "impl/rows.h"

#include <gtest/gtest.h>

#include "impl/bitmap.h"
#include "impl/proto/rowids.pb.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::CommitFirst;
using testing::MakeWorld;
using Rows = std::set<std::pair<uint32_t, uint64_t>>;

TEST(Rows, ARowFileRoundTripsAndRejectsDamage) {
  const std::vector<RowKey> rows = {RowKey{},
                                    RowKey{std::string(16, '\x11'), 3}};
  const std::string bytes = EncodeRowFile(rows);
  const Result<std::vector<RowKey>> decoded = DecodeRowFile(bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, rows);
  EXPECT_FALSE(DecodeRowFile(bytes.substr(0, bytes.size() - 1)).ok());
  EXPECT_FALSE(DecodeRowFile(bytes + "x").ok());
  EXPECT_FALSE(DecodeRowFile("sstable generation 1").ok());
}

TEST(Rows, ARowIdSequenceIsRunsOfRanges) {
  const std::vector<uint64_t> ids = {4, 5, 6, 9, 2};
  const std::string bytes = EncodeRowIdSequence(ids);
  pb::RowIdSequence sequence;
  ASSERT_TRUE(sequence.ParseFromString(bytes));
  ASSERT_EQ(sequence.segments_size(), 3);
  EXPECT_EQ(sequence.segments(0).range().start(), 4u);
  EXPECT_EQ(sequence.segments(0).range().end(), 7u);
  const Result<std::vector<uint64_t>> decoded = DecodeRowIdSequence(bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, ids);
}

TEST(Rows, ARowIdSequenceDecodesEveryLanceSegmentKind) {
  pb::RowIdSequence sequence;
  pb::U64Segment::RangeWithHoles* holes =
      sequence.add_segments()->mutable_range_with_holes();
  holes->set_start(10);
  holes->set_end(14);
  holes->mutable_holes()->mutable_u16_array()->set_base(10);
  holes->mutable_holes()->mutable_u16_array()->set_offsets(
      std::string("\x01\x00", 2));  // hole at 11
  pb::U64Segment::RangeWithBitmap* bitmap =
      sequence.add_segments()->mutable_range_with_bitmap();
  bitmap->set_start(20);
  bitmap->set_end(23);
  bitmap->set_bitmap(std::string(1, '\x05'));  // 20 and 22
  sequence.add_segments()->mutable_array()->mutable_u32_array()->set_base(100);
  sequence.mutable_segments(2)
      ->mutable_array()
      ->mutable_u32_array()
      ->set_offsets(std::string("\x07\x00\x00\x00", 4));
  const Result<std::vector<uint64_t>> decoded =
      DecodeRowIdSequence(sequence.SerializeAsString());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, (std::vector<uint64_t>{10, 12, 13, 20, 22, 107}));
}

TEST(Rows, CompactionCopiesTheSsTablesRowsWithFreshRowIds) {
  World world = MakeWorld();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  const Result<RowsView> rows = world.ReadRows();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->fragments.at(0), Rows{});
  EXPECT_EQ(rows->fragments.at(1), (Rows{{0, 1}}));
  EXPECT_TRUE(rows->deleted.empty());
  const PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<Snapshot> snapshot = LoadHead(table);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(snapshot->file->manifest.next_row_id(), 2u);
  const pb::DataFragment& fragment = snapshot->file->manifest.fragments(1);
  EXPECT_EQ(fragment.physical_rows(), 1u);
  const Result<FragmentRows> read = ReadFragmentRows(
      world.store(), world.table_root(), snapshot->file->manifest, fragment);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->row_ids, (std::vector<uint64_t>{1}));
}

TEST(Rows, ARewriteKeepsRowsAndRowIdsAndADeleteDeletesThem) {
  World world = MakeWorld(Protocol::kDerived, 2);
  for (uint32_t s = 0; s < 2; ++s) {
    ASSERT_TRUE(world.FlushMemTable(s).ok());
    ASSERT_TRUE(world.BeginCompactSsTable(s, true).ok());
    ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  }
  ASSERT_TRUE(world.BeginRewriteFragments(1, 2).ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  Result<RowsView> rows = world.ReadRows();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->fragments.at(3), (Rows{{0, 1}, {1, 1}}));
  const PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<Snapshot> head = LoadHead(table);
  ASSERT_TRUE(head.ok());
  const pb::DataFragment& rewritten = head->file->manifest.fragments(1);
  ASSERT_EQ(rewritten.id(), 3u);
  const Result<FragmentRows> read = ReadFragmentRows(
      world.store(), world.table_root(), head->file->manifest, rewritten);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->row_ids, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(head->file->manifest.next_row_id(), 3u);
  ASSERT_TRUE(world.BeginDeleteFragment(3).ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  rows = world.ReadRows();
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->deleted, (Rows{{0, 1}, {1, 1}}));
}

TEST(Rows, AShallowCloneKeepsTheSourcesRowsAndDeletions) {
  World world = MakeWorld();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  ASSERT_TRUE(world.BeginDeleteFragment(1).ok());
  ASSERT_EQ(CommitFirst(world), Outcome::kPublished);
  for (const bool shallow : {true, false}) {
    World clone = world;
    ASSERT_TRUE((shallow ? clone.ShallowClone() : clone.DeepClone()).ok());
    const Result<RowsView> rows = clone.ReadRows();
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(rows->deleted, (Rows{{0, 1}}));
    EXPECT_EQ(rows->fragments.at(1), (Rows{{0, 1}}));
  }
}

TEST(Rows, ADamagedDataFileIsCorruption) {
  World world = MakeWorld();
  const PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<Snapshot> head = LoadHead(table);
  ASSERT_TRUE(head.ok());
  const std::string path = world.table_root() + "data/" +
                           head->file->manifest.fragments(0).files(0).path();
  ASSERT_TRUE(world.mutable_store()->Put(path, "not rows").ok());
  const Result<RowsView> rows = world.ReadRows();
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), StatusCode::kCorruption);
  // physical_rows must agree with the file.
  ASSERT_TRUE(world.mutable_store()
                  ->Put(path, EncodeRowFile({RowKey{}, RowKey{}}))
                  .ok());
  EXPECT_FALSE(world.ReadRows().ok());
}

}  // namespace
}  // namespace memwal::impl
