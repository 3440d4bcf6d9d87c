// Self-contained citations: every `[P §n]`-style citation in the repository's
// sources and documents names a heading "§n" of docs/lance-facts.md, so that a
// clone carries every Lance fact it relies on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "read_all.h"

namespace memwal {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = MEMWAL_SOURCE_DIR;

// Section numbers of the "## §n" / "### §n.m" headings of docs/lance-facts.md.
std::set<std::string> FactHeadings() {
  std::set<std::string> headings;
  const std::regex heading(R"(^#+ §([0-9]+(\.[0-9]+)*))");
  std::istringstream lines(ReadAll(kRoot / "docs" / "lance-facts.md"));
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, heading)) headings.insert(match[1]);
  }
  return headings;
}

bool Scanned(const fs::path& path) {
  static const std::set<std::string> kExtensions = {
      ".h", ".cc", ".md", ".qnt", ".pml", ".proto", ".txt", ".cmake"};
  return kExtensions.count(path.extension().string()) != 0;
}

// Every "P §n" (also inside lists such as "[P §1.1, §1.2]") in the tracked
// folders, as "file: §n".
std::vector<std::pair<std::string, std::string>> Citations() {
  std::vector<std::pair<std::string, std::string>> found;
  const std::regex group(R"(\[P (§[0-9.]+(, *§?[0-9.]+)*)[^\]]*\])");
  const std::regex number(R"(§([0-9]+(\.[0-9]+)*))");
  for (const char* folder : {"base", "bench", "checker", "docs", "fuzz", "impl",
                             "inspect", "model", "spec", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / folder)) {
      if (!entry.is_regular_file() || !Scanned(entry.path())) continue;
      if (entry.path().string().find("node_modules") != std::string::npos)
        continue;
      const std::string text = ReadAll(entry.path());
      for (std::sregex_iterator g(text.begin(), text.end(), group), end;
           g != end; ++g) {
        const std::string list = (*g)[1];
        for (std::sregex_iterator n(list.begin(), list.end(), number);
             n != std::sregex_iterator(); ++n) {
          found.emplace_back(fs::relative(entry.path(), kRoot).string(),
                             (*n)[1]);
        }
      }
    }
  }
  return found;
}

TEST(Docs, EveryLanceFactCitationNamesAHeadingOfLanceFacts) {
  const std::set<std::string> headings = FactHeadings();
  ASSERT_GE(headings.size(), 20u);
  const auto citations = Citations();
  ASSERT_GE(citations.size(), 50u);  // The scan found the citations.
  for (const auto& [file, section] : citations) {
    EXPECT_EQ(headings.count(section), 1u)
        << file << " cites [P §" << section << "], which is not a heading";
  }
}

TEST(Docs, NoCitationPointsOutsideTheRepository) {
  for (const char* folder :
       {"base", "checker", "impl", "inspect", "model", "spec", "docs"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / folder)) {
      if (!entry.is_regular_file() || !Scanned(entry.path())) continue;
      if (entry.path().string().find("node_modules") != std::string::npos)
        continue;
      const std::string text = ReadAll(entry.path());
      EXPECT_EQ(text.find("shared/reference"), std::string::npos)
          << entry.path();
      EXPECT_EQ(text.find("lance-protocol.md"), std::string::npos)
          << entry.path();
    }
  }
}

}  // namespace
}  // namespace memwal
