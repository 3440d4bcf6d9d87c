// The variants table (checker/cli/variants.h): every known bug the model or the
// implementation can express is found at `small` bounds with its invariant and
// a pinned minimized length, so that a change to the checker that loses a bug
// fails here; the acceptance verdicts of protocols, read and gc modes; and the
// table's three output formats.
//
// The bug rows run model-only (the search is the same; lockstep re-checks each
// transition on the implementation and is pinned for a few rows below, and
// in full by `memwal-check variants`, which the CI gate runs).
#include "checker/cli/variants.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/check.h"
#include "checker/cli/commands.h"
#include "checker/cli/expect.h"
#include "checker/report/report.h"
#include "model/invariants.h"

namespace memwal::checker {
namespace {

struct Pinned {
  const char* variant;
  const char* verdict;
  const char* invariant;  // "" = none
  int steps;              // minimized length; -1 = no counterexample
};

constexpr const char* kNeedsLockstep =
    "needs lockstep: only the implementation has this bug";

// Measured at `small` (model::SmallBounds()), model-only, BFS. An
// implementation-only bug is not run without lockstep; a bug the search does
// not find reads "not found".
constexpr Pinned kPinned[] = {
    // variant                                 verdict  invariant  steps
    {"default", "ok", "", -1},
    {"protocol=advance", "ok", "", -1},
    {"protocol=unconditional", "violation", "CatchupWithinCoverage", 9},
    {"protocol=legacy", "violation", "ReadsMissNoRows", 3},
    {"read=min", "violation", "ReadsMissNoRows", 5},
    {"read=single-index", "violation", "ReadsMissNoRows", 5},
    {"gc=stale-read", "violation", "ReadsMissNoRows", 12},
    {"gc=recheck", "ok", "", -1},
    {"bug=bit-dropped-by-new-from-previous", "violation",
     "ActivationIsPermanent", 4},
    {"bug=bit-cleared-by-second-apply", "violation", "ActivationIsPermanent",
     2},
    {"bug=shallow-clone-zeroes-bits", "violation", "ActivationIsPermanent", 3},
    {"bug=restore-walks-back", "violation", "ActivationIsPermanent", 3},
    {"bug=half-set-folded", "not run", kNeedsLockstep, -1},
    {"bug=unchanged-by-uuid-only", "violation", "CatchupWithinCoverage", 9},
    {"bug=advance-without-inspected", "not run", kNeedsLockstep, -1},
    {"bug=advance-bound-at-commit", "violation", "CatchupWithinCoverage", 7},
    // A dead-end lasso since the fair-cycle search (8 steps; 7 before).
    {"bug=no-work-repair-records-nothing", "violation",
     "CompactedGenerationsEventuallyRetire", 8},
    {"bug=claim-past-read-version", "violation", "CatchupWithinCoverage", 7},
    {"bug=invalidation-on-legacy", "not run", kNeedsLockstep, -1},
    {"bug=advance-dropped-without-system-index", "not run", kNeedsLockstep, -1},
    {"bug=advance-replaces-position", "not run", kNeedsLockstep, -1},
    // A lasso since the fair-cycle search (spec R72): stem 6, cycle 10.
    {"bug=repair-spans-live-at-commit", "violation",
     "CompactedGenerationsEventuallyRetire", 16},
    {"bug=progress-commit-drops-fragments", "violation", "NoRowIsLost", 2},
    {"bug=index-work-per-transaction", "not run", kNeedsLockstep, -1},
    {"bug=coverage-past-compaction", "not run", kNeedsLockstep, -1},
    {"bug=single-index-watermark", "violation", "ReadsMissNoRows", 7},
    {"bug=reader-ignores-bit", "violation", "ReadsMissNoRows", 5},
    {"bug=bits-one-word", "not run", kNeedsLockstep, -1},
    {"bug=progress-regresses", "not run", kNeedsLockstep, -1},
};

const cli::Variant& Find(const std::vector<cli::Variant>& variants,
                         const std::string& name) {
  for (const cli::Variant& variant : variants) {
    if (variant.name == name) return variant;
  }
  ADD_FAILURE() << "no variant " << name;
  return variants.front();
}

// Model-only, with a time limit far above any row's search so that a loaded
// machine does not turn a bug row into "not found" (kBugSearchSeconds).
cli::RunSettings ModelOnly() {
  cli::RunSettings settings;
  settings.search.lockstep = false;
  settings.search.time_limit_s = 3600;
  return settings;
}

TEST(Variants, ListsEveryProtocolReadModeGcModeAndBugOnce) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  EXPECT_EQ(variants.size(), 1u + 3 + 2 + 2 + model::AllBugs().size());
  EXPECT_EQ(variants.front().name, "default");
  for (const model::BugInfo& info : model::AllBugs()) {
    const cli::Variant& variant =
        Find(variants, "bug=" + std::string(info.name));
    EXPECT_EQ(variant.setup.impl_only_bugs != 0, !info.in_model) << info.name;
  }
  EXPECT_EQ(Find(variants, "read=single-index").setup.config.bounds.indexes, 2);
  EXPECT_EQ(
      Find(variants, "bug=single-index-watermark").setup.config.bounds.indexes,
      2);
  EXPECT_EQ(Find(variants, "bug=advance-bound-at-commit").setup.config.protocol,
            model::Protocol::kAdvance);
}

TEST(Variants, EveryBugAndSwitchKeepsItsPinnedVerdictInvariantAndLength) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  for (const Pinned& pinned : kPinned) {
    const cli::VariantRow row =
        cli::RunVariant(Find(variants, pinned.variant), ModelOnly());
    EXPECT_EQ(row.verdict, pinned.verdict) << pinned.variant;
    EXPECT_EQ(row.invariant, pinned.invariant) << pinned.variant;
    EXPECT_EQ(row.steps ? static_cast<int>(*row.steps) : -1, pinned.steps)
        << pinned.variant;
  }
}

