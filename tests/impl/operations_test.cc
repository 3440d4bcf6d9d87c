// Operations and fields at Lance's edges (issue 20 item 7; P §1.3, §1.4,
// §4.1 step 6, §4.3, §5, §8): UpdateConfig, index metadata files and
// created_at, the post-build withdraw step of index migration, Merge and
// DataOverlay, and lancedb's single-index resolution on the read side.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>

#include "impl/build.h"
#include "impl/conflicts.h"
#include "impl/feature_flags.h"
#include "impl/format.h"
#include "impl/read.h"

namespace memwal::impl {
namespace {

const std::string kShard(16, 's');
const std::string kSystemUuid(16, 'm');
const std::string kIndexUuid(16, 'i');

// "<prefix><id>.lance" (built without operator+, which g++ 12 misreports
// under -Werror=restrict).
std::string FileName(char prefix, uint64_t id) {
  std::string name(1, prefix);
  name.append(std::to_string(id));
  name.append(".lance");
  return name;
}

// Version 5: fragments {0, 1} with data file f<id> holding field 0, idx_0 on
// field 0 covering both, the system index with progress 2, idx_0 caught up to
// 2, and a writer config; bit 128 on both words.
ManifestFile MakeHead() {
  ManifestFile head;
  pb::Manifest& manifest = head.manifest;
  manifest.set_version(5);
  manifest.set_max_fragment_id(1);
  manifest.set_reader_feature_flags(kFlagMemWalIndexCatchup);
  manifest.set_writer_feature_flags(kFlagMemWalIndexCatchup);
  manifest.add_fields()->set_id(0);
  for (const uint64_t id : {0, 1}) {
    pb::DataFragment* fragment = manifest.add_fragments();
    fragment->set_id(id);
    pb::DataFile* file = fragment->add_files();
    file->set_path(FileName('f', id));
    file->add_fields(0);
  }
  pb::IndexMetadata* index = head.index_section.add_indices();
  index->mutable_uuid()->set_uuid(kIndexUuid);
  index->set_name("idx_0");
  index->add_fields(0);
  index->set_fragment_bitmap(EncodeFragmentBitmap(FragmentSet{0, 1}));
  pb::IndexMetadata* system = head.index_section.add_indices();
  system->mutable_uuid()->set_uuid(kSystemUuid);
  system->set_name(std::string(kMemWalIndexName));
  pb::MemWalIndexDetails details;
  SetGenerations({{kShard, 2}}, details.mutable_compacted_sstables());
  pb::IndexCatchupProgress* progress = details.add_index_catchup();
  progress->set_index_name("idx_0");
  SetGenerations({{kShard, 2}}, progress->mutable_caught_up_generations());
  (*details.mutable_writer_config_defaults())["enable_memtable"] = "false";
  PackMemWalDetails(details, system);
  return head;
}

// Test-only: Lance's post-build steps that World never runs (memwal-check does
// not simulate migrate_indices, and lancedb's single-index resolution is read
// only by its own tests here), kept beside their tests rather than in impl/.

// A metadata migration run on the built index section (Lance: migrate_indices
// after build_manifest [P §4.1 step 6]). It may narrow a segment's bitmap
// keeping its uuid, or fill in file lists and timestamps.
using IndexMigration = std::function<void(pb::IndexSection*)>;

// Lance: withdraw_coverage_invalidated_after_build [P §4.1 step 6, §6.3.1].
// Removes the index_catchup entries of `changed` names; only if one was
// removed is the system index rewritten (fresh uuid, stamped `version`).
// Returns whether it was.
Result<bool> WithdrawCoverageInvalidatedAfterBuild(
    const std::set<std::string>& changed, uint64_t version,
    const UuidSource& new_uuid, pb::IndexSection* section) {
  if (changed.empty()) return false;
  const pb::IndexMetadata* index = FindMemWalIndex(*section);
  if (index == nullptr) return false;
  MEMWAL_ASSIGN_OR_RETURN(pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(*index));
  auto* entries = details.mutable_index_catchup();
  bool removed = false;
  for (int k = entries->size() - 1; k >= 0; --k) {
    if (changed.count(entries->Get(k).index_name()) == 0) continue;
    entries->DeleteSubrange(k, 1);
    removed = true;
  }
  if (!removed) return false;
  ReplaceMemWalIndex(details, version, new_uuid, section);
  return true;
}

// Names whose coverage identity (uuid + bitmap of each segment, spec R2)
// differs between two index sections; file lists, timestamps and details do
// not count.
Result<std::set<std::string>> CoverageChangedNames(
    const pb::IndexSection& before, const pb::IndexSection& after) {
  MEMWAL_ASSIGN_OR_RETURN(const Segments old_segments, UserSegments(before));
  MEMWAL_ASSIGN_OR_RETURN(const Segments new_segments, UserSegments(after));
  std::set<std::string> changed;
  for (const auto& [name, list] : new_segments) {
    const auto it = old_segments.find(name);
    if (it == old_segments.end() || it->second != list) changed.insert(name);
  }
  return changed;
}

// lancedb resolve_single_index [P §8.1], for one query arm searching the column
// `field`: the segments of the index section whose fields contain `field` are
// deduplicated by index name (one logical index has many segments); more than
// one distinct index is InvalidArgument (the query would need more than one
// index); the name is returned only if the MemWAL maintains it
// (`maintained`). nullopt is the fallback: no index on the column, or one the
// MemWAL does not maintain, which then caps no watermark (the plain scan's
// compaction watermark applies). System indexes are never candidates.
Result<std::optional<std::string>> ResolveSingleIndex(
    const pb::IndexSection& section, int32_t field,
    const std::set<std::string>& maintained) {
  std::set<std::string> names;  // Deduplicates the segments of one index.
  for (const pb::IndexMetadata& index : section.indices()) {
    if (IsMemWalIndex(index)) continue;
    if (std::find(index.fields().begin(), index.fields().end(), field) !=
        index.fields().end()) {
      names.insert(index.name());
    }
  }
  if (names.size() > 1) {
    std::string list;
    for (const std::string& name : names)
      list += (list.empty() ? "" : ", ") + name;
    return Status::InvalidArgument("field " + std::to_string(field) +
                                   " is covered by more than one index (" +
                                   list + "); a MemWAL query uses one");
  }
  if (names.empty() || maintained.count(*names.begin()) == 0)
    return std::optional<std::string>();
  return std::optional<std::string>(*names.begin());
}

// BuildManifest of `t` on `file`; with `migrate`, then Lance's migrate_indices
// and the withdraw of what it narrowed [P §4.1 step 6], as Lance runs them
// after build_manifest.
Result<ManifestFile> Build(const ManifestFile& file, const pb::Transaction& t,
                           const IndexMigration* migrate = nullptr) {
  const Snapshot head{std::make_shared<const ManifestFile>(file)};
  auto counter = std::make_shared<uint64_t>(0);
  const UuidSource uuids = [counter] {
    std::string uuid(16, '\0');
    uuid[0] = static_cast<char>(++*counter);
    return uuid;
  };
  MEMWAL_ASSIGN_OR_RETURN(
      ManifestFile built,
      BuildManifest(BuildInput{.protocol = Protocol::kDerived,
                               .bugs = {},
                               .head = &head,
                               .read = &head,
                               .transaction = &t,
                               .transaction_file = "5-x.txn",
                               .new_uuid = &uuids}));
  if (migrate != nullptr) {
    const pb::IndexSection before = built.index_section;
    (*migrate)(&built.index_section);
    MEMWAL_ASSIGN_OR_RETURN(const std::set<std::string> changed,
                            CoverageChangedNames(before, built.index_section));
    MEMWAL_RETURN_IF_ERROR(
        WithdrawCoverageInvalidatedAfterBuild(changed, built.manifest.version(),
                                              uuids, &built.index_section)
            .status());
  }
  return built;
}

pb::MemWalIndexDetails DetailsOf(const ManifestFile& file) {
  const auto details = MemWalDetails(file.index_section);
  MEMWAL_ASSERT(details.ok() && details->has_value());
  return **details;
}

std::string SystemUuid(const ManifestFile& file) {
  return FindMemWalIndex(file.index_section)->uuid().uuid();
}

pb::Transaction SetConfig(const std::string& key,
                          std::optional<std::string> value) {
  pb::Transaction t;
  t.set_read_version(5);
  auto* entry =
      t.mutable_update_config()->mutable_config_updates()->add_update_entries();
  entry->set_key(key);
  if (value.has_value()) entry->set_value(*value);
  return t;
}

pb::Transaction ProgressCommit(uint64_t generation) {
  pb::Transaction t;
  pb::CompactedSsTable* entry =
      t.mutable_update_mem_wal_state()->add_compacted_sstables();
  entry->mutable_shard_id()->set_uuid(kShard);
  entry->set_generation(generation);
  return t;
}

pb::Transaction UserIndexBuild() {
  pb::Transaction t;
  pb::IndexMetadata* index = t.mutable_create_index()->add_new_indices();
  index->mutable_uuid()->set_uuid(std::string(16, 'n'));
  index->set_name("idx_1");
  index->add_fields(1);
  index->set_fragment_bitmap(EncodeFragmentBitmap(FragmentSet{0}));
  return t;
}

pb::Transaction MemWalInstall() {
  pb::Transaction t;
  pb::IndexMetadata* index = t.mutable_create_index()->add_new_indices();
  index->mutable_uuid()->set_uuid(std::string(16, 'w'));
  index->set_name(std::string(kMemWalIndexName));
  PackMemWalDetails(pb::MemWalIndexDetails(), index);
  return t;
}

ConflictClass Classify(pb::Transaction self, const pb::Transaction& committed) {
  const auto result = ClassifyConflict(&self, committed);
  MEMWAL_ASSERT(result.ok());
  return *result;
}

// ---- (a) UpdateConfig ----

TEST(UpdateConfig, EditsTableConfigKeysAndKeepsPositionsAndTheSystemIndex) {
  ManifestFile head = MakeHead();
  (*head.manifest.mutable_config())["old"] = "1";
  const auto built = Build(head, SetConfig("lance.auto_cleanup", "10"));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.config().at("lance.auto_cleanup"), "10");
  EXPECT_EQ(built->manifest.config().at("old"), "1");
  // The system index is not rewritten: same uuid, same writer config.
  EXPECT_EQ(SystemUuid(*built), kSystemUuid);
  const pb::MemWalIndexDetails details = DetailsOf(*built);
  EXPECT_EQ(details.writer_config_defaults().at("enable_memtable"), "false");
  EXPECT_EQ(Catchup(details).at("idx_0"), (ShardGenerations{{kShard, 2}}));
  EXPECT_EQ(built->manifest.fragments_size(), 2);
  // Lance: a non-empty config sets bit 8 in the writer word only.
  EXPECT_NE(built->manifest.writer_feature_flags() & kFlagTableConfig, 0u);
  EXPECT_EQ(built->manifest.reader_feature_flags() & kFlagTableConfig, 0u);
}

TEST(UpdateConfig, AnEntryWithoutAValueDeletesTheKey) {
  ManifestFile head = MakeHead();
  (*head.manifest.mutable_config())["gone"] = "1";
  const auto built = Build(head, SetConfig("gone", std::nullopt));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->manifest.config_size(), 0);
  EXPECT_EQ(built->manifest.writer_feature_flags() & kFlagTableConfig, 0u);
  EXPECT_EQ(SystemUuid(*built), kSystemUuid);
}

