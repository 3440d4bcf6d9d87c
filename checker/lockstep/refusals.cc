// Refusals compared (checker/lockstep/refusals.h).
#include "checker/lockstep/refusals.h"

#include <optional>
#include <string>
#include <vector>

#include "checker/lockstep/lockstep.h"

namespace memwal::checker::lockstep {
namespace {

using model::Action;

// The config whose bounds only the compile-time maxima limit.
model::Config Relaxed(const model::Config& config) {
  model::Config relaxed = config;
  relaxed.bounds.commits = 255;
  relaxed.bounds.inflight = model::kInflightMax + 1;
  relaxed.bounds.fragments = 255;
  relaxed.bounds.generations = model::kGenerationsMax;
  return relaxed;
}

class Collector {
 public:
  Collector(const model::Config& config, const model::State& state,
            std::vector<Action>* out)
      : config_(config), relaxed_(Relaxed(config)), state_(state), out_(out) {
    // Ghost: whether activation was acknowledged is the compactor's memory
    // (R22, R28), not something the table's bytes say.
    state_.activated = true;
  }

  template <typename A>
  void Try(const A& action) {
    const Action any = action;
    if (!model::KindApplies(config_, static_cast<int>(any.index()))) return;
    if (!model::IsEnabled(relaxed_, state_, any)) out_->push_back(any);
  }

 private:
  const model::Config& config_;
  const model::Config relaxed_;
  model::State state_;
  std::vector<Action>* out_;
};

// `*to` made a copy of `from` (assigned over a World it held).
void Assign(const impl::World& from, std::optional<impl::World>* to) {
  if (to->has_value()) {
    **to = from;
  } else {
    to->emplace(from);
  }
}

}  // namespace

std::vector<Action> GuardDisabledActions(const model::Config& config,
                                         const model::State& state) {
  std::vector<Action> out;
  GuardDisabledActions(config, state, &out);
  return out;
}

void GuardDisabledActions(const model::Config& config,
                          const model::State& state, std::vector<Action>* out) {
  out->clear();
  Collector c(config, state, out);
  const model::Bounds& b = config.bounds;
  for (int s = 0; s < b.shards; ++s) {
    if (state.flushed[s] < b.generations) c.Try(model::FlushMemTable{s});
  }
  for (int s = 0; s < b.shards; ++s) {
    for (int g = 1; g <= b.generations; ++g) {
      if (config.gc == model::GcMode::kAtomic) {
        c.Try(model::RetireSsTable{s, g});
      } else {
        c.Try(model::RetireDecide{s, g});
        c.Try(model::RetireExecute{s, g});
      }
    }
  }
  c.Try(model::Append{});
  for (int f = 0; f < b.fragments; ++f) c.Try(model::DeleteFragment{f});
  for (int s = 0; s < b.shards; ++s) {
    c.Try(model::CompactSsTable{s, false});
    c.Try(model::CompactSsTable{s, true});
  }
  for (int f = 0; f < b.fragments; ++f) {
    for (int i = 0; i < b.indexes; ++i) c.Try(model::UpdateColumns{f, i});
  }
  for (int f1 = 0; f1 < b.fragments; ++f1) {
    for (int f2 = f1 + 1; f2 < b.fragments; ++f2)
      c.Try(model::RewriteFragments{f1, f2});
  }
  for (int i = 0; i < b.indexes; ++i) c.Try(model::CreateIndex{i});
  for (int i = 0; i < b.indexes; ++i) c.Try(model::OptimizeIndex{i});
  for (int i = 0; i < b.indexes; ++i) c.Try(model::DropIndex{i});
  // R28's guard (the data pass landed in a live fragment) is decided on the
  // implementation by the rows its fragments' data files hold.
  for (int s = 0; s < b.shards; ++s) c.Try(model::RecordProgress{s});
  c.Try(model::Activate{});
  for (int v = 0; v < state.version_count; ++v)
    c.Try(model::Restore{state.versions[v].number});
  c.Try(model::CleanupVersions{});
  // CallerAdvance is not tried: an offer is the caller's claim, which the
  // model enumerates only within its bounds, while the implementation takes
  // any offer at begin and judges it at commit (R61 validation), so a refusal
  // is not comparable there.
}

std::optional<Finding> CheckRefusals(const model::Config& config,
                                     const model::State& state,
                                     const impl::World& world) {
  // A thread's list and World, assigned over (their strings', vectors' and
  // sets' storage is reused: no allocation per state).
  thread_local std::vector<Action> disabled;
  GuardDisabledActions(config, state, &disabled);
  if (disabled.empty()) return std::nullopt;
  thread_local std::optional<impl::World> copy;
  Assign(world, &copy);
  for (const Action& action : disabled) {
    if (!ApplyToWorld(action, &*copy).ok()) continue;
    // Confirmed on a fresh copy: an earlier refusal did not leave `copy`
    // changed.
    thread_local std::optional<impl::World> fresh;
    Assign(world, &fresh);
    if (!ApplyToWorld(action, &*fresh).ok()) {
      Assign(world, &copy);
      continue;
    }
    return Finding{std::string(kImplementationMatchesModel),
                   "refusals: the implementation accepted " +
                       model::ToString(action) +
                       ", which the model disables in this state"};
  }
  return std::nullopt;
}

}  // namespace memwal::checker::lockstep
