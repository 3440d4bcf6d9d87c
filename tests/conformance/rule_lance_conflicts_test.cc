// The conflict table of every operation Lance's resolver knows, in the binary
// under test: the implementation's ClassifyConflict on each pair of
// representatives (the transaction to commit against the committed one, with
// shared and with disjoint targets) against Lance's answer or the documented
// difference (tests/impl/lance_conflict_table.h, docs/conflicts.md).
//
// The model abstracts only the operations its actions commit, so the bounded
// search and the model-against-implementation property
// (rule_conflicts_test.cc) never ask about the rows of Merge, Overwrite,
// UpdateConfig, Project, DataReplacement, Clone, UpdateBases or DataOverlay,
// nor about a MemWAL install against them. Here the gate's rule-properties
// entry asks every cell, so that a mutant of any row fails the gate. 578
// cells, each one call: no random cases.
#include <gtest/gtest.h>

#include <string>

#include "tests/impl/lance_conflict_table.h"

namespace memwal {
namespace {

namespace table = impl::lance_conflicts;

TEST(RuleFunctions,
     TheConflictTableOfTheImplementationIsLancesOnEveryPairOfOperations) {
  int wrong = 0;
  for (int p = 0; p < table::kKinds; ++p) {
    for (int c = 0; c < table::kKinds; ++c) {
      for (const bool shared : {true, false}) {
        const auto pending = static_cast<table::Kind>(p);
        const auto committed = static_cast<table::Kind>(c);
        const Result<impl::ConflictClass> got =
            table::Classify(pending, committed, shared);
        const char want = table::Expected(pending, committed, shared);
        const char ours = got.ok() ? table::Letter(*got) : '?';
        if (ours == want) continue;
        ++wrong;
        ADD_FAILURE() << "a pending " << table::kInfo[p].name
                      << " against a committed " << table::kInfo[c].name
                      << (shared ? " on the same targets" : " on other targets")
                      << ": " << ours << ", expected " << want
                      << (got.ok() ? "" : " (" + got.status().ToString() + ")");
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace memwal