TEST(UpdateConfig, TheLanceDbPrimaryKeyTransactionDecodesAsUpdateConfig) {
  const std::filesystem::path dir = std::filesystem::path(MEMWAL_FIXTURES_DIR) /
                                    "memwal_bucket.lance" / "_transactions";
  std::string bytes;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("2-", 0) != 0) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    bytes = out.str();
  }
  ASSERT_FALSE(bytes.empty());
  const auto t = DecodeTransaction(bytes);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_TRUE(t->has_update_config());
  const auto& updates = t->update_config().field_metadata_updates();
  ASSERT_EQ(updates.size(), 1);
  EXPECT_EQ(updates[0].field_id(), 0u);
  const pb::Transaction::UpdateMap& update = updates[0].update();
  ASSERT_EQ(update.update_entries_size(), 1);
  EXPECT_EQ(update.update_entries(0).key(),
            "lance-schema:unenforced-primary-key:position");
  EXPECT_EQ(update.update_entries(0).value(), "1");
  EXPECT_TRUE(update.replace());
  // Byte for byte as LanceDB wrote it.
  EXPECT_EQ(EncodeTransaction(*t), bytes);
  EXPECT_TRUE(t->GetReflection()->GetUnknownFields(*t).empty());
}

TEST(UnmodelledOperations, AnOperationThisSchemaLacksStillDecodes) {
  // read_version 2, then AppendFragmentReuseTransitions (116, newer than
  // beta.16) as an empty message.
  const auto t = DecodeTransaction(std::string("\x08\x02\xa2\x07\x00", 5));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->operation_case(), pb::Transaction::OPERATION_NOT_SET);
  EXPECT_EQ(DecodeTransaction(std::string("\x08\x02", 2)).status().code(),
            StatusCode::kCorruption);
}

