// World's wire format (impl/proto/world.proto), on the cases the round-trip
// and corruption tests (tests/impl/world_serialize_test.cc) never ship:
//
// - a receiver whose options differ in any one of bugs, shards, indexes,
//   seed or memwal refuses the World (the options travel with it, and a World
//   made with other options would answer otherwise);
// - the store's paths travel in ascending order, each once: a shipped state
//   with two paths swapped (checksum recomputed, so only the order is wrong)
//   is refused;
// - `same_as` is 1 + the index of an earlier object: naming the object just
//   before is a valid share (the blob is shared in the rebuilt store), naming
//   itself or a later one is refused.
//
// Each case is one Serialize and a few Deserialize calls: no random cases.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "base/checksum.h"
#include "impl/proto/world.pb.h"
#include "impl/world.h"

namespace memwal::impl {
namespace {

World Made(const Options& options) {
  Result<World> created = World::Create(options);
  EXPECT_TRUE(created.ok());
  World world = std::move(created).value();
  EXPECT_TRUE(world.FlushMemTable(0).ok());
  EXPECT_TRUE(world.BeginAppend().ok());
  EXPECT_TRUE(world.Commit(0).ok());
  return world;
}

// `bytes` with its state rewritten by `edit`, the checksum made to match.
template <typename Edit>
std::string Reshipped(const std::string& bytes, Edit edit) {
  wire::ShippedWorld shipped;
  EXPECT_TRUE(shipped.ParseFromString(bytes));
  wire::WorldState state;
  EXPECT_TRUE(state.ParseFromString(shipped.state()));
  edit(&state);
  shipped.set_state(state.SerializeAsString());
  shipped.set_checksum(Checksum64(shipped.state()));
  return shipped.SerializeAsString();
}

TEST(WorldSerialize, RefusesAReceiverThatDiffersInAnyOneOption) {
  const Options sent{.shards = 2, .indexes = 2, .seed = 5};
  const std::string bytes = Made(sent).Serialize();
  ASSERT_TRUE(World::Deserialize(bytes, sent).ok());
  const std::pair<const char*, Options> others[] = {
      {"bugs", Options{.bugs = 1, .shards = 2, .indexes = 2, .seed = 5}},
      {"shards", Options{.shards = 1, .indexes = 2, .seed = 5}},
      {"indexes", Options{.shards = 2, .indexes = 1, .seed = 5}},
      {"seed", Options{.shards = 2, .indexes = 2, .seed = 6}},
      {"memwal",
       Options{.shards = 2, .indexes = 2, .seed = 5, .memwal = false}},
  };
  for (const auto& [what, other] : others) {
    const Result<World> rebuilt = World::Deserialize(bytes, other);
    ASSERT_FALSE(rebuilt.ok()) << "a receiver with other " << what;
    EXPECT_EQ(rebuilt.status().code(), StatusCode::kInvalidArgument) << what;
  }
}

TEST(WorldSerialize, RefusesStorePathsOutOfOrder) {
  const World world = Made(Options{.shards = 1, .indexes = 1});
  const std::string bytes = world.Serialize();
  ASSERT_GE(world.store().objects().size(), 3u);
  const std::string swapped = Reshipped(bytes, [](wire::WorldState* state) {
    state->mutable_objects()->SwapElements(1, 2);
  });
  EXPECT_FALSE(World::Deserialize(swapped, world.options()).ok());
  const std::string twice = Reshipped(bytes, [](wire::WorldState* state) {
    state->mutable_objects(2)->set_path(state->objects(1).path());
  });
  EXPECT_FALSE(World::Deserialize(twice, world.options()).ok());
}

TEST(WorldSerialize, ASharedObjectNamesAnEarlierObjectOnly) {
  const World world = Made(Options{.shards = 1, .indexes = 1});
  const std::string bytes = world.Serialize();
  const auto sharing = [&](uint32_t same_as) {
    return Reshipped(bytes, [same_as](wire::WorldState* state) {
      wire::StoredObject* object = state->mutable_objects(2);
      object->clear_bytes();
      object->set_same_as(same_as);
    });
  };
  // Object 3 (1-based) sharing object 2, the one just before it.
  const Result<World> shared = World::Deserialize(sharing(2), world.options());
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  auto first = shared->store().objects().begin();
  const auto& [path, blob] = *std::next(first, 1);
  const auto& [next_path, next_blob] = *std::next(first, 2);
  EXPECT_EQ(blob, next_blob) << path << " and " << next_path;
  EXPECT_FALSE(World::Deserialize(sharing(3), world.options()).ok());
  EXPECT_FALSE(World::Deserialize(sharing(4), world.options()).ok());
}

}  // namespace
}  // namespace memwal::impl