TEST(Variants, EveryModelBugHasAPinnedRow) {
  for (const model::BugInfo& info : model::AllBugs()) {
    const std::string name = "bug=" + std::string(info.name);
    bool found = false;
    for (const Pinned& pinned : kPinned)
      found = found || name == pinned.variant;
    EXPECT_TRUE(found) << name;
  }
}

// The review's story of the seed's bug: an index built over fragment 1, the
// generation compacted into it, the bitmap pruned in place by a column
// update, the position kept because the uuid did not change; the reader then
// skips the SSTable and the row is missed. Retiring the SSTable (one more
// step) keeps the row missed.
TEST(Variants, UnchangedByUuidOnlyMinimizesToTheReviewsStory) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  const cli::Variant& variant = Find(variants, "bug=unchanged-by-uuid-only");
  const cli::VariantResult result = cli::RunOne(variant.setup, ModelOnly(), "");
  ASSERT_EQ(result.verdict, engine::Verdict::kViolation);
  ASSERT_TRUE(result.minimized);
  const std::vector<model::Action>& trace = result.minimized->trace;
  EXPECT_LE(trace.size(), 12u);
  std::vector<std::string> kinds;
  for (const model::Action& action : trace)
    kinds.emplace_back(model::KindName(action));
  EXPECT_EQ(kinds,
            (std::vector<std::string>{
                "FlushMemTable", "Activate", "Commit", "CompactSsTable",
                "Commit", "UpdateColumns", "CreateIndex", "Commit", "Commit"}));
  const model::Config& config = result.minimized->setup.config;
  const lockstep::LockstepSetup setup{.config = config};
  Result<lockstep::ReplayResult> replay =
      lockstep::ReplayLockstep(setup, trace, true);
  ASSERT_TRUE(replay.ok());
  const std::vector<model::State>& states = replay->states;
  ASSERT_EQ(states.size(), trace.size() + 1);
  const model::Version& head = model::Head(states.back());
  EXPECT_EQ(head.catchup[0][0], 1);  // position kept ...
  EXPECT_FALSE(model::Contains(head.segments[0][0].covers, 1));  // ... pruned
  EXPECT_FALSE(
      model::FindInvariant("ReadsMissNoRows")->holds(config, states.back()));
  // Replay stops at the first finding; the retirement (after the cleanup
  // that R12 needs, since older retained versions hold no position) is
  // applied by hand.
  model::State state = states.back();
  std::size_t story = trace.size();
  for (const model::Action& action : std::vector<model::Action>{
           model::CleanupVersions{}, model::RetireSsTable{0, 1}}) {
    ASSERT_TRUE(model::IsEnabled(config, state, action))
        << model::ToString(action);
    model::Outcome outcome;
    state = model::Apply(config, state, action, &outcome);
    ++story;
  }
  EXPECT_LE(story, 12u);
  EXPECT_NE(state.retired[0], 0);
  EXPECT_FALSE(model::FindInvariant("ReadsMissNoRows")->holds(config, state));
}

