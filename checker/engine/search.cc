// The search engine (checker/engine/search.h).
#include "checker/engine/search.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "base/memory.h"
#include "checker/engine/interrupt.h"
#include "checker/engine/packed.h"
#include "checker/engine/step.h"
#include "impl/blob_cache.h"
#include "model/invariants.h"

namespace memwal::checker::engine {
namespace {

using model::Action;
using model::State;

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

// ---- running out of memory ----
//
// base/memory.h: the process's reserve is freed by the first failed
// allocation, which raises MemoryExhausted(); CheckBudget stops the search
// with the memory limit as the reason. An allocation that fails after that
// throws std::bad_alloc, caught at the worker's outermost frame (workers.cc)
// or around the search (Engine::Run), and the search stops the same way.

// ---- storage ----

// How each discovered state was reached: its parent's node number and the
// action, 6 bytes per state, in blocks (no slack from doubling). Node 0 is
// Init.
class TraceStore {
 public:
  uint32_t Add(uint32_t parent, uint16_t action) {
    MEMWAL_ASSERT(size_ < UINT32_MAX);
    if (size_ % kBlock == 0) {
      parents_.push_back(std::make_unique<uint32_t[]>(kBlock));
      actions_.push_back(std::make_unique<uint16_t[]>(kBlock));
    }
    parents_.back()[size_ % kBlock] = parent;
    actions_.back()[size_ % kBlock] = action;
    return static_cast<uint32_t>(size_++);
  }
  std::vector<Action> PathTo(uint32_t node) const {
    std::vector<Action> trace;
    while (node != 0) {
      trace.push_back(UnpackAction(actions_[node / kBlock][node % kBlock]));
      node = parents_[node / kBlock][node % kBlock];
    }
    std::reverse(trace.begin(), trace.end());
    return trace;
  }
  std::size_t bytes() const {
    return parents_.size() * kBlock * (sizeof(uint32_t) + sizeof(uint16_t));
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 16;
  std::vector<std::unique_ptr<uint32_t[]>> parents_;
  std::vector<std::unique_ptr<uint16_t[]>> actions_;
  std::size_t size_ = 0;
};

// Packed states in one byte arena, with what each belongs to.
template <typename Extra>
class PackedList {
 public:
  void Push(std::string_view packed, Extra extra) {
    offsets_.push_back(bytes_.size());
    bytes_.insert(bytes_.end(), packed.begin(), packed.end());
    extras_.push_back(std::move(extra));
  }
  std::size_t size() const { return extras_.size(); }
  bool empty() const { return extras_.empty(); }
  std::string_view Packed(std::size_t k) const {
    const std::size_t end =
        k + 1 < offsets_.size() ? offsets_[k + 1] : bytes_.size();
    return std::string_view(bytes_.data() + offsets_[k], end - offsets_[k]);
  }
  void Unpack(std::size_t k, State* state) const {
    MEMWAL_ASSERT(engine::Unpack(Packed(k), state));
  }
  const Extra& extra(std::size_t k) const { return extras_[k]; }
  Extra& extra(std::size_t k) { return extras_[k]; }
  void Swap(PackedList* other) {
    offsets_.swap(other->offsets_);
    bytes_.swap(other->bytes_);
    extras_.swap(other->extras_);
  }
  void Clear() {
    offsets_.clear();
    bytes_.clear();
    extras_.clear();
  }
  std::size_t bytes() const {
    return bytes_.capacity() + offsets_.capacity() * sizeof(std::size_t) +
           extras_.capacity() * sizeof(Extra);
  }

 private:
  std::vector<std::size_t> offsets_;
  std::vector<char> bytes_;
  std::vector<Extra> extras_;
};

// A frontier entry beside its packed state.
struct Slot {
  uint32_t node = 0;
  uint16_t depth = 0;   // DFS
  WorldPtr world{};     // lockstep
  bool broken = false;  // keep_going: its state check failed, not expanded
  uint8_t worker = 0;   // BFS: the worker that took the step to it
};

// A BFS successor waiting for the ordered insert.
struct CandidateExtra {
  uint64_t fingerprint = 0;
  uint32_t parent = 0;
  uint16_t action = 0;
  uint32_t key = UINT32_MAX;  // exact mode: its canonical packing in keys
  uint64_t order = 0;         // (parent position << 16) | action index
  WorldPtr world{};
};

// The successor of a state: the model's, with the World (lockstep) and the
// step's finding.
using Successor = Step;

// A finding and where: key = (parent position << 16) | action index.
struct Found {
  uint64_t key = UINT64_MAX;
  lockstep::Finding finding;
  uint32_t parent = 0;
  Action action;
};

struct Chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
  PackedList<CandidateExtra> out{};
  std::vector<std::string> keys{};  // exact mode
  Counters counters{};
  std::optional<Found> found{};
  std::vector<Found> founds{};  // Options::keep_going: first per invariant
  int worker = 0;               // the worker that expanded it
};

// A finished random walk, waiting to be merged in walk order.
struct Walk {
  std::vector<uint64_t> fingerprints{};  // the states it visited, in order
  std::vector<std::string> keys{};       // exact mode
  Counters counters{};
  std::optional<std::pair<lockstep::Finding, std::vector<Action>>> finding{};
};

class KeptSet;
struct Pending;
struct Frame;

class Engine {
 public:
  Engine(const lockstep::LockstepSetup& setup, const Options& options)
      : setup_(setup),
        options_(options),
        keying_(KeyingOf(setup.config, options)),
        seen_(options.storage),
        applicable_(ApplicableGoals(setup.config)),
        workers_(options.threads) {}

  SearchResult Run();

