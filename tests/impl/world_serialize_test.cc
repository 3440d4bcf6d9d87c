// World::Serialize and World::Deserialize (impl/world_serialize.cc): a World
// rebuilt from its bytes is the World that wrote them. Method: seeded random
// walks that call every World action (failures and refusals included); after
// every step the World is shipped, and the rebuilt one must give the same
// persisted bytes and answers, and then the same outcomes on the next steps.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "impl/format.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

// The walk's action kinds, one per World action (the env ones included).
constexpr std::array<std::string_view, 27> kKinds = {"FlushMemTable",
                                                     "RetireSsTable",
                                                     "RetireDecide",
                                                     "RetireExecute",
                                                     "BeginAppend",
                                                     "BeginDeleteFragment",
                                                     "BeginCompactSsTable",
                                                     "BeginUpdateColumns",
                                                     "BeginRewriteFragments",
                                                     "BeginCreateIndex",
                                                     "BeginOptimizeIndex",
                                                     "BeginDropIndex",
                                                     "BeginRecordProgress",
                                                     "BeginActivate",
                                                     "BeginReinstallMemWal",
                                                     "Commit",
                                                     "Restore",
                                                     "ShallowClone",
                                                     "DeepClone",
                                                     "CleanupVersions",
                                                     "ForeignHalfSet",
                                                     "BeginCallerAdvance",
                                                     "ResetMemWal",
                                                     "DropMemWal",
                                                     "ForeignCompaction",
                                                     "CommitLast",
                                                     "CommitAgain"};

// How often the walk draws each kind: the WAL side and commits more often, so
// that walks reach compacted, retirable and pending SSTables.
constexpr std::array<int, kKinds.size()> kWeights = {6, 3, 4, 4, 2, 1, 5, 2, 2,
                                                     2, 3, 1, 2, 1, 1, 8, 1, 1,
                                                     1, 1, 1, 2, 1, 1, 1, 4, 4};

std::size_t Draw(std::mt19937_64& rng) {
  int total = 0;
  for (const int weight : kWeights) total += weight;
  int at = static_cast<int>(rng() % static_cast<uint64_t>(total));
  std::size_t kind = 0;
  while (at >= kWeights[kind]) at -= kWeights[kind++];
  return kind;
}

bool Succeeded(const std::string& said) {
  return said == "Ok" || said == "outcome 0" || said == "outcome 1";
}

std::string Said(const Status& status) { return status.ToString(); }
std::string Said(const Result<Outcome>& outcome) {
  if (!outcome.ok()) return outcome.status().ToString();
  return "outcome " + std::to_string(static_cast<int>(*outcome));
}

// Every walk opens with a compaction of shard 0's first generation that both
// indexes catch up with, so that its SSTable becomes retirable and (gc
// stale-read) a retirement decision is pending when the random part begins.
constexpr int kPrologue = 8;
constexpr std::array<std::size_t, kPrologue> kPrologueKinds = {0,  6,  15, 10,
                                                               15, 10, 15, 2};
std::string Prologue(World& world, int step) {
  switch (step + kPrologue) {
    case 0:
      return Said(world.FlushMemTable(0));
    case 1:
      return Said(world.BeginCompactSsTable(0, true));
    case 3:
      return Said(world.BeginOptimizeIndex(0));
    case 5:
      return Said(world.BeginOptimizeIndex(1));
    case 7:
      return Said(world.RetireDecide(0, 1));
  }
  return Said(world.Commit(0));
}

// Takes action kind `kind` with arguments drawn from `rng`; what it said.
std::string Take(World& world, std::size_t kind, std::mt19937_64& rng) {
  const auto pick = [&rng](uint64_t n) { return rng() % n; };
  const uint32_t shard = static_cast<uint32_t>(pick(2));
  const uint32_t index = static_cast<uint32_t>(pick(2));
  const uint64_t small = 1 + pick(3);
  switch (kind) {
    case 0:
      return Said(world.FlushMemTable(shard));
    case 1:
      return Said(world.RetireSsTable(shard, small));
    case 2:
      return Said(world.RetireDecide(shard, small));
    case 3:
      return Said(world.RetireExecute(shard, small));
    case 4:
      return Said(world.BeginAppend());
    case 5:
      return Said(world.BeginDeleteFragment(pick(3)));
    case 6:
      return Said(world.BeginCompactSsTable(shard, pick(2) == 0));
    case 7:
      return Said(world.BeginUpdateColumns(pick(3), index));
    case 8:
      return Said(world.BeginRewriteFragments(0, small));
    case 9:
      return Said(world.BeginCreateIndex(index));
    case 10:
      return Said(world.BeginOptimizeIndex(index));
    case 11:
      return Said(world.BeginDropIndex(index));
    case 12:
      return Said(world.BeginRecordProgress(shard));
    case 13:
      return Said(world.BeginActivate());
    case 14:
      return Said(world.BeginReinstallMemWal());
    case 15:
    case 25:
    case 26: {
      if (world.inflight_count() == 0) return "nothing in flight";
      const std::size_t slot = kind == 25 ? world.inflight_count() - 1
                                          : pick(world.inflight_count());
      return Said(world.Commit(slot));
    }
    case 16:
      return Said(world.Restore(small));
    case 17:
      return Said(world.ShallowClone());
    case 18:
      return Said(world.DeepClone());
    case 19:
      return Said(world.CleanupVersions());
    case 20:
      return Said(world.ForeignHalfSet());
    case 21:
      return Said(world.BeginCallerAdvance(index, pick(3)));
    case 22:
      return Said(world.ResetMemWal());
    case 23:
      return Said(world.DropMemWal());
    case 24:
      return Said(world.ForeignCompaction(shard));
  }
  ADD_FAILURE() << "no action kind " << kind;
  return "";
}