TEST(Variants, LockstepAgreesWithTheModelOnTheFastRows) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  cli::RunSettings lockstep;
  lockstep.liveness = false;
  for (const char* name :
       {"protocol=legacy", "read=min", "bug=reader-ignores-bit",
        "bug=bit-cleared-by-second-apply"}) {
    const cli::VariantRow model_row =
        cli::RunVariant(Find(variants, name), ModelOnly());
    const cli::VariantRow row = cli::RunVariant(Find(variants, name), lockstep);
    EXPECT_EQ(row.verdict, model_row.verdict) << name;
    EXPECT_EQ(row.invariant, model_row.invariant) << name;
    EXPECT_EQ(row.steps, model_row.steps) << name;
  }
}

// The wall clock is only a safety stop: a row it ends reads "budget" (never
// "not found" or "ok"), and a bug row's own budget is in states.
TEST(Variants, AWallClockStopReadsBudgetAndABugRowsBudgetIsInStates) {
  const std::vector<cli::Variant> variants =
      cli::AllVariants(model::Config{.bounds = model::SmallBounds()});
  cli::RunSettings settings = ModelOnly();
  settings.liveness = false;
  settings.search.time_limit_s = 0.001;
  const cli::VariantRow row =
      cli::RunVariant(Find(variants, "default"), settings);
  EXPECT_EQ(row.verdict, "budget") << row.invariant;
  settings.search.time_limit_s = 3600;
  settings.search.max_states = 50;
  settings.max_states_given = true;
  const cli::VariantRow bug =
      cli::RunVariant(Find(variants, "bug=reader-ignores-bit"), settings);
  EXPECT_EQ(bug.verdict, "not found") << bug.invariant;
  EXPECT_NE(bug.invariant.find("max-states 50"), std::string::npos)
      << bug.invariant;
}

// Under --model-only nothing runs the implementation, so an
// implementation-only row says it was not run, and no expectation on it is
// met (not even one that names its invariant).
TEST(Variants, AModelOnlyRunDoesNotRunAnImplOnlyBugAndNoExpectationOnItIsMet) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  const cli::VariantRow row = cli::RunVariant(
      Find(variants, "bug=invalidation-on-legacy"), ModelOnly());
  EXPECT_EQ(row.verdict, "not run");
  EXPECT_EQ(row.invariant, kNeedsLockstep);
  EXPECT_EQ(row.states, 0u);
  const std::vector<cli::NamedOutcome> outcomes = {
      {row.variant, row.verdict, row.invariant}};
  for (const char* verdict : {"violation", "LegacyTablesAreUntouched", "ok"}) {
    EXPECT_EQ(cli::Unmet({{row.variant, verdict}}, outcomes).size(), 1u)
        << verdict;
  }
}

// The env bug half-set-folded (spec section 10) runs with --env foreign and
// the lockstep BFS finds it; the verdict and its length come from that search.
TEST(Variants, LockstepSearchFindsAnEnvBug) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  cli::RunSettings lockstep;
  lockstep.liveness = false;
  lockstep.minimize = false;
  const cli::Variant& variant = Find(variants, "bug=half-set-folded");
  EXPECT_EQ(variant.setup.config.env, model::Env::kForeign);
  const cli::VariantRow row = cli::RunVariant(variant, lockstep);
  EXPECT_EQ(row.verdict, "violation");
  EXPECT_EQ(row.invariant, "ImplementationMatchesModel");
  // 1 step since refusals are compared under env foreign: the bug loads the
  // half-set head and accepts the Append the model disables.
  EXPECT_EQ(row.steps, 1u);
  EXPECT_GT(row.states, 0u);
}

