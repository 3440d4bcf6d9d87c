// The operation arms of BuildManifest (impl/build.cc) that World's own
// actions never take, or take only with inputs that cannot tell a wrong arm
// from a right one, on a head World wrote (one shard, two indexes: idx_0 on
// field 0, idx_1 on field 1, and the MemWAL system index), edited where Lance
// allows a head World never writes. Lance's build_manifest [P §4.2, §5]:
//
// - a head without max_fragment_id gives new fragments ids above every live
//   one (Lance takes the maximum fragment id then), from 0 on an empty table;
// - UpdateConfig applies its UpdateMap to the table config: `replace` starts
//   from empty, an entry with a value sets its key, one without deletes it;
// - Rewrite remaps each rewritten segment (R24): the old fragments leave its
//   bitmap, the group's new fragments enter it only where it covered every
//   old one, it takes the new uuid and, written by this table, no base_id;
//   a segment the rewrite does not name keeps its uuid and bitmap;
// - Merge with a schema replaces the schema (one field too) and drops every
//   index whose field left it, wherever the index sits in the index list;
// - a data pass of an already compacted generation is refused, naming the
//   shard and the generation (spec R65).
//
// And the catch-up rule functions where the gate's inputs are too narrow:
// every refusal of the advance protocol (R34) says which index and why, an
// advance whose positions are all zero writes no entry (R33's rule for an
// all-zero entry), and the withdrawal pass (bug invalidation-on-legacy) keeps
// exactly the entries of unchanged indexes.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/bitmap.h"
#include "impl/build.h"
#include "impl/catchup.h"
#include "impl/feature_flags.h"
#include "impl/format.h"
#include "impl/table.h"
#include "impl/world.h"

