// CompactedGenerationsEventuallyRetire on the windowed model graph
// (checker/engine/liveness.h).
#include "checker/engine/liveness.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <thread>

#include "base/memory.h"
#include "checker/engine/fair_cycles.h"
#include "checker/engine/interrupt.h"
#include "checker/engine/packed.h"
#include "checker/engine/search.h"
#include "checker/engine/spill.h"
#include "model/read.h"
#include "model/symmetry.h"
#include "model/window.h"

namespace memwal::checker::engine {
namespace {

// The memory budget: --memory-limit's resident megabytes, or an allocation
// that failed (base/memory.h).
bool OverMemory(const LivenessOptions& options) {
  return MemoryExhausted() || (options.memory_limit_mb > 0 &&
                               ResidentMegabytes() > options.memory_limit_mb);
}

using model::Action;
using model::State;

// The classes of FairClass, first number of each kind.
constexpr uint32_t kOptimizeClass = 0;  // + index
constexpr uint32_t kCommitClass = 3;    // + slot
constexpr uint32_t kCleanupClass = 6;
constexpr uint32_t kRetireClass = 7;    // + shard * 4 + generation - 1
constexpr uint32_t kDecideClass = 15;   // same
constexpr uint32_t kExecuteClass = 23;  // same
static_assert(kExecuteClass + model::kShardsMax * model::kGenerationsMax ==
              kNoClass);

// The run's config with the bounds on in-flight transactions and history
// lifted: a begin it enables is enabled for fairness (liveness.h).
model::Config Unbounded(const model::Config& config) {
  model::Config relaxed = config;
  relaxed.bounds.inflight = model::kInflightMax + 1;
  relaxed.bounds.commits = 255;
  return relaxed;
}

// An allocator for the node maps' slot arrays, hundreds of megabytes probed
// at random: aligned to 2 MB and advised to use huge pages, so that a probe
// costs a cache miss and not also a page-table walk. Allocation goes through
// operator new, so running out of memory is reported as everywhere else
// (base/memory.h).
template <typename T>
struct HugePages {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  HugePages() = default;
  template <typename U>
  explicit HugePages(const HugePages<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return std::allocator<T>().allocate(n);
    void* p = ::operator new (bytes, std::align_val_t{kHuge});
    (void)madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHuge) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    ::operator delete (p, std::align_val_t{kHuge});
  }
  friend bool operator==(const HugePages&, const HugePages&) { return true; }
};

// Node numbers by fingerprint: open addressing over (fingerprint, number)
// slots of 12 bytes each, the two side by side so that a probe costs one
// cache line, at most 70% full.
class NodeMap {
 public:
  // The number of `fingerprint`, or `next` (and it is added) when new.
  uint32_t Find(uint64_t fingerprint, uint32_t next, bool* added) {
    if ((size_ + 1) * 10 > slots_.size() * 7) Grow();
    std::size_t k = Home(fingerprint);
    for (;; k = (k + 1) & (slots_.size() - 1)) {
      if (slots_[k].number == kEmpty) break;
      if (slots_[k].key == fingerprint) {
        *added = false;
        return slots_[k].number;
      }
    }
    slots_[k].key = fingerprint;
    slots_[k].number = next;
    ++size_;
    *added = true;
    return next;
  }
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // The number of `fingerprint`, or kEmpty (reads only).
  uint32_t Lookup(uint64_t fingerprint) const {
    if (slots_.empty()) return kEmpty;
    for (std::size_t k = Home(fingerprint);;
         k = (k + 1) & (slots_.size() - 1)) {
      if (slots_[k].number == kEmpty || slots_[k].key == fingerprint)
        return slots_[k].number;
    }
  }
  bool Contains(uint64_t fingerprint) const {
    return Lookup(fingerprint) != kEmpty;
  }
  // Starts loading the slot `fingerprint` is looked up in first.
  void Prefetch(uint64_t fingerprint) const {
    if (slots_.empty()) return;
    // As instructions the compiler keeps: GCC 12 dropped the
    // __builtin_prefetch this was, once inlined into the expansion loop (no
    // prefetch was left in liveness.cc's object code). The next line too when
    // the home slot and the one after it do not fit in this one: a probe goes
    // on over a few slots of 12 bytes, mostly one or two at 70% full. (Both
    // lines always were: at `large` the prefetches waited for free line fill
    // buffers.)
    const char* at = reinterpret_cast<const char*>(&slots_[Home(fingerprint)]);
    asm volatile("prefetcht0 %0" : : "m"(*at));
    if ((reinterpret_cast<uintptr_t>(at) & 63) > 64 - 2 * sizeof(Slot))
      asm volatile("prefetcht0 %0" : : "m"(*(at + 64)));
  }
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct __attribute__((packed)) Slot {
    uint64_t key = 0;
    uint32_t number = kEmpty;
  };
  static_assert(sizeof(Slot) == 12);
  std::size_t Home(uint64_t fingerprint) const {
    return static_cast<std::size_t>(fingerprint ^ (fingerprint >> 31)) &
           (slots_.size() - 1);
  }
  void Grow() {
    std::vector<Slot, HugePages<Slot>> old;
    old.swap(slots_);
    const std::size_t count = old.empty() ? 1024 : 2 * old.size();
    slots_.assign(count, Slot{});
    for (const Slot& slot : old) {
      if (slot.number == kEmpty) continue;
      std::size_t at = Home(slot.key);
      while (slots_[at].number != kEmpty) at = (at + 1) & (count - 1);
      slots_[at] = slot;
    }
  }

  std::vector<Slot, HugePages<Slot>> slots_;
  std::size_t size_ = 0;
};

// Fingerprints of continuation states are tagged apart from the bounded
// graph's.
constexpr uint64_t kWindowedTag = 0x9e3779b97f4a7c15ull;

// The bounded graph's successor (model::Apply, outcome unused).
State Plain(const model::Config& config, const State& state,
            const Action& action) {
  model::Outcome outcome;
  return model::Apply(config, state, action, &outcome);
}

// The continuation's actions (R70): the weakly fair ones, and the MemWAL
// write path that may go on forever (appends, flushes, compactions and their
// progress commits). Every other action of the environment (deletes, column
// updates, fragment rewrites, index builds and drops, activation, restores,
// clones, re-installs, the foreign writers) happens finitely often: in the
// stem, within the run's bounds.
template <typename... A>
constexpr uint32_t KindBits() {
  return (0u | ... | (1u << Action(std::in_place_type<A>).index()));
}
// The kinds of the fair classes (FairClass) and of the MemWAL write path.
constexpr uint32_t kContinuationKinds =
    KindBits<model::OptimizeIndex, model::Commit, model::CleanupVersions,
             model::RetireSsTable, model::RetireDecide, model::RetireExecute,
             model::Append, model::FlushMemTable, model::CompactSsTable,
             model::RecordProgress>();

bool InContinuation(const Action& action) {
  return (kContinuationKinds >> action.index()) & 1u;
}

// R75: in the continuation, a state where a flush is enabled steps only by
// its flushes (they commute with every continuation step, change neither the
// goal nor a fair class's enabledness, and lie on no cycle).
bool IsFlush(const Action& action) {
  return std::holds_alternative<model::FlushMemTable>(action);
}

// Keeps the continuation's steps of `actions` (every enabled action of a
// continuation state) and, under R75's reduction, only the flushes where one
// is enabled.
void ContinuationSteps(bool reduction, std::vector<Action>* actions) {
  const auto drop = [actions](auto predicate) {
    actions->erase(std::remove_if(actions->begin(), actions->end(), predicate),
                   actions->end());
  };
  if (reduction && std::any_of(actions->begin(), actions->end(), IsFlush)) {
    drop([](const Action& a) { return !IsFlush(a); });
    return;
  }
  drop([](const Action& a) { return !InContinuation(a); });
}

// The enabled actions of a bounded-graph state, or of a continuation state
// those of the continuation's kinds.
void EnabledOf(const model::Config& config, const State& state, bool windowed,
               std::vector<Action>* out) {
  model::EnabledActions(config, state, windowed ? kContinuationKinds : ~0u,
                        out);
}

// The enabled actions of a bounded-graph state, or the steps of a
// continuation state (reduced by R75 when `reduction`).
void EnabledSteps(const model::Config& config, const State& state,
                  bool windowed, bool reduction, std::vector<Action>* out) {
  EnabledOf(config, state, windowed, out);
  if (windowed) ContinuationSteps(reduction, out);
}

// Turns of a cycle a replay drives on the implementation at most.
constexpr std::size_t kTurnsMax = 3;

// The shard and index permutations the graph is quotiented by (liveness.h):
// their list (the identity first), composition and inverse tables by
// position, and the renaming of fair classes.
class Frames {
 public:
  Frames(const model::Config& config, bool symmetry)
      : list_(model::Permutations(config.bounds, symmetry
                                                     ? model::SymmetryOf(config)
                                                     : model::Symmetry{})) {
    const std::size_t n = list_.size();
    MEMWAL_ASSERT(n <= 255);
    compose_.resize(n * n);
    inverse_.resize(n);
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b)
        compose_[a * n + b] = Find(model::Compose(list_[a], list_[b]));
      inverse_[a] = Find(model::Inverse(list_[a]));
    }
  }
  std::size_t size() const { return list_.size(); }
  const std::vector<model::Permutation>& list() const { return list_; }
  const model::Permutation& at(uint8_t k) const { return list_[k]; }
  // Position of `second` after `first`.
  uint8_t Compose(uint8_t second, uint8_t first) const {
    return compose_[second * list_.size() + first];
  }
  uint8_t Inverse(uint8_t k) const { return inverse_[k]; }
  // The class of the renamed action (FairClass(Permute(a, at(k)))).
  uint32_t Class(uint32_t c, uint8_t k) const {
    const model::Permutation& p = list_[k];
    if (c == kNoClass) return c;
    if (c < kCommitClass) return kOptimizeClass + p.indexes[c - kOptimizeClass];
    if (c < kRetireClass) return c;
    const uint32_t base =
        c < kDecideClass ? kRetireClass
                         : (c < kExecuteClass ? kDecideClass : kExecuteClass);
    const uint32_t shard = (c - base) / model::kGenerationsMax;
    const uint32_t generation = (c - base) % model::kGenerationsMax;
    return base + p.shards[shard] * model::kGenerationsMax + generation;
  }
  uint32_t Classes(uint32_t mask, uint8_t k) const {
    uint32_t out = 0;
    for (uint32_t c = 0; c < kNoClass; ++c) {
      if ((mask >> c) & 1u) out |= 1u << Class(c, k);
    }
    return out;
  }

 private:
  uint8_t Find(const model::Permutation& p) const {
    for (std::size_t k = 0; k < list_.size(); ++k) {
      if (list_[k].shards == p.shards && list_[k].indexes == p.indexes)
        return static_cast<uint8_t>(k);
    }
    MEMWAL_ASSERT(false);
    return 0;
  }
  std::vector<model::Permutation> list_;
  std::vector<uint8_t> compose_;
  std::vector<uint8_t> inverse_;
};

