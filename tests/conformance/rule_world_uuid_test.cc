// What a storage engineer needs of World's uuids and of a World reopened from
// its directory, which the bounded search never reads (it compares uuids only
// for equality within one run):
//
// - every uuid World draws is RFC 4122 version 4: the version nibble 0100,
//   the variant bits 10, and the other 122 bits random: over many draws each
//   of them takes both values, and no two of them are always equal or always
//   different (a byte copied into another, a constant bit or a shifted-in
//   zero is not random); and no two draws are equal;
// - a World opened from a directory (OpenFrom) draws uuids the table does
//   not already hold (a transaction file, data file or index named by an old
//   uuid would overwrite or alias one), numbers its shards as the World that
//   wrote it did, and steps as a World created with the same options does
//   (its bug switches included);
// - the reader takes a table to require index catch-up exactly when both
//   feature words carry the catch-up bit (128), whatever other bits they
//   carry (Lance's deletion-file bit 1 among them);
// - a Restore never hands out a fragment id or a stable row id again: the
//   restored version's max_fragment_id and next_row_id are at least the
//   head's (Lance: fragment ids and row ids are never reused); it refuses the
//   head itself and a version that is not retained;
// - a published outcome leaves no refusal reason behind (lockstep prints
//   last_reason() beside a mismatched outcome, so a stale one misleads).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/format.h"
#include "impl/read.h"
#include "impl/store.h"
#include "impl/table.h"
#include "impl/world.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

using impl::World;

using impl::testing::Created;
using impl::testing::Publish;

bool Bit(const std::string& raw, int bit) {
  return (static_cast<uint8_t>(raw[static_cast<size_t>(bit / 8)]) >>
          (bit % 8)) &
         1;
}

// The bits RFC 4122 fixes in a version 4 uuid: byte 6's high nibble
// (version) and byte 8's two high bits (variant).
bool Fixed(int bit) {
  return (bit / 8 == 6 && bit % 8 >= 4) || (bit / 8 == 8 && bit % 8 >= 6);
}

TEST(RuleFunctions, EveryUuidWorldDrawsIsVersion4WithItsOtherBitsRandom) {
  // The shard uuids are the first draws of a World; 16 seeds of 4 shards,
  // the default seed 0 among them.
  std::vector<std::string> uuids;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    const World world = Created(impl::Options{.shards = 4, .seed = seed});
    for (uint32_t shard = 0; shard < 4; ++shard)
      uuids.push_back(world.shard_uuid(shard));
  }
  for (const std::string& raw : uuids) {
    ASSERT_EQ(raw.size(), 16u);
    EXPECT_EQ(static_cast<uint8_t>(raw[6]) >> 4, 4) << impl::UuidHex(raw);
    EXPECT_EQ(static_cast<uint8_t>(raw[8]) >> 6, 2) << impl::UuidHex(raw);
  }
  EXPECT_EQ(std::set<std::string>(uuids.begin(), uuids.end()).size(),
            uuids.size());
  // Each draw looks random on its own: of its 122 free bits, between 30 and
  // 92 are set (61 on average, a standard deviation of 5.5: the bounds are
  // 5.6 of them away), so no draw is nil-like or all ones.
  for (const std::string& raw : uuids) {
    int ones = 0;
    for (int bit = 0; bit < 128; ++bit) ones += !Fixed(bit) && Bit(raw, bit);
    EXPECT_GE(ones, 30) << impl::UuidHex(raw);
    EXPECT_LE(ones, 92) << impl::UuidHex(raw);
  }
  // 64 draws: a random bit is constant, or equal to another, over all of
  // them with probability 2^-63; the draws are seeded, so this is exact.
  std::vector<int> free;
  for (int bit = 0; bit < 128; ++bit) {
    if (!Fixed(bit)) free.push_back(bit);
  }
  ASSERT_EQ(free.size(), 122u);
  for (const int a : free) {
    int ones = 0;
    for (const std::string& raw : uuids) ones += Bit(raw, a);
    EXPECT_GT(ones, 0) << "bit " << a << " is always 0";
    EXPECT_LT(ones, static_cast<int>(uuids.size()))
        << "bit " << a << " is always 1";
    for (const int b : free) {
      if (b <= a) continue;
      int equal = 0;
      for (const std::string& raw : uuids) equal += Bit(raw, a) == Bit(raw, b);
      EXPECT_GT(equal, 0) << "bits " << a << " and " << b << " always differ";
      EXPECT_LT(equal, static_cast<int>(uuids.size()))
          << "bits " << a << " and " << b << " are always equal";
    }
  }
}

// A directory under /dev/shm where there is one (DirectoryStore fsyncs every
// file), removed when the test ends.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& name) {
    const std::filesystem::path shm = "/dev/shm";
    root_ = (std::filesystem::is_directory(shm)
                 ? shm
                 : std::filesystem::temp_directory_path())
                .string() +
            "/memwal-" + name + "-" + std::to_string(::getpid());
    std::filesystem::remove_all(root_);
  }
  ~ScratchDirectory() { std::filesystem::remove_all(root_); }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

