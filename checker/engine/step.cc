// The successor step and counters both BFS loops share (checker/engine/step.h).
#include "checker/engine/step.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "model/invariants.h"

namespace memwal::checker::engine {

uint16_t PackAction(const model::Action& action) {
  const std::array<int, 2> params = model::ActionParams(action);
  MEMWAL_ASSERT(params[0] >= 0 && params[0] < 16 && params[1] >= 0 &&
                params[1] < 16);
  return static_cast<uint16_t>((action.index() << 8) | (params[0] << 4) |
                               params[1]);
}

model::Action UnpackAction(uint16_t packed) {
  return model::MakeAction(packed >> 8, {(packed >> 4) & 15, packed & 15});
}

std::string_view StopName(uint64_t reason) {
  switch (reason) {
    case kMaxStates:
      return "max-states";
    case kTimeLimit:
      return "time-limit";
    case kMemoryLimit:
      return "memory-limit";
    case kInterrupted:
      return "interrupted";
  }
  return "";
}

void Counters::CountState(std::size_t depth) {
  if (states_per_depth.size() <= depth) states_per_depth.resize(depth + 1, 0);
  ++states_per_depth[depth];
}

void Counters::Add(const Counters& other) {
  transitions += other.transitions;
  for (int k = 0; k < model::kActionKinds; ++k)
    coverage[k] += other.coverage[k];
  goals |= other.goals;
  if (states_per_depth.size() < other.states_per_depth.size())
    states_per_depth.resize(other.states_per_depth.size(), 0);
  for (std::size_t d = 0; d < other.states_per_depth.size(); ++d)
    states_per_depth[d] += other.states_per_depth[d];
}

uint64_t ApplicableGoals(const model::Config& config) {
  uint64_t applicable = 0;
  const auto goals = model::AllGoals();
  MEMWAL_ASSERT(goals.size() <= 64);
  for (std::size_t g = 0; g < goals.size(); ++g) {
    if (goals[g].applicable(config)) applicable |= uint64_t{1} << g;
  }
  return applicable;
}

std::optional<lockstep::Finding> CheckModel(const model::Config& config,
                                            const model::State& state) {
  if (const model::Invariant* broken =
          model::FirstBrokenInvariant(config, state))
    return lockstep::Finding{std::string(broken->name), "broken on the model"};
  return std::nullopt;
}

Step TakeStep(const lockstep::LockstepSetup& setup, uint64_t applicable,
              const model::State& from, const impl::World* world,
              const model::Action& action, bool check_state,
              Counters* counters) {
  Step next;
  TakeStep(setup, applicable, from, world, action, check_state, counters,
           &next);
  return next;
}

void TakeStep(const lockstep::LockstepSetup& setup, uint64_t applicable,
              const model::State& from, const impl::World* world,
              const model::Action& action, bool check_state, Counters* counters,
              Step* next, bool model_on_edge) {
  model::Outcome outcome;
  next->state = from;
  model::Apply(setup.config, action, &next->state, &outcome);
  if (world == nullptr) next->world.reset();
  next->finding.reset();
  counters->transitions += 1;
  counters->coverage[action.index()] += 1;
  // Once every applicable goal is reached (early in a run), nothing to ask.
  if ((applicable & ~counters->goals) != 0) {
    const auto goals = model::AllGoals();
    for (std::size_t g = 0; g < goals.size(); ++g) {
      const uint64_t bit = uint64_t{1} << g;
      if ((applicable & bit) == 0 || (counters->goals & bit) != 0) continue;
      if (goals[g].reached(setup.config, from, action, outcome, next->state))
        counters->goals |= bit;
    }
  }
  if (world != nullptr) {
    // A World `next` still holds (its caller kept the state it reached
    // elsewhere or dropped it) is assigned over: its strings', vectors' and
    // sets' storage is reused.
    if (next->world != nullptr) {
      *next->world = *world;
    } else {
      next->world = std::make_unique<impl::World>(*world);
    }
    next->finding =
        model_on_edge
            ? lockstep::StepLockstep(setup, action, outcome, next->state,
                                     next->world.get())
            : lockstep::StepLockstepEdge(setup, action, outcome, next->state,
                                         next->world.get());
    if (!next->finding && check_state)
      next->finding =
          lockstep::CheckReachedState(setup, next->state, *next->world);
  }
}

std::vector<StateFinding> CheckStates(
    const lockstep::LockstepSetup& setup, std::size_t count, Workers* workers,
    const std::function<int(std::size_t)>& owner, bool all,
    const std::function<const impl::World*(std::size_t, model::State*)>& at) {
  constexpr std::size_t kBlock = 64;
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  std::vector<std::vector<StateFinding>> found(blocks);
  Shares shares(blocks, workers->size(),
                owner ? std::function<int(std::size_t)>(
                            [&](std::size_t b) { return owner(b * kBlock); })
                      : nullptr);
  std::atomic<std::size_t> first_block{SIZE_MAX};  // not `all`: a finding's
  workers->Run([&](int worker) {
    model::State state;
    for (std::size_t b; (b = shares.Next(worker)) != SIZE_MAX;) {
      if (!all && b > first_block.load()) continue;
      const std::size_t end = std::min(count, (b + 1) * kBlock);
      for (std::size_t k = b * kBlock; k < end; ++k) {
        const impl::World* world = at(k, &state);
        MEMWAL_ASSERT(world != nullptr);
        std::optional<lockstep::Finding> finding =
            lockstep::CheckReachedState(setup, state, *world);
        if (!finding) continue;
        found[b].push_back(StateFinding{k, std::move(*finding)});
        if (all) continue;
        std::size_t seen = first_block.load();
        while (b < seen && !first_block.compare_exchange_weak(seen, b)) {
        }
        break;
      }
    }
  });
  std::vector<StateFinding> out;
  for (std::vector<StateFinding>& block : found) {
    for (StateFinding& finding : block) out.push_back(std::move(finding));
    if (!all && !out.empty()) break;
  }
  return out;
}

}  // namespace memwal::checker::engine
