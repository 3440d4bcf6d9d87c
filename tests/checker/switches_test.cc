// The variant switch registry (model/switches.h, impl/switches.h, joined by
// checker/lockstep/switches.h): every switch has both halves, the typed ones
// map value for value, and every place that lists switches lists them all.
#include "checker/lockstep/switches.h"

#include <gtest/gtest.h>

#include "checker/cli/cli.h"
#include "checker/lockstep/lockstep.h"
#include "checker/report/trace.h"
#include "model/config.h"
#include "model/switches.h"

namespace memwal::checker {
namespace {

TEST(Switches, EveryModelSwitchHasItsImplementationHalf) {
  const std::vector<lockstep::JoinedSwitch>& joined =
      lockstep::JoinedSwitches();
  std::vector<std::string> names;
  for (const lockstep::JoinedSwitch& entry : joined) {
    names.emplace_back(entry.model.info().name);
    EXPECT_EQ(entry.impl.has_value(), !entry.model.info().model_only)
        << entry.model.info().name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"protocol", "read", "gc", "env",
                                             "fence"}));
  EXPECT_EQ(impl::AllSwitchOptions().size(), joined.size() - 1);  // env
}

TEST(Switches, LockstepSetsEveryOptionFromItsModelValue) {
  for (const lockstep::JoinedSwitch& entry : lockstep::JoinedSwitches()) {
    if (!entry.impl.has_value()) continue;
    for (std::size_t v = 0; v < entry.model.info().values.size(); ++v) {
      model::Config config;
      entry.model.Set(&config, static_cast<uint8_t>(v));
      const impl::Options options =
          lockstep::ImplOptions(lockstep::LockstepSetup{.config = config});
      EXPECT_EQ(entry.impl->Get(options), v) << entry.model.info().name;
      // Every other switch stays at its default.
      for (const lockstep::JoinedSwitch& other : lockstep::JoinedSwitches()) {
        if (other.impl.has_value() &&
            other.impl->name() != entry.impl->name()) {
          EXPECT_EQ(other.impl->Get(options), 0) << other.impl->name();
        }
      }
    }
  }
}

// The typed switches are joined by enumerator order; the named mapping
// (lockstep::ImplProtocol, which validate uses) must agree with it.
TEST(Switches, TheProtocolIsJoinedByTheSameOrderAsItsNamedMapping) {
  for (const model::Protocol protocol :
       {model::Protocol::kDerived, model::Protocol::kAdvance,
        model::Protocol::kUnconditional, model::Protocol::kLegacy}) {
    model::Config config;
    config.protocol = protocol;
    EXPECT_EQ(lockstep::ImplOptions(lockstep::LockstepSetup{.config = config})
                  .protocol,
              lockstep::ImplProtocol(protocol));
  }
}

TEST(Switches, EverySwitchValueParsesPrintsAndTravelsInATrace) {
  for (const model::Switch& variant : model::AllSwitches()) {
    const std::string name(variant.info().name);
    for (const std::string_view value : variant.info().values) {
      cli::CheckFlagSet flags;
      const Result<ParsedFlags> parsed =
          ParseFlags("check", {"--" + name, std::string(value)}, flags.Flags());
      ASSERT_TRUE(parsed.ok()) << parsed.status().message();
      const model::Config& config = flags.check.config;
      EXPECT_EQ(variant.Spelling(config), value);
      const std::string line = model::ToString(config);
      EXPECT_EQ(line.find(name + "=" + std::string(value)) != std::string::npos,
                variant.info().always_shown || !variant.IsDefault(config))
          << line;
      const Result<model::Config> back = report::ConfigFromJson(
          nlohmann::json::parse(report::ConfigToJson(config).dump()));
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(back.value(), config) << name << "=" << value;
    }
  }
}

TEST(Switches, AnUnknownValueNamesTheSwitchAndItsValues) {
  const Result<uint8_t> parsed =
      model::FindSwitch("gc").value().Parse("eventually");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "unknown gc 'eventually' (expected atomic, stale-read, recheck)");
  EXPECT_FALSE(model::FindSwitch("no-such-switch").ok());
}

}  // namespace
}  // namespace memwal::checker