 private:
  bool exact() const { return options_.storage == Storage::kExact; }
  bool Start(State* root, WorldPtr* world);
  // The successor; with a World, the lockstep step and its checks. The
  // state's own checks (the model's invariants without a World, the reached
  // state's with one) only when `check_state`: callers that deduplicate first
  // check a state once, when it is new.
  Successor Expand(const State& from, const impl::World* world,
                   const Action& action, Counters* counters,
                   bool check_state) const;
  void Expand(const State& from, const impl::World* world, const Action& action,
              Counters* counters, bool check_state, Successor* next) const;
  std::optional<lockstep::Finding> CheckModel(const State& state) const;
  void ExpandChunk(PackedList<Slot>* level, std::vector<Chunk>* chunks,
                   std::size_t c, KeptSet* kept);
  struct Batch;
  enum class Checked { kOk, kBroken, kEnd };
  bool Record(Batch* batch, const Pending& q, lockstep::Finding finding) const;
  bool EndAt(Batch* batch, std::size_t k) const;
  void LookUpSeen(Batch* batch) const;
  Checked CheckNew(Batch* batch, Pending& q, std::size_t k) const;
  bool Admit(Batch* batch, std::size_t k);
  bool Resolve(Batch* batch);
  bool ExpandInto(Batch* batch, std::size_t position, const State& state,
                  const Slot& slot, std::vector<Action>* actions);
  enum class Inserted { kGoOn, kFull, kStopped };
  Inserted InsertLevel(std::vector<Chunk>* chunks, std::size_t last,
                       uint16_t depth, PackedList<Slot>* next,
                       std::vector<Found>* reached);
  std::vector<Found> CheckReached(PackedList<Slot>* next,
                                  const std::vector<Found>& reached, bool full);
  bool ReportLevel(const std::vector<Chunk>& chunks, std::size_t last,
                   std::vector<Found> founds);
  bool MergeLevel(std::vector<Chunk>* chunks, uint16_t depth,
                  PackedList<Slot>* next);
  void RunBfs(const State& root, WorldPtr world);
  void RunDfs(const State& root, WorldPtr world);
  void PushFrame(std::vector<Frame>* path, std::size_t* size,
                 const State& state, WorldPtr world, uint32_t node,
                 int depth) const;
  std::optional<uint32_t> TakeDfsStep(const Frame& top, Step* next,
                                      std::string* key);
  void RunRandom(const State& root, const impl::World* world);
  Walk RunWalk(const State& root, const impl::World* world,
               uint64_t walk) const;
  void MergeWalks(std::map<uint64_t, Walk>* ready, uint64_t* next_walk);
  void CheckBudget();
  bool Stopped() const { return stop_.load(std::memory_order_relaxed) != 0; }
  void Stop(uint64_t reason) {
    uint64_t expected = kRunning;
    stop_.compare_exchange_strong(expected, reason);
  }
  void ShowStatus(int depth, std::size_t frontier);
  void Fail(const lockstep::Finding& finding, std::vector<Action> trace);
  SearchViolation Rebuild(const lockstep::Finding& finding,
                          std::vector<Action> trace) const;
  bool KnownViolation(const std::string& invariant) const;
  SearchResult Finish();

  const lockstep::LockstepSetup& setup_;
  const Options& options_;
  const Keying keying_;
  SeenSet seen_;
  TraceStore traces_;
  const uint64_t applicable_;
  Counters counters_;
  Clock clock_;
  std::atomic<uint64_t> stop_{kRunning};
  SearchResult result_;
  Workers workers_;  // the run's threads, for every parallel phase
  // One worker, model only, stopping at the first finding: a BFS level's new
  // successors go into the seen set, the trace store and the next level as
  // they are met, in the order the merge would take them, instead of through
  // the worker's kept set, a candidate list and a second lookup at the merge.
  // Up to max_states: a successor past it is still checked (a finding ends
  // the chunk and so the counters, as on the general path) but kept nowhere,
  // and the merge stops the run. The counts, the traces and the first finding
  // are those of the general path (the tests compare one thread with two). A
  // run stopped inside a level (time, memory, interrupt) counts that level's
  // states met so far.
  const bool direct_ =
      workers_.size() == 1 && !options_.lockstep && !options_.keep_going;
  PackedList<Slot>* direct_next_ = nullptr;  // direct_: the level being built
  uint16_t direct_depth_ = 0;                // and its depth
};

std::optional<lockstep::Finding> Engine::CheckModel(const State& state) const {
  return engine::CheckModel(setup_.config, state);
}

Successor Engine::Expand(const State& from, const impl::World* world,
                         const Action& action, Counters* counters,
                         bool check_state) const {
  Successor next;
  Expand(from, world, action, counters, check_state, &next);
  return next;
}

void Engine::Expand(const State& from, const impl::World* world,
                    const Action& action, Counters* counters, bool check_state,
                    Successor* next) const {
  TakeStep(setup_, applicable_, from, world, action, check_state, counters,
           next);
  if (world == nullptr && check_state) next->finding = CheckModel(next->state);
}

void Engine::CheckBudget() {
  if (Interrupted()) Stop(kInterrupted);
  if (MemoryExhausted()) Stop(kMemoryLimit);
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
                "\rstates %llu  states/s %.0f  depth %d  frontier %zu   ",
                static_cast<unsigned long long>(seen_.size()),
                seconds > 0 ? static_cast<double>(seen_.size()) / seconds : 0.0,
                depth, frontier);
  *options_.status << line << std::flush;
}

// Rebuilds the states (and the implementation's side) by replaying the trace.
SearchViolation Engine::Rebuild(const lockstep::Finding& finding,
                                std::vector<Action> trace) const {
  SearchViolation violation{.invariant = finding.invariant,
                            .detail = finding.detail,
                            .trace = std::move(trace)};
  Result<lockstep::ReplayResult> replay =
      lockstep::ReplayLockstep(setup_, violation.trace, !options_.lockstep);
  MEMWAL_ASSERT(replay.ok());
  violation.states = std::move(replay->states);
  violation.impl_state = std::move(replay->impl_dump);
  // Replay is deterministic, so it meets the same finding at the same step
  // (with keep_going, a state may break several invariants: replay names the
  // first, the finding may be another one of the same state).
  MEMWAL_ASSERT(replay->finding.has_value() &&
                replay->step == violation.trace.size());
  MEMWAL_ASSERT(options_.keep_going ||
                replay->finding->invariant == finding.invariant);
  return violation;
}

void Engine::Fail(const lockstep::Finding& finding, std::vector<Action> trace) {
  result_.verdict = Verdict::kViolation;
  result_.violation = Rebuild(finding, std::move(trace));
}

bool Engine::KnownViolation(const std::string& invariant) const {
  for (const SearchViolation& known : result_.violations) {
    if (known.invariant == invariant) return true;
  }
  return false;
}

bool Engine::Start(State* root, WorldPtr* world) {
  *root = model::Init(setup_.config.bounds);
  std::string key;
  seen_.Insert(keying_.Key(*root, exact() ? &key : nullptr), key);
  counters_.CountState(0);
  traces_.Add(0, 0);
  std::optional<lockstep::Finding> finding;
  if (options_.lockstep) {
    Result<impl::World> created = lockstep::InitWorld(setup_);
    if (!created.ok()) {
      finding =
          lockstep::Finding{std::string(lockstep::kImplementationMatchesModel),
                            "the implementation cannot create the table: " +
                                created.status().ToString()};
    } else {
      *world = std::make_unique<impl::World>(std::move(*created));
      finding = lockstep::CheckInit(setup_, **world);
    }
  } else if (const model::Invariant* broken =
                 model::FirstBrokenInvariant(setup_.config, *root)) {
    finding = lockstep::Finding{std::string(broken->name), "broken at Init"};
  }
  if (!finding) return true;
  result_.verdict = Verdict::kViolation;
  result_.violation = SearchViolation{.invariant = finding->invariant,
                                      .detail = finding->detail,
                                      .states = {*root}};
  return false;
}

// A successor between its expansion and its lookup: successors are looked up
// in batches, their seen-set slots prefetched while the batch fills.
struct Pending {
  Successor next;
  std::size_t position = 0;  // the parent's
  std::size_t index = 0;     // the action's, among the parent's enabled ones
  uint32_t parent = 0;
  Action action;
  uint64_t fingerprint = 0;
  uint64_t goals_before = 0;  // the chunk's goal bits before its expansion
  bool seen = false;          // in the seen set (the batch's first pass)
  std::string key;            // exact mode
  std::size_t size = 0;
  uint8_t encoding[model::kEncodedMax];
};

// The successors a worker has kept in the current level, over every chunk it
// expands: open addressing by fingerprint, 0 for empty (a fingerprint of 0 is
// kept as 1). In exact mode a slot also names the kept successor (its chunk
// and its index there), whose key `key_of` returns, and only an equal state is
// a duplicate; in fingerprint mode the fingerprint is the state. A successor
// is dropped early (and not checked twice) only when this chunk or an earlier
// one kept it: that chunk has checked it, and the merge, which goes in chunk
// order, takes that chunk's copy. A copy kept by a later chunk (one this
// worker took first) does not count; the merge decides.
class KeptSet {
 public:
  explicit KeptSet(bool exact) : exact_(exact) {}