World Reopened(const World& world, const impl::Options& options,
               const ScratchDirectory& scratch) {
  std::filesystem::remove_all(scratch.root());
  Result<impl::DirectoryStore> directory =
      impl::DirectoryStore::Open(scratch.root());
  MEMWAL_ASSERT(directory.ok());
  MEMWAL_ASSERT(world.WriteTo(&*directory).ok());
  Result<World> reopened = World::OpenFrom(*directory, options);
  MEMWAL_ASSERT(reopened.ok());
  return std::move(reopened).value();
}

// Every uuid the table's versions name, in the text form: the shards', each
// version's transaction and system index, and every index segment.
std::set<std::string> UuidsOf(const World& world) {
  std::set<std::string> uuids;
  for (uint32_t shard = 0; shard < world.options().shards; ++shard)
    uuids.insert(impl::UuidHex(world.shard_uuid(shard)));
  const auto versions = world.Versions();
  MEMWAL_ASSERT(versions.ok());
  for (const uint64_t number : *versions) {
    const auto version = world.ReadVersion(number);
    MEMWAL_ASSERT(version.ok());
    if (version->transaction != nullptr)
      uuids.insert(version->transaction->uuid());
    if (!version->mem_wal_index_uuid.empty())
      uuids.insert(impl::UuidHex(version->mem_wal_index_uuid));
    for (const auto& [index, segments] : version->segments) {
      for (const impl::SegmentView& segment : segments)
        uuids.insert(impl::UuidHex(segment.uuid));
    }
  }
  return uuids;
}

TEST(RuleFunctions, AReopenedTableDrawsUuidsItDoesNotHoldYet) {
  const impl::Options options{.shards = 2, .indexes = 1, .seed = 11};
  World world = Created(options);
  Publish(world, world.BeginActivate());
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, world.BeginCompactSsTable(0, true));
  Publish(world, world.BeginOptimizeIndex(0));
  const std::set<std::string> held = UuidsOf(world);
  const uint64_t head = world.Versions()->back();
  ScratchDirectory scratch("uuids");
  World reopened = Reopened(world, options, scratch);
  ASSERT_TRUE(reopened.FlushMemTable(1).ok());
  Publish(reopened, reopened.BeginCompactSsTable(1, true));
  Publish(reopened, reopened.BeginOptimizeIndex(0));
  Publish(reopened, reopened.BeginAppend());
  std::set<std::string> drawn = UuidsOf(reopened);
  for (const std::string& uuid : held) drawn.erase(uuid);
  // Each new version names a new transaction and system index or segment.
  ASSERT_GT(reopened.Versions()->back(), head);
  EXPECT_GE(drawn.size(), 4u);
  std::string system = world.ReadVersion(head)->mem_wal_index_uuid;
  for (uint64_t number = head + 1; number <= reopened.Versions()->back();
       ++number) {
    const auto version = reopened.ReadVersion(number);
    ASSERT_TRUE(version.ok());
    EXPECT_EQ(held.count(version->transaction->uuid()), 0u)
        << "version " << number << " reuses transaction uuid "
        << version->transaction->uuid();
    if (version->mem_wal_index_uuid != system) {
      EXPECT_EQ(held.count(impl::UuidHex(version->mem_wal_index_uuid)), 0u)
          << "version " << number << "'s system index reuses a uuid";
      system = version->mem_wal_index_uuid;
    }
  }
}

TEST(RuleFunctions, ATableReopenedTwiceDrawsUuidsNeitherEarlierWriterDrew) {
  const impl::Options options{.shards = 1, .indexes = 1, .seed = 13};
  World world = Created(options);
  ScratchDirectory first("twice-1");
  World second = Reopened(world, options, first);
  // Progress records draw more uuids (transaction, file name, a re-minted
  // system index) than they add files.
  for (int k = 0; k < 4; ++k) {
    ASSERT_TRUE(second.FlushMemTable(0).ok());
    Publish(second, second.BeginCompactSsTable(0, false));
    Publish(second, second.BeginRecordProgress(0));
  }
  const std::set<std::string> held = UuidsOf(second);
  const uint64_t head = second.Versions()->back();
  ScratchDirectory again("twice-2");
  World third = Reopened(second, options, again);
  for (int k = 0; k < 3; ++k) Publish(third, third.BeginAppend());
  for (uint64_t number = head + 1; number <= third.Versions()->back();
       ++number) {
    const auto version = third.ReadVersion(number);
    ASSERT_TRUE(version.ok());
    EXPECT_EQ(held.count(version->transaction->uuid()), 0u)
        << "version " << number << " reuses transaction uuid "
        << version->transaction->uuid();
  }
}

