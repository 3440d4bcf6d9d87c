// Known bugs in lockstep (spec/protocol.md section 8):
// - `--impl-bug NAME` (the implementation alone deviates, the model is
//   correct): lockstep reports an invariant broken on the implementation's
//   state or ImplementationMatchesModel, at a pinned step, while the
//   model-only search with the same config sees nothing. Bugs that no model
//   action sequence can reach are pinned as not found, with the spec's reason.
// - `--bug NAME` (both deviate): the model-only counterexample, replayed on
//   both sides, breaks the same invariant at the same step on the
//   implementation's persisted state.
#include <gtest/gtest.h>

#include <map>

#include "checker/lockstep.h"
#include "checker/parallel.h"

namespace memwal::checker {
namespace {

using model::Bug;

struct ImplBugCase {
  Bug bug;
  model::Protocol protocol;
  model::Bounds bounds;
  std::string_view expected;  // "" = not reachable by the model's actions
  std::size_t steps;
};

model::Bounds Tiny(int commits = 4, int indexes = 1) {
  model::Bounds bounds = model::TinyBounds();
  bounds.commits = commits;
  bounds.indexes = indexes;
  return bounds;
}

constexpr model::Protocol kDerived = model::Protocol::kDerived;
constexpr model::Protocol kAdvance = model::Protocol::kAdvance;

// Pinned from runs at these bounds (BFS: the steps are a shortest trace).
const ImplBugCase kImplBugs[] = {
    {Bug::kBitDroppedByNewFromPrevious, kDerived, Tiny(),
     "ActivationIsPermanent", 4},
    {Bug::kBitClearedBySecondApply, kDerived, Tiny(), "ActivationIsPermanent",
     2},
    {Bug::kShallowCloneZeroesBits, kDerived, Tiny(), "ActivationIsPermanent",
     3},
    {Bug::kRestoreWalksBack, kDerived, Tiny(), "ImplementationMatchesModel", 3},
    // No model action writes a half-set manifest; only a foreign writer could.
    {Bug::kHalfSetFolded, kDerived, Tiny(3), "", 0},
    {Bug::kUnchangedByUuidOnly, kDerived, Tiny(), "ImplementationMatchesModel",
     9},
    // The model's repair always covers what it inspected.
    {Bug::kAdvanceWithoutInspected, kAdvance, Tiny(3), "", 0},
    {Bug::kAdvanceBoundAtCommit, kAdvance, Tiny(), "CatchupWithinCoverage", 7},
    {Bug::kNoWorkRepairRecordsNothing, kDerived, Tiny(),
     "ImplementationMatchesModel", 8},
    {Bug::kClaimPastReadVersion, kDerived, Tiny(), "CatchupWithinCoverage", 7},
    // Model tables without the bit carry no positions.
    {Bug::kInvalidationOnLegacy, kDerived, Tiny(3), "", 0},
    // The model always has the system index.
    {Bug::kAdvanceDroppedWithoutSystemIndex, kAdvance, Tiny(3), "", 0},
    // No erasure or backward move is reachable (two repairs of one index
    // conflict).
    {Bug::kAdvanceReplacesPosition, kAdvance, Tiny(3), "", 0},
    {Bug::kRepairSpansLiveAtCommit, kAdvance, Tiny(),
     "ImplementationMatchesModel", 6},
    {Bug::kProgressCommitDropsFragments, kDerived, Tiny(), "NoRowIsLost", 2},
    // A model transaction carries one advance.
    {Bug::kIndexWorkPerTransaction, kAdvance, Tiny(3), "", 0},
    // A commit rebased over a Restore is refused: the clamp never binds.
    {Bug::kCoveragePastCompaction, kDerived, Tiny(3), "", 0},
    {Bug::kSingleIndexWatermark, kDerived, Tiny(4, 2),
     "ImplementationMatchesModel", 0},
    {Bug::kReaderIgnoresBit, kDerived, Tiny(), "ImplementationMatchesModel", 5},
};

LockstepSetup SetupFor(model::Protocol protocol, const model::Bounds& bounds) {
  LockstepSetup setup;
  setup.config.protocol = protocol;
  setup.config.bounds = bounds;
  return setup;
}

// The model-only search without bugs finds no invariant violation (a missed
// goal at reduced bounds is fine); computed once per config.
bool ModelOnlyClean(const LockstepSetup& setup) {
  static std::map<std::pair<int, int>, bool> cache;
  const auto key = std::make_pair(
      static_cast<int>(setup.config.protocol),
      setup.config.bounds.commits * 10 + setup.config.bounds.indexes);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const SearchResult result =
      Search(setup, SearchOptions{.threads = 2, .lockstep = false});
  const bool clean = !result.violation || result.violation->trace.empty();
  cache[key] = clean;
  return clean;
}

class ImplBug : public testing::TestWithParam<ImplBugCase> {};

TEST_P(ImplBug, LockstepFindsWhatTheModelOnlySearchCannotSee) {
  const ImplBugCase& c = GetParam();
  LockstepSetup setup = SetupFor(c.protocol, c.bounds);
  ASSERT_TRUE(ModelOnlyClean(setup));
  setup.impl_only_bugs = model::BugBit(c.bug);
  const SearchResult result = Search(setup, SearchOptions{.threads = 2});
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
  const Result<ReplayResult> replay =
      ReplayLockstep(setup, result.violation->trace, false);
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
    LockstepSetup setup =
        SetupFor(protocols == "advance" ? kAdvance : kDerived,
                 info.bug == Bug::kSingleIndexWatermark ? Tiny(4, 2)
                                                        : model::SmallBounds());
    setup.config.bugs = model::BugBit(info.bug);
    const SearchResult model_only =
        Search(setup, SearchOptions{.threads = 2, .lockstep = false});
    ASSERT_TRUE(model_only.violation.has_value());
    ASSERT_FALSE(model_only.violation->trace.empty());
    const Result<ReplayResult> replay =
        ReplayLockstep(setup, model_only.violation->trace, false);
    ASSERT_TRUE(replay.ok());
    ASSERT_TRUE(replay->finding.has_value());
    EXPECT_EQ(replay->finding->invariant, model_only.violation->invariant)
        << replay->finding->detail;
    EXPECT_EQ(replay->step, model_only.violation->trace.size());
  }
}

}  // namespace
}  // namespace memwal::checker