TEST(UpdateConfig, ConflictsAsLanceClassifiesThem) {
  const pb::Transaction config = SetConfig("k", "v");
  // Lance: UpdateMemWalState and CreateIndex meet a committed UpdateConfig
  // compatibly, and UpdateConfig meets a committed UpdateMemWalState so too.
  EXPECT_EQ(Classify(ProgressCommit(3), config), ConflictClass::kCompatible);
  EXPECT_EQ(Classify(UserIndexBuild(), config), ConflictClass::kCompatible);
  EXPECT_EQ(Classify(MemWalInstall(), config), ConflictClass::kCompatible);
  EXPECT_EQ(Classify(config, ProgressCommit(3)), ConflictClass::kCompatible);
  EXPECT_EQ(Classify(config, UserIndexBuild()), ConflictClass::kCompatible);
  // Lance (upsert_key_conflict): a key both upsert is incompatible, another
  // key compatible.
  EXPECT_EQ(Classify(config, SetConfig("k", "w")),
            ConflictClass::kIncompatible);
  EXPECT_EQ(Classify(config, SetConfig("j", "w")), ConflictClass::kCompatible);
}

// ---- (b) files and created_at ----

TEST(IndexMetadataFields, FilesAndCreatedAtUseLanceFieldNumbersAndRoundTrip) {
  pb::IndexMetadata only_created;
  only_created.set_created_at(7);
  EXPECT_EQ(only_created.SerializeAsString(), std::string("\x40\x07", 2));
  pb::IndexMetadata only_file;
  pb::IndexFile* file = only_file.add_files();
  file->set_path("a");
  file->set_size_bytes(3);
  // Tag 10 length-delimited; inside, path = 1 and size_bytes = 2.
  EXPECT_EQ(only_file.SerializeAsString(), std::string("\x52\x05\x0a\x01"
                                                       "a\x10\x03",
                                                       7));
  ManifestFile head = MakeHead();
  pb::IndexMetadata* index = head.index_section.mutable_indices(0);
  index->set_created_at(1700000000123);
  *index->add_files() = *file;
  const auto decoded = DecodeManifestFile(EncodeManifestFile(head));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const pb::IndexMetadata& back = decoded->index_section.indices(0);
  EXPECT_EQ(back.created_at(), 1700000000123u);
  ASSERT_EQ(back.files_size(), 1);
  EXPECT_EQ(back.files(0).path(), "a");
  EXPECT_EQ(back.files(0).size_bytes(), 3u);
  EXPECT_FALSE(decoded->index_section.indices(1).has_created_at());
}