TEST(RuleFunctions, AReopenedTableNumbersItsShardsAsItsWriterDid) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const impl::Options options{.shards = 3, .seed = seed};
    const World world = Created(options);
    ScratchDirectory scratch("shards");
    const World reopened = Reopened(world, options, scratch);
    for (uint32_t shard = 0; shard < 3; ++shard) {
      EXPECT_EQ(impl::UuidHex(reopened.shard_uuid(shard)),
                impl::UuidHex(world.shard_uuid(shard)))
          << "seed " << seed << ", shard " << shard;
    }
  }
}

TEST(RuleFunctions, AReopenedTableStepsAsTheCreatedOneWithItsBugSwitches) {
  // bits-one-word: Activate's catch-up bit reaches the writer word only.
  const impl::Options options{
      .bugs = impl::BugBit(impl::Bug::kBitsOneWord), .shards = 1, .seed = 5};
  World world = Created(options);
  ScratchDirectory scratch("bugs");
  World reopened = Reopened(world, options, scratch);
  Publish(world, world.BeginActivate());
  Publish(reopened, reopened.BeginActivate());
  const auto created_head = world.ReadVersion(world.Versions()->back());
  const auto reopened_head = reopened.ReadVersion(reopened.Versions()->back());
  ASSERT_TRUE(created_head.ok() && reopened_head.ok());
  EXPECT_FALSE(created_head->reader_bit);
  EXPECT_TRUE(created_head->writer_bit);
  EXPECT_EQ(reopened_head->reader_bit, created_head->reader_bit);
  EXPECT_EQ(reopened_head->writer_bit, created_head->writer_bit);
}

TEST(RuleFunctions, APublishedRestoreLeavesNoRefusalReason) {
  World world = Created(impl::Options{.shards = 1, .seed = 3});
  Publish(world, world.BeginAppend());    // version 2
  Publish(world, world.BeginActivate());  // version 3
  Publish(world, world.BeginAppend());    // version 4
  const auto refused = world.Restore(2);  // predates the catch-up bits
  ASSERT_TRUE(refused.ok());
  ASSERT_EQ(*refused, impl::Outcome::kRefused);
  ASSERT_FALSE(world.last_reason().empty());
  const auto restored = world.Restore(3);
  ASSERT_TRUE(restored.ok());
  ASSERT_EQ(*restored, impl::Outcome::kPublished) << world.last_reason();
  EXPECT_EQ(world.last_reason(), "");
}

TEST(RuleFunctions, TheReaderSeesCatchupRequiredOnlyWithTheBitInBothWords) {
  // Every word of the ten known feature bits with the catch-up bit on or off.
  for (uint64_t reader = 0; reader < 512; reader += 1) {
    for (const uint64_t writer :
         {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{129},
          uint64_t{255}, uint64_t{383}, reader, reader ^ 128}) {
      auto file = std::make_shared<impl::ManifestFile>();
      file->manifest.set_version(1);
      file->manifest.set_reader_feature_flags(reader);
      file->manifest.set_writer_feature_flags(writer);
      const auto view = impl::ViewOf(impl::Snapshot{file});
      ASSERT_TRUE(view.ok());
      ASSERT_EQ(view->both_bits, (reader & 128) != 0 && (writer & 128) != 0)
          << "reader word " << reader << ", writer word " << writer;
    }
  }
}

TEST(RuleFunctions, ARestoreNeverMovesFragmentOrRowIdsBack) {
  World world = Created(impl::Options{.shards = 1, .seed = 6});
  Publish(world, world.BeginAppend());
  const uint64_t old = world.Versions()->back();
  Publish(world, world.BeginAppend());
  Publish(world, world.BeginAppend());
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const auto head = impl::LoadHead(table);
  ASSERT_TRUE(head.ok());
  const uint64_t max_fragment_id = head->file->manifest.max_fragment_id();
  const uint64_t next_row_id = head->file->manifest.next_row_id();
  const auto refused = world.Restore(head->version());
  EXPECT_FALSE(refused.ok() && *refused == impl::Outcome::kPublished);
  const auto missing = world.Restore(head->version() + 7);
  EXPECT_FALSE(missing.ok() && *missing == impl::Outcome::kPublished);
  const auto restored = world.Restore(old);
  ASSERT_TRUE(restored.ok());
  ASSERT_EQ(*restored, impl::Outcome::kPublished) << world.last_reason();
  const auto after = impl::LoadHead(table);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->version(), head->version() + 1);
  EXPECT_GE(after->file->manifest.max_fragment_id(), max_fragment_id);
  EXPECT_GE(after->file->manifest.next_row_id(), next_row_id);
  // The next fragment gets a new id.
  Publish(world, world.BeginAppend());
  const auto appended = world.ReadVersion(world.Versions()->back());
  ASSERT_TRUE(appended.ok());
  EXPECT_GT(*appended->live.rbegin(), max_fragment_id);
}

}  // namespace
}  // namespace memwal
