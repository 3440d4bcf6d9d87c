// `memwal-check validate` (checker/validate/): the tables the implementation
// writes in lockstep validate `valid` under their protocol; a table written
// under an implementation bug switch is `invalid` at a named step; hand-edited
// manifests are `invalid` at the edited version with the reason; the LanceDB
// fixtures get a computed verdict whose reasons are pinned.
#include "checker/validate/validate.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "checker/engine/search.h"
#include "checker/lockstep/lockstep.h"
#include "impl/directory_store.h"
#include "impl/format.h"
#include "model/actions.h"
#include "model/invariants.h"

namespace memwal::checker::validate {
namespace {

namespace fs = std::filesystem;

const std::string kTables = std::string(MEMWAL_FIXTURES_DIR) + "/tables/";

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/validate-test-XXXXXX";
    MEMWAL_ASSERT(mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    if (getenv("MEMWAL_VALIDATE_TEST_KEEP") != nullptr) return;  // debugging
    std::error_code error;
    fs::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string Text(const Validation& validation) {
  std::ostringstream out;
  RenderText(validation, out);
  return out.str();
}

void Write(const impl::World& world, const std::string& dir) {
  Result<impl::DirectoryStore> store = impl::DirectoryStore::Open(dir);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(world.WriteTo(&*store).ok());
}

// Actions a walk takes: all but the two that start another table history
// (ShallowClone's table begins at the source's head; CleanupVersions removes
// versions, which validate reports as a gap).
bool Walkable(const model::Action& action) {
  return !std::holds_alternative<model::ShallowClone>(action) &&
         !std::holds_alternative<model::CleanupVersions>(action);
}

// A seeded random walk of `steps` actions in lockstep (each step checked as
// lockstep checks it); the World it leaves.
impl::World Walk(const lockstep::LockstepSetup& setup, uint64_t seed,
                 int steps) {
  Result<impl::World> world = lockstep::InitWorld(setup);
  MEMWAL_ASSERT(world.ok());
  model::State state = model::Init(setup.config.bounds);
  std::mt19937_64 random(seed);
  std::vector<model::Action> actions;
  for (int i = 0; i < steps; ++i) {
    model::EnabledActions(setup.config, state, &actions);
    std::erase_if(actions, [](const model::Action& a) { return !Walkable(a); });
    if (actions.empty()) break;
    const model::Action action = actions[random() % actions.size()];
    model::Outcome outcome;
    model::State next = model::Apply(setup.config, state, action, &outcome);
    // A walk ends before a step that breaks one of the model's own
    // invariants (legacy's missing entry read as caught up does): validate
    // rightly calls such a table invalid.
    if (model::FirstBrokenInvariant(setup.config, next) != nullptr) break;
    const std::optional<lockstep::Finding> finding =
        lockstep::StepLockstep(setup, action, outcome, next, &*world);
    if (finding.has_value()) {
      ADD_FAILURE() << "lockstep: " << finding->invariant << ": "
                    << finding->detail << "\nafter " << model::ToString(action);
      break;
    }
    state = next;
  }
  return std::move(*world);
}

struct WalkCase {
  model::Protocol protocol;
  model::Bounds bounds;
  std::string_view bounds_name;  // in the test's name: "Tiny"
};

// What ctest and gtest print as the parameter: "derived at Tiny".
void PrintTo(const WalkCase& c, std::ostream* os) {
  *os << model::Name(c.protocol) << " at " << c.bounds_name;
}

// "DerivedAtTiny"
std::string WalkName(const testing::TestParamInfo<WalkCase>& info) {
  std::string out;
  bool upper = true;
  for (const char ch : model::Name(info.param.protocol)) {
    if (ch == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(ch)) : ch;
    upper = false;
  }
  return out + "At" + std::string(info.param.bounds_name);
}

class LockstepTables : public testing::TestWithParam<WalkCase> {};

TEST_P(LockstepTables, EveryTableTheImplementationWritesValidatesAsValid) {
  const WalkCase& c = GetParam();
  lockstep::LockstepSetup setup;
  setup.config.protocol = c.protocol;
  setup.config.bounds = c.bounds;
  setup.refusals = false;
  std::size_t steps_explained = 0;
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    const impl::World world = Walk(setup, seed, 24);
    TempDir dir;
    Write(world, dir.path());
    const Result<Validation> validation =
        Validate(dir.path(), ValidateOptions{.protocol = c.protocol});
    ASSERT_TRUE(validation.ok()) << validation.status().ToString();
    ASSERT_EQ(validation->verdict, Verdict::kValid) << "seed " << seed << "\n"
                                                    << Text(*validation);
    EXPECT_EQ(validation->explained.size(), validation->steps);
    steps_explained += validation->explained.size();
  }
  EXPECT_GT(steps_explained, 25u * 2);
}

model::Bounds Tiny() { return model::TinyBounds(); }
model::Bounds TwoShardsTwoIndexes() {
  model::Bounds bounds = model::SmallBounds();
  bounds.shards = 2;
  bounds.indexes = 2;
  bounds.generations = 2;
  return bounds;
}

INSTANTIATE_TEST_SUITE_P(
    AtTinyAndWider, LockstepTables,
    testing::Values(WalkCase{model::Protocol::kDerived, Tiny(), "Tiny"},
                    WalkCase{model::Protocol::kAdvance, Tiny(), "Tiny"},
                    WalkCase{model::Protocol::kUnconditional, Tiny(), "Tiny"},
                    WalkCase{model::Protocol::kLegacy, Tiny(), "Tiny"},
                    WalkCase{model::Protocol::kDerived, model::SmallBounds(),
                             "Small"},
                    WalkCase{model::Protocol::kDerived, TwoShardsTwoIndexes(),
                             "TwoShardsTwoIndexes"}),
    WalkName);

// ---- hand-edited manifests ----

// Activate; flush 1 and 2; compact 1 and 2 (each a merge-insert with its
// progress); the table's versions are 1..4.
impl::World CompactedWorld() {
  Result<impl::World> created = impl::World::Create(impl::Options{
      .protocol = impl::Protocol::kDerived, .shards = 1, .indexes = 1});
  MEMWAL_ASSERT(created.ok());
  impl::World world = std::move(*created);
  const auto publish = [&world](Status begun) {
    MEMWAL_ASSERT(begun.ok());
    const Result<impl::Outcome> outcome = world.Commit(0);
    MEMWAL_ASSERT(outcome.ok() && *outcome == impl::Outcome::kPublished);
  };
  publish(world.BeginActivate());
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  MEMWAL_ASSERT(world.FlushMemTable(0).ok());
  publish(world.BeginCompactSsTable(0, true));
  publish(world.BeginCompactSsTable(0, true));
  return world;
}

// Rewrites version `version`'s manifest in `dir` with `edit` applied.
template <typename Edit>
void EditManifest(const std::string& dir, uint64_t version, const Edit& edit) {
  const std::string path = dir + "/" + impl::VersionFileName(version);
  Result<impl::DirectoryStore> store = impl::DirectoryStore::Open(dir);
  ASSERT_TRUE(store.ok());
  const Result<impl::Blob> bytes = store->Get(impl::VersionFileName(version));
  ASSERT_TRUE(bytes.ok()) << path;
  Result<impl::ManifestFile> file = impl::DecodeManifestFile(**bytes);
  ASSERT_TRUE(file.ok());
  edit(&*file);
  ASSERT_TRUE(
      store
          ->Put(impl::VersionFileName(version), impl::EncodeManifestFile(*file))
          .ok());
}

// The MemWAL details of `file`, edited by `edit`.
template <typename Edit>
void EditDetails(impl::ManifestFile* file, const Edit& edit) {
  for (impl::pb::IndexMetadata& index :
       *file->index_section.mutable_indices()) {
    if (!impl::IsMemWalIndex(index)) continue;
    Result<impl::pb::MemWalIndexDetails> details =
        impl::UnpackMemWalDetails(index);
    MEMWAL_ASSERT(details.ok());
    edit(&*details);
    impl::PackMemWalDetails(*details, &index);
    return;
  }
  ADD_FAILURE() << "no __lance_mem_wal";
}

Validation ValidateEdited(const std::string& dir) {
  const Result<Validation> validation =
      Validate(dir, ValidateOptions{.protocol = model::Protocol::kDerived});
  MEMWAL_ASSERT(validation.ok());
  return *validation;
}

TEST(HandEditedManifests, TheUneditedTableIsValid) {
  TempDir dir;
  Write(CompactedWorld(), dir.path());
  const Validation validation = ValidateEdited(dir.path());
  EXPECT_EQ(validation.verdict, Verdict::kValid) << Text(validation);
  EXPECT_EQ(validation.explained.size(), 4u) << Text(validation);
}

TEST(HandEditedManifests, ACatchupPositionRaisedPastCoverageIsInvalidThere) {
  TempDir dir;
  Write(CompactedWorld(), dir.path());
  // Version 3 compacted generation 1 into a fragment idx_0 does not cover;
  // the edit records idx_0 caught up to generation 1 anyway.
  EditManifest(dir.path(), 3, [](impl::ManifestFile* file) {
    EditDetails(file, [](impl::pb::MemWalIndexDetails* details) {
      impl::pb::IndexCatchupProgress* progress = details->add_index_catchup();
      progress->set_index_name("idx_0");
      impl::pb::CompactedSsTable* entry = progress->add_caught_up_generations();
      *entry->mutable_shard_id() = details->compacted_sstables(0).shard_id();
      entry->set_generation(1);
    });
  });
  const Validation validation = ValidateEdited(dir.path());
  ASSERT_EQ(validation.verdict, Verdict::kInvalid) << Text(validation);
  EXPECT_EQ(validation.invalid->from, 2u);
  EXPECT_EQ(validation.invalid->to, 3u);
  EXPECT_NE(validation.invalid->reason.find("CatchupWithinCoverage"),
            std::string::npos)
      << Text(validation);
  EXPECT_FALSE(validation.invalid->difference.empty()) << Text(validation);
}

TEST(HandEditedManifests, AFeatureWordHalfSetIsInvalidThere) {
  TempDir dir;
  Write(CompactedWorld(), dir.path());
  // Version 1 (before activation): bit 128 in the reader word only.
  EditManifest(dir.path(), 1, [](impl::ManifestFile* file) {
    file->manifest.set_reader_feature_flags(
        file->manifest.reader_feature_flags() | 128);
  });
  const Validation validation = ValidateEdited(dir.path());
  ASSERT_EQ(validation.verdict, Verdict::kInvalid) << Text(validation);
  EXPECT_EQ(validation.invalid->to, 1u);
  EXPECT_NE(validation.invalid->reason.find("FeatureBitsArePaired"),
            std::string::npos)
      << Text(validation);
}

TEST(HandEditedManifests, ACompactedCounterLoweredIsInvalidThere) {
  TempDir dir;
  Write(CompactedWorld(), dir.path());
  // Version 4 compacted generation 2; the edit lowers its counter to 1.
  EditManifest(dir.path(), 4, [](impl::ManifestFile* file) {
    EditDetails(file, [](impl::pb::MemWalIndexDetails* details) {
      details->mutable_compacted_sstables(0)->set_generation(1);
    });
  });
  const Validation validation = ValidateEdited(dir.path());
  ASSERT_EQ(validation.verdict, Verdict::kInvalid) << Text(validation);
  EXPECT_EQ(validation.invalid->from, 3u);
  EXPECT_EQ(validation.invalid->to, 4u);
  EXPECT_NE(validation.invalid->difference.size(), 0u) << Text(validation);
  bool names_compacted = false;
  for (const std::string& line : validation.invalid->difference)
    names_compacted =
        names_compacted || line.find("compacted") != std::string::npos;
  EXPECT_TRUE(names_compacted) << Text(validation);
}

TEST(CleanedUpVersions, AGapIsIncompleteAndValidationResumesAfterIt) {
  TempDir dir;
  Write(CompactedWorld(), dir.path());
  ASSERT_TRUE(fs::remove(dir.path() + "/" + impl::VersionFileName(2)));
  const Validation validation = ValidateEdited(dir.path());
  EXPECT_EQ(validation.verdict, Verdict::kIncomplete) << Text(validation);
  ASSERT_FALSE(validation.gaps.empty());
  EXPECT_NE(validation.gaps[0].reason.find("cleaned up"), std::string::npos);
  // Resumed at version 3: 3 -> 4 is explained.
  ASSERT_FALSE(validation.explained.empty());
  EXPECT_EQ(validation.explained.back().to, 4u) << Text(validation);
}

// ---- bad input ----

TEST(ValidateCommand, AMissingDirectoryIsOneLineAndExitTwo) {
  std::ostringstream out, err;
  EXPECT_EQ(RunValidateCommand({"/nonexistent/table"}, out, err), 2);
  const std::string text = err.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_TRUE(out.str().empty());
}

TEST(ValidateCommand, AnUnknownProtocolIsOneLineAndExitTwo) {
  std::ostringstream out, err;
  EXPECT_EQ(RunValidateCommand({kTables + "plain.lance", "--protocol", "x"},
                               out, err),
            2);
  const std::string text = err.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

}  // namespace
}  // namespace memwal::checker::validate

namespace memwal::checker::validate {
namespace {

// ---- implementation bug switches ----
//
// For each switch: the lockstep search (BFS, the bounds of
// tests/checker/lockstep_bugs_test.cc) finds the implementation's first
// deviation; the trace is replayed on a World without the switch (its table
// validates `valid`) and with it (its table is `invalid`, at a version no
// later than the head the deviation left). Switches whose deviation is not in
// what the implementation writes are listed with the reason instead.

struct BugCase {
  model::Bug bug;
  model::Protocol protocol;
  model::Bounds bounds;
  model::Env env = model::Env::kNone;
  // Empty: the buggy table is invalid. Else why the table the trace leaves is
  // a behaviour of the spec (validate says valid), pinned.
  std::string_view not_in_bytes = "";
  // Replayed after the trace where the deviation is a begin the model
  // disables (the trace ends before it and nothing is written yet): that
  // begin and its commit, which the bug publishes and a correct
  // implementation refuses.
  std::vector<model::Action> then{};
};

constexpr std::string_view kReaderBug =
    "a reader bug: the implementation's writer writes the same bytes, and "
    "validate judges reads with the correct reader";

constexpr std::string_view kRefusal =
    "the deviation is a refusal: the implementation writes nothing where the "
    "model commits, and a table holds no trace of a commit that never "
    "happened";

model::Bounds TinyWith(int commits, int indexes = 1) {
  model::Bounds bounds = model::TinyBounds();
  bounds.commits = commits;
  bounds.indexes = indexes;
  return bounds;
}
model::Bounds SerialBounds(model::Bounds bounds) {
  bounds.inflight = 1;
  return bounds;
}
model::Bounds TwoShardBounds() {
  model::Bounds bounds = TinyWith(3);
  bounds.shards = 2;
  bounds.fragments = 3;
  return bounds;
}

using model::Bug;
constexpr model::Protocol kDerived = model::Protocol::kDerived;
constexpr model::Protocol kAdvance = model::Protocol::kAdvance;
constexpr model::Env kForeign = model::Env::kForeign;

const BugCase kBugCases[] = {
    {Bug::kBitDroppedByNewFromPrevious, kDerived, TinyWith(4)},
    {Bug::kBitClearedBySecondApply, kDerived, TinyWith(4)},
    {Bug::kRestoreWalksBack, kDerived, TinyWith(4)},
    {Bug::kUnchangedByUuidOnly, kDerived, TinyWith(4)},
    {Bug::kAdvanceBoundAtCommit, kAdvance, TinyWith(4)},
    {Bug::kNoWorkRepairRecordsNothing, kDerived, TinyWith(4), model::Env::kNone,
     kRefusal},
    {Bug::kClaimPastReadVersion, kDerived, TinyWith(4)},
    {Bug::kRepairSpansLiveAtCommit, kAdvance, TinyWith(4), model::Env::kNone,
     kRefusal},
    {Bug::kProgressCommitDropsFragments, kDerived, TinyWith(4)},
    {Bug::kBitsOneWord, kDerived, TinyWith(4)},
    {Bug::kProgressRegresses, model::Protocol::kUnconditional,
     TwoShardBounds()},
    {Bug::kAdvanceWithoutInspected, kAdvance, SerialBounds(TinyWith(3, 2)),
     kForeign},
    {Bug::kIndexWorkPerTransaction, kAdvance, SerialBounds(TinyWith(3, 2)),
     kForeign},
    {Bug::kAdvanceDroppedWithoutSystemIndex, kAdvance, TinyWith(3), kForeign},
    {Bug::kInvalidationOnLegacy, kDerived, SerialBounds(model::SmallBounds()),
     kForeign},
    {Bug::kHalfSetFolded,
     kDerived,
     TinyWith(3),
     kForeign,
     "",
     {model::Append{}, model::Commit{.slot = 0}}},
    {Bug::kSingleIndexWatermark, kDerived, TinyWith(4, 2), model::Env::kNone,
     kReaderBug},
    {Bug::kReaderIgnoresBit, kDerived, TinyWith(4), model::Env::kNone,
     kReaderBug},
};
// Elsewhere: shallow-clone-zeroes-bits (the clone's directory starts at the
// clone: CloneValidatedWithItsSource below), advance-replaces-position and
// coverage-past-compaction (BugSwitchReplayed below).

// What ctest and gtest print as the parameter: the bug's name and protocol.
void PrintTo(const BugCase& c, std::ostream* os) {
  *os << model::Name(c.bug) << " on " << model::Name(c.protocol);
}

std::string BugName(const testing::TestParamInfo<BugCase>& info) {
  std::string out;
  bool upper = true;
  for (const char ch : model::Name(info.param.bug)) {
    if (ch == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(ch - 'a' + 'A') : ch;
    upper = false;
  }
  return out;
}

impl::World Replay(const lockstep::LockstepSetup& setup,
                   const std::vector<model::Action>& trace) {
  Result<impl::World> world = lockstep::InitWorld(setup);
  MEMWAL_ASSERT(world.ok());
  for (const model::Action& action : trace) {
    // An action the buggy implementation refuses leaves its table as it is.
    (void)lockstep::ApplyToWorld(action, &*world);
  }
  return std::move(*world);
}

class BugSwitch : public testing::TestWithParam<BugCase> {};

TEST_P(BugSwitch, ATableWrittenUnderItIsInvalidAtANamedStep) {
  const BugCase& c = GetParam();
  lockstep::LockstepSetup setup;
  setup.config.protocol = c.protocol;
  setup.config.bounds = c.bounds;
  setup.config.env = c.env;
  setup.impl_only_bugs = model::BugBit(c.bug);
  const engine::SearchResult found =
      engine::Search(setup, engine::Options{.threads = 2});
  ASSERT_TRUE(found.violation.has_value());
  std::vector<model::Action> trace = found.violation->trace;
  trace.insert(trace.end(), c.then.begin(), c.then.end());
  const ValidateOptions options{.protocol = c.protocol, .env = c.env};

  lockstep::LockstepSetup correct = setup;
  correct.impl_only_bugs = 0;
  {
    TempDir dir;
    Write(Replay(correct, trace), dir.path());
    const Result<Validation> validation = Validate(dir.path(), options);
    ASSERT_TRUE(validation.ok());
    EXPECT_EQ(validation->verdict, Verdict::kValid) << Text(*validation);
  }
  TempDir dir;
  const impl::World buggy = Replay(setup, trace);
  Write(buggy, dir.path());
  const Result<Validation> validation = Validate(dir.path(), options);
  ASSERT_TRUE(validation.ok());
  if (!c.not_in_bytes.empty()) {
    EXPECT_EQ(validation->verdict, Verdict::kValid) << c.not_in_bytes << "\n"
                                                    << Text(*validation);
    return;
  }
  ASSERT_EQ(validation->verdict, Verdict::kInvalid)
      << found.violation->invariant << ": " << found.violation->detail << "\n"
      << Text(*validation);
  const Result<std::vector<uint64_t>> versions = buggy.Versions();
  ASSERT_TRUE(versions.ok());
  EXPECT_GE(validation->invalid->to, 1u);
  EXPECT_LE(validation->invalid->to, versions->back()) << Text(*validation);
  RecordProperty("step", std::to_string(validation->invalid->from) + "->" +
                             std::to_string(validation->invalid->to));
}

INSTANTIATE_TEST_SUITE_P(EveryBugThatChangesTheBytes, BugSwitch,
                         testing::ValuesIn(kBugCases), BugName);

// shallow-clone-zeroes-bits: the clone's directory starts at the clone, so
// the source's activated history is in another directory. Given as
// --source, the clone's first version is checked against it (R37).
TEST(CloneValidatedWithItsSource, AShallowCloneThatDropsTheBitsIsInvalid) {
  lockstep::LockstepSetup setup;
  setup.config.bounds = TinyWith(4);
  setup.impl_only_bugs = model::BugBit(Bug::kShallowCloneZeroesBits);
  const engine::SearchResult found =
      engine::Search(setup, engine::Options{.threads = 2});
  ASSERT_TRUE(found.violation.has_value());
  std::vector<model::Action> trace = found.violation->trace;
  ASSERT_FALSE(trace.empty());
  ASSERT_TRUE(std::holds_alternative<model::ShallowClone>(trace.back()));
  lockstep::LockstepSetup correct = setup;
  correct.impl_only_bugs = 0;
  TempDir source;
  TempDir good;
  TempDir bad;
  Write(Replay(correct, trace), good.path());
  Write(Replay(setup, trace), bad.path());
  trace.pop_back();
  Write(Replay(correct, trace), source.path());

  ValidateOptions options;
  options.source = source.path();
  const Result<Validation> kept = Validate(good.path(), options);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_FALSE(kept->invalid.has_value()) << Text(*kept);
  const Result<Validation> dropped = Validate(bad.path(), options);
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  ASSERT_EQ(dropped->verdict, Verdict::kInvalid) << Text(*dropped);
  EXPECT_NE(dropped->invalid->reason.find("R37"), std::string::npos)
      << Text(*dropped);
  EXPECT_EQ(dropped->invalid->operation, "Clone");
  // Without the source, the clone alone cannot tell: its history starts at
  // the clone.
  const Result<Validation> alone = Validate(bad.path(), ValidateOptions{});
  ASSERT_TRUE(alone.ok());
  EXPECT_NE(alone->verdict, Verdict::kInvalid) << Text(*alone);
}

TEST(CloneValidatedWithItsSource, ASourceForATableThatIsNoCloneIsBadUsage) {
  lockstep::LockstepSetup setup;
  setup.config.bounds = TinyWith(4);
  TempDir table;
  TempDir source;
  Write(Replay(setup, {model::Append{}, model::Commit{.slot = 0}}),
        table.path());
  Write(Replay(setup, {}), source.path());
  ValidateOptions options;
  options.source = source.path();
  const Result<Validation> validation = Validate(table.path(), options);
  ASSERT_FALSE(validation.ok());
  EXPECT_NE(validation.status().message().find("is not a clone"),
            std::string::npos)
      << validation.status().message();
}

// The two env bugs whose shortest traces need five or six commits (the traces
// of tests/checker/lockstep_bugs_test.cc, ReplayCases): replayed without the
// switch the table is valid, with it invalid.
TEST(BugSwitchReplayed, TheLongEnvTracesAreInvalidOnlyUnderTheirSwitch) {
  using namespace model;  // NOLINT: the action names read as the spec's
  const Action flush = FlushMemTable{0};
  const Action compact = CompactSsTable{0, true};
  struct Case {
    Bug bug;
    Protocol protocol;
    int commits, fragments, inflight;
    std::vector<Action> trace;
  };
  const Case cases[] = {
      {Bug::kAdvanceReplacesPosition,
       kAdvance,
       5,
       3,
       1,
       {flush, flush, Activate{}, Commit{0}, compact, Commit{0}, compact,
        Commit{0}, OptimizeIndex{0}, Commit{0},
        CallerAdvance{0, static_cast<int>(AdvanceOffer::kOldest)}, Commit{0}}},
      {Bug::kCoveragePastCompaction,
       kDerived,
       6,
       4,
       2,
       {flush, flush, Activate{}, Commit{0}, compact, Commit{0}, compact,
        Commit{0}, CreateIndex{0}, ResetMemWal{}, compact, Commit{1},
        Commit{0}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(Name(c.bug)));
    lockstep::LockstepSetup setup;
    setup.config.protocol = c.protocol;
    setup.config.env = kForeign;
    setup.config.bounds = SmallBounds();
    setup.config.bounds.commits = c.commits;
    setup.config.bounds.fragments = c.fragments;
    setup.config.bounds.inflight = c.inflight;
    const ValidateOptions options{.protocol = c.protocol, .env = kForeign};
    {
      TempDir dir;
      Write(Replay(setup, c.trace), dir.path());
      const Result<Validation> validation = Validate(dir.path(), options);
      ASSERT_TRUE(validation.ok());
      EXPECT_EQ(validation->verdict, Verdict::kValid) << Text(*validation);
    }
    setup.impl_only_bugs = BugBit(c.bug);
    TempDir dir;
    Write(Replay(setup, c.trace), dir.path());
    const Result<Validation> validation = Validate(dir.path(), options);
    ASSERT_TRUE(validation.ok());
    EXPECT_EQ(validation->verdict, Verdict::kInvalid) << Text(*validation);
  }
}

}  // namespace
}  // namespace memwal::checker::validate

namespace memwal::checker::validate {
namespace {

// ---- the LanceDB fixtures (docs/validate.md: each reason checked against
// what Lance does) ----

bool AnyGapSays(const Validation& validation, uint64_t to,
                std::string_view words) {
  for (const Gap& gap : validation.gaps) {
    if (gap.to == to && gap.reason.find(words) != std::string::npos)
      return true;
  }
  return false;
}

TEST(LanceDbFixtures, EachMemWalTableIsIncompleteWithEveryStepNamed) {
  for (const std::string name :
       {"lance12_memwal_bucket", "memwal_bucket", "memwal_unsharded"}) {
    SCOPED_TRACE(name);
    const Result<Validation> validation =
        Validate(kTables + name + ".lance", ValidateOptions{});
    ASSERT_TRUE(validation.ok()) << validation.status().ToString();
    EXPECT_EQ(validation->verdict, Verdict::kIncomplete) << Text(*validation);
    EXPECT_EQ(validation->steps, 4u);
    EXPECT_EQ(validation->gaps.size(), 4u) << Text(*validation);
    // Lance creates the table without __lance_mem_wal (Overwrite); the
    // model's Init (R4) has it from version 1.
    EXPECT_TRUE(AnyGapSays(*validation, 1, "__lance_mem_wal dropped"))
        << Text(*validation);
    // The BTree index is named id_idx; the model's are idx_0..idx_2.
    EXPECT_TRUE(AnyGapSays(*validation, 2, "id_idx")) << Text(*validation);
    // setUnenforcedPrimaryKey commits UpdateConfig, which no model action
    // commits.
    EXPECT_TRUE(AnyGapSays(*validation, 3, "UpdateConfig is outside"))
        << Text(*validation);
  }
}

TEST(LanceDbFixtures, ThePlainTablesAppendIsExplained) {
  const Result<Validation> validation =
      Validate(kTables + "plain.lance", ValidateOptions{});
  ASSERT_TRUE(validation.ok());
  EXPECT_EQ(validation->verdict, Verdict::kIncomplete);
  ASSERT_FALSE(validation->explained.empty()) << Text(*validation);
  EXPECT_EQ(validation->explained.front().to, 2u);
  EXPECT_EQ(validation->explained.front().operation, "Append");
}

}  // namespace
}  // namespace memwal::checker::validate

namespace memwal::checker::validate {
namespace {

TEST(ValidateReads, NothingOutsideTheTableThroughASymlink) {
  TempDir dir;
  Write(CompactedWorld(), dir.path());
  TempDir outside;
  { std::ofstream(outside.path() + "/secret") << "not a table file"; }
  fs::create_directory_symlink(outside.path(), dir.path() + "/data/linked");
  fs::create_symlink(outside.path() + "/secret", dir.path() + "/data/x.lance");
  const Validation validation = ValidateEdited(dir.path());
  EXPECT_EQ(validation.verdict, Verdict::kValid) << Text(validation);
  std::size_t skipped = 0;
  for (const std::string& note : validation.notes)
    skipped += note.find("a symlink; not followed") != std::string::npos;
  EXPECT_EQ(skipped, 2u);
}

}  // namespace
}  // namespace memwal::checker::validate
