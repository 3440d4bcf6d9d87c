// BFS, DFS and random walks in lockstep (checker/parallel.h).
#include "checker/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "checker/interrupt.h"
#include "checker/parallel_set.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

using model::Action;
using model::State;

// How a discovered state was reached: 8 bytes per state.
struct Node {
  uint32_t parent;  // the root is its own parent
  uint16_t action;  // PackAction
  uint16_t depth;
};

uint16_t PackAction(const Action& action) {
  const std::array<int, 2> params = model::ActionParams(action);
  MEMWAL_ASSERT(params[0] >= 0 && params[0] < 16 && params[1] >= 0 &&
                params[1] < 16);
  return static_cast<uint16_t>((action.index() << 8) | (params[0] << 4) |
                               params[1]);
}

Action UnpackAction(uint16_t packed) {
  return model::MakeAction(packed >> 8, {(packed >> 4) & 15, packed & 15});
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Clock {
 public:
  Clock() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

struct Item {
  State state;
  std::optional<impl::World> world;
  uint32_t node = 0;
};

// Per-worker counters, summed in a fixed order.
struct Counters {
  uint64_t transitions = 0;
  std::array<uint64_t, model::kActionKinds> coverage{};
  uint32_t goals = 0;  // bit g: goal g reached
  // Entry d: distinct states first met at depth d (Stats::states_per_depth).
  std::vector<uint64_t> states_per_depth{};
  void CountState(std::size_t depth) {
    if (states_per_depth.size() <= depth) states_per_depth.resize(depth + 1, 0);
    ++states_per_depth[depth];
  }
  void Add(const Counters& other) {
    transitions += other.transitions;
    for (int k = 0; k < model::kActionKinds; ++k)
      coverage[k] += other.coverage[k];
    goals |= other.goals;
    if (states_per_depth.size() < other.states_per_depth.size())
      states_per_depth.resize(other.states_per_depth.size(), 0);
    for (std::size_t d = 0; d < other.states_per_depth.size(); ++d)
      states_per_depth[d] += other.states_per_depth[d];
  }
};

// One random walk, run without touching the shared set; RunRandom merges
// the walks of a batch in walk order, so that counts do not depend on which
// thread ran which walk, or when.
struct WalkRecord {
  bool ran = false;   // the walk ran to its end (no budget stopped it)
  Counters counters;  // its transitions, coverage and goals
  std::vector<std::pair<uint64_t, uint16_t>> visited{};  // fingerprint, depth
  int depth = 0;  // steps taken, the violating one excluded
  std::optional<std::pair<Finding, std::vector<Action>>> finding{};
};

struct Successor {
  State state;
  std::optional<impl::World> world;
  std::optional<Finding> finding;
};

// A BFS successor waiting for the ordered insert.
struct Candidate {
  State state;
  std::optional<impl::World> world;
  uint64_t fingerprint;
  uint32_t parent;
  uint16_t action;
};

// A finding and where: key = (parent position << 16) | action index.
struct Found {
  uint64_t key = UINT64_MAX;
  Finding finding;
  uint32_t parent = 0;
  Action action;
};

struct Chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::vector<Candidate> out{};
  Counters counters{};
  std::optional<Found> found{};
};

enum StopReason : int {
  kRunning = 0,
  kMaxStates,
  kTimeLimit,
  kMemoryLimit,
  kInterrupted
};

std::string_view StopName(int reason) {
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

class Engine {
 public:
  Engine(const LockstepSetup& setup, const SearchOptions& options)
      : setup_(setup), options_(options), seen_(4096) {
    const auto goals = model::AllGoals();
    for (std::size_t g = 0; g < goals.size(); ++g) {
      if (goals[g].applicable(setup.config)) applicable_ |= 1u << g;
    }
  }

  SearchResult Run();

 private:
  bool Start(Item* root);
  Successor Expand(const State& from, const std::optional<impl::World>& world,
                   const Action& action, Counters* counters) const;
  void ExpandChunk(std::vector<Item>* level, Chunk* chunk);
  bool MergeLevel(std::vector<Chunk>* chunks, uint16_t depth,
                  std::vector<Item>* next);
  void RunBfs(Item root);
  void RunDfs(Item root);
  void RunRandom(const Item& root);
  void RunWalk(const Item& root, uint64_t walk, WalkRecord* record);
  void MergeWalks(uint64_t first, std::vector<WalkRecord>* records);
  void CheckBudget();
  bool Stopped() const { return stop_.load(std::memory_order_relaxed) != 0; }
  void Stop(int reason) {
    int expected = kRunning;
    stop_.compare_exchange_strong(expected, reason);
  }
  void ShowStatus(int depth, std::size_t frontier);
  void Fail(const Finding& finding, std::vector<Action> trace);
  std::vector<Action> PathTo(uint32_t node) const;
  SearchResult Finish();

  const LockstepSetup& setup_;
  const SearchOptions& options_;
  ConcurrentFingerprintSet seen_;
  std::vector<Node> nodes_;
  uint32_t applicable_ = 0;
  Counters counters_;
  Clock clock_;
  std::atomic<int> stop_{kRunning};
  SearchResult result_;
  // Random walks: the lowest violating walk, set by MergeWalks.
  uint64_t best_walk_ = UINT64_MAX;
  std::optional<std::pair<Finding, std::vector<Action>>> best_;
};

Successor Engine::Expand(const State& from,
                         const std::optional<impl::World>& world,
                         const Action& action, Counters* counters) const {
  model::Outcome outcome;
  Successor next{model::Apply(setup_.config, from, action, &outcome),
                 std::nullopt, std::nullopt};
  counters->transitions += 1;
  counters->coverage[action.index()] += 1;
  const auto goals = model::AllGoals();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    const uint32_t bit = 1u << g;
    if ((applicable_ & bit) == 0 || (counters->goals & bit) != 0) continue;
    if (goals[g].reached(setup_.config, from, action, outcome, next.state))
      counters->goals |= bit;
  }
  if (world) {
    next.world = *world;
    next.finding =
        StepLockstep(setup_, action, outcome, next.state, &*next.world);
  } else if (const model::Invariant* broken =
                 model::FirstBrokenInvariant(setup_.config, next.state)) {
    next.finding = Finding{std::string(broken->name), "broken on the model"};
  }
  return next;
}

void Engine::CheckBudget() {
  if (Interrupted()) Stop(kInterrupted);
  if (options_.time_limit_s > 0 && clock_.Seconds() > options_.time_limit_s)
    Stop(kTimeLimit);
  if (options_.memory_limit_mb > 0 &&
      ResidentMegabytes() > options_.memory_limit_mb)
    Stop(kMemoryLimit);
}

void Engine::ShowStatus(int depth, std::size_t frontier) {
  if (options_.status == nullptr) return;
  const double seconds = clock_.Seconds();
  char line[160];
  std::snprintf(line, sizeof(line),
                "\rstates %zu  states/s %.0f  depth %d  frontier %zu   ",
                seen_.size(),
                seconds > 0 ? static_cast<double>(seen_.size()) / seconds : 0.0,
                depth, frontier);
  *options_.status << line << std::flush;
}

std::vector<Action> Engine::PathTo(uint32_t node) const {
  std::vector<Action> trace;
  while (nodes_[node].parent != node) {
    trace.push_back(UnpackAction(nodes_[node].action));
    node = nodes_[node].parent;
  }
  std::reverse(trace.begin(), trace.end());
  return trace;
}

// Rebuilds the states (and the implementation's side) by replaying the trace.
void Engine::Fail(const Finding& finding, std::vector<Action> trace) {
  SearchViolation violation{.invariant = finding.invariant,
                            .detail = finding.detail,
                            .trace = std::move(trace)};
  Result<ReplayResult> replay =
      ReplayLockstep(setup_, violation.trace, !options_.lockstep);
  MEMWAL_ASSERT(replay.ok());
  violation.states = std::move(replay->states);
  violation.impl_state = std::move(replay->impl_dump);
  // Replay is deterministic, so it meets the same finding at the same step.
  MEMWAL_ASSERT(replay->finding.has_value() &&
                replay->finding->invariant == finding.invariant &&
                replay->step == violation.trace.size());
  result_.verdict = Verdict::kViolation;
  result_.violation = std::move(violation);
}

bool Engine::Start(Item* root) {
  root->state = model::Init(setup_.config.bounds);
  seen_.Insert(model::Fingerprint(root->state));
  counters_.CountState(0);
  nodes_.push_back(Node{0, 0, 0});
  root->node = 0;
  std::optional<Finding> finding;
  if (options_.lockstep) {
    Result<impl::World> world = InitWorld(setup_);
    if (!world.ok()) {
      finding = Finding{std::string(kImplementationMatchesModel),
                        "the implementation cannot create the table: " +
                            world.status().ToString()};
    } else {
      root->world = std::move(*world);
      finding = CheckInit(setup_, *root->world);
    }
  } else if (const model::Invariant* broken =
                 model::FirstBrokenInvariant(setup_.config, root->state)) {
    finding = Finding{std::string(broken->name), "broken at Init"};
  }
  if (!finding) return true;
  result_.verdict = Verdict::kViolation;
  result_.violation = SearchViolation{.invariant = finding->invariant,
                                      .detail = finding->detail,
                                      .states = {root->state}};
  return false;
}

// Expands level[begin, end) into chunk->out. Memory: a parent's World is
// released once expanded, and a successor met twice in one chunk is kept once
// (its first occurrence, which is also first in the global order, since chunks
// are contiguous).
void Engine::ExpandChunk(std::vector<Item>* level, Chunk* chunk) {
  std::vector<Action> actions;
  std::unordered_set<uint64_t> in_chunk;  // lookups only
  for (std::size_t p = chunk->begin; p < chunk->end; ++p) {
    if (Stopped()) return;
    if ((p & 63) == 0) CheckBudget();
    Item& item = (*level)[p];
    model::EnabledActions(setup_.config, item.state, &actions);
    for (std::size_t a = 0; a < actions.size(); ++a) {
      Successor next =
          Expand(item.state, item.world, actions[a], &chunk->counters);
      if (next.finding) {
        chunk->found = Found{.key = (uint64_t{p} << 16) | a,
                             .finding = std::move(*next.finding),
                             .parent = item.node,
                             .action = actions[a]};
        return;
      }
      const uint64_t fingerprint = model::Fingerprint(next.state);
      if (seen_.Contains(fingerprint)) continue;
      if (!in_chunk.insert(fingerprint).second) continue;
      chunk->out.push_back(Candidate{std::move(next.state),
                                     std::move(next.world), fingerprint,
                                     item.node, PackAction(actions[a])});
    }
    item.world.reset();
  }
}

// Inserts the level's successors in (parent position, action index) order.
// False when the run ends (finding or budget).
bool Engine::MergeLevel(std::vector<Chunk>* chunks, uint16_t depth,
                        std::vector<Item>* next) {
  std::size_t last = chunks->size();
  for (std::size_t c = 0; c < chunks->size(); ++c) {
    if ((*chunks)[c].found) {
      last = c + 1;
      break;
    }
  }
  std::size_t candidates = 0;
  for (std::size_t c = 0; c < last && c < chunks->size(); ++c) {
    counters_.Add((*chunks)[c].counters);
    candidates += (*chunks)[c].out.size();
  }
  const std::size_t needed = seen_.size() + candidates;
  if (needed > seen_.capacity())
    seen_.Reserve(std::max(needed, 2 * seen_.capacity()));
  for (std::size_t c = 0; c < last && c < chunks->size(); ++c) {
    for (Candidate& candidate : (*chunks)[c].out) {
      if (!seen_.Insert(candidate.fingerprint)) continue;
      const uint32_t node = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(Node{candidate.parent, candidate.action, depth});
      counters_.CountState(depth);
      result_.stats.depth_max = depth;
      next->push_back(
          Item{std::move(candidate.state), std::move(candidate.world), node});
      if (seen_.size() >= options_.max_states) {
        Stop(kMaxStates);
        return false;
      }
    }
  }
  if (last <= chunks->size() && last > 0 && (*chunks)[last - 1].found) {
    const Found& found = *(*chunks)[last - 1].found;
    std::vector<Action> trace = PathTo(found.parent);
    trace.push_back(found.action);
    Fail(found.finding, std::move(trace));
    return false;
  }
  return true;
}

void Engine::RunBfs(Item root) {
  std::vector<Item> level;
  level.push_back(std::move(root));
  const std::size_t threads = static_cast<std::size_t>(options_.threads);
  for (uint16_t depth = 1; !level.empty() && !Stopped(); ++depth) {
    result_.frontier_max =
        std::max<uint64_t>(result_.frontier_max, level.size());
    ShowStatus(depth - 1, level.size());
    // Chunks small enough to balance threads; their boundaries do not matter
    // for the result.
    const std::size_t chunk_size =
        std::max<std::size_t>(1, level.size() / (threads * 16));
    std::vector<Chunk> chunks;
    for (std::size_t begin = 0; begin < level.size(); begin += chunk_size) {
      chunks.push_back(Chunk{
          .begin = begin, .end = std::min(level.size(), begin + chunk_size)});
    }
    std::atomic<std::size_t> next_chunk{0};
    std::atomic<std::size_t> first_found{SIZE_MAX};
    auto work = [&] {
      for (std::size_t c; (c = next_chunk.fetch_add(1)) < chunks.size();) {
        if (c > first_found.load()) continue;  // past a finding: discarded
        ExpandChunk(&level, &chunks[c]);
        if (chunks[c].found) {
          std::size_t seen = first_found.load();
          while (c < seen && !first_found.compare_exchange_weak(seen, c)) {
          }
        }
      }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& thread : pool) thread.join();
    if (Stopped()) return;
    std::vector<Item> next;
    const bool going = MergeLevel(&chunks, depth, &next);
    level = std::move(next);
    if (!going) return;
  }
}

void Engine::RunDfs(Item root) {
  std::vector<Item> stack;
  stack.push_back(std::move(root));
  std::vector<Action> actions;
  std::vector<Item> children;
  uint64_t expanded = 0;
  while (!stack.empty() && !Stopped()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    if ((++expanded & 63) == 0) {
      CheckBudget();
      ShowStatus(nodes_[item.node].depth, stack.size());
    }
    result_.frontier_max =
        std::max<uint64_t>(result_.frontier_max, stack.size() + 1);
    model::EnabledActions(setup_.config, item.state, &actions);
    children.clear();
    const uint16_t depth = static_cast<uint16_t>(nodes_[item.node].depth + 1);
    for (const Action& action : actions) {
      Successor next = Expand(item.state, item.world, action, &counters_);
      if (next.finding) {
        std::vector<Action> trace = PathTo(item.node);
        trace.push_back(action);
        Fail(*next.finding, std::move(trace));
        return;
      }
      if (seen_.full()) seen_.Reserve(2 * seen_.capacity());
      if (!seen_.Insert(model::Fingerprint(next.state))) continue;
      const uint32_t node = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(Node{item.node, PackAction(action), depth});
      counters_.CountState(depth);
      result_.stats.depth_max = std::max<int>(result_.stats.depth_max, depth);
      children.push_back(
          Item{std::move(next.state), std::move(next.world), node});
      if (seen_.size() >= options_.max_states) {
        Stop(kMaxStates);
        return;
      }
    }
    // The first enabled action is explored first.
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      stack.push_back(std::move(*it));
  }
}

void Engine::RunWalk(const Item& root, uint64_t walk, WalkRecord* record) {
  uint64_t random = SplitMix64(setup_.seed ^ SplitMix64(walk));
  State state = root.state;
  std::optional<impl::World> world = root.world;
  std::vector<Action> trace;
  std::vector<Action> actions;
  for (int step = 0; step < options_.depth; ++step) {
    if (Stopped()) return;  // record->ran stays false: not merged
    model::EnabledActions(setup_.config, state, &actions);
    if (actions.empty()) break;
    random = SplitMix64(random);
    const Action action = actions[random % actions.size()];
    Successor next = Expand(state, world, action, &record->counters);
    trace.push_back(action);
    if (next.finding) {
      record->finding = std::make_pair(std::move(*next.finding), trace);
      break;
    }
    record->visited.emplace_back(model::Fingerprint(next.state),
                                 static_cast<uint16_t>(trace.size()));
    record->depth = static_cast<int>(trace.size());
    state = std::move(next.state);
    world = std::move(next.world);
  }
  MEMWAL_ASSERT(trace.size() <= static_cast<std::size_t>(options_.depth));
  record->ran = true;
}

// Merges walks first, first + 1, ... in that order, up to the first that did
// not run or that broke an invariant (walks after it are not counted): the
// states they visit go into seen_, first visits are counted at their depth.
void Engine::MergeWalks(uint64_t first, std::vector<WalkRecord>* records) {
  for (std::size_t k = 0; k < records->size(); ++k) {
    WalkRecord& record = (*records)[k];
    if (!record.ran) return;
    counters_.Add(record.counters);
    result_.stats.depth_max = std::max(result_.stats.depth_max, record.depth);
    for (const auto& [fingerprint, depth] : record.visited) {
      if (seen_.Insert(fingerprint)) {
        counters_.CountState(depth);
      } else if (seen_.full()) {
        Stop(kMaxStates);
        return;
      }
    }
    if (record.finding) {
      best_walk_ = first + k;
      best_ = std::move(record.finding);
      return;
    }
  }
}

// Runs the walks in batches of kWalkBatch: the threads share a batch's walks,
// then MergeWalks counts them in walk order. Counts, coverage and the trace
// are the same for any thread count (a budget stop excepted: it ends the run
// after a prefix of the walks that depends on timing).
void Engine::RunRandom(const Item& root) {
  constexpr uint64_t kWalkBatch = 256;
  seen_.Reserve(static_cast<std::size_t>(std::min<uint64_t>(
      options_.max_states,
      options_.walks * static_cast<uint64_t>(std::max(options_.depth, 1)) +
          1)));
  for (uint64_t first = 0; first < options_.walks; first += kWalkBatch) {
    if (Stopped() || best_) break;
    std::vector<WalkRecord> records(
        static_cast<std::size_t>(std::min(kWalkBatch, options_.walks - first)));
    std::atomic<uint64_t> next{0};
    std::atomic<uint64_t> lowest_finding{UINT64_MAX};
    auto work = [&](std::size_t thread) {
      for (uint64_t k; (k = next.fetch_add(1)) < records.size();) {
        // Walks after a violating one of this batch are never merged.
        if (k > lowest_finding.load() || Stopped()) return;
        if (((first + k) & 15) == 0) {
          CheckBudget();
          if (thread == 0)
            ShowStatus(options_.depth, options_.walks - first - k);
        }
        RunWalk(root, first + k, &records[k]);
        if (!records[k].finding) continue;
        uint64_t seen = lowest_finding.load();
        while (k < seen && !lowest_finding.compare_exchange_weak(seen, k)) {
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < options_.threads; ++t)
      pool.emplace_back(work, static_cast<std::size_t>(t));
    work(0);
    for (std::thread& thread : pool) thread.join();
    MergeWalks(first, &records);
  }
  if (best_) Fail(best_->first, std::move(best_->second));
}

SearchResult Engine::Finish() {
  Stats& stats = result_.stats;
  stats.states_distinct = seen_.size();
  stats.transitions = counters_.transitions;
  stats.coverage = counters_.coverage;
  stats.states_per_depth = counters_.states_per_depth;
  stats.seconds = clock_.Seconds();
  const auto goals = model::AllGoals();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    if ((applicable_ >> g & 1u) == 0) continue;
    auto& list =
        (counters_.goals >> g & 1u) ? stats.goals_reached : stats.goals_missed;
    list.emplace_back(goals[g].name);
  }
  if (options_.status != nullptr) *options_.status << "\n";
  if (result_.verdict == Verdict::kViolation) return std::move(result_);
  if (Stopped()) {
    result_.verdict = Verdict::kIncomplete;
    result_.stopped_by = std::string(StopName(stop_.load()));
    return std::move(result_);
  }
  // Random walks cover a sample: a missed goal is reported, not a violation.
  if (options_.order != Order::kRandom && !stats.goals_missed.empty()) {
    result_.verdict = Verdict::kViolation;
    result_.violation =
        SearchViolation{.invariant = stats.goals_missed.front(),
                        .detail = "goal never reached",
                        .states = {model::Init(setup_.config.bounds)}};
  }
  return std::move(result_);
}

SearchResult Engine::Run() {
  Item root;
  if (!Start(&root)) return Finish();
  switch (options_.order) {
    case Order::kBfs:
      RunBfs(std::move(root));
      break;
    case Order::kDfs:
      RunDfs(std::move(root));
      break;
    case Order::kRandom:
      RunRandom(root);
      break;
  }
  return Finish();
}

}  // namespace

std::string_view Name(Order order) {
  switch (order) {
    case Order::kBfs:
      return "bfs";
    case Order::kDfs:
      return "dfs";
    case Order::kRandom:
      return "random";
  }
  return "";
}

uint64_t ResidentMegabytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0;
  uint64_t resident = 0;
  if (!(statm >> size >> resident)) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return resident * static_cast<uint64_t>(page > 0 ? page : 4096) >> 20;
}

SearchResult Search(const LockstepSetup& setup, const SearchOptions& options) {
  MEMWAL_ASSERT(model::CheckConfig(setup.config).ok());
  MEMWAL_ASSERT(options.threads >= 1 && options.max_states >= 1);
  Engine engine(setup, options);
  return engine.Run();
}

}  // namespace memwal::checker
