// docs/variants.md is generated: its table is what
//   memwal-check variants --model-only --preset tiny --markdown
// prints, with the `seconds` column dropped (a wall time is not a result).
// This test runs that command and fails when the committed table differs;
// with MEMWAL_WRITE_VARIANTS=1 in the environment it rewrites the file
// instead (the command that produces it:
//   MEMWAL_WRITE_VARIANTS=1 ctest --test-dir build -R VariantsTable).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cli/commands.h"
#include "read_all.h"

namespace memwal {
namespace {

namespace fs = std::filesystem;

const fs::path kFile = fs::path(MEMWAL_SOURCE_DIR) / "docs" / "variants.md";

constexpr char kHeader[] =
    "# The variants table\n"
    "\n"
    "Generated; do not edit. Every row is one switch against the default "
    "configuration\n"
    "(protocol derived, read strict, gc atomic), on the model alone at the "
    "`tiny` bounds;\n"
    "bugs run under a protocol they apply to. Produced by\n"
    "\n"
    "    memwal-check variants --model-only --preset tiny --markdown\n"
    "\n"
    "with the `seconds` column dropped, and checked against a fresh run by\n"
    "`VariantsTable.CommittedTableMatchesARun` (tests/docs/"
    "variants_table_test.cc); rewrite it\n"
    "with `MEMWAL_WRITE_VARIANTS=1 ctest --test-dir build -R VariantsTable`. "
    "A bug row that\n"
    "only the implementation can express reads `not run` here: "
    "`memwal-check variants`\n"
    "without `--model-only` runs it in lockstep. What each bug is: "
    "docs/bugs.md.\n"
    "\n";

// The cells of a markdown table row, trimmed.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::stringstream in(row.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) {
    const auto first = cell.find_first_not_of(' ');
    const auto last = cell.find_last_not_of(' ');
    cells.push_back(
        first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

// `markdown` with the column named "seconds" removed from every row.
std::string WithoutSeconds(const std::string& markdown) {
  std::istringstream lines(markdown);
  std::string out;
  std::size_t seconds = std::string::npos;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("|")) continue;
    std::vector<std::string> cells = Cells(line);
    if (seconds == std::string::npos) {
      for (std::size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == "seconds") seconds = i;
    }
    if (seconds < cells.size())
      cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(seconds));
    std::string row = "|";
    for (const std::string& cell : cells) row += " " + cell + " |";
    out += row + "\n";
  }
  return out;
}

TEST(VariantsTable, CommittedTableMatchesARun) {
  const fs::path out_dir = fs::temp_directory_path() / "memwal-variants-doc";
  std::ostringstream out, err;
  const int code = checker::cli::RunMemwalCheck(
      {"variants", "--model-only", "--preset", "tiny", "--markdown", "--out",
       out_dir.string()},
      out, err);
  ASSERT_EQ(code, 0) << err.str();
  const std::string table = WithoutSeconds(out.str());
  ASSERT_NE(table.find("| default |"), std::string::npos) << out.str();
  const char* write = std::getenv("MEMWAL_WRITE_VARIANTS");
  if (write != nullptr && std::string(write) == "1") {
    std::ofstream(kFile, std::ios::binary) << kHeader << table;
  }
  EXPECT_EQ(ReadAll(kFile), kHeader + table)
      << "docs/variants.md differs from a run; rewrite it with "
         "MEMWAL_WRITE_VARIANTS=1 ctest --test-dir build -R VariantsTable";
}

// docs/bugs.md's counts of implementation-only bugs, in words: the rows of
// the committed table marked `impl only`, and those of them under env foreign.
TEST(VariantsTable, TheBugsDocumentCountsTheImplementationOnlyRows) {
  int impl_only = 0;
  int foreign = 0;
  std::istringstream lines(ReadAll(kFile));
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| bug=") ||
        line.find("impl only") == std::string::npos)
      continue;
    ++impl_only;
    if (line.find("env foreign") != std::string::npos) ++foreign;
  }
  constexpr const char* kWords[] = {"zero",  "one",  "two", "three",
                                    "four",  "five", "six", "seven",
                                    "eight", "nine", "ten", "eleven"};
  ASSERT_LT(impl_only, 12);
  const std::string bugs =
      ReadAll(fs::path(MEMWAL_SOURCE_DIR) / "docs" / "bugs.md");
  std::string all = kWords[impl_only];
  all[0] = static_cast<char>(std::toupper(all[0]));
  std::string some = kWords[foreign];
  some[0] = static_cast<char>(std::toupper(some[0]));
  EXPECT_NE(bugs.find(all + " bugs only the implementation expresses"),
            std::string::npos)
      << impl_only << " rows are impl only";
  EXPECT_NE(bugs.find(some + " of those " + kWords[impl_only]),
            std::string::npos)
      << foreign << " of them under env foreign";
}

TEST(VariantsTable, DroppingTheSecondsColumnKeepsTheOthers) {
  EXPECT_EQ(WithoutSeconds("| a | seconds | b |\n|---|---|---|\n"
                           "| x | 1.25 | y |\nnot a row\n"),
            "| a | b |\n| --- | --- |\n| x | y |\n");
}

}  // namespace
}  // namespace memwal