namespace memwal {
namespace {

using impl::pb::Transaction;

// The head of a new World (one fragment) after `appends` committed appends.
impl::ManifestFile HeadOfWorld(int appends) {
  Result<impl::World> created =
      impl::World::Create(impl::Options{.shards = 1, .indexes = 2});
  EXPECT_TRUE(created.ok());
  impl::World world = std::move(created).value();
  for (int k = 0; k < appends; ++k) {
    EXPECT_TRUE(world.BeginAppend().ok());
    EXPECT_TRUE(world.Commit(0).ok());
  }
  const impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  EXPECT_TRUE(head.ok());
  return head.ok() ? *head->file : impl::ManifestFile{};
}

// BuildManifest of `t` on `head` (read version = head), uuids "uuuu...a", ...
Result<impl::ManifestFile> Build(
    const impl::ManifestFile& head, Transaction t,
    impl::BugSet bugs = impl::BugSet(),
    impl::Protocol protocol = impl::Protocol::kDerived) {
  const impl::Snapshot snapshot{
      std::make_shared<const impl::ManifestFile>(head)};
  t.set_read_version(snapshot.version());
  int minted = 0;
  const impl::UuidSource uuids = [&minted] {
    return std::string(15, 'u') + static_cast<char>('a' + minted++);
  };
  impl::BuildInput input;
  input.bugs = bugs;
  input.protocol = protocol;
  input.head = &snapshot;
  input.read = &snapshot;
  input.transaction = &t;
  input.transaction_file = "t.txn";
  input.new_uuid = &uuids;
  return impl::BuildManifest(input);
}

impl::pb::IndexMetadata* Named(impl::ManifestFile* file,
                               const std::string& name) {
  for (auto& index : *file->index_section.mutable_indices()) {
    if (index.name() == name) return &index;
  }
  return nullptr;
}

const impl::pb::IndexMetadata* Named(const impl::ManifestFile& file,
                                     const std::string& name) {
  return Named(const_cast<impl::ManifestFile*>(&file), name);
}

std::set<uint64_t> Covers(const impl::pb::IndexMetadata& index) {
  const auto covers = impl::DecodeFragmentBitmap(index.fragment_bitmap());
  EXPECT_TRUE(covers.ok() && covers->has_value());
  return covers.ok() && covers->has_value() ? **covers : std::set<uint64_t>{};
}

std::vector<uint64_t> FragmentIds(const impl::pb::Manifest& manifest) {
  std::vector<uint64_t> ids;
  for (const auto& fragment : manifest.fragments())
    ids.push_back(fragment.id());
  return ids;
}

Transaction AppendOf(const impl::pb::DataFragment& like, int count) {
  Transaction t;
  for (int k = 0; k < count; ++k) {
    auto* fragment = t.mutable_append()->add_fragments();
    *fragment = like;
    fragment->clear_id();
  }
  return t;
}

TEST(RuleFunctions, AnAppendOnAHeadWithoutMaxFragmentIdTakesIdsAboveEveryLive) {
  impl::ManifestFile head = HeadOfWorld(1);
  ASSERT_EQ(head.manifest.fragments_size(), 2);
  const impl::pb::DataFragment like = head.manifest.fragments(0);
  head.manifest.mutable_fragments(0)->set_id(5);
  head.manifest.mutable_fragments(1)->set_id(3);
  head.manifest.clear_max_fragment_id();
  const Result<impl::ManifestFile> built = Build(head, AppendOf(like, 2));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(FragmentIds(built->manifest), (std::vector<uint64_t>{3, 5, 6, 7}));
  EXPECT_EQ(built->manifest.max_fragment_id(), 7u);
}

TEST(RuleFunctions, AnAppendOnAnEmptyHeadWithoutMaxFragmentIdStartsAtZero) {
  impl::ManifestFile head = HeadOfWorld(1);
  const impl::pb::DataFragment like = head.manifest.fragments(0);
  head.manifest.clear_fragments();
  head.manifest.clear_max_fragment_id();
  const Result<impl::ManifestFile> built = Build(head, AppendOf(like, 1));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(FragmentIds(built->manifest), (std::vector<uint64_t>{0}));
}

std::map<std::string, std::string> ConfigOf(const impl::pb::Manifest& m) {
  return {m.config().begin(), m.config().end()};
}

Transaction UpdateConfigOf(
    bool replace,
    const std::vector<std::pair<std::string, std::optional<std::string>>>&
        entries) {
  Transaction t;
  auto* map = t.mutable_update_config()->mutable_config_updates();
  map->set_replace(replace);
  for (const auto& [key, value] : entries) {
    auto* entry = map->add_update_entries();
    entry->set_key(key);
    if (value.has_value()) entry->set_value(*value);
  }
  return t;
}

TEST(RuleFunctions, AnUpdateConfigSetsAndDeletesKeysAndLeavesTheRestAlone) {
  impl::ManifestFile head = HeadOfWorld(1);
  (*head.manifest.mutable_config())["a"] = "1";
  (*head.manifest.mutable_config())["b"] = "2";
  (*head.manifest.mutable_config())["keep"] = "k";
  const Result<impl::ManifestFile> built = Build(
      head,
      UpdateConfigOf(false, {{"a", "9"}, {"b", std::nullopt}, {"c", "3"}}));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(ConfigOf(built->manifest),
            (std::map<std::string, std::string>{
                {"a", "9"}, {"c", "3"}, {"keep", "k"}}));
  EXPECT_EQ(FragmentIds(built->manifest), FragmentIds(head.manifest));
  EXPECT_EQ(built->index_section.SerializeAsString(),
            head.index_section.SerializeAsString());
}

TEST(RuleFunctions, AnUpdateConfigThatReplacesStartsFromAnEmptyConfig) {
  impl::ManifestFile head = HeadOfWorld(1);
  (*head.manifest.mutable_config())["a"] = "1";
  const Result<impl::ManifestFile> built =
      Build(head, UpdateConfigOf(true, {{"c", "3"}}));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(ConfigOf(built->manifest),
            (std::map<std::string, std::string>{{"c", "3"}}));
}

// Head: fragments 0 and 1; idx_0 covers both (from a clone source: base_id
// 1), idx_1 covers fragment 0 only. The rewrite merges 0 and 1 into one new
// fragment and names both segments.
TEST(RuleFunctions,
     ARewriteRemapsOnlyTheSegmentsThatCoveredAllItsOldFragments) {
  impl::ManifestFile head = HeadOfWorld(1);
  ASSERT_EQ(FragmentIds(head.manifest), (std::vector<uint64_t>{0, 1}));
  impl::pb::IndexMetadata* idx_0 = Named(&head, "idx_0");
  impl::pb::IndexMetadata* idx_1 = Named(&head, "idx_1");
  ASSERT_NE(idx_0, nullptr);
  ASSERT_NE(idx_1, nullptr);
  idx_0->set_fragment_bitmap(
      impl::EncodeFragmentBitmap(impl::FragmentSet{0, 1}));
  idx_0->set_base_id(1);
  idx_1->set_fragment_bitmap(impl::EncodeFragmentBitmap(impl::FragmentSet{0}));
  const std::string old_0 = idx_0->uuid().uuid();
  const std::string old_1 = idx_1->uuid().uuid();
  const std::string new_0(16, 'A');
  const std::string new_1(16, 'B');

  Transaction t;
  auto* group = t.mutable_rewrite()->add_groups();
  *group->add_old_fragments() = head.manifest.fragments(0);
  *group->add_old_fragments() = head.manifest.fragments(1);
  auto* merged = group->add_new_fragments();
  *merged = head.manifest.fragments(0);
  merged->clear_id();
  for (const auto& [from, to] : {std::pair{old_0, new_0}, {old_1, new_1}}) {
    auto* rewritten = t.mutable_rewrite()->add_rewritten_indices();
    rewritten->mutable_old_id()->set_uuid(from);
    rewritten->mutable_new_id()->set_uuid(to);
  }
  const Result<impl::ManifestFile> built = Build(head, t);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(FragmentIds(built->manifest), (std::vector<uint64_t>{2}));
  const auto* after_0 = Named(*built, "idx_0");
  const auto* after_1 = Named(*built, "idx_1");
  ASSERT_NE(after_0, nullptr);
  ASSERT_NE(after_1, nullptr);
  EXPECT_EQ(after_0->uuid().uuid(), new_0);
  EXPECT_EQ(Covers(*after_0), (std::set<uint64_t>{2}));
  EXPECT_FALSE(after_0->has_base_id());
  EXPECT_EQ(after_1->uuid().uuid(), new_1);
  EXPECT_EQ(Covers(*after_1), std::set<uint64_t>{});
}

TEST(RuleFunctions, ARewriteLeavesASegmentItDoesNotNameAsItWas) {
  impl::ManifestFile head = HeadOfWorld(1);
  impl::pb::IndexMetadata* idx_1 = Named(&head, "idx_1");
  ASSERT_NE(idx_1, nullptr);
  idx_1->set_fragment_bitmap(
      impl::EncodeFragmentBitmap(impl::FragmentSet{0, 1}));
  const impl::pb::IndexMetadata idx_0 = *Named(&head, "idx_0");
  Transaction t;
  auto* group = t.mutable_rewrite()->add_groups();
  *group->add_old_fragments() = head.manifest.fragments(0);
  *group->add_old_fragments() = head.manifest.fragments(1);
  auto* merged = group->add_new_fragments();
  *merged = head.manifest.fragments(0);
  merged->clear_id();
  auto* rewritten = t.mutable_rewrite()->add_rewritten_indices();
  rewritten->mutable_old_id()->set_uuid(idx_1->uuid().uuid());
  rewritten->mutable_new_id()->set_uuid(std::string(16, 'B'));
  const Result<impl::ManifestFile> built = Build(head, t);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const auto* after_0 = Named(*built, "idx_0");
  ASSERT_NE(after_0, nullptr);
  EXPECT_EQ(after_0->uuid().uuid(), idx_0.uuid().uuid());
  EXPECT_EQ(after_0->fragment_bitmap(), idx_0.fragment_bitmap());
  EXPECT_EQ(Covers(*Named(*built, "idx_1")), (std::set<uint64_t>{2}));
}

Transaction MergeOf(const impl::ManifestFile& head,
                    const std::function<void(Transaction::Merge*)>& edit) {
  Transaction t;
  *t.mutable_merge()->mutable_fragments() = head.manifest.fragments();
  *t.mutable_merge()->mutable_schema() = head.manifest.fields();
  edit(t.mutable_merge());
  return t;
}

// The system index first, so that a user index is the last of the list.
void SystemIndexFirst(impl::ManifestFile* head) {
  auto* indices = head->index_section.mutable_indices();
  for (int k = indices->size() - 1; k > 0; --k) {
    if (impl::IsMemWalIndex(indices->Get(k))) indices->SwapElements(k, k - 1);
  }
  ASSERT_TRUE(impl::IsMemWalIndex(indices->Get(0)));
}

TEST(RuleFunctions,
     AMergeDropsTheIndexOfALeavingFieldAlsoWhenItIsLastInTheList) {
  impl::ManifestFile head = HeadOfWorld(1);
  SystemIndexFirst(&head);
  ASSERT_EQ(
      head.index_section.indices(head.index_section.indices_size() - 1).name(),
      "idx_1");
  const Result<impl::ManifestFile> built =
      Build(head, MergeOf(head, [](Transaction::Merge* merge) {
              merge->mutable_schema()->DeleteSubrange(1, 1);  // field 1 leaves
            }));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(Named(*built, "idx_1"), nullptr);
  EXPECT_NE(Named(*built, "idx_0"), nullptr);
  EXPECT_NE(impl::FindMemWalIndex(built->index_section), nullptr);
}

TEST(RuleFunctions, AMergeToAOneFieldSchemaTakesThatSchema) {
  impl::ManifestFile head = HeadOfWorld(1);
  ASSERT_GT(head.manifest.fields_size(), 1);
  const int32_t kept = head.manifest.fields(0).id();
  const Result<impl::ManifestFile> built = Build(
      head, MergeOf(head, [](Transaction::Merge* merge) {
        merge->mutable_schema()->DeleteSubrange(1, merge->schema_size() - 1);
      }));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ASSERT_EQ(built->manifest.fields_size(), 1);
  EXPECT_EQ(built->manifest.fields(0).id(), kept);
}

TEST(RuleFunctions,
     ADataPassOfACompactedGenerationIsRefusedNamingShardAndGeneration) {
  impl::ManifestFile head = HeadOfWorld(1);
  impl::pb::IndexMetadata* system = impl::FindMemWalIndex(&head.index_section);
  ASSERT_NE(system, nullptr);
  Result<impl::pb::MemWalIndexDetails> details =
      impl::UnpackMemWalDetails(*system);
  ASSERT_TRUE(details.ok());
  const std::string shard(16, '\x5a');
  auto* compacted = details->add_compacted_sstables();
  compacted->mutable_shard_id()->set_uuid(shard);
  compacted->set_generation(2);
  impl::PackMemWalDetails(*details, system);
  const auto pass = [&](uint64_t generation) {
    Transaction t;
    auto* updated = t.mutable_update()->add_updated_fragments();
    *updated = head.manifest.fragments(0);
    (*t.mutable_transaction_properties())[std::string(
        impl::kDataPassProperty)] =
        impl::UuidHex(shard) + ":" + std::to_string(generation);
    return Build(head, t);
  };
  const Result<impl::ManifestFile> refused = pass(2);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "data pass of an already compacted generation 2 of shard " +
                impl::UuidHex(shard));
  EXPECT_TRUE(pass(3).ok()) << pass(3).status().ToString();
}

// Bug invalidation-on-legacy runs the withdrawal pass on a table without the
// bit (positions a post-8680 compactor recorded, R64): a commit that leaves
// every index unchanged keeps them, so the system index is not rewritten;
// one that changes idx_0 withdraws idx_0's entry alone.
TEST(RuleFunctions,
     TheWithdrawalOnALegacyTableRewritesTheSystemIndexOnlyForAChange) {
  impl::ManifestFile head = HeadOfWorld(1);
  ASSERT_FALSE(impl::RequiresCatchup(impl::Protocol::kDerived, head.manifest));
  impl::pb::IndexMetadata* system = impl::FindMemWalIndex(&head.index_section);
  ASSERT_NE(system, nullptr);
  Result<impl::pb::MemWalIndexDetails> details =
      impl::UnpackMemWalDetails(*system);
  ASSERT_TRUE(details.ok());
  for (const char* name : {"idx_0", "idx_1"}) {
    auto* entry = details->add_index_catchup();
    entry->set_index_name(name);
    auto* position = entry->add_caught_up_generations();
    position->mutable_shard_id()->set_uuid(std::string(16, 's'));
    position->set_generation(1);
  }
  impl::PackMemWalDetails(*details, system);
  const impl::BugSet bug(impl::BugBit(impl::Bug::kInvalidationOnLegacy));
  const Result<impl::ManifestFile> appended =
      Build(head, AppendOf(head.manifest.fragments(0), 1), bug);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(impl::FindMemWalIndex(appended->index_section)->SerializeAsString(),
            system->SerializeAsString());

  Transaction drop;
  *drop.mutable_create_index()->add_removed_indices() = *Named(&head, "idx_0");
  const Result<impl::ManifestFile> dropped = Build(head, drop, bug);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  const Result<impl::pb::MemWalIndexDetails> after =
      impl::UnpackMemWalDetails(*impl::FindMemWalIndex(dropped->index_section));
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->index_catchup_size(), 1);
  EXPECT_EQ(after->index_catchup(0).index_name(), "idx_1");

