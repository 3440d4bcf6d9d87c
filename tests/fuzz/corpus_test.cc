// Tests of checker/cli/corpus.h: the binary entry form, corpus selection, the ITF
// reader and the `corpus` command's exit codes and files.
#include "checker/cli/corpus.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine/interrupt.h"
#include "checker/engine/search.h"
#include "checker/report/trace.h"
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
  cli::CorpusOptions options;
  options.config.protocol = model::Protocol::kAdvance;
  options.count = 40;
  const cli::Corpus corpus = cli::BuildCorpus(options);
  ASSERT_EQ(corpus.entries.size(), 40u);
  for (const auto& steps : corpus.entries) {
    const cli::CorpusEntry entry{.config = options.config, .steps = steps};
    const cli::CorpusEntry decoded =
        cli::DecodeCorpusEntry(cli::EncodeCorpusEntry(entry), 0);
    EXPECT_EQ(decoded.config, options.config);
    EXPECT_EQ(decoded.steps, steps);
  }
}

TEST(CorpusEntry, KeepsTheEnvInByteZeroAndReadsOldEntriesAsEnvNone) {
  cli::CorpusOptions options;
  options.config.protocol = model::Protocol::kAdvance;
  options.config.env = model::Env::kForeign;
  options.count = 20;
  const cli::Corpus corpus = cli::BuildCorpus(options);
  ASSERT_EQ(corpus.entries.size(), 20u);
  for (const auto& steps : corpus.entries) {
    const std::string bytes = cli::EncodeCorpusEntry(
        cli::CorpusEntry{.config = options.config, .steps = steps});
    EXPECT_EQ(static_cast<uint8_t>(bytes[0]), 1 + 4);
    const cli::CorpusEntry decoded = cli::DecodeCorpusEntry(bytes, 0);
    EXPECT_EQ(decoded.config, options.config);
    EXPECT_EQ(decoded.steps, steps);
  }
  // Entries written before env existed have byte 0 below 4.
  const std::string old("\x01\x00\x00\x00\x00\x01\x01\x03\x01", 9);
  EXPECT_EQ(cli::DecodeCorpusEntry(old, 0).config.env, model::Env::kNone);
  EXPECT_EQ(cli::DecodeCorpusEntry(old, 0).config.protocol,
            model::Protocol::kAdvance);
}

RC_GTEST_PROP(CorpusEntry, EveryByteStringDecodesToEnabledSteps,
              (const std::string& bytes)) {
  const cli::CorpusEntry entry = cli::DecodeCorpusEntry(bytes, 0);
  RC_ASSERT(model::CheckConfig(entry.config).ok());
  RC_ASSERT(entry.steps.size() <= cli::kCorpusStepsMax);
  std::vector<model::State> states;
  RC_ASSERT(engine::Replay(entry.config, entry.steps, &states).ok());
}

TEST(Corpus, IsTheSameForTheSameSeedAndDiffersForAnother) {
  cli::CorpusOptions options;
  options.count = 30;
  options.seed = 5;
  const cli::Corpus first = cli::BuildCorpus(options);
  EXPECT_EQ(cli::BuildCorpus(options).entries, first.entries);
  options.seed = 6;
  EXPECT_NE(cli::BuildCorpus(options).entries, first.entries);
}

TEST(Corpus, CoversEveryApplicableActionAndGoalAtSmall) {
  cli::CorpusOptions options;
  options.count = 500;
  const cli::Corpus corpus = cli::BuildCorpus(options);
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
  cli::CorpusOptions options;
  options.count = 200;
  const cli::Corpus corpus = cli::BuildCorpus(options);
  const std::set<std::string> features(corpus.features.begin(),
                                       corpus.features.end());
  EXPECT_TRUE(features.count("neighbourhood:ActivationIsPermanent"));
  EXPECT_TRUE(features.count("bug:claim-past-read-version"));
}

TEST(Itf, ReadsBackTheActionsOfOurItf) {
  cli::CorpusOptions options;
  options.count = 5;
  const cli::Corpus corpus = cli::BuildCorpus(options);
  for (const auto& steps : corpus.entries) {
    std::vector<model::State> states;
    ASSERT_TRUE(engine::Replay(options.config, steps, &states).ok());
    const std::string itf =
        report::ToItf(options.config, "none", steps, states).dump();
    const auto actions = cli::ActionsFromItf(itf);
    ASSERT_TRUE(actions.ok()) << actions.status().message();
    EXPECT_EQ(*actions, steps);
  }
}

