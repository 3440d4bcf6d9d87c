// The level-synchronous search over ranks (checker/engine/distributed.h).
#include "checker/engine/distributed.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/memory.h"
#include "checker/engine/checkpoint.h"
#include "checker/engine/interrupt.h"
#include "checker/engine/packed.h"
#include "checker/engine/step.h"
#include "model/invariants.h"

namespace memwal::checker::engine {
namespace {

using lockstep::ApplyToWorld;
using lockstep::CheckInit;
using lockstep::Finding;
using lockstep::InitWorld;
using lockstep::kImplementationMatchesModel;
using lockstep::LockstepSetup;
using lockstep::ReplayLockstep;
using lockstep::ReplayResult;
using lockstep::StepLockstep;
using model::Action;
using model::State;

constexpr uint64_t kNoKey = UINT64_MAX;

// This process's CPU time (user and system), in seconds.
double CpuSeconds() {
  rusage usage{};
  MEMWAL_ASSERT(getrusage(RUSAGE_SELF, &usage) == 0);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The calling thread's CPU time, in seconds: what shipping or re-deriving a
// World costs, apart from the waits of a loaded machine.
double ThreadCpuSeconds() {
  timespec t{};
  MEMWAL_ASSERT(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

using Path = std::vector<uint16_t>;

// A state of the level this rank expands.
struct Item {
  std::string packed;
  Path path;  // from Init
  WorldPtr world{};
};

// A successor before its owner's answer.
struct Candidate {
  uint64_t fingerprint = 0;
  uint64_t key = 0;  // (parent position << 16) | action index
  std::string packed{};
  std::string exact{};  // exact mode: the canonical packing
  uint32_t parent = 0;  // local index in the level
  uint16_t action = 0;
  WorldPtr world{};
};

struct Found {
  uint64_t key = kNoKey;
  Finding finding;
};

struct Chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::vector<Candidate> out{};
  Counters counters{};
  std::optional<Found> found{};
};

// Owned successor waiting for the level's cutoff.
struct Pending {
  uint64_t fingerprint = 0;
  uint64_t key = 0;
  std::string exact{};
  int source = 0;
  std::size_t record = 0;  // index among the source's records
};

uint64_t SliceBegin(uint64_t total, int rank, int ranks) {
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(total) * static_cast<unsigned>(rank)) /
      static_cast<unsigned>(ranks));
}

int Owner(uint64_t fingerprint, int ranks) {
  uint64_t x = fingerprint ^ (fingerprint >> 31);
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return static_cast<int>(x % static_cast<uint64_t>(ranks));
}

class LevelEngine {
 public:
  LevelEngine(const LockstepSetup& setup, const Options& options,
              const ScaleOut& scale, Comm& comm)
      : setup_(setup),
        options_(options),
        scale_(scale),
        comm_(comm),
        keying_(KeyingOf(setup.config, options)),
        seen_(options.storage),
        log_seen_(!scale.checkpoint_dir.empty()),
        applicable_(ApplicableGoals(setup.config)),
        workers_(options.threads) {}

  Result<DistributedResult> Run();

 private:
  bool exact() const { return options_.storage == Storage::kExact; }
  int ranks() const { return comm_.size(); }
  int rank() const { return comm_.rank(); }
  std::optional<Finding> CheckModel(const State& state) const {
    return engine::CheckModel(setup_.config, state);
  }
  State Expand(const State& from, const impl::World* world,
               const Action& action, Counters* counters, WorldPtr* next_world,
               std::optional<Finding>* finding) const;
  void ExpandChunk(Chunk* chunk);
  void CheckBudget();
  bool InsertSeen(uint64_t fingerprint, const std::string& key);
  WorldPtr Rederive(const Path& path);
  // A moving lockstep state's World, as bytes, and the World rebuilt from
  // them on the receiving rank.
  std::string ShipWorld(const impl::World& world);
  WorldPtr ReceiveWorld(std::string_view bytes);
  bool Start();
  // One level; false when the run ends.
  bool Level();
  bool ExpandSlice(std::vector<Chunk>* chunks);
  std::vector<Candidate> CollectCandidates(std::vector<Chunk>* chunks,
                                           Counters* counters,
                                           std::optional<Found>* found) const;
  std::vector<std::string> ChooseFirstDiscoverers(
      const std::vector<std::string>& received,
      std::vector<Pending>* pending) const;
  std::vector<Pending> AskOwners(std::vector<Candidate>* candidates);
  uint64_t CheckNewStates(const std::vector<Candidate>& candidates,
                          std::optional<Found>* found);
  uint64_t Cutoff(const std::vector<Candidate>& candidates, uint64_t found_key);
  void InsertFirstDiscoverers(const std::vector<Pending>& pending,
                              uint64_t cutoff);
  void ShareFinding(uint64_t found_key, const std::optional<Found>& found);
  std::vector<uint64_t> NextSlices(const std::vector<uint64_t>& counts,
                                   uint64_t total) const;
  std::vector<std::string> EncodeMoving(const std::vector<Item>& next_local,
                                        uint64_t offset,
                                        const std::vector<uint64_t>& slices,
                                        std::vector<std::size_t>* keep_begin,
                                        std::vector<std::size_t>* keep_end);
  void ReceiveMoved(const std::string& arrived);
  bool MakeNextLevel(std::vector<Candidate>* candidates);
  void Recount(uint64_t key, Counters* counters);
  void Fail(const Finding& finding, const Path& path);
  std::string Encode() const;
  Status Decode(const std::string& payload);
  Status MaybeCheckpoint(bool force);
  void SumCounters();
  void CollectGoals();
  DistributedResult Finish();