// The permutation position of every edge, in as few bits as the run's
// permutation count needs (1, 2 or 4: at most 2 shards times 3! index orders).
class EdgeFrames {
 public:
  explicit EdgeFrames(std::size_t permutations)
      : bits_(permutations <= 2 ? 1 : (permutations <= 4 ? 2 : 4)) {
    MEMWAL_ASSERT(permutations <= 16);
  }
  void Push(uint8_t frame) {
    const std::size_t bit = size_ * bits_;
    if (bit / 8 == words_.size()) words_.push_back(0);
    words_.back() |= static_cast<uint8_t>(frame << (bit % 8));
    ++size_;
  }
  uint8_t operator[](std::size_t k) const {
    const std::size_t bit = k * bits_;
    return static_cast<uint8_t>((words_[bit / 8] >> (bit % 8)) &
                                ((1u << bits_) - 1));
  }
  std::size_t bytes() const { return words_.capacity(); }

 private:
  std::size_t bits_;
  std::vector<uint8_t> words_;
  std::size_t size_ = 0;
};

// The product of a quotient SCC with the permutations (liveness.h): node
// j * frames + k is member j seen through permutation k (the concrete state
// Permute(member, at(k))); each edge remembers the quotient edge it lifts.
struct Product {
  FairGraph graph;
  std::vector<uint32_t> origin;  // product edge -> quotient edge position
};

Product Lift(const FairGraph& quotient, const EdgeFrames& edge_frame,
             const Frames& frames, const std::vector<uint32_t>& members,
             const std::vector<bool>& in_scc) {
  Product product;
  const uint32_t count = static_cast<uint32_t>(frames.size());
  std::vector<uint32_t> out;
  for (const uint32_t n : members) {
    for (uint8_t k = 0; k < count; ++k) {
      out.clear();
      for (uint32_t e = quotient.begin[n]; e < quotient.begin[n + 1]; ++e) {
        const uint32_t to = FairGraph::Target(quotient.edges[e]);
        if (!in_scc[to]) continue;
        const uint32_t j = static_cast<uint32_t>(
            std::lower_bound(members.begin(), members.end(), to) -
            members.begin());
        // The successor is Permute(member `to`, inverse(edge frame)) seen
        // through k: frame k after the edge's inverse.
        const uint8_t next = frames.Compose(k, frames.Inverse(edge_frame[e]));
        out.push_back(FairGraph::Edge(
            j * count + next,
            frames.Class(FairGraph::Class(quotient.edges[e]), k)));
        product.origin.push_back(e);
      }
      product.graph.AddNode(frames.Classes(quotient.enabled[n] & ~kGoalBit, k),
                            false, out);
    }
  }
  return product;
}

// Can some lift of the quotient SCC `members` be fair? Not when a whole orbit
// of classes is enabled in every member and no edge inside takes a class of
// it: every lift then has a class enabled throughout and never taken.
bool MayLiftFair(const FairGraph& quotient, const Frames& frames,
                 const std::vector<uint32_t>& members,
                 const std::vector<bool>& in_scc) {
  uint32_t whole_orbits = ~0u;
  uint32_t taken = 0;
  bool has_edge = false;
  for (const uint32_t n : members) {
    uint32_t full = ~0u;
    for (uint8_t k = 0; k < frames.size(); ++k)
      full &= frames.Classes(quotient.enabled[n] & ~kGoalBit, k);
    whole_orbits &= full;
    for (uint32_t e = quotient.begin[n]; e < quotient.begin[n + 1]; ++e) {
      if (!in_scc[FairGraph::Target(quotient.edges[e])]) continue;
      has_edge = true;
      const uint32_t c = FairGraph::Class(quotient.edges[e]);
      if (c == kNoClass) continue;
      for (uint8_t k = 0; k < frames.size(); ++k)
        taken |= 1u << frames.Class(c, k);
    }
  }
  if (!has_edge) return members.size() == 1;
  return (whole_orbits & ~taken & ~kGoalBit & ((1u << kNoClass) - 1)) == 0;
}

// Whether node `n` has an edge to a node of the SCC `in_scc`.
bool HasEdgeWithin(const FairGraph& graph, uint32_t n,
                   const std::vector<bool>& in_scc) {
  for (uint32_t e = graph.begin[n]; e < graph.begin[n + 1]; ++e) {
    if (in_scc[FairGraph::Target(graph.edges[e])]) return true;
  }
  return false;
}

// Does some SCC of `graph` without goal states hold a fair cycle of the
// concrete graph (R72, and with symmetry R73's lift)? *over_budget: the
// memory limit was passed while lifting.
bool HasFairCycle(const FairGraph& graph, const EdgeFrames& edge_frame,
                  const Frames& frames, const LivenessOptions& options,
                  std::size_t* scratch, bool* over_budget) {
  if (frames.size() == 1) return FindFairScc(graph, scratch).has_value();
  bool found = false;
  std::size_t lifted_peak = 0;
  ForEachScc(
      graph,
      [&](const std::vector<uint32_t>& members,
          const std::vector<bool>& in_scc) {
        if (found || *over_budget) return;
        if (members.size() == 1 && !HasEdgeWithin(graph, members[0], in_scc)) {
          // A lone state, no edge inside: every lift is a lone state whose
          // classes are these renamed, fair (a dead end) when there are none.
          found = (graph.enabled[members[0]] & ~kGoalBit) == 0;
          return;
        }
        if (!MayLiftFair(graph, frames, members, in_scc)) return;
        const Product product =
            Lift(graph, edge_frame, frames, members, in_scc);
        std::size_t product_scratch = 0;
        found = FindFairScc(product.graph, &product_scratch).has_value();
        lifted_peak = std::max(lifted_peak, product.graph.bytes() +
                                                product.origin.capacity() * 4 +
                                                product_scratch);
        if (OverMemory(options)) *over_budget = true;
      },
      scratch);
  *scratch += lifted_peak;
  return found;
}

