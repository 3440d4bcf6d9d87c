// build_manifest on its own (spec R35; Lance's mem_wal.rs commit-path tests, P
// §3, §6.3, pinned with our own setups): progress recording rules, activation,
// the feature bit's inheritance, and the system index left untouched when
// nothing changed.
#include "impl/build.h"

#include <gtest/gtest.h>

#include <memory>

#include "impl/feature_flags.h"
#include "impl/rows.h"

namespace memwal::impl {
namespace {

const std::string kShard(16, 's');

// The manifest of version 5: fragments {0, 1}, idx_0 covering both, the system
// index with shard progress 2 and idx_0 caught up to 2; `bits` on both words.
ManifestFile MakeHead(bool bits) {
  ManifestFile head;
  pb::Manifest& manifest = head.manifest;
  manifest.set_version(5);
  manifest.set_max_fragment_id(1);
  // Every fragment carries its stable row id, as the implementation's do (a
  // head without them would refuse an Append, whose fragment gets one).
  for (uint64_t id : {0, 1}) {
    pb::DataFragment* fragment = manifest.add_fragments();
    fragment->set_id(id);
    fragment->set_physical_rows(1);
    fragment->set_inline_row_ids(EncodeRowIdSequence({id}));
  }
  manifest.set_next_row_id(2);
  if (bits) {
    manifest.set_reader_feature_flags(kFlagMemWalIndexCatchup);
    manifest.set_writer_feature_flags(kFlagMemWalIndexCatchup);
  }
  pb::IndexMetadata* index = head.index_section.add_indices();
  index->mutable_uuid()->set_uuid(std::string(16, 'i'));
  index->set_name("idx_0");
  index->add_fields(0);
  index->set_fragment_bitmap(EncodeFragmentBitmap(FragmentSet{0, 1}));
  pb::IndexMetadata* system = head.index_section.add_indices();
  system->mutable_uuid()->set_uuid(std::string(16, 'm'));
  system->set_name(std::string(kMemWalIndexName));
  pb::MemWalIndexDetails details;
  SetGenerations({{kShard, 2}}, details.mutable_compacted_sstables());
  pb::IndexCatchupProgress* progress = details.add_index_catchup();
  progress->set_index_name("idx_0");
  SetGenerations({{kShard, 2}}, progress->mutable_caught_up_generations());
  PackMemWalDetails(details, system);
  return head;
}

pb::Transaction Progress(std::vector<uint64_t> generations) {
  pb::Transaction t;
  t.set_read_version(5);
  auto* op = t.mutable_update_mem_wal_state();
  for (const uint64_t g : generations) {
    pb::CompactedSsTable* entry = op->add_compacted_sstables();
    entry->mutable_shard_id()->set_uuid(kShard);
    entry->set_generation(g);
  }
  return t;
}

Result<ManifestFile> Build(const ManifestFile& file, const pb::Transaction& t,
                           BugSet bugs = {}) {
  const Snapshot head{std::make_shared<const ManifestFile>(file)};
  auto counter = std::make_shared<uint64_t>(0);
  const UuidSource uuids = [counter] {
    std::string uuid(16, '\0');
    uuid[0] = static_cast<char>(++*counter);
    uuid[1] = static_cast<char>(*counter >> 8);
    return uuid;
  };
  return BuildManifest(BuildInput{.protocol = Protocol::kDerived,
                                  .bugs = bugs,
                                  .head = &head,
                                  .read = &head,
                                  .transaction = &t,
                                  .transaction_file = "5-x.txn",
                                  .new_uuid = &uuids});
}

pb::MemWalIndexDetails DetailsOf(const ManifestFile& file) {
  const auto details = MemWalDetails(file.index_section);
  MEMWAL_ASSERT(details.ok() && details->has_value());
  return **details;
}

TEST(Build, RecordingProgressKeepsFragmentsAndThePosition) {
  const auto built = Build(MakeHead(true), Progress({3}));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.fragments_size(), 2);
  EXPECT_EQ(built->manifest.version(), 6u);
  const pb::MemWalIndexDetails details = DetailsOf(*built);
  EXPECT_EQ(details.compacted_sstables(0).generation(), 3u);
  EXPECT_EQ(Catchup(details).at("idx_0"), (ShardGenerations{{kShard, 2}}));
}

TEST(Build, ALowerOrEqualGenerationRejectsTheWholeUpdate) {
  EXPECT_EQ(Build(MakeHead(true), Progress({2})).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(Build(MakeHead(true), Progress({1})).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(Build, DuplicateShardsInOneUpdateReject) {
  EXPECT_EQ(Build(MakeHead(true), Progress({3, 4})).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(Build, AMissingMemWalIndexRejectsProgress) {
  ManifestFile head = MakeHead(true);
  head.index_section.mutable_indices()->RemoveLast();
  EXPECT_EQ(Build(head, Progress({3})).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(Build, EmptyProgressIsANoOpThatKeepsTheSystemIndex) {
  const auto built = Build(MakeHead(true), Progress({}));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(FindMemWalIndex(built->index_section)->uuid().uuid(),
            std::string(16, 'm'));
}

TEST(Build, AnOrdinaryCommitKeepsTheFeatureBit) {
  pb::Transaction append;
  append.set_read_version(5);
  append.mutable_append()->add_fragments();
  const auto built = Build(MakeHead(true), append);
  ASSERT_TRUE(built.ok());
  EXPECT_TRUE(ReadCatchupBits(built->manifest).both());
  EXPECT_EQ(built->manifest.fragments(2).id(), 2u);
  EXPECT_EQ(built->manifest.max_fragment_id(), 2u);
}

TEST(Build, AHalfSetFeatureBitIsRefused) {
  ManifestFile head = MakeHead(true);
  head.manifest.set_writer_feature_flags(0);
  EXPECT_EQ(Build(head, Progress({3})).status().code(),
            StatusCode::kFailedPrecondition);
  const auto folded =
      Build(head, Progress({3}), BugSet(BugBit(Bug::kHalfSetFolded)));
  ASSERT_TRUE(folded.ok());
  EXPECT_TRUE(ReadCatchupBits(folded->manifest).both());
}

pb::Transaction Activation() {
  pb::Transaction t = Progress({});
  t.mutable_update_mem_wal_state()->set_require_index_catchup(true);
  return t;
}

TEST(Build, ActivationRejectsPreExistingBetaCompactionProgress) {
  EXPECT_EQ(Build(MakeHead(false), Activation()).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(Build, ActivationClearsBetaCoverageOnACleanTable) {
  ManifestFile head = MakeHead(false);
  pb::IndexMetadata* system = FindMemWalIndex(&head.index_section);
  pb::MemWalIndexDetails details = *UnpackMemWalDetails(*system);
  details.clear_compacted_sstables();
  PackMemWalDetails(details, system);
  const auto built = Build(head, Activation());
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_TRUE(ReadCatchupBits(built->manifest).both());
  EXPECT_EQ(DetailsOf(*built).index_catchup_size(), 0);
}

TEST(Build, ActivationRequiresTheMemWalIndex) {
  ManifestFile head = MakeHead(false);
  head.index_section.mutable_indices()->RemoveLast();
  EXPECT_EQ(Build(head, Activation()).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(Build, ActivationOfAnActiveTableIsANoOpThatKeepsPositions) {
  const auto built = Build(MakeHead(true), Activation());
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(Catchup(DetailsOf(*built)).at("idx_0"),
            (ShardGenerations{{kShard, 2}}));
}

TEST(Build, AnUpdateOnAnIndexedFieldPrunesInPlace) {
  pb::Transaction update;
  update.set_read_version(5);
  pb::DataFragment* updated = update.mutable_update()->add_updated_fragments();
  updated->set_id(1);
  updated->set_physical_rows(1);
  updated->set_inline_row_ids(EncodeRowIdSequence({1}));  // it keeps its ids
  update.mutable_update()->add_fields_modified(0);
  const auto built = Build(MakeHead(true), update);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const pb::IndexMetadata& index = built->index_section.indices(0);
  EXPECT_EQ(index.uuid().uuid(), std::string(16, 'i'));
  EXPECT_EQ(**DecodeFragmentBitmap(index.fragment_bitmap()), (FragmentSet{0}));
  EXPECT_EQ(DetailsOf(*built).index_catchup_size(),
            0);  // Changed, not re-proven.
}

TEST(Build, ProgressCommitDropsFragmentsOnlyWithItsBug) {
  const auto built = Build(MakeHead(true), Progress({3}),
                           BugSet(BugBit(Bug::kProgressCommitDropsFragments)));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->manifest.fragments_size(), 0);
}

}  // namespace
}  // namespace memwal::impl