TEST(IndexMetadataFields, LanceDbIndexesDecodeWithTheirFilesAndTimestamps) {
  const std::filesystem::path dir =
      std::filesystem::path(MEMWAL_FIXTURES_DIR) / "plain.lance" / "_versions";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".manifest") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    const auto file = DecodeManifestFile(out.str());
    ASSERT_TRUE(file.ok()) << entry.path();
    for (const pb::IndexMetadata& index : file->index_section.indices()) {
      if (index.name() != "id_idx") continue;
      ++checked;
      EXPECT_GT(index.created_at(), 1600000000000u) << entry.path();
      std::set<std::string> paths;
      for (const pb::IndexFile& f : index.files()) {
        EXPECT_GT(f.size_bytes(), 0u);
        paths.insert(f.path());
      }
      EXPECT_EQ(paths,
                (std::set<std::string>{"page_data.lance", "page_lookup.lance"}))
          << entry.path();
      EXPECT_TRUE(index.GetReflection()->GetUnknownFields(index).empty());
    }
  }
  EXPECT_GT(checked, 0);
}

// ---- (c) the migration withdraw step ----

TEST(MigrationWithdraw, ABitmapNarrowedAfterTheBuildLosesItsPosition) {
  const IndexMigration narrow = [](pb::IndexSection* section) {
    section->mutable_indices(0)->set_fragment_bitmap(
        EncodeFragmentBitmap(FragmentSet{0}));
  };
  const auto built = Build(MakeHead(), SetConfig("k", "v"), &narrow);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->index_section.indices(0).uuid().uuid(), kIndexUuid);
  const pb::MemWalIndexDetails details = DetailsOf(*built);
  EXPECT_EQ(Catchup(details).count("idx_0"), 0u);
  // The system index is rewritten (fresh uuid), its other state kept.
  EXPECT_NE(SystemUuid(*built), kSystemUuid);
  EXPECT_EQ(FindMemWalIndex(built->index_section)->dataset_version(), 6u);
  EXPECT_EQ(details.compacted_sstables(0).generation(), 2u);
  EXPECT_EQ(details.writer_config_defaults().at("enable_memtable"), "false");
}