// The continuation never lowers `flushed`, the head's `compacted` or
// `retired` (only a commit of a transaction begun in the bounded graph may:
// a re-install or a foreign reset), and never begins a transaction of a kind
// other than these.
bool BegunInContinuation(model::OpKind kind) {
  return kind == model::OpKind::kAppend ||
         kind == model::OpKind::kCompactSsTable ||
         kind == model::OpKind::kRecordProgress ||
         kind == model::OpKind::kOptimizeIndex;
}

// The layer of a continuation state (R74): the in-flight transactions begun
// before the continuation (fewer is later), the sum of the MemWAL counters
// (more is later: every other step keeps it), and the counters per shard,
// sorted so that renaming shards keeps the layer. The high 16 bits order the
// layers; an edge goes to its own layer or to one of a higher order.
uint64_t LayerOf(const model::Config& config, const State& state) {
  int carried = 0;
  for (int t = 0; t < state.inflight_count; ++t)
    carried += BegunInContinuation(state.inflight[t].kind) ? 0 : 1;
  const model::Version& head = model::Head(state);
  int sum = 0;
  std::array<uint32_t, model::kShardsMax> shards{};
  for (int s = 0; s < config.bounds.shards; ++s) {
    const int retired = model::Count(state.retired[s]);
    sum += state.flushed[s] + head.compacted[s] + retired;
    shards[s] = static_cast<uint32_t>(state.flushed[s]) << 8 |
                static_cast<uint32_t>(head.compacted[s]) << 4 |
                static_cast<uint32_t>(retired);
  }
  std::sort(shards.begin(), shards.end());
  uint64_t key = static_cast<uint64_t>(model::kInflightMax - carried) << 56 |
                 static_cast<uint64_t>(sum) << 48;
  for (int s = 0; s < model::kShardsMax; ++s)
    key |= static_cast<uint64_t>(shards[s]) << (12 * s);
  return key;
}

uint64_t LayerOrder(uint64_t layer) { return layer >> 48; }

// A part of the graph being built: its nodes by fingerprint, and the packed
// states of those not yet expanded, in node order, queued on disk.
struct Part {
  NodeMap nodes;
  SpillQueue queue;
  uint32_t size = 0;
  std::size_t bytes() const { return nodes.bytes() + queue.bytes(); }
};

// One successor of an expanded state: its orbit's representative (packed),
// fingerprint, layer (R74; 0 in the bounded graph), the permutation to it, the
// fair class of the step, and whether it is the fold into the continuation.
struct LayerStep {
  uint64_t print = 0;
  uint64_t layer = 0;
  // The successor's node when the expanding thread found it (in the part
  // being expanded; in a later part: only that it is there), else
  // NodeMap::kEmpty.
  uint32_t node = NodeMap::kEmpty;
  uint32_t fair_class = kNoClass;
  uint8_t frame = 0;
  bool into = false;
  std::string packed;
};

struct LayerExpansion {
  std::vector<LayerStep> next;
  uint32_t enabled = 0;  // FairEnabled
  bool goal = false;     // Discharged
};

// States a chunk of the layered pass holds.
constexpr uint32_t kChunk = 4096;

// The representative of `next`'s orbit into *out: its fingerprint, the
// position of the permutation that maps `next` to it, and its encoding (in
// *encoding; packed later, only when the state is new).
void ToRepresentative(const Frames& frames, const State& next, LayerStep* out,
                      std::string* encoding) {
  // One permutation: the encoding of `next` itself, whose hash is
  // model::Fingerprint(next).
  const std::size_t k = model::CanonicalPosition(frames.list(), next, encoding);
  out->print = model::Hash64(*encoding);
  out->frame = static_cast<uint8_t>(k);
}

// The fair classes enabled in `state` (FairEnabled) from its enabled
// actions, already listed.
uint32_t FairEnabledAmong(const model::Config& config, const State& state,
                          const std::vector<Action>& actions) {
  uint32_t mask = 0;
  for (const Action& action : actions) {
    const uint32_t c = FairClass(action);
    if (c != kNoClass) mask |= 1u << c;
  }
  const model::Config relaxed = Unbounded(config);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if ((mask >> (kOptimizeClass + i)) & 1u) continue;
    if (model::IsEnabled(relaxed, state, Action{model::OptimizeIndex{i}}))
      mask |= 1u << (kOptimizeClass + i);
  }
  return mask;
}