  // The slot where `chunk` would keep the successor, or SIZE_MAX when it or
  // an earlier chunk kept it. The slot stays valid until the next Keep.
  template <typename KeyOf>
  std::size_t Find(uint64_t fingerprint, std::string_view key, uint32_t chunk,
                   const KeyOf& key_of) {
    if (fingerprint == 0) fingerprint = 1;
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t k = Home(fingerprint);; k = (k + 1) & mask) {
      const Slot& slot = slots_[k];
      if (slot.fingerprint == 0) return k;
      if (slot.fingerprint == fingerprint &&
          (!exact_ || key_of(slot.chunk, slot.kept) == key))
        return slot.chunk <= chunk ? SIZE_MAX : k;
    }
  }
  void Keep(std::size_t slot, uint64_t fingerprint, uint32_t chunk,
            uint32_t kept) {
    if (slots_[slot].fingerprint == 0) ++count_;
    slots_[slot] = Slot{.fingerprint = fingerprint == 0 ? 1 : fingerprint,
                        .chunk = chunk,
                        .kept = kept};
  }
  // Empties the set for the next level, keeping its table unless the last
  // level used a small part of it (levels change size gradually).
  void Clear() {
    const std::size_t wanted = std::max<std::size_t>(1024, 4 * count_);
    if (slots_.size() > 2 * wanted) {
      std::vector<Slot>().swap(slots_);
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
    }
    count_ = 0;
  }
  // Asks the cache for the slot a Find of `fingerprint` starts at.
  void Prefetch(uint64_t fingerprint) const {
    if (!slots_.empty())
      __builtin_prefetch(&slots_[Home(fingerprint == 0 ? 1 : fingerprint)]);
  }

 private:
  struct Slot {
    uint64_t fingerprint = 0;
    uint32_t chunk = 0;  // exact mode: the chunk that kept the successor
    uint32_t kept = 0;   // and the successor's index in it
  };
  std::size_t Home(uint64_t fingerprint) const {
    return (fingerprint ^ (fingerprint >> 29)) & (slots_.size() - 1);
  }
  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.fingerprint == 0) continue;
      std::size_t k = Home(slot.fingerprint);
      while (slots_[k].fingerprint != 0) k = (k + 1) & mask;
      slots_[k] = slot;
    }
  }
  bool exact_;
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

// Expands level[begin, end) into chunk->out, the chunk numbered `c` of
// `chunks`. Memory: a parent's World is released once expanded, and a
// successor that `kept` holds from this chunk or an earlier one is not kept
// again (the first occurrence in the global order is the one kept, since
// chunks are contiguous). Successors are expanded ahead in batches of kBatch
// and resolved in order; the first finding ends the expansion as it would one
// at a time, so the counters are the same.
// One chunk's expansion in progress: its batch of successors waiting to be
// resolved in order.
struct Engine::Batch {
  static constexpr std::size_t kSize = 16;
  std::vector<Chunk>* chunks = nullptr;
  Chunk* chunk = nullptr;
  uint32_t number = 0;  // the chunk's
  KeptSet* kept = nullptr;
  bool identity = false;  // keying_.Identity()
  std::vector<Pending> pending = std::vector<Pending>(kSize);
  std::size_t count = 0;
  std::string packed{};  // scratch
};

// Records a finding at `q`; true when it ends the chunk (not with
// keep_going, which records the first finding of each invariant and goes on).
bool Engine::Record(Batch* batch, const Pending& q,
                    lockstep::Finding finding) const {
  Found at{.key = (uint64_t{q.position} << 16) | q.index,
           .finding = std::move(finding),
           .parent = q.parent,
           .action = q.action};
  Chunk* chunk = batch->chunk;
  if (!options_.keep_going) {
    chunk->found = std::move(at);
    return true;
  }
  for (const Found& known : chunk->founds) {
    if (known.finding.invariant == at.finding.invariant) return false;
  }
  chunk->founds.push_back(std::move(at));
  return false;
}

