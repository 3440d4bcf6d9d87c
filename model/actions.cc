// Action-level dispatch (spec/protocol.md sections 4-6): guards, effects, the
// fixed enumeration order and the printed form. The rules themselves live in
// wal.cc, begin.cc, commit.cc and table.cc.
#include "model/actions.h"

#include <array>

#include "model/rules.h"

namespace memwal::model {
namespace {

constexpr std::array<std::string_view, kActionKinds> kKindNames = {
    "FlushMemTable",
    "RetireSsTable",
    "RetireDecide",
    "RetireExecute",
    "Append",
    "DeleteFragment",
    "CompactSsTable",
    "UpdateColumns",
    "RewriteFragments",
    "CreateIndex",
    "OptimizeIndex",
    "DropIndex",
    "RecordProgress",
    "Activate",
    "Commit",
    "Restore",
    "ShallowClone",
    "CleanupVersions",
    "ForeignHalfSet",
    "CallerAdvance",
    "ResetMemWal",
    "DropMemWal",
    "ForeignCompaction",
    "ReinstallMemWal"};

// R60: Lance refuses to open a half-set manifest [P §2.3], so on a half-set
// head no writer can begin, restore, clone or clean up, and GC cannot decide;
// the shard writers (FlushMemTable) and the commits of transactions begun
// before (which R35.1 refuses) still run. Only env foreign writes such a head.
template <typename A>
bool OpensHead(const Config& config, const State& state) {
  if (!IsForeign(config)) return true;
  if (std::is_same_v<A, FlushMemTable> || std::is_same_v<A, Commit>)
    return true;
  const Version& head = Head(state);
  return head.reader_bit == head.writer_bit;
}

// The kind (Action's alternative) of A, as a bit.
template <typename A>
constexpr uint32_t KindBit() {
  return 1u << Action(std::in_place_type<A>).index();
}

// Appends `action` when it is enabled and its kind is in `kinds`.
template <typename A>
void Offer(const Config& config, const State& state, uint32_t kinds,
           const A& action, std::vector<Action>* out) {
  if ((kinds & KindBit<A>()) == 0) return;
  if (IsEnabled(config, state, action) && OpensHead<A>(config, state))
    out->push_back(action);
}

void OfferWal(const Config& config, const State& state, uint32_t kinds,
              std::vector<Action>* out) {
  const Bounds& b = config.bounds;
  for (int s = 0; s < b.shards; ++s)
    Offer(config, state, kinds, FlushMemTable{s}, out);
  for (int s = 0; s < b.shards; ++s) {
    for (int g = 1; g <= b.generations; ++g)
      Offer(config, state, kinds, RetireSsTable{s, g}, out);
  }
  for (int s = 0; s < b.shards; ++s) {
    for (int g = 1; g <= b.generations; ++g)
      Offer(config, state, kinds, RetireDecide{s, g}, out);
  }
  for (int s = 0; s < b.shards; ++s) {
    for (int g = 1; g <= b.generations; ++g)
      Offer(config, state, kinds, RetireExecute{s, g}, out);
  }
}

void OfferBegins(const Config& config, const State& state, uint32_t kinds,
                 std::vector<Action>* out) {
  const Bounds& b = config.bounds;
  Offer(config, state, kinds, Append{}, out);
  for (int f = 0; f < b.fragments; ++f)
    Offer(config, state, kinds, DeleteFragment{f}, out);
  for (int s = 0; s < b.shards; ++s) {
    Offer(config, state, kinds, CompactSsTable{s, false}, out);
    Offer(config, state, kinds, CompactSsTable{s, true}, out);
  }
  for (int f = 0; f < b.fragments; ++f) {
    for (int i = 0; i < b.indexes; ++i)
      Offer(config, state, kinds, UpdateColumns{f, i}, out);
  }
  for (int f1 = 0; f1 < b.fragments; ++f1) {
    for (int f2 = f1 + 1; f2 < b.fragments; ++f2) {
      Offer(config, state, kinds, RewriteFragments{f1, f2}, out);
    }
  }
  for (int i = 0; i < b.indexes; ++i)
    Offer(config, state, kinds, CreateIndex{i}, out);
  for (int i = 0; i < b.indexes; ++i)
    Offer(config, state, kinds, OptimizeIndex{i}, out);
  for (int i = 0; i < b.indexes; ++i)
    Offer(config, state, kinds, DropIndex{i}, out);
  for (int s = 0; s < b.shards; ++s)
    Offer(config, state, kinds, RecordProgress{s}, out);
  Offer(config, state, kinds, Activate{}, out);
}

void OfferTable(const Config& config, const State& state, uint32_t kinds,
                std::vector<Action>* out) {
  for (int t = 0; t < state.inflight_count; ++t)
    Offer(config, state, kinds, Commit{t}, out);
  for (int v = 0; v < state.version_count; ++v) {
    Offer(config, state, kinds, Restore{state.versions[v].number}, out);
  }
  Offer(config, state, kinds, ShallowClone{}, out);
  Offer(config, state, kinds, CleanupVersions{}, out);
}

// Section 10, after every other kind so that env none enumerates as before.
void OfferEnv(const Config& config, const State& state, uint32_t kinds,
              std::vector<Action>* out) {
  if (!IsForeign(config)) return;
  Offer(config, state, kinds, ForeignHalfSet{}, out);
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (int offer = 0; offer < kAdvanceOffers; ++offer)
      Offer(config, state, kinds, CallerAdvance{i, offer}, out);
  }
  Offer(config, state, kinds, ResetMemWal{}, out);
  Offer(config, state, kinds, DropMemWal{}, out);
  for (int s = 0; s < config.bounds.shards; ++s)
    Offer(config, state, kinds, ForeignCompaction{s}, out);
}

// R39, after section 10 so that every older kind enumerates as before.
void OfferReinstall(const Config& config, const State& state, uint32_t kinds,
                    std::vector<Action>* out) {
  Offer(config, state, kinds, ReinstallMemWal{}, out);
}

std::string Field(std::string_view name, int value) {
  return std::string(name) + "=" + std::to_string(value);
}

std::string Params(const Action& action) {
  return std::visit(
      [](const auto& a) -> std::string {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, FlushMemTable> ||
                      std::is_same_v<A, RecordProgress> ||
                      std::is_same_v<A, ForeignCompaction>) {
          return Field("shard", a.shard);
        } else if constexpr (std::is_same_v<A, RetireSsTable> ||
                             std::is_same_v<A, RetireDecide> ||
                             std::is_same_v<A, RetireExecute>) {
          return Field("shard", a.shard) + ", " +
                 Field("generation", a.generation);
        } else if constexpr (std::is_same_v<A, DeleteFragment>) {
          return Field("fragment", a.fragment);
        } else if constexpr (std::is_same_v<A, CompactSsTable>) {
          return Field("shard", a.shard) +
                 ", marker=" + (a.marker ? "true" : "false");
        } else if constexpr (std::is_same_v<A, UpdateColumns>) {
          return Field("fragment", a.fragment) + ", " + Field("index", a.index);
        } else if constexpr (std::is_same_v<A, RewriteFragments>) {
          return Field("first", a.first) + ", " + Field("second", a.second);
        } else if constexpr (std::is_same_v<A, CreateIndex> ||
                             std::is_same_v<A, OptimizeIndex> ||
                             std::is_same_v<A, DropIndex>) {
          return Field("index", a.index);
        } else if constexpr (std::is_same_v<A, Commit>) {
          return Field("slot", a.slot);
        } else if constexpr (std::is_same_v<A, Restore>) {
          return Field("version", a.version);
        } else if constexpr (std::is_same_v<A, CallerAdvance>) {
          return Field("index", a.index) + ", " + Field("offer", a.offer);
        } else {
          return "";
        }
      },
      action);
}

}  // namespace