// Expands records[k] into (*expansions)[k] for every k, on `threads` threads
// each taking a contiguous slice. A successor is packed only when `known`
// (which reads the parts, unchanged while the threads run, and gives its node
// or NodeMap::kEmpty) does not already hold it: most edges lead to a known
// state, whose node the merge then need not look up again. A state's successors
// are looked up only after the next two states' are built, their slots loaded
// meanwhile (`prefetch`): the lookups are cache misses in a layer of millions
// of states.
template <typename Known, typename Prefetch>
void ExpandLayerChunk(const model::Config& config, const Frames& frames,
                      bool windowed, bool reduction,
                      const std::vector<std::string>& records, int threads,
                      const Known& known, const Prefetch& prefetch,
                      std::vector<LayerExpansion>* expansions) {
  auto slice = [&](std::size_t begin, std::size_t end) {
    State state;
    State after;
    std::vector<Action> actions;
    // The encodings of the successors of the last kLag + 1 states built: a
    // state's successors are looked up only once kLag more states are built,
    // so that the slots prefetched as they were built have arrived.
    constexpr std::size_t kLag = 2;
    std::array<std::vector<std::string>, kLag + 1> encodings;
    const auto resolve = [&](std::size_t k) {
      LayerExpansion& expansion = (*expansions)[k];
      std::vector<std::string>& built = encodings[k % (kLag + 1)];
      for (std::size_t a = 0; a < expansion.next.size(); ++a) {
        LayerStep& next = expansion.next[a];
        next.node = known(next);
        if (next.node != NodeMap::kEmpty)
          next.packed.clear();
        else
          PackEncoding(built[a], &next.packed);
      }
    };
    for (std::size_t k = begin; k < end; ++k) {
      MEMWAL_ASSERT(Unpack(records[k], &state));
      LayerExpansion& expansion = (*expansions)[k];
      std::vector<std::string>& built = encodings[k % (kLag + 1)];
      EnabledOf(config, state, windowed, &actions);
      expansion.enabled = FairEnabledAmong(config, state, actions);
      expansion.goal = Discharged(config, state);
      if (windowed) ContinuationSteps(reduction, &actions);
      const std::size_t steps = actions.size() + (windowed ? 0 : 1);
      expansion.next.resize(steps);
      if (built.size() < steps) built.resize(steps);
      for (std::size_t a = 0; a < actions.size(); ++a) {
        LayerStep& next = expansion.next[a];
        // Step or Plain, into one state reused (model::Apply by value copied
        // the state twice per edge).
        after = state;
        model::Outcome outcome;
        model::Apply(config, actions[a], &after, &outcome);
        if (windowed) model::Fold(config, &after);
        ToRepresentative(frames, after, &next, &built[a]);
        next.layer = windowed ? LayerOf(config, after) : 0;
        next.fair_class = FairClass(actions[a]);
        next.into = false;
        prefetch(next);
      }
      if (!windowed) {
        State folded = state;
        model::Fold(config, &folded);
        LayerStep& next = expansion.next.back();
        ToRepresentative(frames, folded, &next, &built[steps - 1]);
        next.layer = LayerOf(config, folded);
        next.fair_class = kNoClass;
        next.into = true;
        prefetch(next);
      }
      if (k >= begin + kLag) resolve(k - kLag);
    }
    for (std::size_t k = std::max(begin, end >= kLag ? end - kLag : 0); k < end;
         ++k)
      resolve(k);
  };
  const std::size_t count = records.size();
  const std::size_t workers =
      std::clamp<std::size_t>(static_cast<std::size_t>(threads), 1,
                              std::max<std::size_t>(1, count / 256));
  if (workers == 1) {
    slice(0, count);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t per = (count + workers - 1) / workers;
  for (std::size_t w = 1; w < workers; ++w) {
    const std::size_t begin = std::min(count, w * per);
    const std::size_t end = std::min(count, (w + 1) * per);
    // The thread's outermost frame (base/memory.h).
    pool.emplace_back([&slice, begin, end] {
      (void)CatchMemoryExhaustion([&] { slice(begin, end); });
    });
  }
  slice(0, std::min(count, per));
  for (std::thread& worker : pool) worker.join();
}

// Adds the packed state (already its orbit's representative) to `part`
// unless there, counting it in *discovered. The number of its node.
uint32_t AddPacked(Part* part, uint64_t print, std::string_view packed,
                   uint64_t* discovered) {
  bool added = false;
  const uint32_t n = part->nodes.Find(print, part->size, &added);
  if (!added) return n;
  MEMWAL_ASSERT(!packed.empty());  // packed unless known before (Expand)
  ++part->size;
  ++*discovered;
  part->queue.Push(packed);
  return n;
}

enum class SweepEnd { kNoFairCycle, kFairCycle, kStopped, kNotLayered };

struct Sweep {
  SweepEnd end = SweepEnd::kNoFairCycle;
  const char* stopped_by = "";
  std::string error{};  // a layer queue's I/O error
  uint64_t states = 0;  // discovered
  uint64_t edges = 0;
  uint64_t peak_bytes = 0;
  uint64_t layers = 0;
  uint64_t largest_layer = 0;
  double collision_probability = 0;
  // kFairCycle: the layer it was found in (nullopt: the bounded graph).
  std::optional<uint64_t> fair_layer{};
};

// R74: the liveness graph one layer at a time. The bounded graph first (its
// own SCCs), then the continuation's layers in order: a layer is complete
// when every earlier one is expanded, its SCCs are the graph's SCCs inside
// it, and it is dropped once they are tested. Only the current layer's
// graph and the not yet expanded states of later layers are kept.
class LayerSweep {
 public:
  LayerSweep(const model::Config& config, const LivenessOptions& options,
             const Frames& frames)
      : config_(config),
        options_(options),
        frames_(frames),
        symmetric_(frames.size() > 1) {}

  Sweep Run() {
    {
      Part bounded;
      LayerStep init;
      std::string encoding;
      ToRepresentative(frames_, model::Init(config_.bounds), &init, &encoding);
      PackEncoding(encoding, &init.packed);
      AddPacked(&bounded, init.print, init.packed, &sweep_.states);
      sweep_.end = Expand(bounded, 0, false);
      ++sweep_.layers;
    }
    while (sweep_.end == SweepEnd::kNoFairCycle && !later_.empty()) {
      auto first = later_.begin();
      const uint64_t layer = first->first;
      Part part = std::move(first->second);
      later_.erase(first);
      sweep_.end = Expand(part, layer, true);
      ++sweep_.layers;
    }
    // 64-bit fingerprints: a pair of distinct states of one part collides
    // with probability 2^-64.
    sweep_.collision_probability = pairs_ / 18446744073709551616.0;
    return sweep_;
  }

 private:
  // The graph of the part being expanded.
  struct Layer {
    explicit Layer(std::size_t frames) : edge_frame(frames) {}
    FairGraph graph;
    EdgeFrames edge_frame;
  };

  std::size_t BytesNow(const Part& part, const Layer& built) const {
    std::size_t bytes =
        part.bytes() + built.graph.bytes() + built.edge_frame.bytes();
    for (const auto& [key, pending] : later_) bytes += pending.bytes();
    return bytes;
  }

  // Why the search must stop now (interrupt, memory), or nullopt.
  std::optional<SweepEnd> Stop() {
    if (Interrupted()) {
      sweep_.stopped_by = InterruptName().data();
      return SweepEnd::kStopped;
    }
    if (options_.cancel != nullptr && options_.cancel->load()) {
      sweep_.stopped_by = "cancelled";
      return SweepEnd::kStopped;
    }
    if (OverMemory(options_)) {
      sweep_.stopped_by = "memory-limit";
      return SweepEnd::kStopped;
    }
    return std::nullopt;
  }

  // Pops the next `count` records of `part`'s queue into records_.
  std::optional<SweepEnd> PopChunk(Part& part, uint32_t count) {
    records_.resize(count);
    for (uint32_t k = 0; k < count; ++k) {
      if (!part.queue.Pop(&records_[k])) {
        sweep_.stopped_by = "layer-queue";
        sweep_.error = part.queue.status().message();
        return SweepEnd::kStopped;
      }
    }
    return std::nullopt;
  }

  // One expanded state's edges: into `part` (its node added to the graph)
  // or, for a later layer, into that layer's queue.
  std::optional<SweepEnd> AddNode(Part& part, uint64_t layer, bool windowed,
                                  const LayerExpansion& expansion,
                                  Layer* built) {
    out_.clear();
    for (const LayerStep& next : expansion.next) {
      ++sweep_.edges;
      if (windowed || next.into) {
        if (next.into || next.layer != layer) {
          // An edge back to an earlier layer, or across to another of the
          // same order: the counters are not monotone here.
          if (windowed && LayerOrder(next.layer) <= LayerOrder(layer))
            return SweepEnd::kNotLayered;
          if (next.node == NodeMap::kEmpty) {
            AddPacked(&later_[next.layer], next.print ^ kWindowedTag,
                      next.packed, &sweep_.states);
          }
          continue;
        }
      }
      const uint32_t target =
          next.node != NodeMap::kEmpty
              ? next.node
              : AddPacked(&part,
                          windowed ? next.print ^ kWindowedTag : next.print,
                          next.packed, &sweep_.states);
      out_.push_back(FairGraph::Edge(target, next.fair_class));
      if (symmetric_) built->edge_frame.Push(next.frame);
    }
    built->graph.AddNode(expansion.enabled, expansion.goal, out_);
    return std::nullopt;
  }

  // The layer's SCCs tested for a fair cycle, once `part` is expanded.
  SweepEnd TestSccs(Part& part, uint64_t layer, bool windowed,
                    const Layer& built) {
    // Peak bytes: the layer as built (its node map included), then its SCC
    // search once the node map is dropped.
    sweep_.peak_bytes =
        std::max<uint64_t>(sweep_.peak_bytes, BytesNow(part, built));
    part.nodes = NodeMap();  // the graph is all the SCCs need
    sweep_.largest_layer = std::max<uint64_t>(sweep_.largest_layer, part.size);
    pairs_ += static_cast<double>(part.size) * part.size / 2;
    std::size_t scc_scratch = 0;
    bool over_budget = false;
    const bool fair = HasFairCycle(built.graph, built.edge_frame, frames_,
                                   options_, &scc_scratch, &over_budget);
    sweep_.peak_bytes = std::max<uint64_t>(sweep_.peak_bytes,
                                           BytesNow(part, built) + scc_scratch);
    if (over_budget) {
      sweep_.stopped_by = "memory-limit";
      return SweepEnd::kStopped;
    }
    if (!fair) return SweepEnd::kNoFairCycle;
    if (windowed) sweep_.fair_layer = layer;
    return SweepEnd::kFairCycle;
  }

  // Expands every state of `part` (whose layer is `layer`, or the bounded
  // graph when `windowed` is false) and tests its SCCs.
  SweepEnd Expand(Part& part, uint64_t layer, bool windowed) {
    Layer built(frames_.size());
    // The successor's node if it is one already (AddNode then adds nothing),
    // else NodeMap::kEmpty.
    const auto known = [&](const LayerStep& next) {
      if ((windowed || next.into) && (next.into || next.layer != layer)) {
        const auto it = later_.find(next.layer);
        return it == later_.end()
                   ? NodeMap::kEmpty
                   : it->second.nodes.Lookup(next.print ^ kWindowedTag);
      }
      return part.nodes.Lookup(windowed ? next.print ^ kWindowedTag
                                        : next.print);
    };
    const auto prefetch = [&](const LayerStep& next) {
      if ((windowed || next.into) && (next.into || next.layer != layer)) {
        const auto it = later_.find(next.layer);
        if (it != later_.end())
          it->second.nodes.Prefetch(next.print ^ kWindowedTag);
        return;
      }
      part.nodes.Prefetch(windowed ? next.print ^ kWindowedTag : next.print);
    };
    for (uint32_t n = 0; n < part.size;) {
      if (const std::optional<SweepEnd> stop = Stop()) return *stop;
      // A chunk of the queue, expanded by the threads, then merged in order:
      // node numbers are those of a one-thread expansion.
      const uint32_t count = std::min<uint32_t>(kChunk, part.size - n);
      if (const std::optional<SweepEnd> stop = PopChunk(part, count))
        return *stop;
      expansions_.resize(count);
      const int threads = options_.threads_now != nullptr
                              ? options_.threads_now->load()
                              : options_.threads;
      ExpandLayerChunk(config_, frames_, windowed, options_.reduction, records_,
                       threads, known, prefetch, &expansions_);
      if (MemoryExhausted()) {  // a thread ended its slice early
        sweep_.stopped_by = "memory-limit";
        return SweepEnd::kStopped;
      }
      // The merge looks up every successor the threads did not find (it may
      // be new in the chunk): the slots of a few expansions ahead are loaded
      // meanwhile.
      constexpr uint32_t kAhead = 4;
      const auto prefetch_unknown = [&](const LayerExpansion& expansion) {
        for (const LayerStep& next : expansion.next) {
          if (next.node == NodeMap::kEmpty) prefetch(next);
        }
      };
      for (uint32_t k = 0; k < std::min(kAhead, count); ++k)
        prefetch_unknown(expansions_[k]);
      for (uint32_t k = 0; k < count; ++k) {
        if (k + kAhead < count) prefetch_unknown(expansions_[k + kAhead]);
        if (const std::optional<SweepEnd> end =
                AddNode(part, layer, windowed, expansions_[k], &built))
          return *end;
      }
      n += count;
      if (part.size + 1 >= kMaxNodes || sweep_.states > options_.max_states) {
        sweep_.stopped_by = "max-states";
        return SweepEnd::kStopped;
      }
    }
    return TestSccs(part, layer, windowed, built);
  }

  const model::Config& config_;
  const LivenessOptions& options_;
  const Frames& frames_;
  const bool symmetric_;
  Sweep sweep_;
  std::map<uint64_t, Part> later_;  // continuation layers not yet expanded
  std::vector<uint32_t> out_;
  std::vector<std::string> records_;
  std::vector<LayerExpansion> expansions_;
  double pairs_ = 0;  // sum over parts of n^2 / 2: fingerprint pairs compared
};

Sweep SweepLayers(const model::Config& config, const LivenessOptions& options,
                  const Frames& frames) {
  return LayerSweep(config, options, frames).Run();
}

}  // namespace