// A finding at pending[k] ends the chunk: the successors expanded after it
// are taken back out of the counters, which then are those of expanding one
// successor at a time (the same for any thread count). True.
bool Engine::EndAt(Batch* batch, std::size_t k) const {
  if (k + 1 >= batch->count) return true;
  Counters& counters = batch->chunk->counters;
  for (std::size_t later = k + 1; later < batch->count; ++later) {
    counters.transitions -= 1;
    counters.coverage[batch->pending[later].action.index()] -= 1;
  }
  counters.goals = batch->pending[k + 1].goals_before;
  return true;
}

// The seen set, which nothing changes during a level (but the direct path's
// inserts, which Admit asks again): the stored entries a lookup compares
// with are asked for a few successors ahead (their slots were asked for when
// they were expanded), and the kept set's slot only for a successor the seen
// set does not hold.
void Engine::LookUpSeen(Batch* batch) const {
  constexpr std::size_t kAhead = 4;
  std::vector<Pending>& pending = batch->pending;
  const std::size_t count = batch->count;
  for (std::size_t k = 0; k < std::min(kAhead, count); ++k)
    if (!pending[k].next.finding) seen_.PrefetchEntry(pending[k].fingerprint);
  for (std::size_t k = 0; k < count; ++k) {
    if (k + kAhead < count && !pending[k + kAhead].next.finding)
      seen_.PrefetchEntry(pending[k + kAhead].fingerprint);
    Pending& q = pending[k];
    if (q.next.finding) continue;
    q.seen = seen_.Contains(q.fingerprint, q.key);
    if (!q.seen && !direct_) batch->kept->Prefetch(q.fingerprint);
  }
}

// A new state's own checks where its step did not run them (model only: a
// lockstep step checked the model's successor): kEnd when a finding ends the
// chunk, kBroken when keep_going recorded one (the state is not expanded).
Engine::Checked Engine::CheckNew(Batch* batch, Pending& q,
                                 std::size_t k) const {
  if (q.next.world != nullptr) return Checked::kOk;
  if (options_.keep_going) {
    bool broken = false;
    for (const model::Invariant& invariant : model::AllInvariants()) {
      if (invariant.holds(setup_.config, q.next.state)) continue;
      broken = true;
      Record(batch, q,
             lockstep::Finding{std::string(invariant.name),
                               "broken on the model"});
    }
    return broken ? Checked::kBroken : Checked::kOk;
  }
  if (options_.lockstep) return Checked::kOk;
  if (std::optional<lockstep::Finding> broken = CheckModel(q.next.state)) {
    Record(batch, q, std::move(*broken));
    EndAt(batch, k);
    return Checked::kEnd;
  }
  return Checked::kOk;
}

// The successor pending[k], not in the seen set when the level began: new in
// the level unless this worker's kept set (or, on the direct path, the seen
// set) holds it; a new one is checked and then kept, in the chunk's
// candidates or, on the direct path, in the seen set, the trace store and
// the next level. True when the chunk ends.
bool Engine::Admit(Batch* batch, std::size_t k) {
  Pending& q = batch->pending[k];
  std::size_t kept_at = SIZE_MAX;
  if (direct_) {
    // `seen` was asked before this batch's successors went in.
    if (seen_.Contains(q.fingerprint, q.key)) return false;
  } else {
    const auto key_of = [&](uint32_t in, uint32_t kept) {
      const Chunk& at = (*batch->chunks)[in];
      return batch->identity
                 ? at.out.Packed(kept)
                 : std::string_view(at.keys[at.out.extra(kept).key]);
    };
    kept_at = batch->kept->Find(q.fingerprint, q.key, batch->number, key_of);
    if (kept_at == SIZE_MAX) return false;
  }
  switch (CheckNew(batch, q, k)) {
    case Checked::kEnd:
      return true;
    case Checked::kBroken:
      return false;
    case Checked::kOk:
      break;
  }
  // Exact storage, no symmetry: the state is its own representative and its
  // packing is the key.
  const bool own_key = exact() && batch->identity;
  if (!own_key) {
    PackEncoding(
        std::string_view(reinterpret_cast<const char*>(q.encoding), q.size),
        &batch->packed);
  }
  const std::string& key = own_key ? q.key : batch->packed;
  if (direct_) {
    if (seen_.size() >= options_.max_states) return false;
    MEMWAL_ASSERT(seen_.Insert(q.fingerprint, q.key));
    const uint32_t node = traces_.Add(q.parent, PackAction(q.action));
    counters_.CountState(direct_depth_);
    result_.stats.depth_max = direct_depth_;
    direct_next_->Push(
        key, Slot{.node = node,
                  .worker = static_cast<uint8_t>(batch->chunk->worker)});
    return false;
  }
  Chunk* chunk = batch->chunk;
  CandidateExtra extra{.fingerprint = q.fingerprint,
                       .parent = q.parent,
                       .action = PackAction(q.action),
                       .order = (uint64_t{q.position} << 16) | q.index,
                       .world = std::move(q.next.world)};
  batch->kept->Keep(kept_at, q.fingerprint, batch->number,
                    static_cast<uint32_t>(chunk->out.size()));
  if (exact() && !own_key) {
    extra.key = static_cast<uint32_t>(chunk->keys.size());
    chunk->keys.push_back(q.key);
  }
  chunk->out.Push(key, std::move(extra));
  return false;
}

// Resolves the batch in order; true when the chunk ends.
bool Engine::Resolve(Batch* batch) {
  LookUpSeen(batch);
  for (std::size_t k = 0; k < batch->count; ++k) {
    Pending& q = batch->pending[k];
    if (q.next.finding) {
      if (Record(batch, q, std::move(*q.next.finding))) return EndAt(batch, k);
      continue;  // keep_going: a broken state is not expanded
    }
    if (q.seen) continue;
    if (Admit(batch, k)) return true;
  }
  batch->count = 0;
  return false;
}