  const LockstepSetup& setup_;
  const Options& options_;
  const ScaleOut& scale_;
  Comm& comm_;
  const Keying keying_;
  SeenSet seen_;
  const bool log_seen_;
  std::vector<uint64_t> seen_log_;  // what this rank owns, for snapshots
  std::vector<std::string> seen_log_exact_;
  const uint64_t applicable_;
  // One set of threads for the run (the lockstep decode caches are per
  // thread; threads started per level began every level with them empty).
  Workers workers_;
  Counters counters_;
  double start_ = Now();
  double cpu_start_ = CpuSeconds();
  double last_snapshot_ = Now();
  std::atomic<uint64_t> stop_{kRunning};

  // The level being expanded: its depth, global size, this rank's slice.
  uint64_t depth_ = 1;
  uint64_t level_total_ = 0;
  uint64_t level_begin_ = 0;
  // Rank r expands the level's positions [slices_[r], slices_[r + 1]).
  std::vector<uint64_t> slices_;
  std::vector<Item> level_;
  uint64_t states_total_ = 0;  // over ranks
  int depth_max_ = 0;
  uint64_t frontier_max_ = 0;
  uint64_t expanded_ = 0;
  SearchResult result_;
  DistributedStats dist_;
  uint64_t bytes_before_ = 0;
};

State LevelEngine::Expand(const State& from, const impl::World* world,
                          const Action& action, Counters* counters,
                          WorldPtr* next_world,
                          std::optional<Finding>* finding) const {
  Step step = TakeStep(setup_, applicable_, from,
                       next_world != nullptr ? world : nullptr, action,
                       /*check_state=*/false, counters);
  if (next_world != nullptr) *next_world = std::move(step.world);
  if (finding != nullptr) *finding = std::move(step.finding);
  return std::move(step.state);
}

void LevelEngine::CheckBudget() {
  uint64_t reason = kRunning;
  if (Interrupted()) reason = kInterrupted;
  if (options_.time_limit_s > 0 && Now() - start_ > options_.time_limit_s)
    reason = kTimeLimit;
  if (MemoryExhausted()) reason = kMemoryLimit;
  if (options_.memory_limit_mb > 0 &&
      ResidentMegabytes() > options_.memory_limit_mb)
    reason = kMemoryLimit;
  if (reason == kRunning) return;
  uint64_t expected = kRunning;
  stop_.compare_exchange_strong(expected, reason);
}

// Chunk of the local level, as checker/engine/search.cc's ExpandChunk, minus
// the seen set (the owners answer that).
void LevelEngine::ExpandChunk(Chunk* chunk) {
  std::vector<Action> actions;
  std::unordered_set<uint64_t> in_chunk;
  std::unordered_set<std::string> in_chunk_exact;
  State state;
  std::string key;
  for (std::size_t p = chunk->begin; p < chunk->end; ++p) {
    if (stop_.load(std::memory_order_relaxed) != kRunning) return;
    if ((p & 63) == 0) CheckBudget();
    Item& item = level_[p];
    MEMWAL_ASSERT(Unpack(item.packed, &state));
    model::EnabledActions(setup_.config, state, &actions);
    const uint64_t position = level_begin_ + p;
    for (std::size_t a = 0; a < actions.size(); ++a) {
      WorldPtr world;
      std::optional<Finding> finding;
      State next = Expand(state, item.world.get(), actions[a], &chunk->counters,
                          &world, &finding);
      if (finding) {
        chunk->found =
            Found{.key = (position << 16) | a, .finding = std::move(*finding)};
        return;
      }
      const uint64_t fingerprint = keying_.Key(next, exact() ? &key : nullptr);
      if (exact()) {
        if (!in_chunk_exact.insert(key).second) continue;
      } else if (!in_chunk.insert(fingerprint).second) {
        continue;
      }
      Candidate candidate{.fingerprint = fingerprint,
                          .key = (position << 16) | a,
                          .parent = static_cast<uint32_t>(p),
                          .action = PackAction(actions[a]),
                          .world = std::move(world)};
      Pack(next, &candidate.packed);
      if (exact()) candidate.exact = key;
      chunk->out.push_back(std::move(candidate));
    }
    item.world.reset();
    ++expanded_;
  }
}

bool LevelEngine::InsertSeen(uint64_t fingerprint, const std::string& key) {
  if (!seen_.Insert(fingerprint, key)) return false;
  if (log_seen_) {
    seen_log_.push_back(fingerprint);
    if (exact()) seen_log_exact_.push_back(key);
  }
  return true;
}

WorldPtr LevelEngine::Rederive(const Path& path) {
  const double began = ThreadCpuSeconds();
  Result<impl::World> world = InitWorld(setup_);
  MEMWAL_ASSERT(world.ok());
  for (const uint16_t action : path) {
    const Result<model::Outcome> outcome =
        ApplyToWorld(UnpackAction(action), &*world);
    MEMWAL_ASSERT(outcome.ok());
  }
  dist_.worlds_rederived += 1;
  dist_.rederive_seconds += ThreadCpuSeconds() - began;
  return std::make_unique<impl::World>(std::move(*world));
}

std::string LevelEngine::ShipWorld(const impl::World& world) {
  const double began = ThreadCpuSeconds();
  std::string bytes = world.Serialize();
  dist_.ship_seconds += ThreadCpuSeconds() - began;
  dist_.worlds_shipped += 1;
  return bytes;
}

WorldPtr LevelEngine::ReceiveWorld(std::string_view bytes) {
  const double began = ThreadCpuSeconds();
  Result<impl::World> world =
      impl::World::Deserialize(bytes, lockstep::ImplOptions(setup_));
  // The bytes are another rank's Serialize of a World of this run.
  MEMWAL_ASSERT(world.ok());
  dist_.ship_seconds += ThreadCpuSeconds() - began;
  return std::make_unique<impl::World>(std::move(*world));
}

bool LevelEngine::Start() {
  const State root = model::Init(setup_.config.bounds);
  std::string key;
  const uint64_t fingerprint = keying_.Key(root, exact() ? &key : nullptr);
  if (Owner(fingerprint, ranks()) == rank()) {
    InsertSeen(fingerprint, key);
    counters_.CountState(0);
  }
  states_total_ = 1;
  std::optional<Finding> finding;
  WorldPtr world;
  if (options_.lockstep) {
    Result<impl::World> created = InitWorld(setup_);
    if (!created.ok()) {
      finding = Finding{std::string(kImplementationMatchesModel),
                        "the implementation cannot create the table: " +
                            created.status().ToString()};
    } else {
      world = std::make_unique<impl::World>(std::move(*created));
      finding = CheckInit(setup_, *world);
    }
  } else if (const model::Invariant* broken =
                 model::FirstBrokenInvariant(setup_.config, root)) {
    finding = Finding{std::string(broken->name), "broken at Init"};
  }
  if (finding) {
    result_.verdict = Verdict::kViolation;
    result_.violation = SearchViolation{.invariant = finding->invariant,
                                        .detail = finding->detail,
                                        .states = {root}};
    return false;
  }
  level_total_ = 1;
  level_begin_ = 0;
  slices_.assign(ranks() + 1, 1);
  slices_[0] = 0;
  if (rank() == 0) {
    Item item;
    Pack(root, &item.packed);
    item.world = std::move(world);
    level_.push_back(std::move(item));
  }
  return true;
}

// The transitions of this rank's slice up to and including `key`'s, counted
// again (model-only: counters depend on the model alone).
void LevelEngine::Recount(uint64_t key, Counters* counters) {
  *counters = Counters{};
  const uint64_t last = (key >> 16) - level_begin_;
  const std::size_t last_action = key & 0xffff;
  std::vector<Action> actions;
  State state;
  for (uint64_t p = 0; p <= last; ++p) {
    MEMWAL_ASSERT(Unpack(level_[p].packed, &state));
    model::EnabledActions(setup_.config, state, &actions);
    for (std::size_t a = 0; a < actions.size(); ++a) {
      if (p == last && a > last_action) break;
      Expand(state, nullptr, actions[a], counters, nullptr, nullptr);
    }
  }
}

void LevelEngine::Fail(const Finding& finding, const Path& path) {
  SearchViolation violation{.invariant = finding.invariant,
                            .detail = finding.detail};
  for (const uint16_t action : path)
    violation.trace.push_back(UnpackAction(action));
  Result<ReplayResult> replay =
      ReplayLockstep(setup_, violation.trace, !options_.lockstep);
  MEMWAL_ASSERT(replay.ok());
  violation.states = std::move(replay->states);
  violation.impl_state = std::move(replay->impl_dump);
  MEMWAL_ASSERT(replay->finding.has_value() &&
                replay->finding->invariant == finding.invariant &&
                replay->step == violation.trace.size());
  result_.verdict = Verdict::kViolation;
  result_.violation = std::move(violation);
}

// 1. Expands this rank's slice of the level in chunks over the workers;
// false when some rank stops.
bool LevelEngine::ExpandSlice(std::vector<Chunk>* chunks) {
  const std::size_t threads = static_cast<std::size_t>(options_.threads);
  const std::size_t chunk_size =
      std::max<std::size_t>(1, level_.size() / (threads * 16));
  for (std::size_t begin = 0; begin < level_.size(); begin += chunk_size) {
    chunks->push_back(Chunk{
        .begin = begin, .end = std::min(level_.size(), begin + chunk_size)});
  }
  std::atomic<std::size_t> next_chunk{0};
  std::atomic<std::size_t> first_found{SIZE_MAX};
  workers_.Run([&](int) {
    for (std::size_t c; (c = next_chunk.fetch_add(1)) < chunks->size();) {
      if (c > first_found.load()) continue;
      ExpandChunk(&(*chunks)[c]);
      if ((*chunks)[c].found) {
        std::size_t seen = first_found.load();
        while (c < seen && !first_found.compare_exchange_weak(seen, c)) {
        }
      }
    }
  });
  if (MemoryExhausted()) CheckBudget();
  const uint64_t stop = comm_.AllReduce(stop_.load(), Reduce::kMax);
  if (stop == kRunning) return true;
  stop_.store(stop);
  return false;
}

// The chunks' successors in order, each once in the rank, up to the first
// chunk with a finding (*found); their counters into *counters.
std::vector<Candidate> LevelEngine::CollectCandidates(
    std::vector<Chunk>* chunks, Counters* counters,
    std::optional<Found>* found) const {
  std::vector<Candidate> candidates;
  std::unordered_set<uint64_t> in_rank;
  std::unordered_set<std::string> in_rank_exact;
  for (Chunk& chunk : *chunks) {
    counters->Add(chunk.counters);
    for (Candidate& candidate : chunk.out) {
      const bool fresh = exact() ? in_rank_exact.insert(candidate.exact).second
                                 : in_rank.insert(candidate.fingerprint).second;
      if (fresh) candidates.push_back(std::move(candidate));
    }
    chunk.out.clear();
    if (chunk.found) {
      *found = std::move(chunk.found);
      break;
    }
  }
  chunks->clear();
  return candidates;
}

// The owner's side of 2.: of the successors the ranks sent (`received`, by
// source), the first discoverer (smallest key) of each state the seen set
// does not hold goes into *pending; the replies say, per record, whether its
// sender won.
std::vector<std::string> LevelEngine::ChooseFirstDiscoverers(
    const std::vector<std::string>& received,
    std::vector<Pending>* pending) const {
  std::vector<std::string> replies(ranks());
  std::unordered_map<uint64_t, std::size_t> best;
  std::unordered_map<std::string, std::size_t> best_exact;
  for (int source = 0; source < ranks(); ++source) {
    Decoder decoder(received[source]);
    for (std::size_t record = 0; !decoder.done(); ++record) {
      Pending entry{.source = source, .record = record};
      MEMWAL_ASSERT(decoder.U64(&entry.fingerprint) && decoder.U64(&entry.key));
      if (exact()) MEMWAL_ASSERT(decoder.Bytes(&entry.exact));
      replies[source].push_back('\0');
      if (seen_.Contains(entry.fingerprint, entry.exact)) continue;
      std::size_t* at = nullptr;
      if (exact()) {
        auto [it, added] = best_exact.emplace(entry.exact, pending->size());
        if (!added) at = &it->second;
      } else {
        auto [it, added] = best.emplace(entry.fingerprint, pending->size());
        if (!added) at = &it->second;
      }
      if (at == nullptr) {
        pending->push_back(std::move(entry));
      } else if (entry.key < (*pending)[*at].key) {
        (*pending)[*at] = std::move(entry);
      }
    }
  }
  for (const Pending& entry : *pending) replies[entry.source][entry.record] = 1;
  return replies;
}

// 2. Asks the owners which successors are first discoverers: only those stay
// in *candidates; the ones this rank owns are returned.
std::vector<Pending> LevelEngine::AskOwners(
    std::vector<Candidate>* candidates) {
  std::vector<Encoder> records(ranks());
  std::vector<std::vector<std::size_t>> sent(ranks());  // candidate indices
  for (std::size_t k = 0; k < candidates->size(); ++k) {
    const Candidate& candidate = (*candidates)[k];
    const int owner = Owner(candidate.fingerprint, ranks());
    records[owner].U64(candidate.fingerprint);
    records[owner].U64(candidate.key);
    if (exact()) records[owner].Bytes(candidate.exact);
    sent[owner].push_back(k);
  }
  std::vector<std::string> send(ranks());
  for (int owner = 0; owner < ranks(); ++owner)
    send[owner] = std::move(records[owner].out());
  std::vector<Pending> pending;
  const std::vector<std::string> answers = comm_.AllToAll(
      ChooseFirstDiscoverers(comm_.AllToAll(std::move(send)), &pending));
  std::vector<bool> won(candidates->size(), false);
  for (int owner = 0; owner < ranks(); ++owner) {
    MEMWAL_ASSERT(answers[owner].size() == sent[owner].size());
    for (std::size_t k = 0; k < sent[owner].size(); ++k)
      won[sent[owner][k]] = answers[owner][k] != 0;
  }
  std::size_t kept = 0;
  for (std::size_t k = 0; k < candidates->size(); ++k) {
    if (!won[k]) continue;
    if (kept != k) (*candidates)[kept] = std::move((*candidates)[k]);
    ++kept;
  }
  candidates->resize(kept);
  return pending;
}

// 3. The new states' checks: the model's invariants (model-only), the
// reached state's (lockstep, on the first discoverer's World); a finding
// before *found replaces it. Returns where the level's counters stop
// (lockstep: at its first transition finding over the ranks; model-only:
// kNoKey, decided by the level's finding).
uint64_t LevelEngine::CheckNewStates(const std::vector<Candidate>& candidates,
                                     std::optional<Found>* found) {
  if (!options_.lockstep) {
    State state;
    for (const Candidate& candidate : candidates) {
      if (*found && candidate.key > (*found)->key) break;
      MEMWAL_ASSERT(Unpack(candidate.packed, &state));
      if (std::optional<Finding> broken = CheckModel(state)) {
        *found = Found{.key = candidate.key, .finding = *broken};
        break;
      }
    }
    return kNoKey;
  }
  // The threaded engine counts a level's transitions up to its first
  // transition finding, whatever a state check finds before it.
  const uint64_t count_key =
      comm_.AllReduce(*found ? (*found)->key : kNoKey, Reduce::kMin);
  std::size_t before = 0;  // the candidates discovered before the finding
  while (before < candidates.size() &&
         (!*found || candidates[before].key < (*found)->key))
    ++before;
  std::vector<StateFinding> broken =
      CheckStates(setup_, before, &workers_, nullptr, /*all=*/false,
                  [&](std::size_t k, State* state) {
                    MEMWAL_ASSERT(Unpack(candidates[k].packed, state));
                    return candidates[k].world.get();
                  });
  if (!broken.empty()) {
    *found = Found{.key = candidates[broken.front().position].key,
                   .finding = std::move(broken.front().finding)};
  }
  return count_key;
}

// max_states: the threaded engine stops at the insert that reaches it. The
// key below which first discoverers are inserted (found_key, or the key past
// the one that fills the budget, which then stops the run).
uint64_t LevelEngine::Cutoff(const std::vector<Candidate>& candidates,
                             uint64_t found_key) {
  uint64_t below = 0;  // first discoverers before the finding
  while (below < candidates.size() && candidates[below].key < found_key)
    ++below;
  const std::vector<uint64_t> counts = comm_.AllGather(below);
  uint64_t total = 0;
  for (const uint64_t count : counts) total += count;
  const uint64_t room =
      options_.max_states > states_total_
          ? std::max<uint64_t>(1, options_.max_states - states_total_)
          : 1;
  if (total < room) return found_key;
  uint64_t before = 0;
  int holder = 0;
  while (before + counts[holder] < room) before += counts[holder++];
  std::string key_text;
  if (rank() == holder) {
    Encoder encoder;
    encoder.U64(candidates[room - before - 1].key + 1);
    key_text = encoder.out();
  }
  comm_.Broadcast(&key_text, holder);
  Decoder decoder(key_text);
  uint64_t cutoff = 0;
  MEMWAL_ASSERT(decoder.U64(&cutoff));
  stop_.store(kMaxStates);
  return cutoff;
}

// The owners insert the first discoverers before the cutoff.
void LevelEngine::InsertFirstDiscoverers(const std::vector<Pending>& pending,
                                         uint64_t cutoff) {
  uint64_t inserted = 0;
  for (const Pending& entry : pending) {
    if (entry.key >= cutoff) continue;
    MEMWAL_ASSERT(InsertSeen(entry.fingerprint, entry.exact));
    counters_.CountState(depth_);
    ++inserted;
  }
  inserted = comm_.AllReduce(inserted, Reduce::kSum);
  states_total_ += inserted;
  if (inserted > 0) depth_max_ = static_cast<int>(depth_);
}

// The level's finding: the rank holding its parent tells every rank the
// finding and its path, and each fails with it.
void LevelEngine::ShareFinding(uint64_t found_key,
                               const std::optional<Found>& found) {
  const uint64_t parent = found_key >> 16;
  int holder = 0;
  while (slices_[holder + 1] <= parent) ++holder;
  std::string message;
  if (rank() == holder) {
    MEMWAL_ASSERT(found && found->key == found_key);
    Encoder encoder;
    encoder.Bytes(found->finding.invariant);
    encoder.Bytes(found->finding.detail);
    const Item& item = level_[parent - level_begin_];
    std::vector<Action> actions;
    State state;
    MEMWAL_ASSERT(Unpack(item.packed, &state));
    model::EnabledActions(setup_.config, state, &actions);
    std::string path;
    for (const uint16_t step : item.path)
      path.append(std::to_string(step) + " ");
    path.append(std::to_string(PackAction(actions[found_key & 0xffff])));
    encoder.Bytes(path);
    message = encoder.out();
  }
  comm_.Broadcast(&message, holder);
  Decoder decoder(message);
  Finding finding;
  std::string path_text;
  MEMWAL_ASSERT(decoder.Bytes(&finding.invariant) &&
                decoder.Bytes(&finding.detail) && decoder.Bytes(&path_text));
  Path path;
  std::size_t at = 0;
  while (at < path_text.size()) {
    std::size_t end = path_text.find(' ', at);
    if (end == std::string::npos) end = path_text.size();
    path.push_back(
        static_cast<uint16_t>(std::stoul(path_text.substr(at, end - at))));
    at = end + 1;
  }
  Fail(finding, path);
}

// Each rank keeps its own block of the next level while every block is
// within a quarter of the even share (fewer lockstep Worlds to ship);
// otherwise the level is re-sliced evenly. Either way every rank computes
// the same slices from the blocks' sizes `counts`.
std::vector<uint64_t> LevelEngine::NextSlices(
    const std::vector<uint64_t>& counts, uint64_t total) const {
  std::vector<uint64_t> slices(ranks() + 1, 0);
  bool balanced = true;
  const double share = static_cast<double>(total) / ranks();
  for (int r = 0; r < ranks(); ++r) {
    slices[r + 1] = slices[r] + counts[r];
    if (std::abs(static_cast<double>(counts[r]) - share) > share / 4 + 1)
      balanced = false;
  }
  if (!balanced) {
    for (int r = 0; r <= ranks(); ++r)
      slices[r] = SliceBegin(total, r, ranks());
  }
  return slices;
}

// The items of `next_local` (this rank's block, from `offset`) that fall in
// another rank's slice, encoded per target (with their Worlds, unless they
// are re-derived there); [keep_begin, keep_end) per target: the block's part
// in that target's slice.
std::vector<std::string> LevelEngine::EncodeMoving(
    const std::vector<Item>& next_local, uint64_t offset,
    const std::vector<uint64_t>& slices, std::vector<std::size_t>* keep_begin,
    std::vector<std::size_t>* keep_end) {
  std::vector<std::string> moving(ranks());
  for (int target = 0; target < ranks(); ++target) {
    const uint64_t begin = std::max(offset, slices[target]);
    const uint64_t end =
        std::min<uint64_t>(offset + next_local.size(), slices[target + 1]);
    if (begin >= end) continue;
    (*keep_begin)[target] = begin - offset;
    (*keep_end)[target] = end - offset;
    if (target == rank()) continue;
    const bool ship = options_.lockstep && !scale_.rederive_moved;
    Encoder encoder;
    for (uint64_t k = begin - offset; k < end - offset; ++k) {
      encoder.Bytes(next_local[k].packed);
      encoder.Bytes(std::string_view(
          reinterpret_cast<const char*>(next_local[k].path.data()),
          next_local[k].path.size() * sizeof(uint16_t)));
      if (ship) {
        MEMWAL_ASSERT(next_local[k].world != nullptr);
        encoder.Bytes(ShipWorld(*next_local[k].world));
      }
    }
    moving[target] = std::move(encoder.out());
  }
  return moving;
}

// The items another rank moved here (`arrived`), appended to the level.
void LevelEngine::ReceiveMoved(const std::string& arrived) {
  Decoder decoder(arrived);
  std::string world;
  while (!decoder.done()) {
    Item item;
    std::string path;
    MEMWAL_ASSERT(decoder.Bytes(&item.packed) && decoder.Bytes(&path));
    item.path.resize(path.size() / sizeof(uint16_t));
    std::copy(path.begin(), path.end(),
              reinterpret_cast<char*>(item.path.data()));
    if (options_.lockstep && scale_.rederive_moved) {
      item.world = Rederive(item.path);
    } else if (options_.lockstep) {
      MEMWAL_ASSERT(decoder.Bytes(&world));
      item.world = ReceiveWorld(world);
    }
    level_.push_back(std::move(item));
  }
}

// 4. The next level: this rank's first discoverers are the block
// [offset, offset + count) of it; then it is sliced (NextSlices) and the
// items move to their ranks. False when it is empty.
bool LevelEngine::MakeNextLevel(std::vector<Candidate>* candidates) {
  std::vector<Item> next_local;
  next_local.reserve(candidates->size());
  for (Candidate& candidate : *candidates) {
    Item item{.packed = std::move(candidate.packed),
              .path = level_[candidate.parent].path,
              .world = std::move(candidate.world)};
    item.path.push_back(candidate.action);
    next_local.push_back(std::move(item));
  }
  candidates->clear();
  level_.clear();
  const std::vector<uint64_t> counts = comm_.AllGather(next_local.size());
  uint64_t offset = 0;
  uint64_t total = 0;
  for (int r = 0; r < ranks(); ++r) {
    if (r < rank()) offset += counts[r];
    total += counts[r];
  }
  std::vector<uint64_t> slices = NextSlices(counts, total);
  std::vector<std::size_t> keep_begin(ranks(), 0), keep_end(ranks(), 0);
  const std::vector<std::string> arrived = comm_.AllToAll(
      EncodeMoving(next_local, offset, slices, &keep_begin, &keep_end));
  for (int source = 0; source < ranks(); ++source) {
    if (source != rank()) {
      ReceiveMoved(arrived[source]);
      continue;
    }
    for (std::size_t k = keep_begin[rank()]; k < keep_end[rank()]; ++k)
      level_.push_back(std::move(next_local[k]));
  }
  level_total_ = total;
  slices_ = std::move(slices);
  level_begin_ = slices_[rank()];
  MEMWAL_ASSERT(level_.size() == slices_[rank() + 1] - level_begin_);
  ++depth_;
  return total > 0;
}

bool LevelEngine::Level() {
  frontier_max_ = std::max(frontier_max_, level_total_);
  std::vector<Chunk> chunks;
  if (!ExpandSlice(&chunks)) return false;
  Counters level_counters;
  std::optional<Found> local_found;
  std::vector<Candidate> candidates =
      CollectCandidates(&chunks, &level_counters, &local_found);
  const std::vector<Pending> pending = AskOwners(&candidates);
  uint64_t count_key = CheckNewStates(candidates, &local_found);
  const uint64_t found_key =
      comm_.AllReduce(local_found ? local_found->key : kNoKey, Reduce::kMin);
  InsertFirstDiscoverers(pending, Cutoff(candidates, found_key));
  // Counters up to the finding.
  if (!options_.lockstep) count_key = found_key;
  if (count_key != kNoKey) {
    const uint64_t parent = count_key >> 16;
    if (parent >= level_begin_ && parent < level_begin_ + level_.size()) {
      Recount(count_key, &level_counters);
    } else if (level_begin_ > parent) {
      level_counters = Counters{};
    }
  }
  counters_.Add(level_counters);
  if (stop_.load() == kMaxStates) return false;
  if (found_key != kNoKey) {
    ShareFinding(found_key, local_found);
    return false;
  }
  return MakeNextLevel(&candidates);
}

std::string LevelEngine::Encode() const {
  Encoder out;
  out.U64(depth_);
  out.U64(level_total_);
  out.U64(states_total_);
  out.U64(static_cast<uint64_t>(depth_max_));
  out.U64(frontier_max_);
  for (const uint64_t begin : slices_) out.U64(begin);
  out.U64(counters_.transitions);
  for (const uint64_t count : counters_.coverage) out.U64(count);
  out.U64(counters_.goals);
  out.U64(counters_.states_per_depth.size());
  for (const uint64_t count : counters_.states_per_depth) out.U64(count);
  out.U64(seen_log_.size());
  for (std::size_t k = 0; k < seen_log_.size(); ++k) {
    out.U64(seen_log_[k]);
    if (exact()) out.Bytes(seen_log_exact_[k]);
  }
  out.U64(level_.size());
  for (const Item& item : level_) {
    out.Bytes(item.packed);
    out.Bytes(std::string_view(reinterpret_cast<const char*>(item.path.data()),
                               item.path.size() * sizeof(uint16_t)));
  }
  return std::move(out.out());
}

Status LevelEngine::Decode(const std::string& payload) {
  Decoder in(payload);
  uint64_t depth_max = 0;
  uint64_t count = 0;
  in.U64(&depth_);
  in.U64(&level_total_);
  in.U64(&states_total_);
  in.U64(&depth_max);
  in.U64(&frontier_max_);
  slices_.assign(ranks() + 1, 0);
  for (uint64_t& begin : slices_) in.U64(&begin);
  if (!in.ok() || slices_[0] != 0 || slices_.back() != level_total_ ||
      !std::is_sorted(slices_.begin(), slices_.end()))
    return Status::Corruption("the snapshot's slices do not decode");
  in.U64(&counters_.transitions);
  for (uint64_t& value : counters_.coverage) in.U64(&value);
  in.U64(&counters_.goals);
  in.U64(&count);
  if (!in.ok() || count > payload.size())
    return Status::Corruption("the snapshot's counters do not decode");
  counters_.states_per_depth.assign(count, 0);
  for (uint64_t& value : counters_.states_per_depth) in.U64(&value);
  depth_max_ = static_cast<int>(depth_max);
  in.U64(&count);
  if (!in.ok() || count > payload.size())
    return Status::Corruption("the snapshot's seen set does not decode");
  std::string key;
  for (uint64_t k = 0; k < count && in.ok(); ++k) {
    uint64_t fingerprint = 0;
    in.U64(&fingerprint);
    if (exact()) in.Bytes(&key);
    if (in.ok() && !InsertSeen(fingerprint, key))
      return Status::Corruption("the snapshot's seen set repeats a state");
  }
  in.U64(&count);
  if (!in.ok() || count > payload.size())
    return Status::Corruption("the snapshot's frontier does not decode");
  State state;
  for (uint64_t k = 0; k < count && in.ok(); ++k) {
    Item item;
    std::string path;
    if (!in.Bytes(&item.packed) || !in.Bytes(&path)) break;
    if (path.size() % 2 != 0 || !Unpack(item.packed, &state))
      return Status::Corruption("the snapshot's frontier does not decode");
    item.path.resize(path.size() / 2);
    std::copy(path.begin(), path.end(),
              reinterpret_cast<char*>(item.path.data()));
    level_.push_back(std::move(item));
  }
  if (!in.done())
    return Status::Corruption("the snapshot's payload does not decode");
  level_begin_ = slices_[rank()];
  if (level_.size() != slices_[rank() + 1] - level_begin_)
    return Status::Corruption("the snapshot's frontier has the wrong size");
  return Status::Ok();
}

Status LevelEngine::MaybeCheckpoint(bool force) {
  if (scale_.checkpoint_dir.empty()) return Status::Ok();
  const uint64_t due = comm_.AllReduce(
      rank() == 0 &&
              (force || Now() - last_snapshot_ >= scale_.checkpoint_every_s)
          ? 1
          : 0,
      Reduce::kMax);
  if (due == 0) return Status::Ok();
  MEMWAL_RETURN_IF_ERROR(WriteSnapshot(comm_, scale_.checkpoint_dir,
                                       ConfigurationHash(setup_, options_),
                                       depth_, Encode()));
  last_snapshot_ = Now();
  dist_.snapshots += 1;
  if (scale_.pause_after_snapshot_s > 0)
    std::this_thread::sleep_for(
        std::chrono::duration<double>(scale_.pause_after_snapshot_s));
  return Status::Ok();
}

// The counters summed over the ranks into result_'s stats and dist_.
void LevelEngine::SumCounters() {
  Stats& stats = result_.stats;
  std::vector<uint64_t> sums{counters_.transitions};
  sums.insert(sums.end(), counters_.coverage.begin(), counters_.coverage.end());
  sums.push_back(seen_.bytes());
  uint64_t path_bytes = 0;
  for (const Item& item : level_) path_bytes += item.path.size() * 2;
  sums.push_back(path_bytes);
  sums.push_back(dist_.worlds_shipped);
  sums.push_back(static_cast<uint64_t>(dist_.ship_seconds * 1e6));
  sums.push_back(dist_.worlds_rederived);
  sums.push_back(static_cast<uint64_t>(dist_.rederive_seconds * 1e6));
  sums.push_back(comm_.bytes_sent() - bytes_before_);
  sums.push_back(static_cast<uint64_t>((CpuSeconds() - cpu_start_) * 1e6));
  comm_.AllReduce(&sums, Reduce::kSum);
  stats.transitions = sums[0];
  for (int k = 0; k < model::kActionKinds; ++k) stats.coverage[k] = sums[1 + k];
  std::size_t at = 1 + model::kActionKinds;
  stats.seen_bytes = sums[at++];
  stats.trace_bytes = sums[at++];
  dist_.worlds_shipped = sums[at++];
  dist_.ship_seconds = static_cast<double>(sums[at++]) / 1e6;
  dist_.worlds_rederived = sums[at++];
  dist_.rederive_seconds = static_cast<double>(sums[at++]) / 1e6;
  dist_.bytes_exchanged = sums[at++];
  dist_.cpu_seconds = static_cast<double>(sums[at++]) / 1e6;
}

// The goals reached on any rank, and the states per depth summed.
void LevelEngine::CollectGoals() {
  Stats& stats = result_.stats;
  const uint64_t goals = comm_.AllReduce(counters_.goals, Reduce::kOr);
  const uint64_t depths =
      comm_.AllReduce(counters_.states_per_depth.size(), Reduce::kMax);
  counters_.states_per_depth.resize(depths, 0);
  comm_.AllReduce(&counters_.states_per_depth, Reduce::kSum);
  stats.states_per_depth = counters_.states_per_depth;
  const auto all_goals = model::AllGoals();
  for (std::size_t g = 0; g < all_goals.size(); ++g) {
    if ((applicable_ >> g & 1u) == 0) continue;
    auto& list = (goals >> g & 1u) ? stats.goals_reached : stats.goals_missed;
    list.emplace_back(all_goals[g].name);
  }
}

DistributedResult LevelEngine::Finish() {
  Stats& stats = result_.stats;
  stats.states_distinct = states_total_;
  SumCounters();
  // Collectives in the order every rank runs them: the sums, the goals and
  // depths, then the per-rank gathers.
  CollectGoals();
  stats.depth_max = depth_max_;
  stats.seconds = Now() - start_;
  stats.storage = std::string(Name(options_.storage));
  const double n = static_cast<double>(states_total_);
  stats.collision_probability =
      exact() ? 0 : std::min(1.0, n * (n - 1) / 2 * std::ldexp(1.0, -52));
  stats.symmetry_permutations =
      model::PermutationCount(keying_.bounds, keying_.symmetry);
  result_.frontier_max = frontier_max_;
  dist_.ranks = ranks();
  dist_.states_per_rank = comm_.AllGather(seen_.size());
  dist_.expanded_per_rank = comm_.AllGather(expanded_);
  DistributedResult out;
  out.dist = dist_;
  if (result_.verdict == Verdict::kViolation) {
    out.result = std::move(result_);
    return out;
  }
  if (stop_.load() != kRunning) {
    result_.verdict = Verdict::kIncomplete;
    result_.stopped_by = std::string(StopName(stop_.load()));
    out.result = std::move(result_);
    return out;
  }
  if (!stats.goals_missed.empty()) {
    result_.verdict = Verdict::kViolation;
    result_.violation =
        SearchViolation{.invariant = stats.goals_missed.front(),
                        .detail = "goal never reached",
                        .states = {model::Init(setup_.config.bounds)}};
  }
  out.result = std::move(result_);
  return out;
}

Result<DistributedResult> LevelEngine::Run() {
  if (options_.order != Order::kBfs)
    return Status::InvalidArgument(
        "--distributed, --checkpoint and --resume run breadth-first (--mode "
        "bfs)");
  bytes_before_ = comm_.bytes_sent();
  if (!scale_.resume_dir.empty()) {
    MEMWAL_ASSIGN_OR_RETURN(Snapshot snapshot,
                            ReadSnapshot(comm_, scale_.resume_dir,
                                         ConfigurationHash(setup_, options_)));
    Status decoded = Decode(snapshot.payload);
    const uint64_t bad = comm_.AllReduce(decoded.ok() ? 0 : 1, Reduce::kMax);
    if (bad != 0) {
      if (decoded.ok())
        decoded = Status::Corruption("another rank's part does not decode");
      return Status::Corruption("snapshot " + scale_.resume_dir + ": " +
                                std::string(decoded.message()));
    }
    if (options_.lockstep) {
      for (Item& item : level_) item.world = Rederive(item.path);
    }
    dist_.resumed_level = depth_;
  } else if (!Start()) {
    return Finish();
  }
  while (level_total_ > 0) {
    MEMWAL_RETURN_IF_ERROR(MaybeCheckpoint(false));
    if (!Level()) break;
  }
  return Finish();
}

}  // namespace

uint64_t ConfigurationHash(const lockstep::LockstepSetup& setup,
                           const Options& options) {
  const std::string description =
      model::ToString(setup.config) +
      " bugs=" + std::to_string(setup.config.bugs) +
      " seed=" + std::to_string(setup.seed) +
      " impl_only_bugs=" + std::to_string(setup.impl_only_bugs) +
      " lockstep=" + std::to_string(options.lockstep) +
      " storage=" + std::string(Name(options.storage)) +
      " symmetry=" + std::to_string(options.symmetry) +
      " order=" + std::string(Name(options.order));
  return Checksum64(description);
}

Result<DistributedResult> SearchLevels(const lockstep::LockstepSetup& setup,
                                       const Options& options,
                                       const ScaleOut& scale, Comm& comm) {
  MEMWAL_ASSERT(model::CheckConfig(setup.config).ok());
  MEMWAL_ASSERT(options.threads >= 1 && options.max_states >= 1);
  LevelEngine engine(setup, options, scale, comm);
  return engine.Run();
}

Result<bool> ParseScaleOutFlag(
    std::string_view flag,
    const std::function<Result<std::string>(std::string_view)>& value,
    ScaleOut* scale) {
  if (flag == "--distributed") {
    scale->distributed = true;
    return true;
  }
  if (flag == "--rederive-moved") {
    scale->rederive_moved = true;
    return true;
  }
  if (flag != "--checkpoint" && flag != "--checkpoint-every" &&
      flag != "--resume" && flag != "--pause-after-snapshot")
    return false;
  MEMWAL_ASSIGN_OR_RETURN(const std::string text, value(flag));
  if (flag == "--checkpoint" || flag == "--resume") {
    if (text.empty())
      return Status::InvalidArgument(std::string(flag) + " needs a directory");
    (flag == "--checkpoint" ? scale->checkpoint_dir : scale->resume_dir) = text;
    return true;
  }
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(seconds >= 0) ||
      seconds > 1e9)
    return Status::InvalidArgument(std::string(flag) +
                                   " needs seconds (a number >= 0), not '" +
                                   text + "'");
  (flag == "--checkpoint-every" ? scale->checkpoint_every_s
                                : scale->pause_after_snapshot_s) = seconds;
  return true;
}

std::string ScaleOutHelp() {
  return "  --distributed    partition the bfs over the ranks of mpirun -np N "
         "(one rank without\n"
         "                   mpirun); same counts, verdict and trace as "
         "threads\n"
         "  --checkpoint DIR write a snapshot (seen set, frontier, counters) "
         "to DIR between levels\n"
         "  --checkpoint-every S  at most every S seconds (default 300; 0: "
         "every level)\n"
         "  --resume DIR     continue DIR's snapshot (same configuration and "
         "rank count)\n";
}

}  // namespace memwal::checker::engine