uint32_t FairClass(const Action& action) {
  const std::array<int, 2> p = model::ActionParams(action);
  const auto wal = [&p](uint32_t first) {
    return first +
           static_cast<uint32_t>(p[0] * model::kGenerationsMax + p[1] - 1);
  };
  if (std::holds_alternative<model::OptimizeIndex>(action))
    return kOptimizeClass + static_cast<uint32_t>(p[0]);
  if (std::holds_alternative<model::Commit>(action))
    return kCommitClass + static_cast<uint32_t>(p[0]);
  if (std::holds_alternative<model::CleanupVersions>(action))
    return kCleanupClass;
  if (std::holds_alternative<model::RetireSsTable>(action))
    return wal(kRetireClass);
  if (std::holds_alternative<model::RetireDecide>(action))
    return wal(kDecideClass);
  if (std::holds_alternative<model::RetireExecute>(action))
    return wal(kExecuteClass);
  return kNoClass;
}

uint32_t FairEnabled(const model::Config& config, const State& state) {
  std::vector<Action> actions;
  model::EnabledActions(config, state, &actions);
  return FairEnabledAmong(config, state, actions);
}

State Step(const model::Config& config, const State& state,
           const Action& action) {
  model::Outcome outcome;
  State next = model::Apply(config, state, action, &outcome);
  model::Fold(config, &next);
  return next;
}

bool AllCompactedRetirable(const model::Config& config, const State& state) {
  const model::Version& head = model::Head(state);
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= head.compacted[s]; ++g) {
      if (model::Contains(state.retired[s], g - 1)) continue;
      if (!model::Retirable(config, state, s, g)) return false;
    }
  }
  return true;
}

bool Discharged(const model::Config& config, const State& state) {
  return model::Head(state).live == 0 || AllCompactedRetirable(config, state);
}

std::string StuckGenerations(const model::Config& config, const State& state) {
  std::string out;
  const model::Version& head = model::Head(state);
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= head.compacted[s]; ++g) {
      if (model::Contains(state.retired[s], g - 1) ||
          model::Retirable(config, state, s, g))
        continue;
      out += (out.empty() ? "" : ", ") + std::string("(") + std::to_string(s) +
             "," + std::to_string(g) + ")";
    }
  }
  return out;
}

namespace {

// The note of a lasso: the generations stuck at the loop state and what the
// cycle keeps doing.
std::string Explain(const model::Config& config, const State& at_loop,
                    const std::vector<Action>& cycle) {
  std::string kinds;
  for (const Action& action : cycle) {
    const std::string kind(model::KindName(action));
    if (kinds.find(kind) == std::string::npos)
      kinds += (kinds.empty() ? "" : ", ") + kind;
  }
  if (cycle.empty()) {
    return "compacted generation(s) " + StuckGenerations(config, at_loop) +
           " never become retirable: no weakly fair action is enabled in the "
           "last state, so the run may stay there forever (a dead end)";
  }
  return "compacted generation(s) " + StuckGenerations(config, at_loop) +
         " never become retirable: a fair cycle of " +
         std::to_string(cycle.size()) + " steps (" + kinds +
         ") repeats forever, every weakly fair action enabled throughout it "
         "is taken in it, and no state on it is a goal state";
}

}  // namespace

LivenessBeside::LivenessBeside(const model::Config& config,
                               LivenessOptions options) {
  options.cancel = &cancel_;
  threads_ = std::max(1, options.threads);
  threads_now_.store(std::max(1, options.threads - 1));
  options.threads_now = &threads_now_;
  thread_ = std::thread([this, config, options] {
    const auto start = std::chrono::steady_clock::now();
    result_ = CheckLiveness(config, options);
    seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  });
}

LivenessBeside::~LivenessBeside() {
  if (thread_.joinable()) Finish(false);
}

const LivenessResult& LivenessBeside::Finish(bool search_ok) {
  MEMWAL_ASSERT(thread_.joinable());
  if (!search_ok) cancel_.store(true);
  threads_now_.store(threads_);  // the search's core is free now
  thread_.join();
  return result_;
}

LivenessResult CheckLiveness(const model::Config& config, uint64_t max_states) {
  return CheckLiveness(config, LivenessOptions{.max_states = max_states});
}

// First the layers (SweepLayers, R74) decide the verdict with only one layer
// in memory; the whole graph is built only to rebuild the lasso of a fair
// cycle they found, or where they do not apply. The whole graph:
// one BFS builds the windowed graph: per node its fingerprint's slot in the
// node map, the fair classes enabled in it and the goal bit (4 bytes), its
// edge offset (4 bytes) and its out-edges (4 bytes each: target and fair
// class; with symmetry 1 more: the permutation to the target's
// representative). The states themselves are kept only while queued. Then
// Tarjan's SCCs (8 bytes a node) find a fair cycle, and the lasso is rebuilt
// by re-expanding the states along it.
//
// With symmetry a node is an orbit, stored as its canonical representative,
// and edges and classes are in the representative's frame. A fair cycle of
// the concrete graph is a fair cycle of the product of an SCC with the
// permutations (Lift), which is a copy of that part of the concrete graph;
// only SCCs without goal states that MayLiftFair are lifted.
namespace {
LivenessResult CheckLivenessOnce(const model::Config& config,
                                 const LivenessOptions& options);
}  // namespace

// Running out of memory (base/memory.h) anywhere in the check stops it as the
// memory limit does.
LivenessResult CheckLiveness(const model::Config& config,
                             const LivenessOptions& options) {
  LivenessResult result;
  const bool ran = CatchMemoryExhaustion(
      [&] { result = CheckLivenessOnce(config, options); });
  if (!ran) {
    result = LivenessResult{};
    result.complete = false;
    result.stopped_by = "memory-limit";
  }
  return result;
}

namespace {

// The layered sweep first (spec R74): true when its answer is the result
// (no fair cycle, or stopped). Otherwise *expand_through says how far the
// whole graph is expanded (a fair layer: up to it, so that the lasso nearest
// Init is rebuilt; nullopt inside: only the bounded graph) and *layered_fair
// whether the sweep found a fair cycle.
bool SweepFirst(const model::Config& config, const LivenessOptions& options,
                const Frames& frames, LivenessResult* result,
                std::optional<std::optional<uint64_t>>* expand_through,
                bool* layered_fair) {
  const Sweep sweep = SweepLayers(config, options, frames);
  result->layers = sweep.layers;
  result->largest_layer = sweep.largest_layer;
  result->states = sweep.states;
  result->edges = sweep.edges;
  result->bytes = sweep.peak_bytes;
  result->collision_probability = sweep.collision_probability;
  switch (sweep.end) {
    case SweepEnd::kNoFairCycle:
      return true;
    case SweepEnd::kStopped:
      result->complete = false;
      result->stopped_by = sweep.stopped_by;
      result->note = sweep.error;
      return true;
    case SweepEnd::kFairCycle:
      *layered_fair = true;
      *expand_through = sweep.fair_layer;
      result->note =
          "a fair cycle without a goal state exists (found layer by layer, "
          "spec R74); its lasso needs the graph up to its layer";
      break;
    case SweepEnd::kNotLayered:
      result->note =
          "the layers of spec R74 do not apply to this run (a step lowers a "
          "MemWAL counter); the whole graph was built";
      break;
  }
  result->layers = 0;
  result->largest_layer = 0;
  return false;
}

// The whole liveness graph, built breadth first from Init: nodes by
// fingerprint (orbits, with symmetry), each node's edges with their fair
// classes and (with symmetry) frames.
class GraphBuild {
 public:
  GraphBuild(const model::Config& config, const Frames& frames, bool reduction,
             std::optional<std::optional<uint64_t>> expand_through)
      : config_(config),
        frames_(frames),
        symmetric_(frames.size() > 1),
        reduction_(reduction),
        expand_through_(expand_through),
        edge_frame_(frames.size()) {}