// Expands the state at `position` (`slot` in the level) into the batch,
// resolving it whenever it is full. True when the chunk ends.
bool Engine::ExpandInto(Batch* batch, std::size_t position, const State& state,
                        const Slot& slot, std::vector<Action>* actions) {
  model::EnabledActions(setup_.config, state, actions);
  Chunk* chunk = batch->chunk;
  for (std::size_t a = 0; a < actions->size(); ++a) {
    Pending& q = batch->pending[batch->count++];
    q.goals_before = chunk->counters.goals;
    Expand(state, slot.world.get(), (*actions)[a], &chunk->counters,
           /*check_state=*/false, &q.next);
    q.position = position;
    q.index = a;
    q.parent = slot.node;
    q.action = (*actions)[a];
    if (q.next.finding) {
      if (!options_.keep_going) {
        Resolve(batch);
        return true;
      }
    } else {
      q.size = model::EncodeTo(q.next.state, q.encoding);
      q.fingerprint = keying_.KeyOf(
          q.next.state,
          std::string_view(reinterpret_cast<const char*>(q.encoding), q.size),
          exact() ? &q.key : nullptr);
      seen_.Prefetch(q.fingerprint);
    }
    if (batch->count == Batch::kSize && Resolve(batch)) return true;
  }
  return false;
}

void Engine::ExpandChunk(PackedList<Slot>* level, std::vector<Chunk>* chunks,
                         std::size_t c, KeptSet* kept) {
  Batch batch{.chunks = chunks,
              .chunk = &(*chunks)[c],
              .number = static_cast<uint32_t>(c),
              .kept = kept,
              .identity = keying_.Identity()};
  std::vector<Action> actions;
  State state;
  for (std::size_t p = batch.chunk->begin; p < batch.chunk->end; ++p) {
    if (Stopped()) break;
    if ((p & 63) == 0) CheckBudget();
    Slot& slot = level->extra(p);
    if (slot.broken) {
      slot.world.reset();
      continue;
    }
    level->Unpack(p, &state);
    if (ExpandInto(&batch, p, state, slot, &actions)) return;
    slot.world.reset();
  }
  Resolve(&batch);
}

// Frees the chunks' candidates on `workers`, each first by the worker that
// made it.
void FreeChunks(std::vector<Chunk>* chunks, Workers* workers) {
  Shares shares(chunks->size(), workers->size(),
                [&](std::size_t c) { return (*chunks)[c].worker; });
  workers->Run([&](int worker) {
    for (std::size_t c; (c = shares.Next(worker)) != SIZE_MAX;) {
      (*chunks)[c].out.Clear();
      (*chunks)[c].keys.clear();
    }
  });
}

// Inserts the level's successors in (parent position, action index) order.
// False when the run ends (finding or budget).
// The level's new states, in chunk order, into the seen set and `next`
// (lockstep: how each was reached, into *reached); kFull once max_states is
// reached, kStopped when the budget stops the run.
Engine::Inserted Engine::InsertLevel(std::vector<Chunk>* chunks,
                                     std::size_t last, uint16_t depth,
                                     PackedList<Slot>* next,
                                     std::vector<Found>* reached) {
  uint64_t inserted = 0;
  bool full = false;
  // max_states reached (direct_: the expansion inserted the level's states
  // up to it, and its candidate lists are empty).
  if (direct_ && seen_.size() >= options_.max_states) {
    Stop(kMaxStates);
    return Inserted::kFull;
  }
  for (std::size_t c = 0; c < last; ++c) {
    Chunk& chunk = (*chunks)[c];
    for (std::size_t k = 0; k < chunk.out.size(); ++k) {
      if (k + 8 < chunk.out.size())
        seen_.Prefetch(chunk.out.extra(k + 8).fingerprint);
      CandidateExtra& candidate = chunk.out.extra(k);
      const std::string_view key =
          !exact() ? std::string_view()
          : candidate.key == UINT32_MAX
              ? chunk.out.Packed(k)
              : std::string_view(chunk.keys[candidate.key]);
      if (!seen_.Insert(candidate.fingerprint, key)) continue;
      const uint32_t node = traces_.Add(candidate.parent, candidate.action);
      counters_.CountState(depth);
      result_.stats.depth_max = depth;
      next->Push(chunk.out.Packed(k),
                 Slot{.node = node,
                      .world = std::move(candidate.world),
                      .worker = static_cast<uint8_t>(chunk.worker)});
      if (options_.lockstep) {
        reached->push_back(Found{.key = candidate.order,
                                 .finding = {},
                                 .parent = candidate.parent,
                                 .action = UnpackAction(candidate.action)});
      }
      if (seen_.size() >= options_.max_states) {
        Stop(kMaxStates);
        full = true;
        break;
      }
      if ((++inserted & 4095) == 0) {
        CheckBudget();
        if (Stopped()) return Inserted::kStopped;
      }
    }
    if (!options_.lockstep) {
      chunk.out.Clear();
      chunk.keys.clear();
    }
    if (full) return Inserted::kFull;
  }
  return Inserted::kGoOn;
}

// The reached states' checks (lockstep), on the states just inserted, in
// the order they were inserted. Every one was discovered before the
// chunks' finding, so a state's finding comes first. With max_states
// reached, the states inserted up to it are checked (as the level engine
// over ranks does).
std::vector<Found> Engine::CheckReached(PackedList<Slot>* next,
                                        const std::vector<Found>& reached,
                                        bool full) {
  std::vector<Found> founds;
  if (!options_.lockstep || next->empty() || (full && options_.keep_going))
    return founds;
  std::vector<StateFinding> findings = CheckStates(
      setup_, next->size(), &workers_,
      [&](std::size_t k) { return int{next->extra(k).worker}; },
      options_.keep_going,
      [&](std::size_t k, State* state) {
        next->Unpack(k, state);
        return next->extra(k).world.get();
      });
  for (StateFinding& finding : findings) {
    next->extra(finding.position).broken = true;
    Found found = reached[finding.position];
    found.finding = std::move(finding.finding);
    founds.push_back(std::move(found));
  }
  return founds;
}

// keep_going: the level's findings (the reached states' `founds` and the
// chunks') in (parent position, action index) order, the first of each
// invariant not met on an earlier level; then the chunks' stopping finding.
// False when the run ends here.
bool Engine::ReportLevel(const std::vector<Chunk>& chunks, std::size_t last,
                         std::vector<Found> founds) {
  for (std::size_t c = 0; c < last; ++c) {
    for (const Found& found : chunks[c].founds) founds.push_back(found);
  }
  std::stable_sort(
      founds.begin(), founds.end(),
      [](const Found& a, const Found& b) { return a.key < b.key; });
  for (const Found& found : founds) {
    if (KnownViolation(found.finding.invariant)) continue;
    std::vector<Action> trace = traces_.PathTo(found.parent);
    trace.push_back(found.action);
    result_.violations.push_back(Rebuild(found.finding, std::move(trace)));
  }
  if (last > 0 && chunks[last - 1].found) {
    const Found& found = *chunks[last - 1].found;
    std::vector<Action> trace = traces_.PathTo(found.parent);
    trace.push_back(found.action);
    Fail(found.finding, std::move(trace));
    return false;
  }
  return true;
}