  // Without the bug a table without the bit is untouched by catch-up under
  // every protocol that has the bit: dropping idx_0 leaves the system index
  // as it was (LegacyTablesAreUntouched).
  for (const impl::Protocol protocol :
       {impl::Protocol::kDerived, impl::Protocol::kAdvance}) {
    const Result<impl::ManifestFile> legacy =
        Build(head, drop, impl::BugSet(), protocol);
    ASSERT_TRUE(legacy.ok()) << legacy.status().ToString();
    EXPECT_EQ(impl::FindMemWalIndex(legacy->index_section)->SerializeAsString(),
              system->SerializeAsString());
  }
}

// Bug index-work-per-transaction excuses an advance from the inspected-fragment
// check only when the transaction publishes index work (a user index among
// its new indices): a CreateIndex that carries an advance and publishes none
// is still refused for inspecting a fragment the index does not cover.
TEST(RuleFunctions,
     WithoutIndexWorkAnAdvanceMustCoverWhatItInspectedEvenUnderTheBug) {
  impl::ManifestFile head = HeadOfWorld(1);
  head.manifest.set_reader_feature_flags(head.manifest.reader_feature_flags() |
                                         impl::kFlagMemWalIndexCatchup);
  head.manifest.set_writer_feature_flags(head.manifest.writer_feature_flags() |
                                         impl::kFlagMemWalIndexCatchup);
  const impl::pb::IndexMetadata& idx_0 = *Named(&head, "idx_0");
  const std::set<uint64_t> covers = Covers(idx_0);
  std::set<uint64_t> inspected = covers;
  inspected.insert(7);
  const auto advance_with = [&](bool publish) {
    Transaction t;
    auto* op = t.mutable_create_index();
    if (publish) {
      impl::pb::IndexMetadata* rebuilt = op->add_new_indices();
      *rebuilt = idx_0;
      rebuilt->mutable_uuid()->set_uuid(std::string(16, 'N'));
      *op->add_removed_indices() = idx_0;
      // The advance is for idx_1, whose segments this transaction leaves.
    }
    const impl::pb::IndexMetadata& target = *Named(&head, "idx_1");
    auto* advance = op->add_mem_wal_index_catchup_advances();
    advance->set_index_name("idx_1");
    *advance->add_expected_index_segment_uuids() = target.uuid();
    advance->set_expected_fragment_bitmap(target.fragment_bitmap());
    std::set<uint64_t> wide = Covers(target);
    wide.insert(7);
    advance->set_inspected_fragments(impl::EncodeFragmentBitmap(wide));
    return t;
  };
  const impl::BugSet bug(impl::BugBit(impl::Bug::kIndexWorkPerTransaction));
  const Result<impl::ManifestFile> without =
      Build(head, advance_with(false), bug, impl::Protocol::kAdvance);
  ASSERT_FALSE(without.ok());
  EXPECT_EQ(without.status().message(),
            "catch-up advance for idx_1: does not cover every inspected "
            "fragment");
  const Result<impl::ManifestFile> with =
      Build(head, advance_with(true), bug, impl::Protocol::kAdvance);
  EXPECT_TRUE(with.ok()) << with.status().ToString();
}

