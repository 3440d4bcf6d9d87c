// World's wire format (impl/proto/world.proto, format 2), on the options and
// roots a shipped World carries, which the round-trip walks
// (tests/impl/world_serialize_test.cc) always ship whole:
//
// - the options name every registered switch, in registration order, with
//   its value (format 2 ships the switches by name);
// - a receiver that differs in any one switch refuses the World, and so does
//   one whose state lacks a switch or has one more;
// - a state without a table root, or without a MemWAL root, is refused;
// - the rebuilt World keeps the sender's bugs: it steps as the sender.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "base/checksum.h"
#include "impl/proto/world.pb.h"
#include "impl/world.h"
#include "tests/impl/world_fixture.h"

namespace memwal::impl {
namespace {

World Made(const Options& options) {
  Result<World> created = World::Create(options);
  MEMWAL_ASSERT(created.ok());
  World world = std::move(created).value();
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  return world;
}

wire::WorldState StateOf(const std::string& bytes) {
  wire::ShippedWorld shipped;
  EXPECT_TRUE(shipped.ParseFromString(bytes));
  wire::WorldState state;
  EXPECT_TRUE(state.ParseFromString(shipped.state()));
  return state;
}

// `bytes` with its state rewritten by `edit`, the checksum made to match.
template <typename Edit>
std::string Reshipped(const std::string& bytes, Edit edit) {
  wire::ShippedWorld shipped;
  EXPECT_TRUE(shipped.ParseFromString(bytes));
  wire::WorldState state = StateOf(bytes);
  edit(&state);
  shipped.set_state(state.SerializeAsString());
  shipped.set_checksum(Checksum64(shipped.state()));
  return shipped.SerializeAsString();
}

TEST(WorldSerialize, TheShippedOptionsNameEverySwitchWithItsValue) {
  const std::vector<SwitchOption> all = AllSwitchOptions();
  ASSERT_FALSE(all.empty());
  for (const SwitchOption& changed : all) {
    Options options{.shards = 1, .indexes = 1, .seed = 3};
    changed.Set(&options, static_cast<uint8_t>(changed.values() - 1));
    const wire::WorldState state = StateOf(Made(options).Serialize());
    ASSERT_EQ(state.options().switches_size(), static_cast<int>(all.size()));
    for (int k = 0; k < state.options().switches_size(); ++k) {
      const SwitchOption& option = all[static_cast<std::size_t>(k)];
      EXPECT_EQ(state.options().switches(k).name(), option.name());
      EXPECT_EQ(state.options().switches(k).value(), option.Get(options))
          << option.name();
    }
  }
}

TEST(WorldSerialize, RefusesAReceiverThatDiffersInAnyOneSwitch) {
  const Options sent{.shards = 1, .indexes = 1, .seed = 3};
  const std::string bytes = Made(sent).Serialize();
  ASSERT_TRUE(World::Deserialize(bytes, sent).ok());
  for (const SwitchOption& option : AllSwitchOptions()) {
    ASSERT_GE(option.values(), 2) << option.name();
    Options other = sent;
    option.Set(&other, 1);
    const Result<World> rebuilt = World::Deserialize(bytes, other);
    ASSERT_FALSE(rebuilt.ok()) << "a receiver with other " << option.name();
    EXPECT_EQ(rebuilt.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(WorldSerialize, RefusesAStateWithASwitchMissingOrOneMore) {
  const Options sent{.shards = 1, .indexes = 1, .seed = 3};
  const std::string bytes = Made(sent).Serialize();
  const std::string fewer = Reshipped(bytes, [](wire::WorldState* state) {
    state->mutable_options()->mutable_switches()->RemoveLast();
  });
  EXPECT_FALSE(World::Deserialize(fewer, sent).ok());
  const std::string more = Reshipped(bytes, [](wire::WorldState* state) {
    wire::SwitchValue* extra = state->mutable_options()->add_switches();
    extra->set_name("extra");
  });
  EXPECT_FALSE(World::Deserialize(more, sent).ok());
}

TEST(WorldSerialize, RefusesAStateWithoutATableRootOrAMemWalRoot) {
  const Options sent{.shards = 1, .indexes = 1, .seed = 3};
  const std::string bytes = Made(sent).Serialize();
  const std::string no_table = Reshipped(
      bytes, [](wire::WorldState* state) { state->clear_table_root(); });
  EXPECT_FALSE(World::Deserialize(no_table, sent).ok());
  const std::string no_wal = Reshipped(
      bytes, [](wire::WorldState* state) { state->clear_wal_root(); });
  EXPECT_FALSE(World::Deserialize(no_wal, sent).ok());
}

TEST(WorldSerialize, ARebuiltWorldKeepsTheSendersBugs) {
  // Bug bits-one-word: Activate's bit reaches the writer word only, so the
  // version it publishes differs from a correct World's.
  const Options sent{
      .bugs = BugBit(Bug::kBitsOneWord), .shards = 1, .indexes = 1, .seed = 3};
  World world = Made(sent);
  Result<World> rebuilt = World::Deserialize(world.Serialize(), sent);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  testing::Publish(world, world.BeginActivate());
  testing::Publish(*rebuilt, rebuilt->BeginActivate());
  EXPECT_EQ(rebuilt->Serialize(), world.Serialize());
  const Result<TableVersion> head =
      rebuilt->ReadVersion(rebuilt->Versions().value().back());
  ASSERT_TRUE(head.ok());
  EXPECT_FALSE(head->reader_bit);
  EXPECT_TRUE(head->writer_bit);
}

}  // namespace
}  // namespace memwal::impl
