// The conflict table, both directions (issue 40 item 6): every operation
// Lance's resolver knows, as the transaction to commit against every committed
// one, and as the committed one against every transaction to commit; each cell
// checked against Lance's resolver. The expectations (Lance's answers, the
// representatives, the documented differences) are in lance_conflict_table.h,
// which the gate's rule-function properties check too; docs/conflicts.md
// (checked below against the same data) shows both.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lance_conflict_table.h"

namespace memwal::impl {
namespace {

using namespace lance_conflicts;  // NOLINT(google-build-using-namespace)

char Ours(Kind pending, Kind committed, bool shared) {
  const Result<ConflictClass> got = Classify(pending, committed, shared);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? Letter(*got) : '?';
}

struct Cell {
  Kind pending;
  Kind committed;
  bool shared;
};

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (int p = 0; p < kKinds; ++p) {
    for (int c = 0; c < kKinds; ++c) {
      for (const bool shared : {true, false})
        cells.push_back(
            Cell{static_cast<Kind>(p), static_cast<Kind>(c), shared});
    }
  }
  return cells;
}

// What ctest and gtest print as the parameter: "Append against a committed
// Delete, on the same targets".
void PrintTo(const Cell& cell, std::ostream* os) {
  *os << kInfo[cell.pending].name << " against a committed "
      << kInfo[cell.committed].name
      << (cell.shared ? ", on the same targets" : ", on other targets");
}

class ConflictTable : public ::testing::TestWithParam<Cell> {};

TEST_P(ConflictTable, ClassifiesTheCellAsLancesResolverDoes) {
  const Cell cell = GetParam();
  const char lance = Lance(cell.pending, cell.committed, cell.shared);
  const Difference* difference = DifferenceAt(cell.pending, cell.committed);
  const char want = difference != nullptr ? difference->ours : lance;
  EXPECT_EQ(Ours(cell.pending, cell.committed, cell.shared), want)
      << "Lance: " << lance
      << (difference != nullptr
              ? std::string("; documented difference: ") + difference->why
              : std::string());
}

// "APendingDeleteAgainstACommittedDataOverlayOnTheSameTargetsIsCompatible",
// "...IsCompatibleWhereLanceRetries" for a documented difference.
std::string CellName(const ::testing::TestParamInfo<Cell>& info) {
  const Cell& cell = info.param;
  const char lance = Lance(cell.pending, cell.committed, cell.shared);
  const Difference* difference = DifferenceAt(cell.pending, cell.committed);
  std::string name = std::string("APending") + kInfo[cell.pending].name +
                     "AgainstACommitted" + kInfo[cell.committed].name +
                     (cell.shared ? "OnTheSameTargets" : "OnOtherTargets") +
                     "Is";
  if (difference == nullptr) return name + Word(lance);
  return name + Word(difference->ours) + "WhereLanceIs" + Word(lance);
}

INSTANTIATE_TEST_SUITE_P(EveryOperationBothWays, ConflictTable,
                         ::testing::ValuesIn(AllCells()), CellName);

// Every documented difference is a cell where Lance answers otherwise (a
// difference that stopped being one must leave the list).
TEST(ConflictTableDifferences, EachDifferenceDiffersFromLanceOnSomeTargets) {
  for (const Difference& d : kDifferences) {
    EXPECT_TRUE(Lance(d.pending, d.committed, true) != d.ours ||
                Lance(d.pending, d.committed, false) != d.ours)
        << kInfo[d.pending].name << " against " << kInfo[d.committed].name;
  }
}

// The table docs/conflicts.md shows, rendered from the same data: a cell is
// Lance's letter, or "ours (Lance: X)" where the two differ.
std::string RenderTable(bool shared) {
  std::ostringstream out;
  out << "| to commit \\ committed |";
  for (const KindInfo& info : kInfo) out << " " << info.short_name << " |";
  out << "\n|---|";
  for (int c = 0; c < kKinds; ++c) out << "---|";
  out << "\n";
  for (int p = 0; p < kKinds; ++p) {
    out << "| " << kInfo[p].what << " (" << kInfo[p].short_name << ") |";
    for (int c = 0; c < kKinds; ++c) {
      const Kind pending = static_cast<Kind>(p);
      const Kind committed = static_cast<Kind>(c);
      const char lance = Lance(pending, committed, shared);
      const char ours = Ours(pending, committed, shared);
      out << " " << ours;
      if (ours != lance) out << " (Lance: " << lance << ")";
      out << " |";
    }
    out << "\n";
  }
  return out.str();
}

std::string Between(const std::string& text, const std::string& begin,
                    const std::string& end) {
  const std::size_t from = text.find(begin);
  const std::size_t to = text.find(end);
  if (from == std::string::npos || to == std::string::npos || to < from)
    return "";
  return text.substr(from + begin.size(), to - from - begin.size());
}

TEST(ConflictTableDocument, DocsConflictsShowsEveryCellAsTheTestsCheckIt) {
  const std::filesystem::path path =
      std::filesystem::path(MEMWAL_SOURCE_DIR) / "docs" / "conflicts.md";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string shared = RenderTable(true);
  const std::string disjoint = RenderTable(false);
  EXPECT_EQ(Between(doc, "<!-- table:shared -->\n", "<!-- end:shared -->"),
            shared)
      << "docs/conflicts.md's first table should read:\n"
      << shared;
  EXPECT_EQ(Between(doc, "<!-- table:disjoint -->\n", "<!-- end:disjoint -->"),
            disjoint)
      << "docs/conflicts.md's second table should read:\n"
      << disjoint;
}

}  // namespace
}  // namespace memwal::impl