// Bug progress-regresses: a progress update starts from the read version's
// compacted_sstables for the shards it does not name, and from the head's for
// those it names (so a stale generation is still refused); each shard is
// listed once.
TEST(RuleFunctions,
     UnderProgressRegressesOnlyTheUnnamedShardsTakeTheReadVersionsProgress) {
  const auto with_progress =
      [](impl::ManifestFile file,
         const std::vector<std::pair<std::string, uint64_t>>& progress) {
        impl::pb::IndexMetadata* system =
            impl::FindMemWalIndex(&file.index_section);
        Result<impl::pb::MemWalIndexDetails> details =
            impl::UnpackMemWalDetails(*system);
        EXPECT_TRUE(details.ok());
        details->clear_compacted_sstables();
        for (const auto& [shard, generation] : progress) {
          auto* entry = details->add_compacted_sstables();
          entry->mutable_shard_id()->set_uuid(shard);
          entry->set_generation(generation);
        }
        impl::PackMemWalDetails(*details, system);
        return impl::Snapshot{
            std::make_shared<const impl::ManifestFile>(std::move(file))};
      };
  const std::string a(16, 'a');
  const std::string b(16, 'b');
  const impl::ManifestFile world = HeadOfWorld(1);
  const impl::Snapshot head = with_progress(world, {{a, 2}, {b, 3}});
  const impl::Snapshot read = with_progress(world, {{a, 1}, {b, 1}});
  const impl::UuidSource uuids = [] { return std::string(16, 'u'); };
  impl::BuildInput input;
  input.bugs = impl::BugSet(impl::BugBit(impl::Bug::kProgressRegresses));
  input.head = &head;
  input.read = &read;
  input.new_uuid = &uuids;
  const auto update = [&](uint64_t generation) {
    google::protobuf::RepeatedPtrField<impl::pb::CompactedSsTable> proposed;
    auto* entry = proposed.Add();
    entry->mutable_shard_id()->set_uuid(b);
    entry->set_generation(generation);
    impl::pb::IndexSection section = head.file->index_section;
    const Status status = impl::UpdateCompacted(proposed, input, 9, &section);
    impl::ShardGenerations out;
    if (!status.ok()) return std::optional<impl::ShardGenerations>();
    const auto details = impl::MemWalDetails(section);
    EXPECT_TRUE(details.ok() && details->has_value());
    return std::optional<impl::ShardGenerations>(
        impl::Generations((*details)->compacted_sstables()));
  };
  EXPECT_EQ(update(4), (impl::ShardGenerations{{a, 1}, {b, 4}}));
  EXPECT_EQ(update(3), std::nullopt);  // stale against the head's 3
  input.bugs = impl::BugSet();
  EXPECT_EQ(update(4), (impl::ShardGenerations{{a, 2}, {b, 4}}));
}