// Every answer the checker reads from a World, as one text (so a difference
// shows as a diff).
std::string Answers(const World& world) {
  std::ostringstream out;
  out << "roots " << world.table_root() << " " << world.wal_root();
  for (const auto& [path, blob] : world.store().objects())
    out << "\nobject " << path << " " << std::hash<std::string>{}(*blob);
  const auto versions = world.Versions();
  out << "\nversions " << Said(versions.status());
  if (versions.ok()) {
    for (const uint64_t v : *versions) out << " " << v;
  }
  out << "\nhead loads " << Said(world.HeadLoads());
  const auto wal = world.ReadWal();
  out << "\nwal " << Said(wal.status());
  if (wal.ok()) {
    for (const uint64_t f : wal->flushed) out << " f" << f;
    for (const auto& retired : wal->retired)
      for (const uint64_t g : retired) out << " r" << g;
  }
  const auto rows = world.ReadRows();
  out << "\nrows " << Said(rows.status());
  if (rows.ok()) {
    for (const auto& [fragment, held] : rows->fragments) {
      out << " [" << fragment;
      for (const auto& [s, g] : held) out << " " << s << ":" << g;
      out << "]";
    }
    for (const auto& [s, g] : rows->deleted) out << " -" << s << ":" << g;
  }
  for (uint32_t s = 0; s < 2; ++s) {
    for (uint64_t g = 1; g <= 3; ++g) {
      const auto retirable = world.Retirable(s, g);
      out << "\nretirable " << s << ":" << g << " ";
      if (retirable.ok()) {
        out << *retirable;
      } else {
        out << retirable.status().ToString();
      }
    }
  }
  const auto watermarks = world.Watermarks({0, 1});
  out << "\nwatermarks " << Said(watermarks.status());
  if (watermarks.ok()) {
    for (const uint64_t w : *watermarks) out << " " << w;
  }
  for (const auto& transaction : world.inflight())
    out << "\ninflight "
        << std::hash<std::string>{}(EncodeTransaction(*transaction));
  for (const auto& [s, g] : world.pending())
    out << "\npending " << s << ":" << g;
  out << "\nlast reason " << world.last_reason();
  return out.str();
}

// The same objects under the same paths, byte for byte.
bool SameBytes(const World& a, const World& b) {
  const auto& left = a.store().objects();
  const auto& right = b.store().objects();
  if (left.size() != right.size()) return false;
  for (auto l = left.begin(), r = right.begin(); l != left.end(); ++l, ++r) {
    if (l->first != r->first || *l->second != *r->second) return false;
  }
  return true;
}

World Ship(const World& world) {
  Result<World> rebuilt =
      World::Deserialize(world.Serialize(), world.options());
  EXPECT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  MEMWAL_ASSERT(rebuilt.ok());
  return std::move(rebuilt).value();
}

struct WalkCase {
  Protocol protocol;
  GcMode gc;
  uint32_t shards;
  uint32_t indexes;
};