TEST(MigrationWithdraw, AMigrationOfFileListsAndTimestampsKeepsThePosition) {
  const IndexMigration fill = [](pb::IndexSection* section) {
    pb::IndexMetadata* index = section->mutable_indices(0);
    index->set_created_at(42);
    index->add_files()->set_path("idx_0/page.lance");
  };
  const auto built = Build(MakeHead(), SetConfig("k", "v"), &fill);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->index_section.indices(0).created_at(), 42u);
  EXPECT_EQ(Catchup(DetailsOf(*built)).at("idx_0"),
            (ShardGenerations{{kShard, 2}}));
  EXPECT_EQ(SystemUuid(*built), kSystemUuid);
}

TEST(MigrationWithdraw, WithdrawingANameWithoutAnEntryDoesNotRewrite) {
  pb::IndexSection section = MakeHead().index_section;
  const UuidSource uuids = [] { return std::string(16, 'z'); };
  const auto rewritten =
      WithdrawCoverageInvalidatedAfterBuild({"idx_9"}, 6, uuids, &section);
  ASSERT_TRUE(rewritten.ok());
  EXPECT_FALSE(*rewritten);
  EXPECT_EQ(FindMemWalIndex(section)->uuid().uuid(), kSystemUuid);
}

// ---- (d) Merge and DataOverlay ----

// A Merge of the head's fragments, each with data file c<id> for field 1
// added; `rewrite_f1` also replaces fragment 1's file of field 0.
pb::Transaction AddColumn(bool rewrite_f1, bool drop_field_0 = false) {
  pb::Transaction t;
  t.set_read_version(5);
  pb::Transaction::Merge* merge = t.mutable_merge();
  const ManifestFile head = MakeHead();
  for (const pb::DataFragment& old : head.manifest.fragments()) {
    pb::DataFragment* fragment = merge->add_fragments();
    *fragment = old;
    if (rewrite_f1 && old.id() == 1)
      fragment->mutable_files(0)->set_path("f1-rewritten.lance");
    pb::DataFile* file = fragment->add_files();
    file->set_path(FileName('c', old.id()));
    file->add_fields(1);
  }
  if (!drop_field_0) merge->add_schema()->set_id(0);
  merge->add_schema()->set_id(1);
  return t;
}

TEST(Merge, AddingColumnsKeepsIndexCoverageAndTheSystemIndex) {
  const auto built = Build(MakeHead(), AddColumn(false));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.fields_size(), 2);
  EXPECT_EQ(built->manifest.fragments(1).files_size(), 2);
  EXPECT_EQ(Catchup(DetailsOf(*built)).at("idx_0"),
            (ShardGenerations{{kShard, 2}}));
  EXPECT_EQ(SystemUuid(*built), kSystemUuid);
}

TEST(Merge, RewritingAnIndexedFieldPrunesInPlaceAndWithdrawsThePosition) {
  const auto built = Build(MakeHead(), AddColumn(true));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const pb::IndexMetadata& index = built->index_section.indices(0);
  EXPECT_EQ(index.uuid().uuid(), kIndexUuid);
  const auto covers = DecodeFragmentBitmap(index.fragment_bitmap());
  ASSERT_TRUE(covers.ok() && covers->has_value());
  EXPECT_EQ(**covers, (FragmentSet{0}));
  EXPECT_EQ(Catchup(DetailsOf(*built)).count("idx_0"), 0u);
  EXPECT_NE(SystemUuid(*built), kSystemUuid);
}

