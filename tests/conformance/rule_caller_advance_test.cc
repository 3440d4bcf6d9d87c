// The three offers of World::BeginCallerAdvance (the env's caller-built
// catch-up advances under --protocol advance; spec R26 and the model's
// CallerAdvance offers), on a table where they differ: two shards, two
// indexes, each shard compacted to generation 2. The repair's own advance
// claims generation 2 on both shards; offer 0 (other-index) adds an advance
// for the other index and leaves the own claims alone, offer 1 (oldest)
// claims generation 1 on every shard, offer 2 (first-shard) keeps shard 0's
// claim only. The gate's walks take these offers where every shard's
// progress is generation 1 or there is one shard, where the offers coincide.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "impl/world.h"

namespace memwal {
namespace {

using impl::World;

// Per advance (index name), its claims as (shard, generation).
using Claims = std::map<std::string, std::map<std::string, uint64_t>>;

Claims ClaimsOf(const impl::pb::Transaction& t) {
  Claims out;
  for (const auto& advance :
       t.create_index().mem_wal_index_catchup_advances()) {
    auto& claims = out[advance.index_name()];
    for (const auto& claim : advance.caught_up_generations())
      claims[claim.shard_id().uuid()] = claim.generation();
  }
  return out;
}

TEST(RuleFunctions, TheCallerAdvanceOffersDifferWhereShardsHaveTwoGenerations) {
  Result<World> created = World::Create(impl::Options{
      .protocol = impl::Protocol::kAdvance, .shards = 2, .indexes = 2});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  const auto commit = [&world] {
    const auto outcome = world.Commit(0);
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    ASSERT_EQ(*outcome, impl::Outcome::kPublished) << world.last_reason();
  };
  ASSERT_TRUE(world.BeginActivate().ok());
  commit();
  for (uint32_t generation = 1; generation <= 2; ++generation) {
    for (uint32_t shard = 0; shard < 2; ++shard) {
      ASSERT_TRUE(world.FlushMemTable(shard).ok());
      ASSERT_TRUE(world.BeginCompactSsTable(shard, true).ok());
      commit();
    }
  }
  const std::string a = world.shard_uuid(0);
  const std::string b = world.shard_uuid(1);
  std::map<uint32_t, Claims> offered;
  for (uint32_t offer = 0; offer <= 2; ++offer) {
    World copy = world;
    const Status begun = copy.BeginCallerAdvance(0, offer);
    ASSERT_TRUE(begun.ok()) << "offer " << offer << ": " << begun.ToString();
    ASSERT_EQ(copy.inflight_count(), 1u);
    offered[offer] = ClaimsOf(*copy.inflight()[0]);
  }
  EXPECT_EQ(offered[0].size(), 2u);
  EXPECT_EQ(offered[0]["idx_0"],
            (std::map<std::string, uint64_t>{{a, 2}, {b, 2}}));
  EXPECT_EQ(offered[1], (Claims{{"idx_0", {{a, 1}, {b, 1}}}}));
  EXPECT_EQ(offered[2], (Claims{{"idx_0", {{a, 2}}}}));
}

}  // namespace
}  // namespace memwal
