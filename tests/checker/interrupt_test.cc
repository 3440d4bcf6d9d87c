// SIGINT and SIGTERM as a budget (checker/interrupt.h): the search stops as
// at a time limit, with verdict incomplete, and names why.
#include "checker/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "checker/engine/search.h"

namespace memwal::checker {
namespace {

SearchOptions ModelOnly(Order order) {
  return SearchOptions{.order = order, .threads = 2, .lockstep = false};
}

TEST(Interrupt, StopsEverySearchOrderWithVerdictIncomplete) {
  const LockstepSetup setup{};
  for (Order order : {Order::kBfs, Order::kDfs, Order::kRandom}) {
    SetInterruptedForTesting(true);
    const SearchResult stopped = Search(setup, ModelOnly(order));
    SetInterruptedForTesting(false);
    EXPECT_EQ(stopped.verdict, Verdict::kIncomplete) << Name(order);
    EXPECT_EQ(stopped.stopped_by, "interrupted") << Name(order);
  }
}

TEST(Interrupt, ARealSignalSetsTheFlagAndTheSecondOneIsNotCaught) {
  SetInterruptedForTesting(false);
  CatchInterrupts();
  ASSERT_FALSE(Interrupted());
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_TRUE(Interrupted());
  EXPECT_EQ(InterruptName(), "interrupted by SIGTERM");
  struct sigaction now = {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  SetInterruptedForTesting(false);
}

}  // namespace
}  // namespace memwal::checker
