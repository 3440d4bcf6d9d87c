// The refinement mapping (checker/lockstep/refinement.h) and the lockstep step
// (checker/lockstep/lockstep.h): the implementation at Init maps to the model's Init,
// differences print as readable lines, states the model cannot represent are
// ImplementationMatchesModel, and the bug switches share one layout.
#include <gtest/gtest.h>

#include "checker/lockstep/lockstep.h"
#include "checker/lockstep/refinement.h"
#include "impl/bugs.h"

namespace memwal::checker {
namespace {

lockstep::LockstepSetup TinySetup() {
  lockstep::LockstepSetup setup;
  setup.config.bounds = model::TinyBounds();
  return setup;
}

TEST(Refinement, TheImplementationAtInitMapsToTheModelsInit) {
  const lockstep::LockstepSetup setup = TinySetup();
  const Result<impl::World> world = lockstep::InitWorld(setup);
  ASSERT_TRUE(world.ok());
  EXPECT_FALSE(lockstep::CheckInit(setup, *world).has_value());
  const Result<model::State> abstract =
      lockstep::AbstractPersisted(setup.config, *world);
  ASSERT_TRUE(abstract.ok()) << abstract.status().ToString();
  EXPECT_EQ(*abstract, model::Init(setup.config.bounds));
}

TEST(Refinement, DifferencesArePrintedFieldByField) {
  const lockstep::LockstepSetup setup = TinySetup();
  const Result<impl::World> world = lockstep::InitWorld(setup);
  ASSERT_TRUE(world.ok());
  const Result<model::State> abstract =
      lockstep::AbstractPersisted(setup.config, *world);
  ASSERT_TRUE(abstract.ok());
  model::State model = model::Init(setup.config.bounds);
  model.versions[0].live = 0b11;
  model.versions[0].segments[0][0].covers = 0b10;
  model.flushed[0] = 1;
  model.committed = 1;
  const std::vector<std::string> lines =
      lockstep::Diff(setup.config, *abstract, model);
  const std::vector<std::string> expected = {
      "version 1: live {0} (impl) vs {0,1} (model)",
      "version 1: index idx_0 segment 0 covers {0} (impl) vs {1} (model)",
      "shard 0: flushed 0 (impl) vs 1 (model)",
      "commits after Init (versions of the lineage): 0 (impl) vs 1 (model)"};
  EXPECT_EQ(lines, expected);
}

TEST(Refinement, AStateTheModelCannotRepresentIsAFinding) {
  lockstep::LockstepSetup setup = TinySetup();
  setup.config.bounds.indexes = 2;
  const Result<impl::World> world = lockstep::InitWorld(setup);
  ASSERT_TRUE(world.ok());
  // Read with one index in the bounds, the table's idx_1 has no model slot.
  model::Config narrow = setup.config;
  narrow.bounds.indexes = 1;
  const Result<model::State> abstract =
      lockstep::AbstractPersisted(narrow, *world);
  ASSERT_FALSE(abstract.ok());
  EXPECT_NE(abstract.status().message().find("has index idx_1"),
            std::string::npos)
      << abstract.status().message();
}

TEST(Lockstep, TheImplementationRejectingAnEnabledActionIsAFinding) {
  const lockstep::LockstepSetup setup = TinySetup();
  Result<impl::World> world = lockstep::InitWorld(setup);
  ASSERT_TRUE(world.ok());
  // The model has a transaction in flight; the implementation does not.
  const model::State init = model::Init(setup.config.bounds);
  model::Outcome outcome;
  const model::State begun =
      model::Apply(setup.config, init, model::Append{}, &outcome);
  const model::State committed =
      model::Apply(setup.config, begun, model::Commit{0}, &outcome);
  const std::optional<lockstep::Finding> finding = lockstep::StepLockstep(
      setup, model::Commit{0}, outcome, committed, &*world);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_NE(finding->detail.find("the implementation rejected Commit{slot=0}"),
            std::string::npos);
}

TEST(Lockstep, APublishedVersionThatDoesNotLoadIsReported) {
  const lockstep::LockstepSetup setup = TinySetup();
  Result<impl::World> world = lockstep::InitWorld(setup);
  ASSERT_TRUE(world.ok());
  EXPECT_FALSE(lockstep::CheckPublishedVersionLoads(
                   model::Commit{0}, model::Outcome::kPublished, *world)
                   .has_value());
  // A head with bit 128 in the reader word only does not load in Lance; the
  // reason is named: FeatureBitsArePaired, read from the decoded head.
  ASSERT_TRUE(world->ForeignHalfSet().ok());
  const std::optional<lockstep::Finding> finding =
      lockstep::CheckPublishedVersionLoads(model::Commit{0},
                                           model::Outcome::kPublished, *world);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "FeatureBitsArePaired");
  EXPECT_NE(finding->detail.find("in the reader word only"), std::string::npos);
  // Not checked after a refusal, nor on the environment's own version.
  EXPECT_FALSE(lockstep::CheckPublishedVersionLoads(
                   model::Commit{0}, model::Outcome::kRefused, *world)
                   .has_value());
  EXPECT_FALSE(lockstep::CheckPublishedVersionLoads(
                   model::ForeignHalfSet{}, model::Outcome::kDone, *world)
                   .has_value());
}

TEST(Lockstep, ModelAndImplementationBugSwitchesShareOneLayout) {
  for (const model::BugInfo& info : model::AllBugs()) {
    const std::optional<impl::Bug> bug = impl::ParseBug(info.name);
    ASSERT_TRUE(bug.has_value()) << info.name;
    EXPECT_EQ(impl::BugBit(*bug), model::BugBit(info.bug)) << info.name;
  }
}

}  // namespace
}  // namespace memwal::checker