bool Engine::MergeLevel(std::vector<Chunk>* chunks, uint16_t depth,
                        PackedList<Slot>* next) {
  std::size_t last = chunks->size();
  for (std::size_t c = 0; c < chunks->size(); ++c) {
    if ((*chunks)[c].found) {
      last = c + 1;
      break;
    }
  }
  for (std::size_t c = 0; c < last; ++c) counters_.Add((*chunks)[c].counters);
  // How each inserted state was reached (lockstep: for its state check).
  std::vector<Found> reached;
  const Inserted inserted = InsertLevel(chunks, last, depth, next, &reached);
  if (inserted == Inserted::kStopped) return false;
  const bool full = inserted == Inserted::kFull;
  // Lockstep: the candidates met before still hold their Worlds, which cost
  // about as much to free as to copy; they are freed on the run's threads
  // (freeing them here, one by one, was the merge's serial part).
  if (options_.lockstep) FreeChunks(chunks, &workers_);
  std::vector<Found> founds = CheckReached(next, reached, full);
  if (!options_.keep_going && !founds.empty()) {
    std::vector<Action> trace = traces_.PathTo(founds.front().parent);
    trace.push_back(founds.front().action);
    Fail(founds.front().finding, std::move(trace));
    return false;
  }
  if (full) return false;
  return ReportLevel(*chunks, last, std::move(founds));
}

void Engine::RunBfs(const State& root, WorldPtr world) {
  PackedList<Slot> level;
  PackedList<Slot> next;  // direct_: the level built while `level` expands
  {
    std::string packed;
    Pack(root, &packed);
    level.Push(packed, Slot{.node = 0, .world = std::move(world)});
  }
  const std::size_t threads = static_cast<std::size_t>(options_.threads);
  // Kept from level to level with their capacity: the level's list (the next
  // level is merged into it once it is expanded), the chunks' candidate lists
  // and each worker's kept set. Allocated anew per level, they cost page
  // faults and copies as they grew again.
  std::vector<Chunk> chunks;
  std::vector<KeptSet> kept(workers_.size(), KeptSet(exact()));
  for (uint16_t depth = 1;
       !level.empty() && !Stopped() &&
       (options_.max_depth == 0 || depth <= options_.max_depth);
       ++depth) {
    result_.frontier_max =
        std::max<uint64_t>(result_.frontier_max, level.size());
    ShowStatus(depth - 1, level.size());
    // Chunks small enough to balance threads; their boundaries do not matter
    // for the result.
    const std::size_t chunk_size =
        std::max<std::size_t>(1, level.size() / (threads * 16));
    chunks.resize((level.size() + chunk_size - 1) / chunk_size);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      // A fresh chunk that takes over the old one's candidate buffers.
      Chunk& chunk = chunks[c];
      chunk.out.Clear();
      chunk.keys.clear();
      chunk = Chunk{.begin = c * chunk_size,
                    .end = std::min(level.size(), (c + 1) * chunk_size),
                    .out = std::move(chunk.out),
                    .keys = std::move(chunk.keys)};
    }
    // A chunk goes first to the worker that took the step to its first
    // state (its World's decodings are in that worker's caches).
    Shares shares(chunks.size(), workers_.size(), [&](std::size_t c) {
      return int{level.extra(chunks[c].begin).worker};
    });
    std::atomic<std::size_t> first_found{SIZE_MAX};
    direct_next_ = &next;
    direct_depth_ = depth;
    workers_.Run([&](int worker) {
      KeptSet& mine = kept[worker];
      mine.Clear();
      for (std::size_t c; (c = shares.Next(worker)) != SIZE_MAX;) {
        if (c > first_found.load()) continue;  // past a finding: discarded
        chunks[c].worker = worker;
        ExpandChunk(&level, &chunks, c, &mine);
        if (chunks[c].found) {
          std::size_t seen = first_found.load();
          while (c < seen && !first_found.compare_exchange_weak(seen, c)) {
          }
        }
      }
    });
    // A worker that ran out of memory ended its job early (workers.cc).
    if (MemoryExhausted()) Stop(kMemoryLimit);
    if (Stopped()) return;
    level.Clear();
    if (direct_) level.Swap(&next);
    if (!MergeLevel(&chunks, depth, &level)) return;
  }
}

// A depth-first lockstep run's share of the decode caches (impl::CachedEntries
// in impl/blob_cache.h), restored when the run ends. Its next states are its
// path's neighbours, so a small share serves it; at the breadth-first sizes
// the caches held a decoding per state it had passed (small, to its end:
// 1,095 MB peak resident with 1, 107 MB with 16, 41 MB with 64, 23 MB with
// 256, and the run took less time as the share fell).
constexpr std::size_t kDfsCacheDivisor = 256;
class CacheShare {
 public:
  explicit CacheShare(std::size_t divisor)
      : previous_(std::exchange(impl::cache_divisor, divisor)) {}
  ~CacheShare() { impl::cache_divisor = previous_; }
  CacheShare(const CacheShare&) = delete;
  CacheShare& operator=(const CacheShare&) = delete;

 private:
  std::size_t previous_;
};

// A state on the depth-first path: its World (lockstep), its enabled actions
// and the next of them to take. The path holds one World per state on it,
// nothing per state off it (a successor's World is stepped when its parent
// takes the action, kept while the successor is on the path, and dropped when
// it leaves).
struct Frame {
  State state;
  uint32_t node = 0;
  int depth = 0;
  WorldPtr world{};
  std::vector<Action> actions{};
  std::size_t next = 0;
};

// Puts `state` (with `world`, reached as trace node `node` at `depth`) on top
// of the path. The frames above the path's end keep their action lists'
// capacity for reuse.
void Engine::PushFrame(std::vector<Frame>* path, std::size_t* size,
                       const State& state, WorldPtr world, uint32_t node,
                       int depth) const {
  if (*size == path->size()) path->emplace_back();
  Frame& frame = (*path)[(*size)++];
  frame.state = state;
  frame.node = node;
  frame.depth = depth;
  frame.world = std::move(world);
  frame.next = 0;
  model::EnabledActions(setup_.config, frame.state, &frame.actions);
}