// --- The advance protocol's refusals (R34): "catch-up advance for NAME: WHY".

std::string Shard(int k) { return "shard-" + std::to_string(k); }

impl::Segment SegmentOf(const std::string& uuid, impl::Coverage covers) {
  return impl::Segment{.uuid = uuid, .covers = std::move(covers)};
}

// A valid input and advance: index idx covers fragment 1 with segment s1,
// shard 0 at generation 2; the advance claims generation 1 of shard 0.
struct AdvanceCase {
  impl::AdvanceInput input;
  impl::Advances advances;
  impl::BugSet bugs;

  AdvanceCase() {
    input.head_requires_catchup = true;
    input.has_system_index = true;
    input.before["idx"] = {SegmentOf("s1", impl::FragmentSet{1})};
    input.after = input.before;
    input.new_compacted = {{Shard(0), 2}};
    input.new_live = {1};
    auto* advance = advances.Add();
    advance->set_index_name("idx");
    advance->add_expected_index_segment_uuids()->set_uuid("s1");
    advance->set_expected_fragment_bitmap(
        impl::EncodeFragmentBitmap(impl::FragmentSet{1}));
    advance->set_inspected_fragments(
        impl::EncodeFragmentBitmap(impl::FragmentSet{1}));
    Claim(0, 1);
  }
  void Claim(int shard, uint64_t generation) {
    auto* claim = advances.Mutable(0)->add_caught_up_generations();
    claim->mutable_shard_id()->set_uuid(Shard(shard));
    claim->set_generation(generation);
  }
  std::string Refusal() const {
    const Result<impl::CatchupTable> got =
        impl::ApplyAdvances(input, advances, bugs);
    return got.ok() ? "accepted" : std::string(got.status().message());
  }
};