  // Expands every node; the reason it stopped, or nothing when it is whole.
  std::optional<std::string> Build(const LivenessOptions& options);
  uint64_t bytes() const {
    return nodes_.bytes() + graph_.bytes() + edge_frame_.bytes();
  }
  uint32_t discovered() const { return discovered_; }
  bool symmetric() const { return symmetric_; }
  bool reduction() const { return reduction_; }
  const FairGraph& graph() const { return graph_; }
  const EdgeFrames& edge_frame() const { return edge_frame_; }
  const std::vector<bool>& windowed_node() const { return windowed_node_; }
  uint8_t init_frame() const { return init_frame_; }

 private:
  struct Queued {
    std::string packed;
    bool windowed;
    bool beyond;  // past expand_through: a node, never expanded
  };
  uint32_t Discover(const State& state, bool windowed, uint8_t* frame);
  void ExpandNode(const State& state, bool windowed);

  const model::Config& config_;
  const Frames& frames_;
  const bool symmetric_;
  const bool reduction_;  // R75
  const std::optional<std::optional<uint64_t>> expand_through_;
  NodeMap nodes_;
  FairGraph graph_;
  EdgeFrames edge_frame_;  // by edge, with symmetry
  std::deque<Queued> queue_;
  std::vector<bool> windowed_node_;  // by node: the continuation's
  uint32_t discovered_ = 0;
  uint8_t init_frame_ = 0;
  std::string encoding_;
  std::vector<Action> actions_;
  std::vector<uint32_t> out_;
};

// The node of `state`'s orbit; *frame: the position of the permutation that
// maps `state` to the node's representative.
uint32_t GraphBuild::Discover(const State& state, bool windowed,
                              uint8_t* frame) {
  bool added = false;
  uint64_t print = 0;
  std::size_t k = 0;
  if (symmetric_) {
    k = model::CanonicalPosition(frames_.list(), state, &encoding_);
    print = model::Hash64(encoding_);
  } else {
    print = model::Fingerprint(state);
  }
  *frame = static_cast<uint8_t>(k);
  const uint32_t n =
      nodes_.Find(print ^ (windowed ? kWindowedTag : 0), discovered_, &added);
  if (added) {
    ++discovered_;
    windowed_node_.push_back(windowed);
    std::string packed;
    Pack(k == 0 ? state : model::Permute(state, frames_.list()[k]), &packed);
    const bool beyond =
        windowed && expand_through_ &&
        (!expand_through_->has_value() ||
         LayerOrder(LayerOf(config_, state)) > LayerOrder(**expand_through_));
    queue_.push_back(Queued{std::move(packed), windowed, beyond});
  }
  return n;
}

// A node's edges: its enabled steps and, outside the continuation, the edge
// into it (the folded state).
void GraphBuild::ExpandNode(const State& state, bool windowed) {
  EnabledSteps(config_, state, windowed, reduction_, &actions_);
  out_.clear();
  uint8_t frame = 0;
  const auto edge = [&](uint32_t target, uint32_t fair_class) {
    out_.push_back(FairGraph::Edge(target, fair_class));
    if (symmetric_) edge_frame_.Push(frame);
  };
  for (const Action& action : actions_) {
    const uint32_t n =
        windowed ? Discover(Step(config_, state, action), true, &frame)
                 : Discover(Plain(config_, state, action), false, &frame);
    edge(n, FairClass(action));
  }
  if (!windowed) {
    State folded = state;
    model::Fold(config_, &folded);
    edge(Discover(folded, true, &frame), kNoClass);
  }
  graph_.AddNode(FairEnabled(config_, state), Discharged(config_, state), out_);
}

std::optional<std::string> GraphBuild::Build(const LivenessOptions& options) {
  Discover(model::Init(config_.bounds), false, &init_frame_);
  State state;
  uint64_t expanded = 0;
  while (!queue_.empty()) {
    MEMWAL_ASSERT(Unpack(queue_.front().packed, &state));
    const bool windowed = queue_.front().windowed;
    const bool beyond = queue_.front().beyond;
    queue_.pop_front();
    if (beyond) {
      out_.clear();
      graph_.AddNode(0, true, out_);
      continue;
    }
    if ((++expanded & 1023) == 0 && Interrupted())
      return std::string(InterruptName());
    if ((expanded & 1023) == 0 && options.cancel != nullptr &&
        options.cancel->load())
      return "cancelled";
    if ((expanded & 1023) == 0 && OverMemory(options)) return "memory-limit";
    ExpandNode(state, windowed);
    if (discovered_ > options.max_states || discovered_ + 1 >= kMaxNodes)
      return "max-states";
  }
  return std::nullopt;
}

// A lasso in the graph: the edge positions of its steps from node 0, and
// where its cycle starts among them.
struct LassoSteps {
  std::vector<uint32_t> steps;
  std::size_t loop = 0;
};

// With symmetry: the lifted SCC nearest node 0 (smallest least member) with a
// fair SCC in its product, and that fair SCC.
struct LiftedScc {
  std::vector<uint32_t> members;
  std::vector<uint32_t> fair;
  Product product;
};
std::optional<LiftedScc> NearestLiftedFairScc(const GraphBuild& build,
                                              const Frames& frames,
                                              const LivenessOptions& options,
                                              std::size_t* scratch,
                                              bool* over_budget) {
  std::optional<LiftedScc> best;
  std::size_t lifted_peak = 0;
  ForEachScc(
      build.graph(),
      [&](const std::vector<uint32_t>& members,
          const std::vector<bool>& in_scc) {
        if (*over_budget) return;
        if (best && best->members.front() < members.front()) return;
        if (!MayLiftFair(build.graph(), frames, members, in_scc)) return;
        Product product =
            Lift(build.graph(), build.edge_frame(), frames, members, in_scc);
        std::size_t product_scratch = 0;
        const std::optional<std::vector<uint32_t>> fair =
            FindFairScc(product.graph, &product_scratch);
        lifted_peak = std::max(lifted_peak, product.graph.bytes() +
                                                product.origin.capacity() * 4 +
                                                product_scratch);
        if (OverMemory(options)) {
          *over_budget = true;
          return;
        }
        if (!fair) return;
        best = LiftedScc{members, *fair, std::move(product)};
      },
      scratch);
  *scratch += lifted_peak;
  return best;
}

// The lasso through a lifted fair SCC: a shortest stem in the quotient to a
// member the fair SCC passes, following the frame it arrives in, then the
// cycle in the product, renamed so that it starts where the stem ends (the
// product is closed under renaming, and renaming keeps an SCC fair).
LassoSteps LassoThroughProduct(const GraphBuild& build, const Frames& frames,
                               const LiftedScc& lifted) {
  const FairGraph& graph = build.graph();
  const std::vector<uint32_t>& members = lifted.members;
  const uint32_t count = static_cast<uint32_t>(frames.size());
  std::vector<bool> passed(graph.size(), false);
  for (const uint32_t p : lifted.fair) passed[members[p / count]] = true;
  const std::optional<std::vector<uint32_t>> stem =
      ShortestPathInto(graph, 0, passed);
  MEMWAL_ASSERT(stem.has_value());
  uint8_t frame = frames.Inverse(build.init_frame());
  uint32_t node = 0;
  for (const uint32_t position : *stem) {
    frame = frames.Compose(frame, frames.Inverse(build.edge_frame()[position]));
    node = FairGraph::Target(graph.edges[position]);
  }
  const uint32_t j = static_cast<uint32_t>(
      std::lower_bound(members.begin(), members.end(), node) - members.begin());
  std::optional<uint8_t> there;
  for (const uint32_t p : lifted.fair) {
    if (p / count == j) {
      there = static_cast<uint8_t>(p % count);
      break;
    }
  }
  MEMWAL_ASSERT(there.has_value());
  const uint8_t shift = frames.Compose(frame, frames.Inverse(*there));
  std::vector<uint32_t> renamed;
  for (const uint32_t p : lifted.fair) {
    renamed.push_back((p / count) * count +
                      frames.Compose(shift, static_cast<uint8_t>(p % count)));
  }
  std::sort(renamed.begin(), renamed.end());
  const Lasso cycle =
      BuildLasso(lifted.product.graph, renamed, j * count + frame);
  MEMWAL_ASSERT(cycle.loop == 0);
  LassoSteps out{.steps = *stem, .loop = stem->size()};
  for (const uint32_t p : cycle.steps)
    out.steps.push_back(lifted.product.origin[p]);
  return out;
}

// The lasso nearest Init in the built graph, if a fair cycle exists.
std::optional<LassoSteps> FindLassoSteps(const GraphBuild& build,
                                         const Frames& frames,
                                         const LivenessOptions& options,
                                         std::size_t* scratch,
                                         bool* over_budget) {
  if (!build.symmetric()) {
    const std::optional<std::vector<uint32_t>> scc =
        FindFairScc(build.graph(), scratch);
    if (!scc) return std::nullopt;
    const Lasso lasso = BuildLasso(build.graph(), *scc);
    return LassoSteps{.steps = lasso.steps, .loop = lasso.loop};
  }
  const std::optional<LiftedScc> lifted =
      NearestLiftedFairScc(build, frames, options, scratch, over_budget);
  if (*over_budget || !lifted) return std::nullopt;
  return LassoThroughProduct(build, frames, *lifted);
}

// The concrete lasso from the graph's steps into result's trace, states,
// loop and window: `at` is the state the run is in, `canon` the
// representative of its node, at = Permute(canon, frame).
void ConcreteLasso(const model::Config& config, const GraphBuild& build,
                   const Frames& frames, const LassoSteps& lasso,
                   LivenessResult* result) {
  const FairGraph& graph = build.graph();
  const State init = model::Init(config.bounds);
  State at = init;
  State canon = build.init_frame() == 0
                    ? init
                    : model::Permute(init, frames.at(build.init_frame()));
  uint8_t frame = frames.Inverse(build.init_frame());
  uint32_t node = 0;
  std::vector<Action> actions;
  result->states_on_trace.push_back(at);
  for (std::size_t k = 0; k < lasso.steps.size(); ++k) {
    const uint32_t position = lasso.steps[k];
    if (k == lasso.loop) result->loop = result->trace.size();
    MEMWAL_ASSERT(SourceOf(graph, position) == node);
    const bool windowed = build.windowed_node()[node];
    EnabledSteps(config, canon, windowed, build.reduction(), &actions);
    const std::size_t choice = position - graph.begin[node];
    node = FairGraph::Target(graph.edges[position]);
    const uint8_t to_representative =
        build.symmetric() ? build.edge_frame()[position] : 0;
    if (choice == actions.size()) {  // into the continuation
      MEMWAL_ASSERT(!windowed && !result->window);
      result->window = result->trace.size();
      model::Fold(config, &at);
      model::Fold(config, &canon);
      result->states_on_trace.back() = at;
    } else {
      const Action action = actions[choice];
      const Action concrete =
          frame == 0 ? action : model::Permute(action, frames.at(frame));
      at = windowed ? Step(config, at, concrete) : Plain(config, at, concrete);
      canon =
          windowed ? Step(config, canon, action) : Plain(config, canon, action);
      result->trace.push_back(concrete);
      result->states_on_trace.push_back(at);
    }
    if (to_representative != 0)
      canon = model::Permute(canon, frames.at(to_representative));
    frame = frames.Compose(frame, frames.Inverse(to_representative));
    MEMWAL_ASSERT(frame == 0 || model::Permute(canon, frames.at(frame)) == at);
  }
  if (lasso.loop == lasso.steps.size()) result->loop = result->trace.size();
}

LivenessResult CheckLivenessOnce(const model::Config& config,
                                 const LivenessOptions& options) {
  LivenessResult result;
  const Frames frames(config, options.symmetry);
  bool layered_fair = false;
  std::optional<std::optional<uint64_t>> expand_through;
  if (options.layered && SweepFirst(config, options, frames, &result,
                                    &expand_through, &layered_fair))
    return result;
  // A fair cycle is reported from the graph without R75's reduction: the
  // lasso nearest Init over every step (R72), the one reported before the
  // reduction; the reduced graph has a fair cycle exactly when the unreduced
  // one has (R75), which then has one in the same layer or an earlier one.
  GraphBuild build(config, frames, options.reduction && !layered_fair,
                   expand_through);
  const auto stop = [&](const std::string& why) {
    result.complete = false;
    result.stopped_by = why;
    result.states = build.discovered();
    result.edges = build.graph().edges.size();
    result.bytes = build.bytes();
    return result;
  };
  if (const std::optional<std::string> why = build.Build(options))
    return stop(*why);
  const FairGraph& graph = build.graph();
  result.states = graph.size();
  result.edges = graph.edges.size();
  result.collision_probability = static_cast<double>(graph.size()) *
                                 graph.size() / 2 / 18446744073709551616.0;
  std::size_t scratch = 0;
  bool over_budget = false;
  const std::optional<LassoSteps> lasso =
      FindLassoSteps(build, frames, options, &scratch, &over_budget);
  if (over_budget) return stop("memory-limit");
  result.bytes = build.bytes() + scratch + build.windowed_node().capacity() / 8;
  // The layers and the whole graph hold the same nodes, edges and SCCs.
  MEMWAL_ASSERT(lasso || !layered_fair);
  if (!lasso) return result;
  // The whole reduced graph (--no-layers) has a fair cycle: the lasso comes
  // from the unreduced one, as when the layers found it.
  if (build.reduction()) {
    LivenessOptions unreduced = options;
    unreduced.reduction = false;
    return CheckLivenessOnce(config, unreduced);
  }
  result.holds = false;
  ConcreteLasso(config, build, frames, *lasso, &result);
  const std::vector<Action> cycle(result.trace.begin() + result.loop,
                                  result.trace.end());
  result.note = Explain(config, result.states_on_trace[result.loop], cycle);
  return result;
}
}  // namespace