// The successor of the path's top under its next action, stepped into `next`
// and checked. A new state's checks run once, on its first discoverer's World;
// a state met before is dropped. Returns the node of a new state to descend
// to, or nothing (met before, or a finding: the run failed, or the budget:
// it stopped).
std::optional<uint32_t> Engine::TakeDfsStep(const Frame& top, Step* next,
                                            std::string* key) {
  const Action& action = top.actions[top.next - 1];
  // The model's invariants are the reached state's (not the edge's): checked
  // once, when it is new (a state met before passed them, or the run ended).
  TakeStep(setup_, applicable_, top.state, top.world.get(), action,
           /*check_state=*/false, &counters_, next, /*model_on_edge=*/false);
  if (!next->finding) {
    if (!seen_.Insert(keying_.Key(next->state, exact() ? key : nullptr), *key))
      return std::nullopt;
    if (top.world == nullptr) {
      next->finding = CheckModel(next->state);
    } else {
      next->finding = lockstep::CheckModelState(setup_, next->state);
      if (!next->finding)
        next->finding =
            lockstep::CheckReachedState(setup_, next->state, *next->world);
    }
  }
  if (next->finding) {
    std::vector<Action> trace = traces_.PathTo(top.node);
    trace.push_back(action);
    Fail(*next->finding, std::move(trace));
    return std::nullopt;
  }
  const uint32_t node = traces_.Add(top.node, PackAction(action));
  counters_.CountState(static_cast<std::size_t>(top.depth + 1));
  result_.stats.depth_max = std::max(result_.stats.depth_max, top.depth + 1);
  if (seen_.size() >= options_.max_states) Stop(kMaxStates);
  return node;
}

// Depth first on one thread: the path's top takes its next action; a new
// successor goes on top (its actions are taken before the top's next one), and
// a state whose actions are all taken leaves the path. Memory beyond the seen
// set and the trace store is one path of states and Worlds.
void Engine::RunDfs(const State& root, WorldPtr world) {
  const CacheShare share(world != nullptr ? kDfsCacheDivisor : 1);
  std::vector<Frame> path;
  std::size_t size = 0;
  PushFrame(&path, &size, root, std::move(world), 0, 0);
  Step next;
  std::string key;
  uint64_t taken = 0;
  while (size > 0 && !Stopped() && result_.verdict != Verdict::kViolation) {
    Frame& top = path[size - 1];
    if (top.next == top.actions.size()) {
      top.world.reset();
      --size;
      continue;
    }
    ++top.next;
    if ((++taken & 63) == 0) {
      CheckBudget();
      ShowStatus(top.depth, size);
    }
    const std::optional<uint32_t> node = TakeDfsStep(top, &next, &key);
    if (!node || Stopped()) continue;
    const int depth = top.depth + 1;
    PushFrame(&path, &size, next.state, std::move(next.world), *node, depth);
    result_.frontier_max = std::max<uint64_t>(result_.frontier_max, size);
  }
}

// One walk on its own: the states it visits and what it met. It reads no
// shared state, so its outcome depends on the seed and the walk number alone.
Walk Engine::RunWalk(const State& root, const impl::World* root_world,
                     uint64_t walk) const {
  Walk out;
  uint64_t random = SplitMix64(setup_.seed ^ SplitMix64(walk));
  State state = root;
  WorldPtr world;
  if (root_world != nullptr) world = std::make_unique<impl::World>(*root_world);
  std::vector<Action> trace;
  std::vector<Action> actions;
  std::string key;
  for (int step = 0; step < options_.depth && !Stopped(); ++step) {
    model::EnabledActions(setup_.config, state, &actions);
    if (actions.empty()) break;
    random = SplitMix64(random);
    const Action action = actions[random % actions.size()];
    Successor next = Expand(state, world.get(), action, &out.counters,
                            /*check_state=*/true);
    trace.push_back(action);
    if (next.finding) {
      out.finding = std::make_pair(std::move(*next.finding), trace);
      return out;
    }
    out.fingerprints.push_back(
        keying_.Key(next.state, exact() ? &key : nullptr));
    if (exact()) out.keys.push_back(key);
    state = std::move(next.state);
    world = std::move(next.world);
  }
  return out;
}

// Merges the finished walks that are next in walk order: their new states,
// their counters, and the first finding, after which nothing more is merged.
void Engine::MergeWalks(std::map<uint64_t, Walk>* ready, uint64_t* next_walk) {
  while (!ready->empty() && ready->begin()->first == *next_walk &&
         result_.verdict != Verdict::kViolation && !Stopped()) {
    Walk walk = std::move(ready->begin()->second);
    ready->erase(ready->begin());
    ++*next_walk;
    counters_.Add(walk.counters);
    for (std::size_t k = 0; k < walk.fingerprints.size(); ++k) {
      const std::string_view key =
          exact() ? std::string_view(walk.keys[k]) : std::string_view();
      if (!seen_.Insert(walk.fingerprints[k], key)) continue;
      counters_.CountState(k + 1);
      result_.stats.depth_max =
          std::max<int>(result_.stats.depth_max, static_cast<int>(k + 1));
      if (seen_.size() >= options_.max_states) {
        Stop(kMaxStates);
        return;
      }
    }
    if (walk.finding) {
      Fail(walk.finding->first, std::move(walk.finding->second));
      return;
    }
  }
}

void Engine::RunRandom(const State& root, const impl::World* world) {
  std::atomic<uint64_t> next_walk{0};
  std::atomic<uint64_t> first_finding{UINT64_MAX};
  std::mutex merge_lock;
  std::map<uint64_t, Walk> ready;  // finished, not yet merged
  uint64_t next_merge = 0;
  auto work = [&](std::size_t thread) {
    for (uint64_t walk; (walk = next_walk.fetch_add(1)) < options_.walks;) {
      if (walk > first_finding.load() || Stopped()) return;
      if ((walk & 15) == 0) {
        std::lock_guard<std::mutex> lock(merge_lock);
        CheckBudget();
        if (thread == 0) ShowStatus(options_.depth, options_.walks - walk);
      }
      Walk done = RunWalk(root, world, walk);
      if (done.finding) {
        uint64_t seen = first_finding.load();
        while (walk < seen &&
               !first_finding.compare_exchange_weak(seen, walk)) {
        }
      }
      std::lock_guard<std::mutex> lock(merge_lock);
      ready.emplace(walk, std::move(done));
      MergeWalks(&ready, &next_merge);
    }
  };
  workers_.Run([&](int worker) { work(static_cast<std::size_t>(worker)); });
  MergeWalks(&ready, &next_merge);
}