TEST(RuleFunctions, EveryAdvanceRefusalNamesTheIndexAndSaysWhy) {
  EXPECT_EQ(AdvanceCase().Refusal(), "accepted");
  const auto why = [](const std::function<void(AdvanceCase*)>& edit) {
    AdvanceCase c;
    edit(&c);
    return c.Refusal();
  };
  const std::string at = "catch-up advance for idx: ";
  EXPECT_EQ(why([](AdvanceCase* c) { c->input.head_requires_catchup = false; }),
            at + "the table does not require catch-up");
  EXPECT_EQ(why([](AdvanceCase* c) { c->input.has_system_index = false; }),
            at + "the table has no __lance_mem_wal index");
  EXPECT_EQ(
      why([](AdvanceCase* c) { *c->advances.Add() = c->advances.Get(0); }),
      at + "two advances name one index");
  EXPECT_EQ(why([](AdvanceCase* c) {
              c->input.after["idx"] = {SegmentOf("s1", std::nullopt)};
            }),
            at + "a segment has no fragment bitmap");
  EXPECT_EQ(why([](AdvanceCase* c) {
              c->input.after["idx"] = {SegmentOf("s2", impl::FragmentSet{1})};
            }),
            at + "segment uuids differ from the expected set");
  EXPECT_EQ(
      why([](AdvanceCase* c) {
        c->input.after["idx"] = {SegmentOf("s1", impl::FragmentSet{1, 2})};
      }),
      at + "coverage differs from the expected fragment bitmap");
  EXPECT_EQ(why([](AdvanceCase* c) {
              c->advances.Mutable(0)->set_inspected_fragments(
                  impl::EncodeFragmentBitmap(impl::FragmentSet{1, 2}));
            }),
            at + "does not cover every inspected fragment");
  EXPECT_EQ(why([](AdvanceCase* c) {
              c->bugs = impl::BugSet(
                  impl::BugBit(impl::Bug::kRepairSpansLiveAtCommit));
              c->input.new_live = {1, 2};
            }),
            at + "does not cover every fragment live at commit");
  EXPECT_EQ(why([](AdvanceCase* c) { c->Claim(0, 1); }),
            at + "names a shard twice");
  EXPECT_EQ(why([](AdvanceCase* c) { c->Claim(1, 1); }),
            at + "names a shard without compaction progress");
  EXPECT_EQ(why([](AdvanceCase* c) {
              c->advances.Mutable(0)
                  ->mutable_caught_up_generations(0)
                  ->set_generation(3);
            }),
            at + "claims past the compaction progress");
}