Status CheckLasso(const model::Config& config, const std::vector<Action>& trace,
                  std::size_t loop, std::optional<std::size_t> window,
                  std::string* note) {
  if (loop > trace.size() || (window && *window > loop)) {
    return Status::InvalidArgument(
        "the lasso's loop index " + std::to_string(loop) +
        (window ? " or window index " + std::to_string(*window) : "") +
        " does not fit its " + std::to_string(trace.size()) + " steps");
  }
  State at = model::Init(config.bounds);
  State at_loop;
  uint32_t everywhere = ~0u;
  uint32_t taken = 0;
  bool goal = false;
  std::vector<Action> enabled;
  for (std::size_t k = 0; k < trace.size(); ++k) {
    const bool windowed = window && k >= *window;
    if (window && k == *window) model::Fold(config, &at);
    if (k == loop) at_loop = at;
    // Every step of the continuation, R75's reduction or not.
    EnabledSteps(config, at, windowed, false, &enabled);
    if (std::find(enabled.begin(), enabled.end(), trace[k]) == enabled.end()) {
      return Status::InvalidArgument(
          "step " + std::to_string(k + 1) + " (" + model::ToString(trace[k]) +
          ") is not enabled" + (windowed ? " in the continuation" : ""));
    }
    if (k >= loop) {
      goal = goal || Discharged(config, at);
      everywhere &= FairEnabled(config, at);
      const uint32_t c = FairClass(trace[k]);
      if (c != kNoClass) taken |= 1u << c;
    }
    at = windowed ? Step(config, at, trace[k]) : Plain(config, at, trace[k]);
  }
  if (loop == trace.size()) {  // a stutter at the last state
    if (window && *window == loop) model::Fold(config, &at);
    at_loop = at;
    goal = Discharged(config, at);
    everywhere = FairEnabled(config, at);
  }
  if (!(at == at_loop)) {
    return Status::FailedPrecondition(
        "the cycle does not return to the state after step " +
        std::to_string(loop));
  }
  if (goal) {
    return Status::FailedPrecondition(
        "a state on the cycle has every compacted generation retirable");
  }
  if ((everywhere & ~taken) != 0) {
    return Status::FailedPrecondition(
        loop == trace.size()
            ? "the last state stutters while a weakly fair action is enabled"
            : "the cycle is unfair: a weakly fair action is enabled throughout "
              "it "
              "and never taken");
  }
  if (note != nullptr) {
    *note = Explain(config, at_loop,
                    std::vector<Action>(trace.begin() + loop, trace.end()));
  }
  return Status::Ok();
}

