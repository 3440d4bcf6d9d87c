// Tests of checker/corpus.h: the binary entry form, corpus selection, the ITF
// reader and the `corpus` command's exit codes and files.
#include "checker/corpus.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "checker/explorer.h"
#include "checker/trace.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

std::string TempDir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("memwal-corpus-test-" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::size_t FilesIn(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    n += entry.is_regular_file() ? 1 : 0;
  }
  return n;
}

TEST(CorpusEntry, RoundTripsThroughTheBinaryForm) {
  CorpusOptions options;
  options.config.protocol = model::Protocol::kAdvance;
  options.count = 40;
  const Corpus corpus = BuildCorpus(options);
  ASSERT_EQ(corpus.entries.size(), 40u);
  for (const auto& steps : corpus.entries) {
    const CorpusEntry entry{.config = options.config, .steps = steps};
    const CorpusEntry decoded = DecodeCorpusEntry(EncodeCorpusEntry(entry), 0);
    EXPECT_EQ(decoded.config, options.config);
    EXPECT_EQ(decoded.steps, steps);
  }
}

RC_GTEST_PROP(CorpusEntry, EveryByteStringDecodesToEnabledSteps,
              (const std::string& bytes)) {
  const CorpusEntry entry = DecodeCorpusEntry(bytes, 0);
  RC_ASSERT(model::CheckConfig(entry.config).ok());
  RC_ASSERT(entry.steps.size() <= kCorpusStepsMax);
  std::vector<model::State> states;
  RC_ASSERT(Replay(entry.config, entry.steps, &states).ok());
}

TEST(Corpus, IsTheSameForTheSameSeedAndDiffersForAnother) {
  CorpusOptions options;
  options.count = 30;
  options.seed = 5;
  const Corpus first = BuildCorpus(options);
  EXPECT_EQ(BuildCorpus(options).entries, first.entries);
  options.seed = 6;
  EXPECT_NE(BuildCorpus(options).entries, first.entries);
}

TEST(Corpus, CoversEveryApplicableActionAndGoalAtSmall) {
  CorpusOptions options;
  options.count = 500;
  const Corpus corpus = BuildCorpus(options);
  EXPECT_EQ(corpus.entries.size(), 500u);
  EXPECT_TRUE(corpus.features_missed.empty())
      << "first missed: " << corpus.features_missed.front();
  std::set<std::string> distinct;
  for (const auto& steps : corpus.entries) {
    std::string text;
    for (const model::Action& action : steps) text += model::ToString(action);
    distinct.insert(text);
  }
  EXPECT_EQ(distinct.size(), corpus.entries.size());
}

TEST(Corpus, ReachesAnInvariantNeighbourhoodUnderAModelBug) {
  CorpusOptions options;
  options.count = 200;
  const Corpus corpus = BuildCorpus(options);
  const std::set<std::string> features(corpus.features.begin(),
                                       corpus.features.end());
  EXPECT_TRUE(features.count("neighbourhood:ActivationIsPermanent"));
  EXPECT_TRUE(features.count("bug:claim-past-read-version"));
}

TEST(Itf, ReadsBackTheActionsOfOurItf) {
  CorpusOptions options;
  options.count = 5;
  const Corpus corpus = BuildCorpus(options);
  for (const auto& steps : corpus.entries) {
    std::vector<model::State> states;
    ASSERT_TRUE(Replay(options.config, steps, &states).ok());
    const std::string itf = ToItf(options.config, "none", steps, states).dump();
    const auto actions = ActionsFromItf(itf);
    ASSERT_TRUE(actions.ok()) << actions.status().message();
    EXPECT_EQ(*actions, steps);
  }
}

TEST(Itf, ReadsQuintOptionsAndRefusesMalformedPicks) {
  const auto actions = ActionsFromItf(
      R"({"states":[{},{"mbt::actionTaken":"Commit","mbt::nondetPicks":)"
      R"({"slot":{"tag":"Some","value":{"#bigint":"1"}},)"
      R"("shard":{"tag":"None","value":{"#tup":[]}}}}]})");
  ASSERT_TRUE(actions.ok()) << actions.status().message();
  EXPECT_EQ(*actions, std::vector<model::Action>{model::Commit{.slot = 1}});
  EXPECT_FALSE(ActionsFromItf("").ok());
  EXPECT_FALSE(ActionsFromItf(R"({"states":[]})").ok());
  EXPECT_FALSE(
      ActionsFromItf(
          R"({"states":[{},{"mbt::actionTaken":"Commit","mbt::nondetPicks":)"
          R"({"slot":{"#bigint":"99999999999999999999"}}}]})")
          .ok());
}

TEST(CorpusCommand, WritesEveryEntryInBothForms) {
  const std::string dir = TempDir("writes");
  std::ostringstream out, err;
  EXPECT_EQ(RunCorpusCommand({"--out", dir, "--count", "12", "--seed", "3",
                              "--protocol", "advance"},
                             out, err),
            0)
      << err.str();
  EXPECT_EQ(FilesIn(dir + "/json"), 12u);
  EXPECT_EQ(FilesIn(dir + "/bin"), 12u);
  const auto text = ReadFile(dir + "/json/entry-0000.json");
  ASSERT_TRUE(text.ok());
  std::filesystem::remove_all(dir);
}

TEST(CorpusCommand, RefusesBadUsageAndANonEmptyDirectoryWithExitTwo) {
  const std::string dir = TempDir("refuses");
  std::filesystem::create_directories(dir + "/old");
  std::ostringstream out, err;
  EXPECT_EQ(RunCorpusCommand({"--count", "3"}, out, err), 2);
  EXPECT_EQ(RunCorpusCommand({"--out", dir}, out, err), 2);
  EXPECT_EQ(RunCorpusCommand({"--out", dir + "/x", "--count", "0"}, out, err),
            2);
  EXPECT_EQ(
      RunCorpusCommand({"--out", dir + "/x", "--protocol", "nope"}, out, err),
      2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/x"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace memwal::checker