// The two implementation-only advance bugs do what their switches say, and
// only that: advance-without-inspected skips the inspected-fragment check
// alone; advance-dropped-without-system-index drops the advances of a table
// without __lance_mem_wal (and only there) instead of refusing them.
TEST(RuleFunctions, TheAdvanceBugSwitchesChangeOnlyTheirOwnCheck) {
  AdvanceCase c;
  c.advances.Mutable(0)->set_inspected_fragments(
      impl::EncodeFragmentBitmap(impl::FragmentSet{1, 2}));
  c.bugs = impl::BugSet(impl::BugBit(impl::Bug::kAdvanceWithoutInspected));
  EXPECT_EQ(c.Refusal(), "accepted");
  c.input.after["idx"] = {SegmentOf("s2", impl::FragmentSet{1})};
  EXPECT_EQ(c.Refusal(),
            "catch-up advance for idx: segment uuids differ from the expected "
            "set");

  AdvanceCase d;
  d.bugs =
      impl::BugSet(impl::BugBit(impl::Bug::kAdvanceDroppedWithoutSystemIndex));
  d.input.old_catchup["idx"] = {{Shard(0), 2}};
  const Result<impl::CatchupTable> kept =
      impl::ApplyAdvances(d.input, d.advances, d.bugs);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(*kept, (impl::CatchupTable{{"idx", {{Shard(0), 2}}}}));
  d.input.has_system_index = false;
  const Result<impl::CatchupTable> dropped =
      impl::ApplyAdvances(d.input, d.advances, d.bugs);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(*dropped, (impl::CatchupTable{{"idx", {{Shard(0), 2}}}}));
  d.input.old_catchup.clear();
  d.input.has_system_index = true;
  const Result<impl::CatchupTable> applied =
      impl::ApplyAdvances(d.input, d.advances, d.bugs);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(*applied, (impl::CatchupTable{{"idx", {{Shard(0), 1}}}}));
}

// R33: an entry whose every shard is at 0 is not written; the advance's merge
// writes none either (R2 reads a missing entry as an explicit 0).
TEST(RuleFunctions, AnAdvanceWhosePositionsAreAllZeroWritesNoEntry) {
  AdvanceCase c;
  c.advances.Mutable(0)->mutable_caught_up_generations(0)->set_generation(0);
  const Result<impl::CatchupTable> got =
      impl::ApplyAdvances(c.input, c.advances, c.bugs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->count("idx"), 0u);
  c.advances.Mutable(0)->mutable_caught_up_generations(0)->set_generation(1);
  const Result<impl::CatchupTable> one =
      impl::ApplyAdvances(c.input, c.advances, c.bugs);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->at("idx"), (impl::ShardGenerations{{Shard(0), 1}}));
}