Status LassoStates(const model::Config& config,
                   const std::vector<Action>& trace, std::size_t loop,
                   std::optional<std::size_t> window,
                   std::vector<State>* states) {
  const Status lasso = CheckLasso(config, trace, loop, window, nullptr);
  if (lasso.code() == StatusCode::kInvalidArgument) return lasso;
  states->clear();
  State at = model::Init(config.bounds);
  for (std::size_t k = 0; k < trace.size(); ++k) {
    const bool windowed = window && k >= *window;
    if (window && k == *window) model::Fold(config, &at);
    states->push_back(at);
    at = windowed ? Step(config, at, trace[k]) : Plain(config, at, trace[k]);
  }
  states->push_back(at);
  return Status::Ok();
}

namespace {

// A weakly fair action `state` enables that the implementation (`world`,
// left untouched) refuses, as an ImplementationMatchesModel finding.
std::optional<lockstep::Finding> FairActionRefused(const model::Config& config,
                                                   const State& state,
                                                   const impl::World& world) {
  std::vector<Action> actions;
  model::EnabledActions(config, state, &actions);
  for (const Action& action : actions) {
    if (FairClass(action) == kNoClass) continue;
    if (std::holds_alternative<model::Commit>(action)) continue;  // any slot
    impl::World copy = world;
    const Result<model::Outcome> tried = lockstep::ApplyToWorld(action, &copy);
    if (tried.ok()) continue;
    return lockstep::Finding{
        std::string(lockstep::kImplementationMatchesModel),
        "the implementation refuses " + model::ToString(action) +
            ", a weakly fair action the model enables on the cycle: " +
            tried.status().ToString()};
  }
  return std::nullopt;
}

// The states along the lasso, folded (the translation compares them so).
std::vector<State> WindowedLassoStates(const model::Config& config,
                                       const std::vector<Action>& trace,
                                       std::optional<std::size_t> window) {
  std::vector<State> windowed;
  State at = model::Init(config.bounds);
  for (std::size_t k = 0; k <= trace.size(); ++k) {
    const bool in_window = window && k >= *window;
    if (window && k == *window) model::Fold(config, &at);
    State folded = at;
    model::Fold(config, &folded);
    windowed.push_back(folded);
    if (k == trace.size()) break;
    at = in_window ? Step(config, at, trace[k]) : Plain(config, at, trace[k]);
  }
  return windowed;
}

// Translates the lasso to plain actions under the raised bounds: stem, then
// turns of the cycle while those bounds allow (a stutter has no cycle steps:
// the stem, then its last state); fills replay->unrolled (cut at the last
// whole turn) and replay->turns.
Status UnrollLasso(const model::Config& config, const model::Config& raised,
                   const std::vector<Action>& trace, std::size_t loop,
                   const std::vector<State>& windowed, LassoReplay* replay) {
  const bool stutter = loop == trace.size();
  State plain = model::Init(raised.bounds);
  std::vector<Action> actions;
  std::size_t k = 0;
  std::size_t taken = 0;
  for (; !(stutter && k == trace.size()); ++taken) {
    const Action& recorded = trace[k];
    const std::size_t next = k + 1 == trace.size() ? loop : k + 1;
    model::EnabledActions(raised, plain, &actions);
    std::optional<State> reached;
    for (const Action& action : actions) {
      if (action.index() != recorded.index()) continue;
      model::Outcome outcome;
      State after = model::Apply(raised, plain, action, &outcome);
      State folded = after;
      model::Fold(config, &folded);
      if (!(folded == windowed[k + 1])) continue;
      replay->unrolled.push_back(action);
      reached = after;
      break;
    }
    if (!reached) break;
    plain = *reached;
    if (k + 1 == trace.size() && ++replay->turns == kTurnsMax) break;
    k = next;
  }
  if (stutter && k == trace.size()) replay->turns = 1;
  if (replay->turns == 0) {
    return Status::FailedPrecondition(
        "the model's largest bounds hold no whole turn of the cycle (" +
        std::to_string(taken) + " steps translated)");
  }
  const std::size_t cycle = trace.size() - loop;
  replay->unrolled.resize(loop + replay->turns * cycle);
  return Status::Ok();
}

// Whether the implementation would retire an SSTable that the model, at the
// loop's state, keeps and cannot retire.
Result<bool> ImplRetiresStuck(const model::Config& config,
                              const State& loop_state,
                              const impl::World& world) {
  bool retirable = false;
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= model::Head(loop_state).compacted[s]; ++g) {
      if (model::Contains(loop_state.retired[s], g - 1) ||
          model::Retirable(config, loop_state, s, g))
        continue;
      Result<bool> answer =
          world.Retirable(static_cast<uint32_t>(s), static_cast<uint64_t>(g));
      if (!answer.ok()) return answer.status();
      retirable = retirable || *answer;
    }
  }
  return retirable;
}

// Drives replay->unrolled in lockstep from Init; in the cycle, counts the
// steps where the implementation retires what the model keeps, and asks it
// to enable the fair actions the model enables.
Status DriveLasso(const lockstep::LockstepSetup& setup,
                  const lockstep::LockstepSetup& raised, std::size_t loop,
                  const State& loop_state, LassoReplay* replay) {
  Result<impl::World> created = lockstep::InitWorld(raised);
  if (!created.ok()) return created.status();
  impl::World world = std::move(*created);
  replay->finding = lockstep::CheckInit(raised, world);
  if (replay->finding) return Status::Ok();
  State before = model::Init(raised.config.bounds);
  for (std::size_t j = 0; j < replay->unrolled.size(); ++j) {
    model::Outcome outcome;
    const State after =
        model::Apply(raised.config, before, replay->unrolled[j], &outcome);
    replay->step = j + 1;
    replay->finding = lockstep::StepLockstep(raised, replay->unrolled[j],
                                             outcome, after, &world);
    if (!replay->finding)
      replay->finding = lockstep::CheckReachedState(raised, after, world);
    if (replay->finding) return Status::Ok();
    before = after;
    if (j + 1 < std::min(loop, replay->unrolled.size())) continue;
    ++replay->checked;
    MEMWAL_ASSIGN_OR_RETURN(const bool retirable,
                            ImplRetiresStuck(setup.config, loop_state, world));
    if (retirable && replay->retirable_on_impl++ == 0)
      replay->first_retirable_step = j + 1;
    // The fair actions the model enables here, the implementation must too.
    if (std::optional<lockstep::Finding> refused =
            FairActionRefused(raised.config, after, world)) {
      replay->finding = std::move(refused);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Result<LassoReplay> ReplayLassoOnImplementation(
    const lockstep::LockstepSetup& setup, const std::vector<Action>& trace,
    std::size_t loop, std::optional<std::size_t> window) {
  std::string note;
  MEMWAL_RETURN_IF_ERROR(CheckLasso(setup.config, trace, loop, window, &note));
  const std::vector<State> windowed =
      WindowedLassoStates(setup.config, trace, window);
  LassoReplay replay;
  replay.stuck = StuckGenerations(setup.config, windowed[loop]);
  lockstep::LockstepSetup raised = setup;
  raised.config.bounds.commits = model::kCommitsMax;
  raised.config.bounds.fragments = model::kFragmentsMax;
  MEMWAL_RETURN_IF_ERROR(
      UnrollLasso(setup.config, raised.config, trace, loop, windowed, &replay));
  // Cut at the last whole turn, and drive it in lockstep.
  MEMWAL_RETURN_IF_ERROR(
      DriveLasso(setup, raised, loop, windowed[loop], &replay));
  return replay;
}

std::string LassoReplay::Parting() const {
  if (Reproduced()) return "";
  if (finding) {
    return "at step " + std::to_string(step) + " of the replay (" +
           std::to_string(unrolled.size()) + " steps: the stem and " +
           std::to_string(turns) +
           " turn(s) of the cycle) the implementation " +
           "disagrees: " + finding->invariant + ": " + finding->detail;
  }
  if (turns == 0) return "no whole turn of the cycle was replayed";
  return "at step " + std::to_string(first_retirable_step) +
         " of the replay the implementation's persisted state has a stuck "
         "generation of " +
         stuck + " retirable (" + std::to_string(retirable_on_impl) + " of " +
         std::to_string(checked) + " states along the cycle)";
}

}  // namespace memwal::checker::engine