TEST(WorldSerialize, ARebuiltWorldAnswersAndStepsAsTheOriginalAfterEveryStep) {
  // Legend: protocol, gc mode, shards, indexes.
  constexpr WalkCase kCases[] = {
      {Protocol::kDerived, GcMode::kAtomic, 2, 2},
      {Protocol::kAdvance, GcMode::kStaleRead, 2, 2},
      {Protocol::kUnconditional, GcMode::kRecheck, 1, 2},
      {Protocol::kLegacy, GcMode::kStaleRead, 2, 1},
  };
  constexpr int kWalks = 6;
  constexpr int kSteps = 40;
  constexpr int kAhead = 4;  // steps taken on both after each shipping
  std::array<int, kKinds.size()> taken{};
  uint64_t seed = 20261202;
  for (const WalkCase& c : kCases) {
    for (int walk = 0; walk < kWalks; ++walk, ++seed) {
      SCOPED_TRACE("seed=" + std::to_string(seed));
      std::mt19937_64 rng(seed);
      Result<World> created = World::Create(Options{.protocol = c.protocol,
                                                    .gc = c.gc,
                                                    .shards = c.shards,
                                                    .indexes = c.indexes,
                                                    .seed = seed});
      ASSERT_TRUE(created.ok());
      World world = std::move(created).value();
      for (int step = -kPrologue; step < kSteps; ++step) {
        const std::size_t kind =
            step < 0 ? kPrologueKinds[step + kPrologue] : Draw(rng);
        const std::string said =
            step < 0 ? Prologue(world, step) : Take(world, kind, rng);
        if (Succeeded(said)) ++taken[kind];
        World rebuilt = Ship(world);
        ASSERT_TRUE(SameBytes(world, rebuilt)) << "step " << step;
        ASSERT_EQ(Answers(world), Answers(rebuilt)) << "step " << step;
        ASSERT_EQ(world.Serialize(), rebuilt.Serialize()) << "step " << step;
        World original = world;
        std::mt19937_64 ahead(rng());
        for (int k = 0; k < kAhead; ++k) {
          const std::size_t next = Draw(ahead);
          std::mt19937_64 args(ahead());
          std::mt19937_64 same_args = args;
          ASSERT_EQ(Take(original, next, args), Take(rebuilt, next, same_args))
              << "step " << step << " then " << kKinds[next];
          ASSERT_TRUE(SameBytes(original, rebuilt)) << "step " << step;
          ASSERT_EQ(Answers(original), Answers(rebuilt)) << "step " << step;
        }
      }
    }
  }
  for (std::size_t kind = 0; kind < kKinds.size(); ++kind) {
    if (kKinds[kind] == "ForeignCompaction")
      continue;  // refused on these walks
    EXPECT_GT(taken[kind], 0) << kKinds[kind] << " never succeeded";
  }
}

TEST(WorldSerialize, ARebuiltWorldSharesNoCachedDecodingWithAnotherWorld) {
  // Two Worlds whose stores differ only after the copy: the rebuilt copy of
  // one must read its own head, not one cached for the other.
  Result<World> created = World::Create(Options{.shards = 1, .indexes = 1});
  ASSERT_TRUE(created.ok());
  World before = std::move(created).value();
  World after = before;
  ASSERT_TRUE(after.BeginAppend().ok());
  ASSERT_TRUE(after.Commit(0).ok());
  ASSERT_TRUE(before.Versions().ok());  // cache `before`'s answers
  ASSERT_TRUE(after.Versions().ok());
  const World rebuilt_before = Ship(before);
  const World rebuilt_after = Ship(after);
  EXPECT_EQ(Answers(rebuilt_before), Answers(before));
  EXPECT_EQ(Answers(rebuilt_after), Answers(after));
  EXPECT_NE(Answers(rebuilt_before), Answers(rebuilt_after));
  EXPECT_NE(rebuilt_before.store().epoch(), before.store().epoch());
}

TEST(WorldSerialize, RefusesEveryTruncationAndEveryFlippedByteWithAStatus) {
  Result<World> created = World::Create(Options{.shards = 2, .indexes = 2});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  ASSERT_TRUE(world.BeginCompactSsTable(0, true).ok());
  const std::string bytes = world.Serialize();
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const Result<World> cut = World::Deserialize(
        std::string_view(bytes).substr(0, size), world.options());
    EXPECT_FALSE(cut.ok()) << "truncated to " << size;
  }
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    const Result<World> bad = World::Deserialize(flipped, world.options());
    EXPECT_FALSE(bad.ok()) << "byte " << at << " flipped";
  }
  EXPECT_FALSE(World::Deserialize("not a world", world.options()).ok());
}

TEST(WorldSerialize, RefusesAReceiverWithOtherOptions) {
  Result<World> created = World::Create(Options{.shards = 2, .indexes = 1});
  ASSERT_TRUE(created.ok());
  const std::string bytes = created->Serialize();
  Options other = created->options();
  other.protocol = Protocol::kAdvance;
  const Result<World> rebuilt = World::Deserialize(bytes, other);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_EQ(rebuilt.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(World::Deserialize(bytes, created->options()).ok());
}

}  // namespace
}  // namespace memwal::impl
