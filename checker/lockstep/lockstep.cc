// Lockstep steps and replay (checker/lockstep/lockstep.h).
#include "checker/lockstep/lockstep.h"

#include <type_traits>
#include <utility>

#include "checker/lockstep/refusals.h"
#include "checker/lockstep/switches.h"
#include "model/invariants.h"

namespace memwal::checker::lockstep {
namespace {

using model::Action;

// The bug sets use one bit layout: spec section 8's order (checked in
// lockstep_refinement_test.cc by name).
uint32_t ImplBugs(uint32_t model_bugs) { return model_bugs; }

model::Outcome ModelOutcome(impl::Outcome outcome) {
  switch (outcome) {
    case impl::Outcome::kDone:
      return model::Outcome::kDone;
    case impl::Outcome::kPublished:
      return model::Outcome::kPublished;
    case impl::Outcome::kRetry:
      return model::Outcome::kRetry;
    case impl::Outcome::kRefused:
      return model::Outcome::kRefused;
  }
  return model::Outcome::kDone;
}

// By value, moved on: a refusal's message is not copied (the refusal
// probes, checker/lockstep/refusals.h, are most of the calls).
Result<model::Outcome> Done(Status status) {
  if (!status.ok()) return status;
  return model::Outcome::kDone;
}

Result<model::Outcome> Mapped(Result<impl::Outcome> outcome) {
  if (!outcome.ok()) return std::move(outcome).status();
  return ModelOutcome(*outcome);
}

uint32_t U32(int value) { return static_cast<uint32_t>(value); }
uint64_t U64(int value) { return static_cast<uint64_t>(value); }

// One overload per action: the World method that performs it.
struct WorldCall {
  impl::World* w;
  Result<model::Outcome> operator()(const model::FlushMemTable& a) const {
    return Done(w->FlushMemTable(U32(a.shard)));
  }
  Result<model::Outcome> operator()(const model::RetireSsTable& a) const {
    return Done(w->RetireSsTable(U32(a.shard), U64(a.generation)));
  }
  Result<model::Outcome> operator()(const model::RetireDecide& a) const {
    return Done(w->RetireDecide(U32(a.shard), U64(a.generation)));
  }
  Result<model::Outcome> operator()(const model::RetireExecute& a) const {
    return Mapped(w->RetireExecute(U32(a.shard), U64(a.generation)));
  }
  Result<model::Outcome> operator()(const model::Append&) const {
    return Done(w->BeginAppend());
  }
  Result<model::Outcome> operator()(const model::DeleteFragment& a) const {
    return Done(w->BeginDeleteFragment(U64(a.fragment)));
  }
  Result<model::Outcome> operator()(const model::CompactSsTable& a) const {
    return Done(w->BeginCompactSsTable(U32(a.shard), a.marker));
  }
  Result<model::Outcome> operator()(const model::UpdateColumns& a) const {
    return Done(w->BeginUpdateColumns(U64(a.fragment), U32(a.index)));
  }
  Result<model::Outcome> operator()(const model::RewriteFragments& a) const {
    return Done(w->BeginRewriteFragments(U64(a.first), U64(a.second)));
  }
  Result<model::Outcome> operator()(const model::CreateIndex& a) const {
    return Done(w->BeginCreateIndex(U32(a.index)));
  }
  Result<model::Outcome> operator()(const model::OptimizeIndex& a) const {
    return Done(w->BeginOptimizeIndex(U32(a.index)));
  }
  Result<model::Outcome> operator()(const model::DropIndex& a) const {
    return Done(w->BeginDropIndex(U32(a.index)));
  }
  Result<model::Outcome> operator()(const model::RecordProgress& a) const {
    return Done(w->BeginRecordProgress(U32(a.shard)));
  }
  Result<model::Outcome> operator()(const model::Activate&) const {
    return Done(w->BeginActivate());
  }
  Result<model::Outcome> operator()(const model::Commit& a) const {
    return Mapped(w->Commit(static_cast<std::size_t>(a.slot)));
  }
  Result<model::Outcome> operator()(const model::Restore& a) const {
    return Mapped(w->Restore(U64(a.version)));
  }
  Result<model::Outcome> operator()(const model::ShallowClone&) const {
    return Done(w->ShallowClone());
  }
  Result<model::Outcome> operator()(const model::CleanupVersions&) const {
    return Done(w->CleanupVersions());
  }
  Result<model::Outcome> operator()(const model::ForeignHalfSet&) const {
    return Done(w->ForeignHalfSet());
  }
  Result<model::Outcome> operator()(const model::CallerAdvance& a) const {
    return Done(w->BeginCallerAdvance(U32(a.index), U32(a.offer)));
  }
  Result<model::Outcome> operator()(const model::ResetMemWal&) const {
    return Done(w->ResetMemWal());
  }
  Result<model::Outcome> operator()(const model::DropMemWal&) const {
    return Done(w->DropMemWal());
  }
  Result<model::Outcome> operator()(const model::ForeignCompaction& a) const {
    return Done(w->ForeignCompaction(U32(a.shard)));
  }
  Result<model::Outcome> operator()(const model::ReinstallMemWal&) const {
    return Done(w->BeginReinstallMemWal());
  }
};

bool OutcomeCompared(const Action& action) {
  return std::holds_alternative<model::Commit>(action) ||
         std::holds_alternative<model::Restore>(action);
}

// Actions after which the implementation may have published a version of its
// own (ForeignHalfSet's version is the environment's, written not to load).
bool MayPublish(const Action& action, model::Outcome outcome) {
  if (OutcomeCompared(action)) return outcome == model::Outcome::kPublished;
  return std::holds_alternative<model::ShallowClone>(action) ||
         std::holds_alternative<model::ResetMemWal>(action) ||
         std::holds_alternative<model::DropMemWal>(action) ||
         std::holds_alternative<model::ForeignCompaction>(action);
}

Finding Mismatch(const std::string& detail) {
  return Finding{std::string(kImplementationMatchesModel), detail};
}

}  // namespace

impl::Options ImplOptions(const LockstepSetup& setup) {
  const model::Config& c = setup.config;
  impl::Options options{.bugs = ImplBugs(c.bugs | setup.impl_only_bugs),
                        .shards = U32(c.bounds.shards),
                        .indexes = U32(c.bounds.indexes),
                        .seed = setup.seed};
  // protocol, read, gc, fence, ...: joined by name (switches.h).
  SetImplSwitches(c, &options);
  return options;
}

Result<impl::World> InitWorld(const LockstepSetup& setup) {
  return impl::World::Create(ImplOptions(setup));
}

std::optional<Finding> CheckPublishedVersionLoads(const Action& action,
                                                  model::Outcome outcome,
                                                  const impl::World& world) {
  if (!MayPublish(action, outcome)) return std::nullopt;
  const Status loads = world.HeadLoads();
  if (loads.ok()) return std::nullopt;
  // A head this protocol wrote with bit 128 in one word only breaks
  // FeatureBitsArePaired on the implementation's decoded bytes, which is
  // why it does not load; the named invariant is reported first.
  if (const Result<std::vector<uint64_t>> versions = world.Versions();
      versions.ok() && !versions->empty()) {
    const Result<impl::TableVersion> head = world.ReadVersion(versions->back());
    if (head.ok() && head->reader_bit != head->writer_bit) {
      return Finding{
          "FeatureBitsArePaired",
          "broken on the implementation's persisted head: " +
              model::ToString(action) + " published version " +
              std::to_string(head->number) + " with bit 128 in the " +
              (head->reader_bit ? "reader" : "writer") + " word only"};
    }
  }
  return Finding{
      std::string(kPublishedVersionsLoad),
      model::ToString(action) +
          " published a version that does not load: " + loads.ToString()};
}

Result<model::Outcome> ApplyToWorld(const Action& action, impl::World* world) {
  return std::visit(WorldCall{world}, action);
}

std::optional<Finding> StepLockstepEdge(const LockstepSetup& setup,
                                        const Action& action,
                                        model::Outcome model_outcome,
                                        const model::State& after,
                                        impl::World* world,
                                        std::string* impl_dump) {
  if (impl_dump != nullptr) impl_dump->clear();
  const Result<model::Outcome> outcome = ApplyToWorld(action, world);
  if (!outcome.ok()) {
    return Mismatch(
        "the implementation rejected " + model::ToString(action) +
        ", which the model enabled: " + outcome.status().ToString());
  }
  if (OutcomeCompared(action) && *outcome != model_outcome) {
    std::string detail = model::ToString(action) + ": the implementation " +
                         std::string(model::Name(*outcome)) + ", the model " +
                         std::string(model::Name(model_outcome));
    if (!world->last_reason().empty())
      detail += " (implementation: " + world->last_reason() + ")";
    return Mismatch(detail);
  }
  ShareIdenticalTable(world);
  if (std::optional<Finding> finding =
          CheckPublishedVersionLoads(action, *outcome, *world)) {
    return finding;
  }
  if (std::optional<Finding> finding =
          CheckRefinement(setup.config, *world, after, impl_dump)) {
    return finding;
  }
  KeepDecodedTable(setup.config, world);
  return std::nullopt;
}

std::optional<Finding> CheckModelState(const LockstepSetup& setup,
                                       const model::State& after) {
  if (const model::Invariant* broken =
          model::FirstBrokenInvariant(setup.config, after)) {
    return Finding{std::string(broken->name), "broken on the model's state"};
  }
  return std::nullopt;
}

std::optional<Finding> StepLockstep(const LockstepSetup& setup,
                                    const Action& action,
                                    model::Outcome model_outcome,
                                    const model::State& after,
                                    impl::World* world,
                                    std::string* impl_dump) {
  if (std::optional<Finding> finding = StepLockstepEdge(
          setup, action, model_outcome, after, world, impl_dump))
    return finding;
  return CheckModelState(setup, after);
}

std::optional<Finding> CheckReachedState(const LockstepSetup& setup,
                                         const model::State& state,
                                         const impl::World& world) {
  if (!setup.refusals) return std::nullopt;
  return CheckRefusals(setup.config, state, world);
}

std::optional<Finding> CheckInit(const LockstepSetup& setup,
                                 const impl::World& world) {
  const model::State init = model::Init(setup.config.bounds);
  if (std::optional<Finding> finding =
          CheckRefinement(setup.config, world, init))
    return finding;
  return CheckReachedState(setup, init, world);
}

Result<ReplayResult> ReplayLockstep(const LockstepSetup& setup,
                                    const std::vector<Action>& trace,
                                    bool model_only) {
  ReplayResult result;
  result.states.push_back(model::Init(setup.config.bounds));
  std::optional<impl::World> world;
  if (!model_only) {
    Result<impl::World> created = InitWorld(setup);
    if (!created.ok()) return created.status();
    world = std::move(*created);
    result.finding = CheckInit(setup, *world);
    if (result.finding) return result;
  } else if (const model::Invariant* broken = model::FirstBrokenInvariant(
                 setup.config, result.states.back())) {
    result.finding = Finding{std::string(broken->name), "broken at Init"};
    return result;
  }
  for (std::size_t k = 0; k < trace.size(); ++k) {
    const model::State& before = result.states.back();
    if (!model::IsEnabled(setup.config, before, trace[k])) {
      return Status::InvalidArgument("step " + std::to_string(k + 1) + " (" +
                                     model::ToString(trace[k]) +
                                     ") is not enabled");
    }
    model::Outcome outcome;
    model::State after = model::Apply(setup.config, before, trace[k], &outcome);
    result.states.push_back(after);
    result.step = k + 1;
    if (world) {
      result.finding = StepLockstep(setup, trace[k], outcome, after, &*world,
                                    &result.impl_dump);
      if (!result.finding)
        result.finding = CheckReachedState(setup, after, *world);
    } else if (const model::Invariant* broken =
                   model::FirstBrokenInvariant(setup.config, after)) {
      result.finding = Finding{std::string(broken->name), "broken"};
    }
    if (result.finding) return result;
  }
  return result;
}

impl::Protocol ImplProtocol(model::Protocol protocol) {
  switch (protocol) {
    case model::Protocol::kDerived:
      return impl::Protocol::kDerived;
    case model::Protocol::kAdvance:
      return impl::Protocol::kAdvance;
    case model::Protocol::kUnconditional:
      return impl::Protocol::kUnconditional;
    case model::Protocol::kLegacy:
      return impl::Protocol::kLegacy;
  }
  return impl::Protocol::kDerived;
}

}  // namespace memwal::checker::lockstep
