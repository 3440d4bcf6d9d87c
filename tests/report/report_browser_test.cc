// The report pages in headless Chromium (Debian's chromium package): each page
// loads without script errors, the UUID-only-compare counterexample shows its
// broken invariant and its unbacked row in the rendered DOM and in a non-blank
// screenshot, and a 40-step trace lays out without overlapping timeline
// labels. Screenshots are kept under MEMWAL_REPORT_ARTIFACTS. Skipped when
// Chromium is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "checker/engine/search.h"
#include "checker/report/report.h"
#include "checker/report/trace.h"
#include "model/actions.h"
#include "tests/report/png.h"

namespace memwal::checker {
namespace {

const std::string kChromium = MEMWAL_CHROMIUM;
const std::string kArtifacts = MEMWAL_REPORT_ARTIFACTS;

struct Loaded {
  std::string dom;
  std::string log;
};

std::string Read(const std::string& path) {
  Result<std::string> text = report::ReadFile(path);
  return text.ok() ? *text : std::string();
}

// Runs Chromium headless on `page` with extra `flags`; stdout and stderr are
// kept next to the page.
Loaded Open(const std::string& page, const std::string& flags,
            const std::string& tag) {
  const std::string dom = page + "." + tag + ".dom",
                    log = page + "." + tag + ".log";
  const std::string command =
      "timeout 120 '" + kChromium +
      "' --headless --disable-gpu --no-sandbox --no-first-run "
      "--hide-scrollbars --enable-logging=stderr --v=0 "
      "--user-data-dir='" +
      page + "." + tag + ".profile' " + flags + " 'file://" + page + "' > '" +
      dom + "' 2> '" + log + "'";
  const int status = std::system(command.c_str());
  std::filesystem::remove_all(page + "." + tag + ".profile");
  EXPECT_EQ(status, 0) << command << "\n" << Read(log);
  return Loaded{Read(dom), Read(log)};
}

bool HasChromium() {
  return !kChromium.empty() && std::filesystem::exists(kChromium);
}

void ExpectNoScriptErrors(const Loaded& loaded) {
  // The page's window.onerror records every script error on <html>.
  EXPECT_NE(loaded.dom.find("<html"), std::string::npos);
  EXPECT_EQ(loaded.dom.find("data-js-errors=\""), std::string::npos)
      << loaded.dom.substr(0, 400);
  EXPECT_EQ(loaded.log.find("Uncaught"), std::string::npos) << loaded.log;
  EXPECT_EQ(loaded.log.find(":CONSOLE"), std::string::npos) << loaded.log;
}

std::string WritePage(const std::string& name, const std::string& html) {
  std::filesystem::create_directories(kArtifacts);
  const std::string path = kArtifacts + "/" + name;
  EXPECT_TRUE(report::WriteFileAtomically(path, html).ok());
  return path;
}

// A screenshot has content: many colours, and not mostly one.
void ExpectNotBlank(const std::string& png_path, int width) {
  Result<std::string> bytes = report::ReadFile(png_path);
  ASSERT_TRUE(bytes.ok()) << png_path;
  Result<Image> image = DecodePng(*bytes);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->width, width);
  std::set<uint32_t> colours;
  std::size_t background = 0;
  for (uint32_t pixel : image->pixels) {
    if (colours.size() < 1000) colours.insert(pixel);
    if (pixel == image->pixels.front()) ++background;
  }
  EXPECT_GT(colours.size(), 20u);
  EXPECT_LT(static_cast<double>(background) /
                static_cast<double>(image->pixels.size()),
            0.97);
}

int Overlaps(const std::string& dom) {
  std::smatch match;
  if (!std::regex_search(dom, match, std::regex("data-overlaps=\"([0-9]+)\"")))
    return -1;
  return std::stoi(match[1]);
}

TEST(ReportInChromium,
     UuidOnlyCounterexampleShowsTheUnbackedRowAndTheInvariant) {
  if (!HasChromium()) GTEST_SKIP() << "chromium is not installed";
  model::Config config;
  config.bugs = model::BugBit(model::Bug::kUnchangedByUuidOnly);
  const engine::SearchResult result =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  ASSERT_TRUE(result.violation.has_value());
  const report::Trace trace{.config = config,
                            .invariant = result.violation->invariant,
                            .steps = result.violation->trace};
  const std::string page = WritePage(
      "uuid-only.html",
      report::RenderCounterexamplePage(
          trace, result.violation->states,
          "memwal-check check --model-only --bug unchanged-by-uuid-only"));
  const Loaded dom = Open(page, "--dump-dom", "dump");
  ExpectNoScriptErrors(dom);
  EXPECT_NE(dom.dom.find("CatchupWithinCoverage"), std::string::npos);
  EXPECT_NE(dom.dom.find("row (0,1)"), std::string::npos);
  EXPECT_NE(dom.dom.find("id=\"pointer-row\""), std::string::npos);
  EXPECT_EQ(Overlaps(dom.dom), 0);
  const std::string png = kArtifacts + "/uuid-only.png";
  std::filesystem::remove(png);
  const Loaded shot =
      Open(page, "--screenshot='" + png + "' --window-size=1400,2000", "shot");
  ExpectNoScriptErrors(Loaded{dom.dom, shot.log});
  ExpectNotBlank(png, 1400);
}

// A seeded random walk of exactly `steps` steps under bounds with room for it.
std::vector<model::State> Walk(const model::Config& config, int steps,
                               std::vector<model::Action>* trace) {
  for (uint64_t seed = 1;; ++seed) {
    std::mt19937_64 random(seed);
    std::vector<model::State> states{model::Init(config.bounds)};
    trace->clear();
    std::vector<model::Action> enabled;
    while (static_cast<int>(trace->size()) < steps) {
      model::EnabledActions(config, states.back(), &enabled);
      if (enabled.empty()) break;
      const model::Action action = enabled[random() % enabled.size()];
      model::Outcome outcome;
      states.push_back(model::Apply(config, states.back(), action, &outcome));
      trace->push_back(action);
    }
    if (static_cast<int>(trace->size()) == steps) return states;
  }
}

TEST(ReportInChromium, AFortyStepTraceLaysOutWithoutOverlap) {
  if (!HasChromium()) GTEST_SKIP() << "chromium is not installed";
  model::Config config;
  config.bounds = model::Bounds{2, 4, 8, 2, 7, 3};
  report::Trace trace{.config = config};
  const std::vector<model::State> states = Walk(config, 40, &trace.steps);
  const std::string page = WritePage(
      "forty-steps.html",
      report::RenderCounterexamplePage(trace, states, "(a random walk)"));
  const Loaded dom = Open(page, "--dump-dom", "dump");
  ExpectNoScriptErrors(dom);
  EXPECT_NE(dom.dom.find("id=\"step-40\""), std::string::npos);
  EXPECT_EQ(Overlaps(dom.dom), 0);
  const std::string png = kArtifacts + "/forty-steps.png";
  std::filesystem::remove(png);
  Open(page, "--screenshot='" + png + "' --window-size=1400,2000", "shot");
  ExpectNotBlank(png, 1400);
}

TEST(ReportInChromium, VariantsAndSummaryPagesLoadWithoutErrors) {
  if (!HasChromium()) GTEST_SKIP() << "chromium is not installed";
  const nlohmann::json rows = nlohmann::json::parse(R"([
    {"variant":"bug unchanged-by-uuid-only","verdict":"violation",
     "invariant":"CatchupWithinCoverage","states":1234,"seconds":0.5,
     "counterexample_steps":9,"trace_file":"x/uuid-only.trace.json"},
    {"variant":"protocol derived","verdict":"ok","invariant":null,"states":99,
     "seconds":0.25,"counterexample_steps":null}])");
  const Loaded variants =
      Open(WritePage("variants.html", report::RenderVariantsPage(rows)),
           "--dump-dom", "dump");
  ExpectNoScriptErrors(variants);
  EXPECT_NE(
      variants.dom.find("href=\"bug-unchanged-by-uuid-only--uuid-only.html\""),
      std::string::npos);
  model::Config config;
  config.bounds = model::Bounds{1, 1, 2, 1, 4, 2};
  const engine::SearchResult result =
      memwal::checker::engine::SearchModel(config, {.symmetry = false});
  const report::RunSummary summary{
      .config = config,
      .verdict = std::string(Name(result.verdict)),
      .command_line = "memwal-check check --model-only",
      .stats = result.stats};
  const std::string page =
      WritePage("summary.html", report::RenderSummaryPage(summary));
  const Loaded loaded = Open(page, "--dump-dom", "dump");
  ExpectNoScriptErrors(loaded);
  EXPECT_NE(loaded.dom.find("Distinct states per depth"), std::string::npos);
  const std::string png = kArtifacts + "/summary.png";
  std::filesystem::remove(png);
  Open(page, "--screenshot='" + png + "' --window-size=1400,2000", "shot");
  ExpectNotBlank(png, 1400);
}

}  // namespace
}  // namespace memwal::checker