std::string_view Name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kDone:
      return "done";
    case Outcome::kPublished:
      return "published";
    case Outcome::kRetry:
      return "retry";
    case Outcome::kRefused:
      return "refused";
  }
  MEMWAL_ASSERT(false && "outcome out of range");
  return "";
}

std::string_view Name(AdvanceOffer offer) {
  switch (offer) {
    case AdvanceOffer::kOtherIndex:
      return "other-index";
    case AdvanceOffer::kOldest:
      return "oldest";
    case AdvanceOffer::kFirstShard:
      return "first-shard";
  }
  MEMWAL_ASSERT(false && "offer out of range");
  return "";
}

bool KindApplies(const Config& config, int kind) {
  MEMWAL_ASSERT(kind >= 0 && kind < kActionKinds);
  constexpr auto kIndex = [](auto tag) {
    return static_cast<int>(Action(decltype(tag){}).index());
  };
  if (kind == kIndex(ForeignHalfSet{}) || kind == kIndex(ForeignCompaction{}))
    return IsForeign(config) && IsBitProtocol(config.protocol);
  if (kind == kIndex(CallerAdvance{}) || kind == kIndex(DropMemWal{}))
    return IsForeign(config) && config.protocol == Protocol::kAdvance;
  if (kind == kIndex(ReinstallMemWal{})) return config.bounds.reinstalls > 0;
  if (kind == kIndex(ResetMemWal{})) {
    return IsForeign(config) && (config.protocol == Protocol::kDerived ||
                                 config.protocol == Protocol::kUnconditional);
  }
  return true;
}

bool IsEnabled(const Config& config, const State& state, const Action& action) {
  return std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        return IsEnabled(config, state, a) && OpensHead<A>(config, state);
      },
      action);
}