// A bug row whose search ends without a violation reads "not found" with what
// the search covered, here a budget of 100 states.
TEST(Variants, ABugTheSearchDoesNotFindReadsNotFoundWithItsBudget) {
  const std::vector<cli::Variant> variants = cli::AllVariants(model::Config{});
  cli::RunSettings settings = ModelOnly();
  settings.liveness = false;
  settings.search.max_states = 100;
  const cli::VariantRow row =
      cli::RunVariant(Find(variants, "bug=unchanged-by-uuid-only"), settings);
  EXPECT_EQ(row.verdict, "not found");
  EXPECT_NE(row.invariant.find("max-states 100"), std::string::npos)
      << row.invariant;
  EXPECT_GT(row.states, 0u);
}

std::vector<cli::VariantRow> SampleRows() {
  return {cli::VariantRow{.variant = "default",
                          .run = "-",
                          .verdict = "ok",
                          .states = 10,
                          .seconds = 0.5},
          cli::VariantRow{.variant = "gc=stale-read",
                          .run = "gc stale-read",
                          .verdict = "violation",
                          .invariant = "ReadsMissNoRows",
                          .states = 20,
                          .seconds = 1.25,
                          .steps = 12,
                          .steps_before = 14}};
}

TEST(VariantsOutput, JsonRowsHaveExactlyTheDocumentedKeys) {
  const nlohmann::json rows =
      nlohmann::json::parse(cli::VariantsJson(SampleRows()));
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 2u);
  for (const nlohmann::json& row : rows) {
    std::vector<std::string> keys;
    for (const auto& item : row.items()) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{
                        "counterexample_steps", "invariant", "seconds",
                        "states", "trace_file", "variant", "verdict"}));
  }
  EXPECT_TRUE(rows[0]["trace_file"].is_null());
  EXPECT_TRUE(rows[0]["invariant"].is_null());
  EXPECT_TRUE(rows[0]["counterexample_steps"].is_null());
  EXPECT_EQ(rows[1]["counterexample_steps"], 12);
  EXPECT_EQ(rows[1]["invariant"], "ReadsMissNoRows");
}

TEST(VariantsOutput, MarkdownIsAPipeTableWithOneLinePerRow) {
  const std::string markdown = cli::VariantsMarkdown(SampleRows());
  EXPECT_EQ(markdown.rfind("| variant | run | verdict | invariant | states | "
                           "seconds | steps |\n|---|",
                           0),
            0u)
      << markdown;
  EXPECT_NE(markdown.find("| gc=stale-read | gc stale-read | violation | "
                          "ReadsMissNoRows | 20 | 1.25 | 12 (from 14) |"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(std::count(markdown.begin(), markdown.end(), '\n'), 4);
}

TEST(VariantsCommand,
     RunsTheChosenVariantsKeepsCounterexamplesAndChecksExpectations) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "memwal-gate-variants")
          .string();
  std::filesystem::remove_all(dir);
  const std::vector<std::string> base = {
      "--preset", "tiny",       "--model-only", "--no-liveness",
      "--out",    dir,          "--only",       "gc=stale-read",
      "--only",   "gc=recheck", "--json"};
  std::ostringstream out, err;
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--expect", "gc=recheck=ok", "--expect",
                           "gc=stale-read=ReadsMissNoRows"});
  EXPECT_EQ(cli::RunVariantsCommand(args, out, err), 0) << err.str();
  const nlohmann::json rows = nlohmann::json::parse(out.str());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["variant"], "gc=stale-read");
  EXPECT_TRUE(std::filesystem::exists(
      dir + "/gc-stale-read/ReadsMissNoRows.trace.json"));
  EXPECT_TRUE(std::filesystem::exists(
      dir + "/gc-stale-read/ReadsMissNoRows.min.trace.json"));
  args = base;
  args.insert(args.end(), {"--expect", "gc=stale-read=ok"});
  std::ostringstream out2, err2;
  EXPECT_EQ(cli::RunVariantsCommand(args, out2, err2), 1);
  EXPECT_NE(err2.str().find("gc=stale-read: expected ok, got violation"),
            std::string::npos)
      << err2.str();
  std::ostringstream out3, err3;
  EXPECT_EQ(cli::RunVariantsCommand({"--only", "no-such-variant"}, out3, err3),
            2);
  EXPECT_EQ(cli::RunVariantsCommand({"--json", "--markdown"}, out3, err3), 2);
  EXPECT_EQ(
      cli::RunVariantsCommand({"--expect", "gc=recheck=bogus"}, out3, err3), 2);
  // A misspelled variant name is refused before any row runs.
  EXPECT_EQ(
      cli::RunVariantsCommand({"--expect", "gc=rechek=ok"}, out3, err3), 2);
  EXPECT_EQ(
      cli::RunVariantsCommand({"--impl-bug", "half-set-folded"}, out3, err3),
      2);
  EXPECT_EQ(cli::RunVariantsCommand({"--walks", "5"}, out3, err3), 2);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh directory under the system's temporary directory.