// Bug invalidation-on-legacy's pass: every changed or dropped index loses its
// entry, an unchanged one keeps its positions as they were.
TEST(RuleFunctions, TheWithdrawalPassKeepsExactlyTheEntriesOfUnchangedIndexes) {
  impl::DerivationInput input;
  input.before["same"] = {SegmentOf("a", impl::FragmentSet{0})};
  input.before["changed"] = {SegmentOf("b", impl::FragmentSet{0})};
  input.before["dropped"] = {SegmentOf("c", impl::FragmentSet{0})};
  input.after["same"] = input.before["same"];
  input.after["changed"] = {SegmentOf("b", impl::FragmentSet{0, 1})};
  input.after["new"] = {SegmentOf("d", impl::FragmentSet{0})};
  input.old_catchup["same"] = {{Shard(0), 2}, {Shard(1), 0}};
  input.old_catchup["changed"] = {{Shard(0), 1}};
  input.old_catchup["dropped"] = {{Shard(0), 1}};
  input.old_catchup["gone"] = {{Shard(0), 1}};  // in neither list
  const impl::CatchupTable kept = impl::WithdrawChanged(input, impl::BugSet());
  EXPECT_EQ(kept,
            (impl::CatchupTable{{"same", {{Shard(0), 2}, {Shard(1), 0}}}}));
}

// Lance allows a segment without a fragment bitmap (older indexes); an Update
// of its field and a Merge rewriting its data files leave it without one.
TEST(RuleFunctions, AnUpdateOrMergeLeavesASegmentWithoutBitmapWithoutOne) {
  impl::ManifestFile head = HeadOfWorld(1);
  Named(&head, "idx_0")->clear_fragment_bitmap();
  Transaction update;
  *update.mutable_update()->add_updated_fragments() =
      head.manifest.fragments(0);
  update.mutable_update()->add_fields_modified(0);
  const Result<impl::ManifestFile> updated = Build(head, update);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(Named(*updated, "idx_0")->fragment_bitmap(), "");
  EXPECT_EQ(Covers(*Named(*updated, "idx_1")), Covers(*Named(head, "idx_1")));

  const Result<impl::ManifestFile> merged =
      Build(head, MergeOf(head, [](Transaction::Merge* merge) {
              merge->mutable_fragments(0)->mutable_files(0)->set_path(
                  "rewritten.lance");
            }));
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(Named(*merged, "idx_0")->fragment_bitmap(), "");
  std::set<uint64_t> pruned = Covers(*Named(head, "idx_1"));
  pruned.erase(head.manifest.fragments(0).id());
  EXPECT_EQ(Covers(*Named(*merged, "idx_1")), pruned);
}

// R1: `legacy` never requires catch-up, `unconditional` always does, the bit
// protocols when the head has both bits.
TEST(RuleFunctions, WhetherAHeadRequiresCatchupFollowsTheProtocol) {
  impl::pb::Manifest both;
  both.set_reader_feature_flags(impl::kFlagMemWalIndexCatchup);
  both.set_writer_feature_flags(impl::kFlagMemWalIndexCatchup);
  impl::pb::Manifest neither;
  for (const impl::pb::Manifest* m : {&both, &neither}) {
    EXPECT_FALSE(impl::RequiresCatchup(impl::Protocol::kLegacy, *m));
    EXPECT_TRUE(impl::RequiresCatchup(impl::Protocol::kUnconditional, *m));
  }
  EXPECT_TRUE(impl::RequiresCatchup(impl::Protocol::kDerived, both));
  EXPECT_FALSE(impl::RequiresCatchup(impl::Protocol::kDerived, neither));
  EXPECT_TRUE(impl::RequiresCatchup(impl::Protocol::kAdvance, both));
}

// R33 proven(i) needs every segment's covers: a segment without a bitmap
// proves nothing, so nothing is credited from the read version.
TEST(RuleFunctions, AnIndexWithASegmentWithoutBitmapIsNotProven) {
  impl::DerivationInput input;
  input.read = impl::ReadVersionState{impl::FragmentSet{0}, {{Shard(0), 2}}};
  input.after["idx"] = {SegmentOf("a", impl::FragmentSet{0}),
                        SegmentOf("b", std::nullopt)};
  input.before = input.after;
  input.new_compacted = {{Shard(0), 2}};
  EXPECT_EQ(impl::DeriveCatchup(input, impl::BugSet()), impl::CatchupTable{});
  input.after["idx"] = {SegmentOf("a", impl::FragmentSet{0})};
  EXPECT_EQ(impl::DeriveCatchup(input, impl::BugSet()),
            (impl::CatchupTable{{"idx", {{Shard(0), 2}}}}));
}

}  // namespace
}  // namespace memwal
