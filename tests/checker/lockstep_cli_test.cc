// The lockstep command line (checker/cli/check.h): exit codes, the --json
// summary keys, counterexample files, and `replay` of every counterexample
// these runs produce reproducing its verdict; corrupt and older-format traces
// are refused with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "checker/cli/check.h"
#include "checker/cli/commands.h"

namespace memwal::checker {
namespace {

using nlohmann::json;

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

CliRun Cli(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::RunMemwalCheck(args, out, err);
  return CliRun{code, out.str(), err.str()};
}

std::string TempDir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("memwal-lockstep-cli-" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

// Checks a run's counterexample replays to the same invariant and step.
void ExpectReplayReproduces(const json& summary) {
  const std::string file = summary["violation"]["trace_file"];
  const CliRun replay = Cli({"replay", file, "--json"});
  ASSERT_EQ(replay.code, cli::kExitViolation) << replay.err;
  const json verdict = json::parse(replay.out);
  EXPECT_EQ(verdict["invariant"], summary["violation"]["invariant"]);
  EXPECT_EQ(verdict["step"], summary["violation"]["step"]);
}

TEST(LockstepCli, ACleanRunPrintsEveryJsonKey) {
  const CliRun run =
      Cli({"check", "--preset", "tiny", "--commits", "2", "--json", "--threads",
           "2", "--out", TempDir("clean")});
  const json summary = json::parse(run.out);
  for (const char* key :
       {"verdict", "states_distinct", "transitions", "depth_max", "seconds",
        "goals_reached", "goals_missed", "violation", "reachability",
        "coverage", "never_fired"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_EQ(summary["lockstep"], true);
  EXPECT_GT(summary["states_distinct"].get<uint64_t>(), 10u);
  EXPECT_EQ(summary["reachability"].size(), 6u);
}

TEST(LockstepCli, AnImplementationBugIsFoundAndItsTraceReplays) {
  const std::string out = TempDir("impl-bug");
  const CliRun run =
      Cli({"check", "--preset", "tiny", "--impl-bug",
           "bit-cleared-by-second-apply", "--json", "--out", out});
  ASSERT_EQ(run.code, cli::kExitViolation) << run.err;
  const json summary = json::parse(run.out);
  EXPECT_EQ(summary["violation"]["invariant"], "ActivationIsPermanent");
  EXPECT_EQ(summary["violation"]["step"], 2);
  EXPECT_TRUE(std::filesystem::exists(out + "/ActivationIsPermanent.itf.json"));
  ExpectReplayReproduces(summary);
  // The model-only search with the same config sees nothing.
  const CliRun model_only = Cli({"check", "--preset", "tiny", "--model-only",
                                 "--no-liveness", "--json", "--out", out});
  EXPECT_EQ(model_only.code, cli::kExitOk) << model_only.out;
}

TEST(LockstepCli, AModelBugInBothSidesIsFoundAndItsTraceReplays) {
  const CliRun run =
      Cli({"check", "--preset", "tiny", "--bug", "restore-walks-back", "--json",
           "--threads", "2", "--out", TempDir("bug")});
  ASSERT_EQ(run.code, cli::kExitViolation) << run.err;
  const json summary = json::parse(run.out);
  EXPECT_EQ(summary["violation"]["invariant"], "ActivationIsPermanent");
  ExpectReplayReproduces(summary);
}

TEST(LockstepCli, ALivenessCounterexampleIsWrittenAndReplays) {
  const CliRun run = Cli({"check", "--preset", "tiny", "--model-only", "--bug",
                          "no-work-repair-records-nothing", "--json", "--out",
                          TempDir("liveness")});
  ASSERT_EQ(run.code, cli::kExitViolation) << run.err;
  const json summary = json::parse(run.out);
  EXPECT_EQ(summary["violation"]["invariant"],
            "CompactedGenerationsEventuallyRetire");
  ExpectReplayReproduces(summary);
}

TEST(LockstepCli,
     TheTextSummaryNamesTheImplementationAndTheReproducingCommand) {
  const CliRun run =
      Cli({"check", "--preset", "tiny", "--impl-bug",
           "progress-commit-drops-fragments", "--out", TempDir("text")});
  ASSERT_EQ(run.code, cli::kExitViolation);
  EXPECT_NE(run.out.find("each checked on the implementation"),
            std::string::npos);
  EXPECT_NE(run.out.find("violation: NoRowIsLost after step 2"),
            std::string::npos);
  EXPECT_NE(run.out.find("version 2: live {} (impl) vs {0} (model)"),
            std::string::npos);
  EXPECT_NE(run.out.find("reproduce: memwal-check replay "), std::string::npos);
  EXPECT_NE(run.out.find("--impl-bug progress-commit-drops-fragments"),
            std::string::npos);
}

TEST(LockstepCli, BudgetsStopCleanlyWithExitThree) {
  const CliRun run = Cli(
      {"check", "--max-states", "300", "--json", "--out", TempDir("budget")});
  EXPECT_EQ(run.code, cli::kExitIncomplete);
  const json summary = json::parse(run.out);
  EXPECT_EQ(summary["verdict"], "incomplete");
  EXPECT_EQ(summary["stopped_by"], "max-states");
  EXPECT_EQ(summary["states_distinct"], 300);
}

TEST(LockstepCli, AMemoryLimitBelowTheProcessSizeStopsWithExitThree) {
  const CliRun run = Cli(
      {"check", "--memory-limit", "1", "--json", "--out", TempDir("memory")});
  EXPECT_EQ(run.code, cli::kExitIncomplete);
  const json summary = json::parse(run.out);
  EXPECT_EQ(summary["stopped_by"], "memory-limit");
}

TEST(LockstepCli, CorruptOldAndMissingTracesAreRefusedWithExitTwo) {
  const std::string dir = TempDir("corrupt");
  std::filesystem::create_directories(dir);
  const std::string corrupt = dir + "/corrupt.json";
  std::ofstream(corrupt) << "{\"format\": \"memwal-check-trace\", \"vers";
  const std::string old = dir + "/old.json";
  std::ofstream(old) << R"({"format":"memwal-check-trace","version":1,)"
                     << R"("config":{},"seed":0,"invariant":"x","steps":[]})";
  for (const std::string& path : {corrupt, old, dir + "/missing.json"}) {
    const CliRun run = Cli({"replay", path});
    EXPECT_EQ(run.code, cli::kExitUsage) << path;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
  EXPECT_NE(Cli({"replay", old}).err.find("unsupported trace version 1"),
            std::string::npos);
}

TEST(LockstepCli, BadOptionsAreUsageErrors) {
  EXPECT_EQ(Cli({"check", "--threads", "0"}).code, cli::kExitUsage);
  EXPECT_EQ(Cli({"check", "--mode", "sideways"}).code, cli::kExitUsage);
  EXPECT_EQ(Cli({"check", "--impl-bug", "no-such-bug"}).code, cli::kExitUsage);
  EXPECT_EQ(Cli({"check", "--walks"}).code, cli::kExitUsage);
}

}  // namespace
}  // namespace memwal::checker
