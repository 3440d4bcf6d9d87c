// The one trace reader (checker/report/trace_reader.h): it reads what the tool
// writes, and refuses, with one line that echoes nothing raw, what replay,
// minimize, report and corpus --include must all refuse.
#include "checker/report/trace_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "checker/cli/check.h"
#include "checker/report/trace.h"
#include "model/actions.h"

namespace memwal::checker {
namespace {

using nlohmann::json;

report::LockstepTrace Sample() {
  report::LockstepTrace trace;
  trace.trace.config.bounds = model::Bounds{1, 1, 2, 1, 4, 2};
  trace.trace.seed = 7;
  trace.trace.invariant = "CatchupWithinCoverage";
  trace.trace.steps = {model::FlushMemTable{0}, model::Activate{}};
  trace.step = 2;
  trace.detail = "why";
  trace.implementation_state = "state";
  return trace;
}

json SampleJson() { return json::parse(report::LockstepTraceText(Sample())); }

// The message of reading `text`, "" when it is accepted.
std::string Refusal(const std::string& text) {
  const Result<report::LockstepTrace> trace = report::ReadTraceText(text);
  return trace.ok() ? "" : trace.status().message();
}

TEST(TraceReader, ReadsWhatTheToolWrites) {
  const Result<report::LockstepTrace> trace =
      report::ReadTraceText(report::LockstepTraceText(Sample()));
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->trace.steps, Sample().trace.steps);
  EXPECT_EQ(trace->trace.seed, 7u);
  EXPECT_EQ(trace->step, 2u);
  EXPECT_EQ(trace->detail, "why");
  EXPECT_EQ(trace->implementation_state, "state");
  EXPECT_TRUE(trace->lockstep);
}

TEST(TraceReader, RefusesADuplicateKeyAtAnyLevel) {
  const std::string text = SampleJson().dump();
  // Root, config and an action each get a second copy of their first key.
  const std::string root = "{\"format\":\"evil\"," + text.substr(1);
  std::string config = text;
  config.replace(config.find("\"config\":{") + 10, 0, "\"gc\":\"atomic\",");
  std::string action = text;
  action.replace(action.find("\"action\":{") + 10, 0, "\"kind\":\"Activate\",");
  for (const std::string& bad : {root, config, action}) {
    ASSERT_TRUE(json::accept(bad)) << bad;
    EXPECT_NE(Refusal(bad).find("duplicate key"), std::string::npos) << bad;
  }
}

TEST(TraceReader, RefusesWhatReportUsedToAccept) {
  // Legend: field, replacement, expected words of the message.
  struct Case {
    const char* field;
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"version", 2.0, "'version' must be an integer, not number 2.0"},
      {"version", "2", "'version' must be an integer, not string"},
      {"version", 1, "unsupported trace version 1"},
      {"step", -1, "'step', 'detail' or 'implementation_state'"},
      {"step", 3, "past the last of 2 steps"},
      {"impl_bugs", json::array({1}), "impl_bugs holds a non-string"},
      {"format", "evil", "not a memwal-check trace"},
  };
  for (const Case& c : cases) {
    json document = SampleJson();
    document[c.field] = c.value;
    EXPECT_NE(Refusal(document.dump()).find(c.message), std::string::npos)
        << c.field << " = " << c.value.dump() << ": "
        << Refusal(document.dump());
  }
  json missing = SampleJson();
  missing.erase("version");
  EXPECT_EQ(Refusal(missing.dump()), "trace has no version");
}

TEST(TraceReader, EscapesTheTracesBytesInItsMessages) {
  json document = SampleJson();
  document["format"] = "evil\n\x1b[2Jline";
  const std::string message = Refusal(document.dump());
  EXPECT_NE(message.find("evil\\x0a\\x1b[2Jline"), std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  json bug = SampleJson();
  bug["impl_bugs"] = json::array({"no-such\nbug"});
  EXPECT_EQ(Refusal(bug.dump()).find('\n'), std::string::npos);
}

TEST(TraceReader, RefusesNestingPastTheBoundWithoutBuildingIt) {
  const std::string deep(10 << 20, '[');
  EXPECT_EQ(Refusal(deep), "nested deeper than 16 levels");
  json document = SampleJson();
  json nested = 1;
  for (int k = 0; k < report::kTraceDepthMax; ++k)
    nested = json::array({nested});
  document["detail"] = nested;
  EXPECT_EQ(Refusal(document.dump()), "nested deeper than 16 levels");
}

TEST(TraceReader, RefusesMoreStepsThanTheBound) {
  json document = SampleJson();
  json steps = json::array();
  for (std::size_t k = 0; k <= report::kTraceStepsMax; ++k)
    steps.push_back(json{{"action", json{{"kind", "Activate"}}}});
  document["steps"] = steps;
  EXPECT_EQ(Refusal(document.dump()),
            "more than " + std::to_string(report::kTraceStepsMax) + " steps");
}

TEST(TraceReader, RefusesManyValuesOutsideTheSteps) {
  json document = SampleJson();
  document["config"]["bugs"] = json::array();
  for (std::size_t k = 0; k <= report::kOtherValuesMax; ++k)
    document["config"]["bugs"].push_back("x");
  EXPECT_NE(Refusal(document.dump()).find("JSON values outside the steps"),
            std::string::npos);
}

TEST(TraceReader, NamesTheStepThatIsMalformed) {
  json document = SampleJson();
  document["steps"][1] = json{{"action", json{{"kind", "NoSuchAction"}}}};
  EXPECT_EQ(Refusal(document.dump()).rfind("step 2: ", 0), 0u)
      << Refusal(document.dump());
  document["steps"][1] = 5;
  EXPECT_EQ(Refusal(document.dump()),
            "step 2: a step must be {\"action\": ...}");
}

class TraceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/trace_reader_test.XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TraceFile, ReadsAFileAndPrefixesErrorsWithItsPath) {
  const std::string path = dir_ + "/t.trace.json";
  std::ofstream(path) << report::LockstepTraceText(Sample());
  ASSERT_TRUE(report::ReadTraceFile(path).ok());
  std::ofstream(path) << "{\"format\":";
  const Result<report::LockstepTrace> bad = report::ReadTraceFile(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(path + ": not valid JSON", 0), 0u)
      << bad.status().message();
}

TEST_F(TraceFile, NamesTheRealCauseOfAnUnreadablePath) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(report::ReadTraceFile(fifo).status().message(),
            fifo + ": not a regular file");
  EXPECT_EQ(report::ReadTraceFile(dir_).status().message(),
            dir_ + ": not a regular file");
  const std::string loop = dir_ + "/loop";
  std::filesystem::create_symlink(loop, loop);
  EXPECT_EQ(report::ReadTraceFile(loop).status().message(),
            loop + ": a symlink loop");
  const Result<report::LockstepTrace> missing =
      report::ReadTraceFile(dir_ + "/missing");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace memwal::checker
