// Known bugs in lockstep (spec/protocol.md section 8):
// - `--impl-bug NAME` (the implementation alone deviates, the model is
//   correct): lockstep reports an invariant broken on the implementation's
//   state or ImplementationMatchesModel, at a pinned step, while the
//   model-only search with the same config sees nothing. Five bugs need the
//   environment actions of spec section 10 (env foreign); two of them need
//   five or six commits, where a lockstep BFS takes minutes, so their shortest
//   traces are pinned by replay instead (ReplayPinned below). Bugs that no
//   model action sequence can reach are pinned as not found, with the spec's
//   reason.
// - `--bug NAME` (both deviate): the model-only counterexample, replayed on
//   both sides, breaks the same invariant at the same step on the
//   implementation's persisted state.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "checker/engine/search.h"
#include "checker/lockstep/lockstep.h"

namespace memwal::checker {
namespace {

using model::Bug;

struct ImplBugCase {
  Bug bug;
  model::Protocol protocol;
  model::Bounds bounds;
  std::string_view expected;  // "" = not reachable by the model's actions
                              // (or pinned by replay: ReplayPinned)
  std::size_t steps;
  model::Env env = model::Env::kNone;
};

// ctest lists a case by its bug, not its bytes.
void PrintTo(const ImplBugCase& c, std::ostream* out) {
  *out << model::Name(c.bug);
}

model::Bounds Tiny(int commits = 4, int indexes = 1) {
  model::Bounds bounds = model::TinyBounds();
  bounds.commits = commits;
  bounds.indexes = indexes;
  return bounds;
}

// One transaction in flight: the env traces below need no concurrency, and
// the search is four times smaller.
model::Bounds Serial(model::Bounds bounds) {
  bounds.inflight = 1;
  return bounds;
}

constexpr model::Protocol kDerived = model::Protocol::kDerived;
constexpr model::Protocol kAdvance = model::Protocol::kAdvance;
constexpr model::Protocol kUnconditional = model::Protocol::kUnconditional;
constexpr model::Env kForeign = model::Env::kForeign;

// Two shards, a fragment for each shard's compaction, three commits.
model::Bounds TwoShards() {
  model::Bounds bounds = Tiny(3);
  bounds.shards = 2;
  bounds.fragments = 3;
  return bounds;
}

// Pinned from runs at these bounds (BFS: the steps are a shortest trace).
const ImplBugCase kImplBugs[] = {
    {Bug::kBitDroppedByNewFromPrevious, kDerived, Tiny(),
     "ActivationIsPermanent", 4},
    {Bug::kBitClearedBySecondApply, kDerived, Tiny(), "ActivationIsPermanent",
     2},
    {Bug::kShallowCloneZeroesBits, kDerived, Tiny(), "ActivationIsPermanent",
     3},
    {Bug::kRestoreWalksBack, kDerived, Tiny(), "ImplementationMatchesModel", 3},
    // R60: a foreign writer leaves the head half-set; the implementation
    // loads it and accepts a begin (Append) the model disables (refusals are
    // compared under env foreign; before that, 3 steps: the commit of an
    // Append begun before, refused by the model, published by the bug).
    {Bug::kHalfSetFolded, kDerived, Tiny(3), "ImplementationMatchesModel", 1,
     kForeign},
    {Bug::kUnchangedByUuidOnly, kDerived, Tiny(), "ImplementationMatchesModel",
     9},
    // R61 other-index: the second advance names an index that does not cover
    // the fragment the Append added; the model refuses, the bug publishes.
    {Bug::kAdvanceWithoutInspected, kAdvance, Serial(Tiny(3, 2)),
     "ImplementationMatchesModel", 6, kForeign},
    {Bug::kAdvanceBoundAtCommit, kAdvance, Tiny(), "CatchupWithinCoverage", 7},
    {Bug::kNoWorkRepairRecordsNothing, kDerived, Tiny(),
     "ImplementationMatchesModel", 8},
    {Bug::kClaimPastReadVersion, kDerived, Tiny(), "CatchupWithinCoverage", 7},
    // R64: a foreign compactor records a position on a table without the bit;
    // an in-place prune then makes the bug withdraw it.
    {Bug::kInvalidationOnLegacy, kDerived, Serial(model::SmallBounds()),
     "LegacyTablesAreUntouched", 8, kForeign},
    // R63: __lance_mem_wal dropped, a repair's advance must be refused.
    {Bug::kAdvanceDroppedWithoutSystemIndex, kAdvance, Tiny(3),
     "ImplementationMatchesModel", 3, kForeign},
    // R61 oldest: pinned by replay (ReplayPinned: 12 steps, five commits).
    {Bug::kAdvanceReplacesPosition, kAdvance, Tiny(3), "", 0},
    {Bug::kRepairSpansLiveAtCommit, kAdvance, Tiny(),
     "ImplementationMatchesModel", 6},
    {Bug::kProgressCommitDropsFragments, kDerived, Tiny(), "NoRowIsLost", 2},
    // R61 other-index: the optimize's own index work excuses the second
    // advance.
    {Bug::kIndexWorkPerTransaction, kAdvance, Serial(Tiny(3, 2)),
     "ImplementationMatchesModel", 6, kForeign},
    // R62: pinned by replay (ReplayPinned: 13 steps, six commits).
    {Bug::kCoveragePastCompaction, kDerived, Tiny(3), "", 0},
    // The reader bugs: the implementation's own reader decides
    // ReadsMissNoRows on its state (which equals the model's), so the query
    // that skips the row's only copy is the named invariant.
    {Bug::kSingleIndexWatermark, kDerived, Tiny(4, 2), "ReadsMissNoRows", 7},
    {Bug::kReaderIgnoresBit, kDerived, Tiny(), "ReadsMissNoRows", 5},
    // Activate's commit publishes bit 128 in the writer word only: reported
    // on the implementation's decoded head before PublishedVersionsLoad.
    {Bug::kBitsOneWord, kDerived, Tiny(), "FeatureBitsArePaired", 2},
    // Two shards compacted from the same read version: the second commit
    // takes the read's progress for the first shard, which goes back to 0.
    {Bug::kProgressRegresses, kUnconditional, TwoShards(),
     "CompactionNeverRegresses", 6},
};

lockstep::LockstepSetup SetupFor(model::Protocol protocol,
                                 const model::Bounds& bounds,
                                 model::Env env = model::Env::kNone) {
  lockstep::LockstepSetup setup;
  setup.config.protocol = protocol;
  setup.config.bounds = bounds;
  setup.config.env = env;
  return setup;
}

// The model-only search without bugs finds no invariant violation (a missed
// goal at reduced bounds is fine); computed once per config.
bool ModelOnlyClean(const lockstep::LockstepSetup& setup) {
  static std::map<std::pair<int, int>, bool> cache;
  const auto key = std::make_pair(static_cast<int>(setup.config.protocol) * 2 +
                                      static_cast<int>(setup.config.env),
                                  setup.config.bounds.commits * 100 +
                                      setup.config.bounds.indexes * 10 +
                                      setup.config.bounds.inflight);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const engine::SearchResult result =
      engine::Search(setup, engine::Options{.threads = 2, .lockstep = false});
  const bool clean = !result.violation || result.violation->trace.empty();
  cache[key] = clean;
  return clean;
}

class ImplBug : public testing::TestWithParam<ImplBugCase> {};

TEST_P(ImplBug, LockstepFindsWhatTheModelOnlySearchCannotSee) {
  const ImplBugCase& c = GetParam();
  lockstep::LockstepSetup setup = SetupFor(c.protocol, c.bounds, c.env);
  ASSERT_TRUE(ModelOnlyClean(setup));
  setup.impl_only_bugs = model::BugBit(c.bug);
  const engine::SearchResult result =
      engine::Search(setup, engine::Options{.threads = 2});
  if (c.expected.empty()) {
    EXPECT_TRUE(!result.violation || result.violation->trace.empty())
        << result.violation->invariant << ": " << result.violation->detail;
    return;
  }
  ASSERT_TRUE(result.violation.has_value());
  EXPECT_EQ(result.violation->invariant, c.expected)
      << result.violation->detail;
  if (c.steps > 0) {
    EXPECT_EQ(result.violation->trace.size(), c.steps);
  }
  // The counterexample replays to the same verdict.
  const Result<lockstep::ReplayResult> replay =
      lockstep::ReplayLockstep(setup, result.violation->trace, false);
  ASSERT_TRUE(replay.ok());
  ASSERT_TRUE(replay->finding.has_value());
  EXPECT_EQ(replay->finding->invariant, c.expected);
  EXPECT_EQ(replay->step, result.violation->trace.size());
}

std::string CaseName(const testing::TestParamInfo<ImplBugCase>& info) {
  std::string name(model::Name(info.param.bug));
  std::string out;
  bool upper = true;
  for (char ch : name) {
    if (ch == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(ch - 'a' + 'A') : ch;
    upper = false;
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryImplementationBug, ImplBug,
                         testing::ValuesIn(kImplBugs), CaseName);

// The two env bugs whose shortest traces need five or six commits: the trace
// (the lockstep BFS's at these bounds, run by `memwal-check check --impl-bug
// NAME` with the printed bounds) replays to the pinned violation with the bug
// and to nothing without it, on the model alone and in lockstep.
struct ReplayCase {
  Bug bug;
  model::Config config;
  std::vector<model::Action> trace;
  std::string_view expected;
};

model::Config ForeignConfig(model::Protocol protocol, int commits,
                            int fragments, int inflight) {
  model::Config config;
  config.protocol = protocol;
  config.env = kForeign;
  config.bounds = model::SmallBounds();
  config.bounds.commits = commits;
  config.bounds.fragments = fragments;
  config.bounds.inflight = inflight;
  return config;
}

std::vector<ReplayCase> ReplayCases() {
  using namespace model;  // NOLINT: the action names read as the spec's
  const Action flush = FlushMemTable{0};
  const Action compact = CompactSsTable{0, true};
  return {
      // R61 oldest: a repair credits generation 2, then a caller's no-work
      // repair claims generation 1; the merge keeps 2, the bug replaces it.
      {Bug::kAdvanceReplacesPosition,
       ForeignConfig(kAdvance, 5, 3, 1),
       {flush, flush, Activate{}, Commit{0}, compact, Commit{0}, compact,
        Commit{0}, OptimizeIndex{0}, Commit{0},
        CallerAdvance{0, static_cast<int>(AdvanceOffer::kOldest)}, Commit{0}},
       "UnchangedPositionsNeverDrop"},
      // R62: CreateIndex reads compacted 2; a reset and a re-compaction of
      // generation 1 publish; the rebased build credits 2, which the clamp
      // cuts to this commit's progress 1.
      {Bug::kCoveragePastCompaction,
       ForeignConfig(kDerived, 6, 4, 2),
       {flush, flush, Activate{}, Commit{0}, compact, Commit{0}, compact,
        Commit{0}, CreateIndex{0}, ResetMemWal{}, compact, Commit{1},
        Commit{0}},
       "CatchupWithinCompaction"},
  };
}

TEST(ImplBug, ReplayPinnedEnvTracesBreakOnlyTheBuggyImplementation) {
  for (const ReplayCase& c : ReplayCases()) {
    SCOPED_TRACE(std::string(model::Name(c.bug)));
    lockstep::LockstepSetup setup{.config = c.config};
    const Result<lockstep::ReplayResult> model_only =
        lockstep::ReplayLockstep(setup, c.trace, true);
    ASSERT_TRUE(model_only.ok()) << model_only.status().ToString();
    EXPECT_FALSE(model_only->finding.has_value());
    const Result<lockstep::ReplayResult> correct =
        lockstep::ReplayLockstep(setup, c.trace, false);
    ASSERT_TRUE(correct.ok());
    EXPECT_FALSE(correct->finding.has_value()) << correct->finding->detail;
    setup.impl_only_bugs = model::BugBit(c.bug);
    const Result<lockstep::ReplayResult> buggy =
        lockstep::ReplayLockstep(setup, c.trace, false);
    ASSERT_TRUE(buggy.ok());
    ASSERT_TRUE(buggy->finding.has_value());
    EXPECT_EQ(buggy->finding->invariant, c.expected) << buggy->finding->detail;
    EXPECT_EQ(buggy->step, c.trace.size());
  }
}

TEST(ImplBug, EveryBugOfTheSpecIsCovered) {
  EXPECT_EQ(std::size(kImplBugs), static_cast<std::size_t>(model::kBugCount));
}

// --bug: the model-only counterexample of every model-expressible bug breaks
// the same invariant on the implementation when replayed in lockstep.
TEST(ModelBug, EveryModelBugBreaksTheSameInvariantOnTheImplementation) {
  for (const model::BugInfo& info : model::AllBugs()) {
    if (!info.in_model || info.liveness) continue;
    SCOPED_TRACE(std::string(info.name));
    const std::string protocols(info.protocols);
    lockstep::LockstepSetup setup =
        SetupFor(protocols == "advance" ? kAdvance : kDerived,
                 info.bug == Bug::kSingleIndexWatermark ? Tiny(4, 2)
                                                        : model::SmallBounds());
    setup.config.bugs = model::BugBit(info.bug);
    const engine::SearchResult model_only =
        engine::Search(setup, engine::Options{.threads = 2, .lockstep = false});
    ASSERT_TRUE(model_only.violation.has_value());
    ASSERT_FALSE(model_only.violation->trace.empty());
    const Result<lockstep::ReplayResult> replay =
        lockstep::ReplayLockstep(setup, model_only.violation->trace, false);
    ASSERT_TRUE(replay.ok());
    ASSERT_TRUE(replay->finding.has_value());
    EXPECT_EQ(replay->finding->invariant, model_only.violation->invariant)
        << replay->finding->detail;
    EXPECT_EQ(replay->step, model_only.violation->trace.size());
  }
}

}  // namespace
}  // namespace memwal::checker
