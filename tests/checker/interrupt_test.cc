// SIGINT and SIGTERM as a budget (checker/engine/interrupt.h): the search stops as
// at a time limit, with verdict incomplete, and names why.
#include "checker/engine/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "checker/engine/search.h"

namespace memwal::checker {
namespace {

engine::Options ModelOnly(engine::Order order) {
  return engine::Options{.order = order, .threads = 2, .lockstep = false};
}

TEST(Interrupt, StopsEverySearchOrderWithVerdictIncomplete) {
  const lockstep::LockstepSetup setup{};
  for (engine::Order order :
       {engine::Order::kBfs, engine::Order::kDfs, engine::Order::kRandom}) {
    engine::SetInterruptedForTesting(true);
    const engine::SearchResult stopped =
        engine::Search(setup, ModelOnly(order));
    engine::SetInterruptedForTesting(false);
    EXPECT_EQ(stopped.verdict, engine::Verdict::kIncomplete) << Name(order);
    EXPECT_EQ(stopped.stopped_by, "interrupted") << Name(order);
  }
}

TEST(Interrupt, ARealSignalSetsTheFlagAndTheSecondOneIsNotCaught) {
  engine::SetInterruptedForTesting(false);
  engine::CatchInterrupts();
  ASSERT_FALSE(engine::Interrupted());
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_TRUE(engine::Interrupted());
  EXPECT_EQ(engine::InterruptName(), "interrupted by SIGTERM");
  struct sigaction now = {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  engine::SetInterruptedForTesting(false);
}

}  // namespace
}  // namespace memwal::checker