SearchResult Engine::Finish() {
  Stats& stats = result_.stats;
  stats.states_distinct = seen_.size();
  stats.transitions = counters_.transitions;
  stats.coverage = counters_.coverage;
  stats.states_per_depth = counters_.states_per_depth;
  stats.seconds = clock_.Seconds();
  stats.storage = std::string(Name(options_.storage));
  stats.seen_bytes = seen_.bytes();
  stats.trace_bytes = traces_.bytes();
  stats.collision_probability = seen_.CollisionProbability();
  stats.symmetry_permutations =
      model::PermutationCount(keying_.bounds, keying_.symmetry);
  const auto goals = model::AllGoals();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    if ((applicable_ >> g & 1u) == 0) continue;
    auto& list =
        (counters_.goals >> g & 1u) ? stats.goals_reached : stats.goals_missed;
    list.emplace_back(goals[g].name);
  }
  if (options_.status != nullptr) *options_.status << "\n";
  if (!result_.violations.empty()) {  // keep_going
    result_.verdict = Verdict::kViolation;
    result_.violation = result_.violations.front();
    if (Stopped()) result_.stopped_by = std::string(StopName(stop_.load()));
    return std::move(result_);
  }
  if (result_.verdict == Verdict::kViolation) {
    result_.violations = {*result_.violation};
    return std::move(result_);
  }
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
    result_.violations = {*result_.violation};
  }
  return std::move(result_);
}

SearchResult Engine::Run() {
  const bool ran = CatchMemoryExhaustion([&] {
    State root;
    WorldPtr world;
    if (!Start(&root, &world)) return;
    switch (options_.order) {
      case Order::kBfs:
        RunBfs(root, std::move(world));
        break;
      case Order::kDfs:
        RunDfs(root, std::move(world));
        break;
      case Order::kRandom:
        RunRandom(root, world.get());
        break;
    }
  });
  if (!ran || MemoryExhausted()) Stop(kMemoryLimit);
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

std::string_view Name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kViolation:
      return "violation";
    case Verdict::kIncomplete:
      return "incomplete";
  }
  return "";
}

// Through KeyOf, so that one place decides what a state is looked up by.
uint64_t Keying::Key(const State& state, std::string* key) const {
  uint8_t encoding[model::kEncodedMax];
  const std::size_t size = model::EncodeTo(state, encoding);
  return KeyOf(state,
               std::string_view(reinterpret_cast<const char*>(encoding), size),
               key);
}

bool Keying::Identity() const {
  return model::PermutationCount(bounds, symmetry) == 1;
}

uint64_t Keying::KeyOf(const State& state, std::string_view encoding,
                       std::string* key) const {
  std::string canonical;
  if (!Identity()) {
    model::CanonicalEncoding(bounds, symmetry, state, &canonical);
    encoding = canonical;
  }
  if (!exact) {
    if (key != nullptr) PackEncoding(encoding, key);
    return model::Hash64(encoding);
  }
  std::string packed;
  std::string* out = key != nullptr ? key : &packed;
  PackEncoding(encoding, out);
  return model::Hash64(*out);
}

Keying KeyingOf(const model::Config& config, const Options& options) {
  return Keying{.bounds = config.bounds,
                .symmetry = options.symmetry ? model::SymmetryOf(config)
                                             : model::Symmetry{},
                .exact = options.storage == Storage::kExact};
}

SearchResult SearchModel(const model::Config& config, Options options) {
  options.lockstep = false;
  return Search(lockstep::LockstepSetup{.config = config}, options);
}

Status Replay(const model::Config& config, const std::vector<Action>& trace,
              std::vector<State>* states) {
  states->clear();
  states->push_back(model::Init(config.bounds));
  for (std::size_t k = 0; k < trace.size(); ++k) {
    if (!model::IsEnabled(config, states->back(), trace[k])) {
      return Status::InvalidArgument("step " + std::to_string(k + 1) + " (" +
                                     model::ToString(trace[k]) +
                                     ") is not enabled");
    }
    model::Outcome outcome;
    states->push_back(model::Apply(config, states->back(), trace[k], &outcome));
  }
  return Status::Ok();
}

uint64_t ResidentMegabytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0;
  uint64_t resident = 0;
  if (!(statm >> size >> resident)) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return resident * static_cast<uint64_t>(page > 0 ? page : 4096) >> 20;
}

namespace {

// A depth-first run's violation at depth d, replaced by the first violation
// of a breadth-first run bounded by depth d (search.h): what a BFS run reports,
// with a shortest trace. The DFS's state of the search (counts, coverage) is
// kept. A goal never reached (no trace) and a finding at Init stay as they
// are, and so does the DFS's trace if the bounded BFS breaks nothing (a World
// history the model state does not capture).
void ShortenDfsViolation(const lockstep::LockstepSetup& setup,
                         const Options& options, SearchResult* result) {
  if (result->verdict != Verdict::kViolation || !result->violation ||
      result->violation->trace.empty() || result->violation->loop)
    return;
  Options bounded = options;
  bounded.order = Order::kBfs;
  bounded.max_depth = static_cast<int>(result->violation->trace.size());
  bounded.status = nullptr;
  Engine engine(setup, bounded);
  const SearchResult bfs = engine.Run();
  if (bfs.verdict != Verdict::kViolation || !bfs.violation ||
      bfs.violation->trace.empty() ||
      bfs.violation->trace.size() > result->violation->trace.size())
    return;
  result->violation = bfs.violation;
  result->violations = {*bfs.violation};
}

}  // namespace

SearchResult Search(const lockstep::LockstepSetup& setup,
                    const Options& options) {
  MEMWAL_ASSERT(model::CheckConfig(setup.config).ok());
  MEMWAL_ASSERT(options.threads >= 1 && options.max_states >= 1);
  MEMWAL_ASSERT(!options.keep_going || options.order == Order::kBfs);
  Engine engine(setup, options);
  SearchResult result = engine.Run();
  if (options.order == Order::kDfs)
    ShortenDfsViolation(setup, options, &result);
  return result;
}

}  // namespace memwal::checker::engine