TEST(Merge, DroppingAnIndexedFieldDropsTheIndexAndItsEntry) {
  const auto built = Build(MakeHead(), AddColumn(false, true));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ASSERT_EQ(built->index_section.indices_size(), 1);
  EXPECT_TRUE(IsMemWalIndex(built->index_section.indices(0)));
  EXPECT_EQ(Catchup(DetailsOf(*built)).count("idx_0"), 0u);
}

TEST(Merge, ConflictsAsLanceClassifiesThem) {
  const pb::Transaction merge = AddColumn(false);
  // Lance #8539: a MemWAL install meets a committed Merge as retryable; a
  // user index build compatibly.
  EXPECT_EQ(Classify(MemWalInstall(), merge), ConflictClass::kRetryable);
  EXPECT_EQ(Classify(UserIndexBuild(), merge), ConflictClass::kCompatible);
  // Lance: UpdateMemWalState against a committed Merge, and Merge against a
  // committed UpdateMemWalState, are incompatible.
  EXPECT_EQ(Classify(ProgressCommit(3), merge), ConflictClass::kIncompatible);
  EXPECT_EQ(Classify(merge, ProgressCommit(3)), ConflictClass::kIncompatible);
  EXPECT_EQ(Classify(merge, SetConfig("k", "v")), ConflictClass::kCompatible);
}

TEST(DataOverlay, ConflictsAsLanceClassifiesThem) {
  pb::Transaction overlay;
  overlay.mutable_data_overlay();
  EXPECT_EQ(Classify(UserIndexBuild(), overlay), ConflictClass::kCompatible);
  EXPECT_EQ(Classify(MemWalInstall(), overlay), ConflictClass::kCompatible);
  EXPECT_EQ(Classify(ProgressCommit(3), overlay), ConflictClass::kIncompatible);
  // It has no build arm here: committing one is refused as invalid input.
  EXPECT_EQ(Build(MakeHead(), overlay).status().code(),
            StatusCode::kInvalidArgument);
}

// ---- (e) lancedb single-index resolution ----

pb::IndexSection Segments(
    std::vector<std::pair<std::string, int32_t>> segments) {
  pb::IndexSection section;
  char id = 'a';
  for (const auto& [name, field] : segments) {
    pb::IndexMetadata* index = section.add_indices();
    index->mutable_uuid()->set_uuid(std::string(16, id++));
    index->set_name(name);
    index->add_fields(field);
  }
  const ManifestFile head = MakeHead();
  *section.add_indices() = head.index_section.indices(1);
  return section;
}

TEST(SingleIndexResolution, SegmentsOfOneIndexResolveToItsName) {
  const auto name = ResolveSingleIndex(
      Segments({{"vec", 2}, {"vec", 2}, {"fts", 3}}), 2, {"vec", "fts"});
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, std::optional<std::string>("vec"));
}

TEST(SingleIndexResolution, AQueryNeedingTwoIndexesIsInvalid) {
  const auto name =
      ResolveSingleIndex(Segments({{"vec_a", 2}, {"vec_b", 2}}), 2, {"vec_a"});
  EXPECT_EQ(name.status().code(), StatusCode::kInvalidArgument);
}

TEST(SingleIndexResolution, AnIndexTheMemWalDoesNotMaintainFallsBack) {
  const auto name = ResolveSingleIndex(Segments({{"vec", 2}}), 2, {"fts"});
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, std::nullopt);
  const auto none = ResolveSingleIndex(Segments({{"vec", 2}}), 7, {"vec"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, std::nullopt);
  // The fallback caps nothing: the compaction watermark alone applies, while
  // a maintained index with no entry retains everything (strict).
  VersionView view;
  view.compacted = {{kShard, 5}};
  view.indexes = {"vec"};
  view.both_bits = true;
  EXPECT_EQ(ExclusionWatermark(view, kShard, {}, Protocol::kUnconditional,
                               ReadMode::kStrict, {}),
            5u);
  EXPECT_EQ(ExclusionWatermark(view, kShard, {"vec"}, Protocol::kUnconditional,
                               ReadMode::kStrict, {}),
            0u);
}

}  // namespace
}  // namespace memwal::impl
