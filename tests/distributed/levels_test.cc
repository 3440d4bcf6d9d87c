// The level engine (checker/engine/distributed.h) on one rank, in process:
// the threaded search's answers, and checkpoints that resume to them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checker/engine/distributed.h"
#include "checker/engine/search.h"
#include "model/bounds.h"

namespace memwal::checker::engine {
namespace {

model::Config Tiny3() {
  model::Config config;
  config.bounds = *model::ParsePreset("tiny");
  config.bounds.commits = 3;
  config.bounds.inflight = 1;
  return config;
}

void ExpectSame(const SearchResult& a, const SearchResult& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.stats.states_distinct, b.stats.states_distinct);
  EXPECT_EQ(a.stats.transitions, b.stats.transitions);
  EXPECT_EQ(a.stats.depth_max, b.stats.depth_max);
  EXPECT_EQ(a.stats.states_per_depth, b.stats.states_per_depth);
  EXPECT_EQ(a.stats.coverage, b.stats.coverage);
  EXPECT_EQ(a.stats.goals_reached, b.stats.goals_reached);
  EXPECT_EQ(a.violation.has_value(), b.violation.has_value());
  if (a.violation && b.violation) {
    EXPECT_EQ(a.violation->invariant, b.violation->invariant);
    EXPECT_EQ(a.violation->trace, b.violation->trace);
  }
}

std::string TempDir(const std::string& name) {
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       ("memwal-levels-" + name + "-" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(dir);
  return dir;
}

void ExpectSameOnOneRank(const Options& options, int commits = 3) {
  lockstep::LockstepSetup setup{.config = Tiny3()};
  setup.config.bounds.commits = commits;
  const SearchResult threaded = Search(setup, options);
  Result<DistributedResult> levels =
      SearchLevels(setup, options, ScaleOut{}, WorldComm());
  ASSERT_TRUE(levels.ok()) << levels.status().ToString();
  ExpectSame(threaded, levels->result);
}

TEST(LevelEngine, OneRankCountsWhatTheThreadedSearchCountsInBothStorages) {
  for (const Storage storage : {Storage::kFingerprint, Storage::kExact})
    ExpectSameOnOneRank(
        Options{.threads = 2, .lockstep = false, .storage = storage});
}

TEST(LevelEngine, OneRankCountsWhatTheThreadedSearchCountsInLockstep) {
  ExpectSameOnOneRank(Options{.threads = 2, .lockstep = true}, 2);
}

TEST(LevelEngine, ABugsCounterexampleIsTheThreadedSearchsTrace) {
  lockstep::LockstepSetup setup{.config = Tiny3()};
  setup.config.bugs = model::BugBit(*model::ParseBug("restore-walks-back"));
  const Options options{.threads = 2, .lockstep = true};
  const SearchResult threaded = Search(setup, options);
  ASSERT_TRUE(threaded.violation.has_value());
  Result<DistributedResult> levels =
      SearchLevels(setup, options, ScaleOut{}, WorldComm());
  ASSERT_TRUE(levels.ok());
  ExpectSame(threaded, levels->result);
}

TEST(LevelEngine, ARunStoppedAfterASnapshotResumesToTheUninterruptedCounts) {
  const lockstep::LockstepSetup setup{.config = Tiny3()};
  const Options whole_options{.threads = 1, .lockstep = false};
  const SearchResult whole = Search(setup, whole_options);
  const std::string dir = TempDir("resume");
  // A budget ends the first run part way; its last snapshot is a whole level.
  Options stopped_options = whole_options;
  stopped_options.max_states = whole.stats.states_distinct / 2;
  const ScaleOut checkpoint{.checkpoint_dir = dir, .checkpoint_every_s = 0};
  Result<DistributedResult> stopped =
      SearchLevels(setup, stopped_options, checkpoint, WorldComm());
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->result.verdict, Verdict::kIncomplete);
  EXPECT_GT(stopped->dist.snapshots, 2u);
  Result<DistributedResult> resumed = SearchLevels(
      setup, whole_options, ScaleOut{.resume_dir = dir}, WorldComm());
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_GT(resumed->dist.resumed_level, 2u);
  ExpectSame(whole, resumed->result);
  std::filesystem::remove_all(dir);
}

TEST(LevelEngine, ASnapshotOfAnotherConfigurationOrACorruptOneIsRefused) {
  const lockstep::LockstepSetup setup{.config = Tiny3()};
  const Options options{.threads = 1, .lockstep = false};
  const std::string dir = TempDir("refuse");
  ASSERT_TRUE(
      SearchLevels(setup, options,
                   ScaleOut{.checkpoint_dir = dir, .checkpoint_every_s = 0},
                   WorldComm())
          .ok());
  lockstep::LockstepSetup other = setup;
  other.seed = 7;
  Result<DistributedResult> refused =
      SearchLevels(other, options, ScaleOut{.resume_dir = dir}, WorldComm());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("another configuration"),
            std::string::npos);
  std::ifstream current(dir + "/CURRENT");
  std::string name;
  current >> name;
  {
    std::fstream part(dir + "/" + name + "/rank-0",
                      std::ios::in | std::ios::out | std::ios::binary);
    part.seekg(20);
    const char byte = static_cast<char>(part.get());
    part.seekp(20);
    part.put(static_cast<char>(byte ^ 0x7f));
  }
  Result<DistributedResult> corrupt =
      SearchLevels(setup, options, ScaleOut{.resume_dir = dir}, WorldComm());
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.status().code(), StatusCode::kCorruption);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace memwal::checker::engine