void Apply(const Config& config, const Action& action, State* state,
           Outcome* outcome) {
  MEMWAL_ASSERT(outcome != nullptr);
  std::visit(
      [&](const auto& a) {
        // The rest of the guard: each kind's Apply asserts its IsEnabled (an
        // IsEnabled(config, state, action) here evaluated it twice).
        using A = std::decay_t<decltype(a)>;
        MEMWAL_ASSERT(OpensHead<A>(config, *state));
        Apply(config, a, state, outcome);
      },
      action);
  Canonicalize(state);
  MEMWAL_ASSERT(state->committed + state->inflight_count <=
                config.bounds.commits);
}

State Apply(const Config& config, State state, const Action& action,
            Outcome* outcome) {
  Apply(config, action, &state, outcome);
  return state;
}

void EnabledActions(const Config& config, const State& state,
                    std::vector<Action>* out) {
  EnabledActions(config, state, ~0u, out);
}

void EnabledActions(const Config& config, const State& state, uint32_t kinds,
                    std::vector<Action>* out) {
  out->clear();
  OfferWal(config, state, kinds, out);
  OfferBegins(config, state, kinds, out);
  OfferTable(config, state, kinds, out);
  OfferEnv(config, state, kinds, out);
  OfferReinstall(config, state, kinds, out);
}

std::string_view KindName(int kind) {
  MEMWAL_ASSERT(kind >= 0 && kind < kActionKinds);
  return kKindNames[kind];
}

std::string_view KindName(const Action& action) {
  return KindName(static_cast<int>(action.index()));
}

std::array<int, 2> ActionParams(const Action& action) {
  return std::visit(
      [](const auto& a) -> std::array<int, 2> {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, FlushMemTable> ||
                      std::is_same_v<A, RecordProgress> ||
                      std::is_same_v<A, ForeignCompaction>) {
          return {a.shard, 0};
        } else if constexpr (std::is_same_v<A, RetireSsTable> ||
                             std::is_same_v<A, RetireDecide> ||
                             std::is_same_v<A, RetireExecute>) {
          return {a.shard, a.generation};
        } else if constexpr (std::is_same_v<A, DeleteFragment>) {
          return {a.fragment, 0};
        } else if constexpr (std::is_same_v<A, CompactSsTable>) {
          return {a.shard, a.marker ? 1 : 0};
        } else if constexpr (std::is_same_v<A, UpdateColumns>) {
          return {a.fragment, a.index};
        } else if constexpr (std::is_same_v<A, RewriteFragments>) {
          return {a.first, a.second};
        } else if constexpr (std::is_same_v<A, CreateIndex> ||
                             std::is_same_v<A, OptimizeIndex> ||
                             std::is_same_v<A, DropIndex>) {
          return {a.index, 0};
        } else if constexpr (std::is_same_v<A, Commit>) {
          return {a.slot, 0};
        } else if constexpr (std::is_same_v<A, Restore>) {
          return {a.version, 0};
        } else if constexpr (std::is_same_v<A, CallerAdvance>) {
          return {a.index, a.offer};
        } else {
          return {0, 0};
        }
      },
      action);
}

Action MakeAction(int kind, const std::array<int, 2>& v) {
  switch (kind) {
    case 0:
      return FlushMemTable{v[0]};
    case 1:
      return RetireSsTable{v[0], v[1]};
    case 2:
      return RetireDecide{v[0], v[1]};
    case 3:
      return RetireExecute{v[0], v[1]};
    case 4:
      return Append{};
    case 5:
      return DeleteFragment{v[0]};
    case 6:
      return CompactSsTable{v[0], v[1] != 0};
    case 7:
      return UpdateColumns{v[0], v[1]};
    case 8:
      return RewriteFragments{v[0], v[1]};
    case 9:
      return CreateIndex{v[0]};
    case 10:
      return OptimizeIndex{v[0]};
    case 11:
      return DropIndex{v[0]};
    case 12:
      return RecordProgress{v[0]};
    case 13:
      return Activate{};
    case 14:
      return Commit{v[0]};
    case 15:
      return Restore{v[0]};
    case 16:
      return ShallowClone{};
    case 17:
      return CleanupVersions{};
    case 18:
      return ForeignHalfSet{};
    case 19:
      return CallerAdvance{v[0], v[1]};
    case 20:
      return ResetMemWal{};
    case 21:
      return DropMemWal{};
    case 22:
      return ForeignCompaction{v[0]};
    case 23:
      return ReinstallMemWal{};
  }
  MEMWAL_ASSERT(false && "action kind out of range");
  return Append{};
}

std::string ToString(const Action& action) {
  return std::string(KindName(action)) + "{" + Params(action) + "}";
}

}  // namespace memwal::model
