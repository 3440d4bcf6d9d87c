// README.md against the tool: it stays a user's page (under 200 lines), the
// counterexample it shows is what its command prints, every command line it
// shows names a command and flags of the command table, its invariant table
// names exactly the invariants the checker reports, and the LanceDB version
// it names is the fixture's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/commands.h"
#include "checker/engine/liveness.h"
#include "checker/lockstep/refinement.h"
#include "model/invariants.h"
#include "read_all.h"

namespace memwal {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = MEMWAL_SOURCE_DIR;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::string& Readme() {
  static const std::string text = ReadAll(kRoot / "README.md");
  return text;
}

// The README's section under heading `title`, up to the next "## ".
std::string Section(const std::string& title) {
  const std::string& text = Readme();
  const std::size_t start = text.find("\n## " + title + "\n");
  if (start == std::string::npos) return "";
  const std::size_t end = text.find("\n## ", start + 1);
  return text.substr(start, end == std::string::npos ? end : end - start);
}

// Every `...` span of the README.
std::vector<std::string> CodeSpans() {
  std::vector<std::string> spans;
  const std::regex span("`([^`\n]+)`");
  const std::string& text = Readme();
  for (std::sregex_iterator m(text.begin(), text.end(), span), end; m != end;
       ++m)
    spans.push_back((*m)[1]);
  return spans;
}

struct Ran {
  int code;
  std::string out;
};

// Runs memwal-check with `command_line`'s words (after "memwal-check") in a
// fresh directory, so that its default --out lands there.
Ran RunInScratch(const std::string& command_line) {
  std::istringstream words(command_line);
  std::vector<std::string> args;
  for (std::string word; words >> word;) args.push_back(word);
  args.erase(args.begin());  // "memwal-check"
  const fs::path scratch = fs::temp_directory_path() /
                           ("memwal-readme-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const fs::path was = fs::current_path();
  fs::current_path(scratch);
  std::ostringstream out, err;
  const int code = checker::cli::RunMemwalCheck(args, out, err);
  fs::current_path(was);
  fs::remove_all(scratch);
  return Ran{code, out.str()};
}

TEST(Readme, IsUnder200Lines) { EXPECT_LT(Lines(Readme()).size(), 200u); }

TEST(Readme, TheCounterexampleShownIsWhatItsCommandPrints) {
  const std::string section = Section("Reading a counterexample");
  ASSERT_FALSE(section.empty());
  const std::size_t at = section.find("`memwal-check ");
  ASSERT_NE(at, std::string::npos);
  const std::string command =
      section.substr(at + 1, section.find('`', at + 1) - at - 1);
  const std::size_t block = section.find("```\n");
  ASSERT_NE(block, std::string::npos);
  const std::string shown =
      section.substr(block + 4, section.find("```", block + 4) - block - 4);
  const Ran ran = RunInScratch(command);
  EXPECT_EQ(ran.code, 1) << command;
  const std::vector<std::string> printed = Lines(ran.out);
  std::size_t checked = 0;
  for (std::string line : Lines(shown)) {
    // The README's annotations start after a run of spaces.
    const std::size_t first = line.find_first_not_of(' ');
    const std::size_t note = line.find("   ", first);
    if (note != std::string::npos) line.erase(note);
    if (line.find_first_not_of(' ') == std::string::npos || line == "  ...")
      continue;
    // "A ... B": a line that starts with A and ends with B.
    const std::size_t elided = line.find(" ... ");
    const bool found =
        std::any_of(printed.begin(), printed.end(), [&](const std::string& p) {
          if (elided == std::string::npos) return p == line;
          return p.starts_with(line.substr(0, elided)) &&
                 p.ends_with(line.substr(elided + 4));
        });
    EXPECT_TRUE(found) << "README shows '" << line << "', which `" << command
                       << "` does not print:\n"
                       << ran.out;
    ++checked;
  }
  EXPECT_GE(checked, 7u);
}

// `memwal-check WORD --flag ...` names a command of the table and flags of
// its table; `./memwal check --flag ...` is the gate's.
TEST(Readme, EveryCommandLineItShowsNamesACommandAndItsFlags) {
  std::size_t checked = 0;
  for (const std::string& span : CodeSpans()) {
    std::istringstream words(span);
    std::string program, name;
    words >> program >> name;
    if (program == "./memwal" && name == "check")
      name = "gate";
    else if (program != "memwal-check")
      continue;
    // "--help", and placeholders in capitals ("memwal-check WORD ARGS").
    if (name == "--help" || std::none_of(name.begin(), name.end(), ::islower))
      continue;
    const checker::cli::CommandSpec* command = checker::cli::FindCommand(name);
    if (command == nullptr) {
      ADD_FAILURE() << "README shows `" << span << "`: no command " << name;
      continue;
    }
    std::set<std::string> flags = {"--help"};
    for (const Flag& flag : command->flags()) flags.insert(flag.name);
    for (std::string word; words >> word;) {
      if (word.starts_with("--") && !flags.contains(word))
        ADD_FAILURE() << "README shows `" << span << "`: " << name
                      << " has no flag " << word;
    }
    ++checked;
  }
  EXPECT_GE(checked, 15u);  // The scan found the command lines.
}

TEST(Readme, TheInvariantTableNamesEveryInvariantTheCheckerReports) {
  std::set<std::string> reported = {
      std::string(checker::lockstep::kImplementationMatchesModel),
      std::string(checker::engine::kLivenessName)};
  for (const model::Invariant& invariant : model::AllInvariants())
    reported.emplace(invariant.name);
  std::set<std::string> listed;
  const std::regex row("^\\| `([A-Za-z]+)` \\|");
  for (const std::string& line : Lines(Section("What it checks"))) {
    std::smatch m;
    if (std::regex_search(line, m, row)) listed.insert(m[1]);
  }
  EXPECT_EQ(listed, reported);
}

TEST(Readme, TheLanceDbVersionItNamesIsTheFixtures) {
  const std::string fixture =
      ReadAll(kRoot / "tests/fixtures/lancedb/lance12/package.json");
  EXPECT_NE(fixture.find("\"@lancedb/lancedb\": \"0.39."), std::string::npos);
  EXPECT_NE(Readme().find("LanceDB 0.39"), std::string::npos);
  const checker::cli::CommandSpec* lance_diff =
      checker::cli::FindCommand("lance-diff");
  ASSERT_NE(lance_diff, nullptr);
  EXPECT_NE(lance_diff->summary.find("LanceDB 0.39"), std::string::npos);
}

}  // namespace
}  // namespace memwal