TEST(Itf, ReadsQuintOptionsAndRefusesMalformedPicks) {
  const auto actions = cli::ActionsFromItf(
      R"({"states":[{},{"mbt::actionTaken":"Commit","mbt::nondetPicks":)"
      R"({"slot":{"tag":"Some","value":{"#bigint":"1"}},)"
      R"("shard":{"tag":"None","value":{"#tup":[]}}}}]})");
  ASSERT_TRUE(actions.ok()) << actions.status().message();
  EXPECT_EQ(*actions, std::vector<model::Action>{model::Commit{.slot = 1}});
  EXPECT_FALSE(cli::ActionsFromItf("").ok());
  EXPECT_FALSE(cli::ActionsFromItf(R"({"states":[]})").ok());
  EXPECT_FALSE(
      cli::ActionsFromItf(
          R"({"states":[{},{"mbt::actionTaken":"Commit","mbt::nondetPicks":)"
          R"({"slot":{"#bigint":"99999999999999999999"}}}]})")
          .ok());
}

TEST(CorpusCommand, WritesEveryEntryInBothForms) {
  const std::string dir = TempDir("writes");
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunCorpusCommand({"--out", dir, "--count", "12", "--seed", "3",
                                   "--protocol", "advance"},
                                  out, err),
            0)
      << err.str();
  EXPECT_EQ(FilesIn(dir + "/json"), 12u);
  EXPECT_EQ(FilesIn(dir + "/bin"), 12u);
  const auto text = report::ReadFile(dir + "/json/entry-0000.json");
  ASSERT_TRUE(text.ok());
  std::filesystem::remove_all(dir);
}

TEST(CorpusCommand, IncludesATraceWithItsOwnConfig) {
  const std::string from = TempDir("include-from");
  const std::string dir = TempDir("include");
  std::ostringstream out, err;
  ASSERT_EQ(
      cli::RunCorpusCommand({"--out", from, "--count", "1", "--protocol",
                             "advance", "--env", "foreign", "--preset", "tiny"},
                            out, err),
      0)
      << err.str();
  const std::string trace = from + "/json/entry-0000.json";
  ASSERT_EQ(cli::RunCorpusCommand(
                {"--out", dir, "--count", "2", "--include", trace}, out, err),
            0)
      << err.str();
  EXPECT_EQ(FilesIn(dir + "/bin"), 3u);
  const auto included = report::ReadFile(dir + "/bin/trace-0000");
  const auto original = report::ReadFile(from + "/bin/entry-0000");
  ASSERT_TRUE(included.ok() && original.ok());
  EXPECT_EQ(*included, *original);
  EXPECT_EQ(cli::DecodeCorpusEntry(*included, 0).config.env,
            model::Env::kForeign);
  std::filesystem::remove_all(from);
  std::filesystem::remove_all(dir);
}

TEST(CorpusCommand, RefusesAnIncludeThatIsNotAReplayableTraceWithExitTwo) {
  const std::string dir = TempDir("include-bad");
  std::filesystem::create_directories(dir);
  const std::string bad = dir + "/bad.json";
  ASSERT_TRUE(report::WriteFileAtomically(bad, "{\"format\": 1}").ok());
  std::ostringstream out, err;
  EXPECT_EQ(
      cli::RunCorpusCommand({"--out", dir + "/x", "--include", bad}, out, err),
      2);
  EXPECT_NE(err.str().find("--include " + bad), std::string::npos) << err.str();
  EXPECT_EQ(
      cli::RunCorpusCommand(
          {"--out", dir + "/y", "--include", dir + "/missing.json"}, out, err),
      2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/x"));
  std::filesystem::remove_all(dir);
}

TEST(CorpusCommand, RefusesBadUsageAndANonEmptyDirectoryWithExitTwo) {
  const std::string dir = TempDir("refuses");
  std::filesystem::create_directories(dir + "/old");
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunCorpusCommand({"--count", "3"}, out, err), 2);
  EXPECT_EQ(cli::RunCorpusCommand({"--out", dir}, out, err), 2);
  EXPECT_EQ(
      cli::RunCorpusCommand({"--out", dir + "/x", "--count", "0"}, out, err),
      2);
  EXPECT_EQ(cli::RunCorpusCommand({"--out", dir + "/x", "--protocol", "nope"},
                                  out, err),
            2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/x"));
  std::filesystem::remove_all(dir);
}

// Every file under `dir`, relative path -> contents.
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files[std::filesystem::relative(entry.path(), dir).string()] = text.str();
  }
  return files;
}

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(CorpusCommand, StopsAtItsTimeLimitWithExitThreeAndMarksTheDirectory) {
  const std::string dir = TempDir("time-limit");
  std::ostringstream out, err;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(cli::RunCorpusCommand({"--out", dir, "--count", "100000000",
                                   "--preset", "tiny", "--time-limit", "1"},
                                  out, err),
            3)
      << err.str();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(seconds, 10);
  EXPECT_EQ(FirstLine(dir + "/INCOMPLETE"), "time-limit");
  EXPECT_FALSE(std::filesystem::exists(dir + "/COMPLETE"));
  EXPECT_GT(FilesIn(dir + "/bin"), 0u);
  EXPECT_NE(out.str().find("incomplete: time-limit"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CorpusCommand, ResumeCompletesAPartialCorpusAsOneRunWouldHave) {
  const std::string partial = TempDir("resume-partial");
  const std::string whole = TempDir("resume-whole");
  const std::vector<std::string> args = {"--count", "30",     "--preset",
                                         "tiny",    "--seed", "5"};
  auto with = [&args](std::vector<std::string> more) {
    more.insert(more.end(), args.begin(), args.end());
    return more;
  };
  std::ostringstream out, err;
  ASSERT_EQ(cli::RunCorpusCommand(
                with({"--out", partial, "--max-states", "40"}), out, err),
            3);
  const std::size_t partial_entries = FilesIn(partial + "/bin");
  EXPECT_GT(partial_entries, 0u);
  EXPECT_LT(partial_entries, 30u);
  // Without --resume or --force a partial corpus is refused as it is.
  const auto before = Tree(partial);
  EXPECT_EQ(cli::RunCorpusCommand(with({"--out", partial}), out, err), 2);
  // Another seed is refused before anything changes.
  EXPECT_EQ(
      cli::RunCorpusCommand({"--out", partial, "--count", "30", "--preset",
                             "tiny", "--seed", "6", "--resume"},
                            out, err),
      2);
  EXPECT_EQ(Tree(partial), before);
  ASSERT_EQ(
      cli::RunCorpusCommand(with({"--out", partial, "--resume"}), out, err), 0)
      << err.str();
  ASSERT_EQ(cli::RunCorpusCommand(with({"--out", whole}), out, err), 0);
  EXPECT_EQ(Tree(partial), Tree(whole));
  EXPECT_TRUE(std::filesystem::exists(whole + "/COMPLETE"));
  std::filesystem::remove_all(partial);
  std::filesystem::remove_all(whole);
}

TEST(CorpusCommand, ForceReplacesACorpusButNeverDeletesAnythingElse) {
  const std::string dir = TempDir("force");
  std::ostringstream out, err;
  ASSERT_EQ(cli::RunCorpusCommand(
                {"--out", dir, "--count", "6", "--preset", "tiny"}, out, err),
            0);
  ASSERT_EQ(cli::RunCorpusCommand(
                {"--out", dir, "--count", "2", "--preset", "tiny", "--force"},
                out, err),
            0);
  EXPECT_EQ(FilesIn(dir + "/bin"), 2u);
  std::ofstream(dir + "/notes.txt") << "mine";
  std::ostringstream refused;
  EXPECT_EQ(cli::RunCorpusCommand(
                {"--out", dir, "--count", "2", "--preset", "tiny", "--force"},
                out, refused),
            2);
  EXPECT_NE(refused.str().find("not a corpus directory"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/notes.txt"));
  EXPECT_EQ(FilesIn(dir + "/bin"), 2u);
  std::filesystem::remove_all(dir);
}

TEST(Corpus, AnInterruptStopsTheBuildWithAPrefixOfItsEntries) {
  cli::CorpusOptions options;
  options.config.bounds = model::Bounds{1, 1, 2, 1, 4, 2};
  options.count = 20;
  const cli::Corpus whole = cli::BuildCorpus(options);
  engine::SetInterruptedForTesting(true);
  const cli::Corpus stopped = cli::BuildCorpus(options);
  engine::SetInterruptedForTesting(false);
  EXPECT_EQ(stopped.stopped_by, "interrupted by SIGINT");
  EXPECT_TRUE(stopped.entries.empty());
  EXPECT_EQ(whole.stopped_by, "");
  options.max_states = 50;
  const cli::Corpus capped = cli::BuildCorpus(options);
  EXPECT_EQ(capped.stopped_by, "max-states");
  ASSERT_LE(capped.entries.size(), whole.entries.size());
  EXPECT_TRUE(std::equal(capped.entries.begin(), capped.entries.end(),
                         whole.entries.begin()));
}

}  // namespace
}  // namespace memwal::checker
