// Names of switches, presets and bugs (spec sections 1, 2, 8) and actions in
// text and JSON.
#include <gtest/gtest.h>

#include <set>

#include "model/actions.h"
#include "model/config.h"

namespace memwal::model {
namespace {

TEST(Config, EveryNameParsesBackToItsValue) {
  for (Protocol p : {Protocol::kDerived, Protocol::kAdvance,
                     Protocol::kUnconditional, Protocol::kLegacy}) {
    EXPECT_EQ(*ParseProtocol(Name(p)), p);
  }
  for (ReadMode r :
       {ReadMode::kStrict, ReadMode::kMin, ReadMode::kSingleIndex}) {
    EXPECT_EQ(*ParseReadMode(Name(r)), r);
  }
  for (GcMode g : {GcMode::kAtomic, GcMode::kStaleRead, GcMode::kRecheck}) {
    EXPECT_EQ(*ParseGcMode(Name(g)), g);
  }
  for (const BugInfo& info : AllBugs())
    EXPECT_EQ(*ParseBug(info.name), info.bug);
  EXPECT_EQ(Name(Protocol::kDerived), "derived");
  EXPECT_EQ(Name(ReadMode::kSingleIndex), "single-index");
  EXPECT_EQ(Name(GcMode::kStaleRead), "stale-read");
}

TEST(Config, UnknownNamesAreInvalidArguments) {
  EXPECT_EQ(ParseProtocol("beta").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseReadMode("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseGcMode("Atomic").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseBug("no-such-bug").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParsePreset("huge").status().code(), StatusCode::kInvalidArgument);
}

TEST(Config, TheBugTableListsEverySpecBugOnceWithAReason) {
  ASSERT_EQ(AllBugs().size(), static_cast<std::size_t>(kBugCount));
  std::set<std::string_view> names;
  int in_model = 0;
  for (std::size_t k = 0; k < AllBugs().size(); ++k) {
    const BugInfo& info = AllBugs()[k];
    EXPECT_EQ(static_cast<std::size_t>(info.bug), k);
    EXPECT_TRUE(names.insert(info.name).second);
    EXPECT_FALSE(info.reason.empty());
    EXPECT_FALSE(info.description.empty());
    in_model += info.in_model ? 1 : 0;
  }
  EXPECT_EQ(in_model, 12);
  EXPECT_FALSE(Info(Bug::kHalfSetFolded).in_model);
  EXPECT_TRUE(Info(Bug::kUnchangedByUuidOnly).in_model);
}

TEST(Config, EveryBugRowAppliesToTheProtocolsItsColumnNames) {
  for (const model::BugInfo& info : model::AllBugs()) {
    const std::vector<model::Protocol> listed = model::ProtocolsOf(info);
    ASSERT_FALSE(listed.empty()) << info.name;
    for (const model::Protocol p : listed) {
      EXPECT_TRUE(model::BugApplies(info, p)) << info.name;
      EXPECT_EQ(model::ProtocolFor(info, p), p) << info.name;
    }
  }
  const model::BugInfo& bit = model::Info(model::Bug::kReaderIgnoresBit);
  ASSERT_EQ(bit.protocols, "bit");
  EXPECT_FALSE(model::BugApplies(bit, model::Protocol::kLegacy));
  EXPECT_EQ(model::ProtocolFor(bit, model::Protocol::kLegacy),
            model::Protocol::kDerived);
}

TEST(Config, PresetsFitTheCompileTimeMaximaAndNameThemselves) {
  for (std::string_view name : {"tiny", "small", "medium", "large"}) {
    const Result<Bounds> bounds = ParsePreset(name);
    ASSERT_TRUE(bounds.ok());
    EXPECT_TRUE(CheckBounds(*bounds).ok());
    EXPECT_EQ(PresetName(*bounds), name);
  }
  EXPECT_EQ(Config{}.bounds, SmallBounds());
  EXPECT_EQ(PresetName(Bounds{}), "custom");
  EXPECT_FALSE(CheckBounds(Bounds{.shards = 3}).ok());
  EXPECT_FALSE(CheckBounds(Bounds{.fragments = 0}).ok());
}

TEST(Config, ToStringNamesEverySwitch) {
  Config config;
  config.bugs =
      BugBit(Bug::kUnchangedByUuidOnly) | BugBit(Bug::kReaderIgnoresBit);
  EXPECT_EQ(
      ToString(config),
      "protocol=derived read=strict gc=atomic bugs=unchanged-by-uuid-only,"
      "reader-ignores-bit bounds=small(shards=1 generations=2 fragments=3 "
      "indexes=1 "
      "commits=4 inflight=2)");
}

TEST(Action, ToStringShowsTheKindAndEveryParameter) {
  EXPECT_EQ(ToString(CompactSsTable{0, true}),
            "CompactSsTable{shard=0, marker=true}");
  EXPECT_EQ(ToString(RetireSsTable{1, 2}),
            "RetireSsTable{shard=1, generation=2}");
  EXPECT_EQ(ToString(Append{}), "Append{}");
  EXPECT_EQ(KindName(Action{Commit{2}}), "Commit");
}

TEST(Action, EveryKindRoundTripsThroughJson) {
  for (int kind = 0; kind < kActionKinds; ++kind) {
    const Action action = MakeAction(kind, {1, 1});
    const Result<Action> back = ActionFromJson(ToJson(action));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, action);
    EXPECT_EQ(ActionParams(action)[0], ActionParams(*back)[0]);
  }
  EXPECT_EQ(ToJson(CompactSsTable{0, true}).dump(),
            R"({"kind":"CompactSsTable","marker":true,"shard":0})");
}

TEST(Action, ParsingIsStrict) {
  using nlohmann::json;
  const json cases[] = {
      json::array(),
      json{{"shard", 0}},
      json{{"kind", "Flush"}},
      json{{"kind", "FlushMemTable"}},
      json{{"kind", "FlushMemTable"}, {"shard", -1}},
      json{{"kind", "FlushMemTable"}, {"shard", 256}},
      json{{"kind", "FlushMemTable"}, {"shard", "0"}},
      json{{"kind", "FlushMemTable"}, {"shard", 0}, {"extra", 1}},
      json{{"kind", "CompactSsTable"}, {"shard", 0}, {"marker", 1}},
      json{{"kind", "Append"}, {"slot", 0}},
  };
  for (const json& bad : cases) {
    const Result<Action> parsed = ActionFromJson(bad);
    EXPECT_FALSE(parsed.ok()) << bad.dump();
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(Action, EnabledActionsComeInTheSpecOrder) {
  Config config;
  config.bounds = TinyBounds();
  std::vector<Action> enabled;
  EnabledActions(config, Init(config.bounds), &enabled);
  std::vector<std::string> names;
  for (const Action& a : enabled) names.push_back(ToString(a));
  EXPECT_EQ(
      names,
      (std::vector<std::string>{
          "FlushMemTable{shard=0}", "Append{}", "DeleteFragment{fragment=0}",
          "UpdateColumns{fragment=0, index=0}", "CreateIndex{index=0}",
          "DropIndex{index=0}", "Activate{}", "ShallowClone{}"}));
}

}  // namespace
}  // namespace memwal::model
