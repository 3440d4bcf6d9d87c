// Trace files (our JSON format and ITF) and the memwal-check command line,
// driven through RunCommand with string streams.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "checker/cli/check.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/report/trace.h"

namespace memwal::checker {
namespace {

using nlohmann::json;

report::Trace SampleTrace() {
  report::Trace trace;
  trace.config.protocol = model::Protocol::kLegacy;
  trace.config.bounds = model::TinyBounds();
  trace.config.bugs = model::BugBit(model::Bug::kReaderIgnoresBit);
  trace.seed = 7;
  trace.invariant = "ReadsMissNoRows";
  trace.steps = {model::FlushMemTable{0}, model::CompactSsTable{0, true},
                 model::Commit{0}};
  return trace;
}

TEST(Trace, RoundTripsThroughText) {
  const report::Trace trace = SampleTrace();
  const Result<report::Trace> back =
      report::ParseTrace(report::TraceToJson(trace).dump());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->config, trace.config);
  EXPECT_EQ(back->seed, 7u);
  EXPECT_EQ(back->invariant, trace.invariant);
  EXPECT_EQ(back->steps, trace.steps);
}

TEST(Trace, CorruptOrForeignTracesAreOneLineErrors) {
  json old = report::TraceToJson(SampleTrace());
  old["version"] = 0;
  json foreign = report::TraceToJson(SampleTrace());
  foreign["format"] = "ITF";
  json extra = report::TraceToJson(SampleTrace());
  extra["note"] = "x";
  json bad_step = report::TraceToJson(SampleTrace());
  bad_step["steps"][1]["action"]["kind"] = "Compact";
  json bad_bounds = report::TraceToJson(SampleTrace());
  bad_bounds["config"]["bounds"]["shards"] = 9;
  json bad_bug = report::TraceToJson(SampleTrace());
  bad_bug["config"]["bugs"] = json::array({"nope"});
  for (const std::string& text :
       {std::string("{"), std::string("[]"), old.dump(), foreign.dump(),
        extra.dump(), bad_step.dump(), bad_bounds.dump(), bad_bug.dump()}) {
    const Result<report::Trace> parsed = report::ParseTrace(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message().find('\n'), std::string::npos);
  }
}

TEST(Trace, ItfHoldsOneStatePerStepWithBigints) {
  const report::Trace trace = SampleTrace();
  std::vector<model::State> states;
  ASSERT_TRUE(engine::Replay(trace.config, trace.steps, &states).ok());
  const json itf =
      report::ToItf(trace.config, trace.invariant, trace.steps, states);
  EXPECT_EQ(itf["#meta"]["format"], "ITF");
  ASSERT_EQ(itf["states"].size(), 4u);
  EXPECT_EQ(itf["states"][3]["#meta"]["index"], 3);
  EXPECT_EQ(itf["states"][3]["mbt::actionTaken"], "Commit");
  EXPECT_EQ(itf["states"][3]["versions"][1]["compacted"][0]["#bigint"], "1");
  EXPECT_EQ(itf["states"][0]["mbt::actionTaken"], "init");
  for (const json& state : itf["states"]) {
    for (const json& var : itf["vars"])
      EXPECT_TRUE(state.contains(var.get<std::string>()));
  }
}

struct Ran {
  int code;
  std::string out;
  std::string err;
};

// The whole command line, as main.cc runs check and replay.
Ran RunArgs(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::RunMemwalCheck(args, out, err);
  return Ran{code, out.str(), err.str()};
}

std::string TempDir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST(Cli, ParsesPresetsOverridesAndSwitches) {
  cli::CheckFlagSet command;
  const Status parsed = cli::ParseCheckFlags(
      {"--preset", "tiny", "--commits", "3", "--protocol", "advance", "--bug",
       "unchanged-by-uuid-only", "--gc", "recheck", "--mode", "dfs",
       "--max-states", "9"},
      &command);
  ASSERT_TRUE(parsed.ok()) << parsed.ToString();
  const cli::CheckOptions& options = command.check;
  EXPECT_EQ(options.config.bounds.commits, 3);
  EXPECT_EQ(options.config.bounds.fragments, model::TinyBounds().fragments);
  EXPECT_EQ(options.config.protocol, model::Protocol::kAdvance);
  EXPECT_TRUE(model::Has(options.config, model::Bug::kUnchangedByUuidOnly));
  EXPECT_EQ(options.config.gc, model::GcMode::kRecheck);
  EXPECT_EQ(command.run.order, engine::Order::kDfs);
  EXPECT_EQ(options.explore.max_states, 9u);
}

TEST(Cli, BadUsageIsExitTwoWithOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"frobnicate"},
                                             {"check", "--protocol", "beta"},
                                             {"check", "--shards"},
                                             {"check", "--shards", "3"},
                                             {"check", "--max-states", "-1"},
                                             {"check", "--wat"},
                                             {"replay"},
                                             {"replay", "a", "b"}}) {
    const Ran ran = RunArgs(args);
    EXPECT_EQ(ran.code, cli::kExitUsage);
    ASSERT_FALSE(ran.err.empty());
    EXPECT_EQ(ran.err.find('\n'), ran.err.size() - 1) << ran.err;
  }
}