std::string FreshDir(const std::string& name) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / name).string();
  std::filesystem::remove_all(dir);
  return dir;
}

// tiny with 3 commits under the legacy protocol: ReadsMissNoRows in 3 steps
// after about 70 states, fast enough to run in lockstep here.
TEST(HtmlPages, CheckWritesASummaryWithStatesPerDepthAndTheCounterexample) {
  const std::string dir = FreshDir("memwal-gate-check-html");
  std::ostringstream out, err;
  EXPECT_EQ(
      cli::RunMemwalCheck({"check", "--preset", "tiny", "--commits", "3",
                           "--protocol", "legacy", "--no-liveness", "--json",
                           "--out", dir + "/out", "--html", dir + "/html"},
                          out, err),
      1)
      << err.str();
  const nlohmann::json result = nlohmann::json::parse(out.str());
  ASSERT_EQ(result["violation"]["invariant"], "ReadsMissNoRows");
  const std::string summary = ReadText(dir + "/html/summary.html");
  ASSERT_FALSE(summary.empty());
  EXPECT_NE(summary.find("Distinct states per depth"), std::string::npos);
  EXPECT_EQ(summary.find("did not record states per depth"), std::string::npos);
  // The numbers row: one cell per depth, Init alone at depth 0, summing to
  // the distinct states the run reports.
  std::smatch row;
  ASSERT_TRUE(std::regex_search(
      summary, row, std::regex("<tr><th>states</th>((<td>[0-9]+</td>)+)")));
  const std::string cells = row[1].str();
  std::vector<uint64_t> per_depth;
  const std::regex cell("<td>([0-9]+)</td>");
  for (auto it = std::sregex_iterator(cells.begin(), cells.end(), cell);
       it != std::sregex_iterator(); ++it)
    per_depth.push_back(std::stoull((*it)[1].str()));
  ASSERT_EQ(per_depth.size(), result["depth_max"].get<std::size_t>() + 1);
  EXPECT_EQ(per_depth[0], 1u);
  uint64_t sum = 0;
  for (uint64_t n : per_depth) sum += n;
  EXPECT_EQ(sum, result["states_distinct"].get<uint64_t>());
  EXPECT_NE(summary.find("href=\"ReadsMissNoRows.html\""), std::string::npos);
  const std::string page = ReadText(dir + "/html/ReadsMissNoRows.html");
  EXPECT_NE(page.find("ReadsMissNoRows"), std::string::npos);
}

TEST(HtmlPages, VariantsWritesTheTableLinkingToAnExistingCounterexamplePage) {
  const std::string dir = FreshDir("memwal-gate-variants-html");
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunVariantsCommand(
                {"--preset", "tiny", "--commits", "3", "--model-only",
                 "--no-liveness", "--only", "protocol=legacy", "--json",
                 "--out", dir + "/out", "--html", dir + "/html"},
                out, err),
            0)
      << err.str();
  const nlohmann::json rows = nlohmann::json::parse(out.str());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["verdict"], "violation");
  ASSERT_TRUE(rows[0]["trace_file"].is_string());
  const std::string trace = rows[0]["trace_file"].get<std::string>();
  EXPECT_NE(trace.find(".min.trace.json"), std::string::npos) << trace;
  EXPECT_TRUE(std::filesystem::exists(trace)) << trace;
  const std::string page = report::CounterexamplePageName(rows[0]);
  ASSERT_FALSE(page.empty());
  const std::string table = ReadText(dir + "/html/variants.html");
  EXPECT_NE(table.find("href=\"" + page + "\""), std::string::npos) << page;
  const std::string counterexample = ReadText(dir + "/html/" + page);
  EXPECT_NE(counterexample.find("ReadsMissNoRows"), std::string::npos);
}

}  // namespace
}  // namespace memwal::checker