TEST(Cli, HelpListsCommandsAndEveryBugWithItsLayer) {
  EXPECT_EQ(RunArgs({"--help"}).code, cli::kExitOk);
  EXPECT_NE(RunArgs({"--help"}).out.find("replay"), std::string::npos);
  const Ran help = RunArgs({"check", "--help"});
  EXPECT_EQ(help.code, cli::kExitOk);
  for (const model::BugInfo& info : model::AllBugs()) {
    EXPECT_NE(help.out.find(info.name), std::string::npos) << info.name;
  }
  EXPECT_NE(help.out.find("not in the model (impl only)"), std::string::npos);
  EXPECT_EQ(RunArgs({"replay", "--help"}).code, cli::kExitOk);
}

TEST(Cli, AViolationWritesReplayableFilesAndExitsOne) {
  const std::string out = TempDir("memwal_cli_violation");
  const Ran ran = RunArgs({"check", "--model-only", "--protocol", "legacy",
                           "--preset", "tiny", "--out", out, "--seed", "5"});
  EXPECT_EQ(ran.code, cli::kExitViolation);
  EXPECT_NE(ran.out.find("seed=5"), std::string::npos);
  EXPECT_NE(ran.out.find("verdict: violation"), std::string::npos);
  EXPECT_NE(ran.out.find("  1. FlushMemTable{shard=0}"), std::string::npos);
  EXPECT_NE(ran.out.find("reproduce: memwal-check replay " + out),
            std::string::npos);
  const std::string trace_file = out + "/ReadsMissNoRows.trace.json";
  EXPECT_TRUE(std::filesystem::exists(out + "/ReadsMissNoRows.itf.json"));
  const Ran replay = RunArgs({"replay", trace_file});
  EXPECT_EQ(replay.code, cli::kExitViolation);
  EXPECT_NE(replay.out.find("violation: ReadsMissNoRows after step 3"),
            std::string::npos);
  const Ran json_replay = RunArgs({"replay", trace_file, "--json"});
  EXPECT_EQ(nlohmann::json::parse(json_replay.out)["step"], 3);
}

TEST(Cli, JsonOutputHasTheDocumentedKeys) {
  const std::string out = TempDir("memwal_cli_json");
  const Ran ran = RunArgs({"check", "--model-only", "--preset", "tiny",
                           "--commits", "2", "--json", "--out", out});
  EXPECT_EQ(ran.code, cli::kExitViolation);  // goals missed
  EXPECT_TRUE(ran.err.find("lockstep") == std::string::npos);
  const json result = json::parse(ran.out);
  for (const char* key :
       {"verdict", "states_distinct", "transitions", "depth_max", "seconds",
        "goals_reached", "goals_missed", "violation", "coverage", "config"}) {
    EXPECT_TRUE(result.contains(key)) << key;
  }
  EXPECT_EQ(result["violation"]["invariant"], "ReachPositionCredited");
  EXPECT_TRUE(result["violation"]["trace_file"].is_null());
  // Every kind of spec sections 4-6; the env actions (section 10) only
  // appear under --env foreign, and ReinstallMemWal only where
  // bounds.reinstalls > 0 (the gate preset).
  EXPECT_EQ(result["coverage"].size(),
            static_cast<std::size_t>(model::kActionKinds - 6));
}

TEST(Cli, AnExhaustedBudgetExitsThree) {
  EXPECT_EQ(RunArgs({"check", "--model-only", "--max-states", "10"}).code,
            cli::kExitIncomplete);
}

TEST(Cli, AnUnreadableTraceIsExitTwo) {
  const std::string dir = TempDir("memwal_cli_corrupt");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(
      report::WriteFileAtomically(dir + "/bad.trace.json", "{\"format\":")
          .ok());
  const Ran ran = RunArgs({"replay", dir + "/bad.trace.json"});
  EXPECT_EQ(ran.code, cli::kExitUsage);
  EXPECT_EQ(ran.err, "memwal-check replay: " + dir +
                         "/bad.trace.json: not valid JSON at byte 11 (corrupt "
                         "trace file)\n");
  EXPECT_EQ(RunArgs({"replay", dir + "/missing.json"}).code, cli::kExitUsage);
  report::Trace trace;
  trace.config.bounds = model::TinyBounds();
  trace.invariant = "x";
  trace.steps = {model::Commit{0}};
  ASSERT_TRUE(report::WriteFileAtomically(dir + "/disabled.json",
                                          report::TraceToJson(trace).dump())
                  .ok());
  EXPECT_EQ(RunArgs({"replay", dir + "/disabled.json"}).code, cli::kExitUsage);
}

TEST(Cli, TheEquivalentCommandLineParsesBackToTheSameConfig) {
  cli::CheckOptions options;
  options.config.protocol = model::Protocol::kAdvance;
  options.config.bugs = model::BugBit(model::Bug::kAdvanceBoundAtCommit);
  options.config.bounds = model::Bounds{1, 1, 2, 2, 3, 1};
  options.seed = 3;
  std::istringstream words(cli::CheckCommandLine(options));
  std::vector<std::string> args;
  for (std::string word; words >> word;) args.push_back(word);
  ASSERT_EQ(args.front(), "memwal-check");
  ASSERT_EQ(args.at(1), "check");
  args.erase(args.begin(), args.begin() + 2);
  cli::CheckFlagSet command;
  const Status parsed = cli::ParseCheckFlags(args, &command);
  ASSERT_TRUE(parsed.ok()) << parsed.ToString();
  EXPECT_EQ(command.check.config, options.config);
  EXPECT_EQ(command.check.seed, 3u);
}

}  // namespace
}  // namespace memwal::checker
