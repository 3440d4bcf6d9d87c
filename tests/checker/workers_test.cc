// The search's threads (checker/engine/workers.h): a job runs once on every
// worker, the same threads serve every job of a run (their thread-local
// caches survive from one level to the next), and Shares hands out each item
// exactly once, a worker's own items first.
#include "checker/engine/workers.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace memwal::checker::engine {
namespace {

TEST(Workers, RunCallsTheJobOnceOnEveryWorkerAndReturnsWhenAllHaveReturned) {
  for (int threads : {1, 2, 3, 5}) {
    Workers workers(threads);
    ASSERT_EQ(workers.size(), threads);
    for (int run = 0; run < 20; ++run) {
      std::vector<std::atomic<int>> calls(static_cast<std::size_t>(threads));
      workers.Run([&](int worker) {
        ASSERT_GE(worker, 0);
        ASSERT_LT(worker, threads);
        calls[static_cast<std::size_t>(worker)].fetch_add(1);
      });
      for (const std::atomic<int>& count : calls) EXPECT_EQ(count.load(), 1);
    }
  }
}

TEST(Workers, EveryJobOfARunMeetsTheSameThreadsSoThreadLocalCachesSurvive) {
  Workers workers(3);
  std::mutex lock;
  std::vector<std::set<std::thread::id>> ids(3);
  for (int run = 0; run < 10; ++run) {
    workers.Run([&](int worker) {
      std::lock_guard<std::mutex> guard(lock);
      ids[static_cast<std::size_t>(worker)].insert(std::this_thread::get_id());
    });
  }
  for (const std::set<std::thread::id>& seen : ids) EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(*ids[0].begin(), std::this_thread::get_id());  // the caller
}

TEST(Shares, AWorkerAloneTakesItsOwnItemsInOrderThenEveryOtherItemOnce) {
  // Owners 0,1,0,1,...: worker 1 alone takes 1,3,5,... then 0,2,4,...
  Shares shares(7, 2, [](std::size_t i) { return static_cast<int>(i % 2); });
  std::vector<std::size_t> taken;
  for (std::size_t i; (i = shares.Next(1)) != SIZE_MAX;) taken.push_back(i);
  EXPECT_EQ(taken, (std::vector<std::size_t>{1, 3, 5, 0, 2, 4, 6}));
  EXPECT_EQ(shares.Next(0), SIZE_MAX);
}

TEST(Shares, WithoutOwnersTheItemsSplitIntoOneContiguousRunPerWorker) {
  Shares shares(6, 3);
  EXPECT_EQ(shares.Next(2), 4u);
  EXPECT_EQ(shares.Next(2), 5u);
  EXPECT_EQ(shares.Next(0), 0u);
  EXPECT_EQ(shares.Next(1), 2u);
}

RC_GTEST_PROP(Shares, WorkersTogetherTakeEveryItemExactlyOnce, ()) {
  const auto count = *rc::gen::inRange<std::size_t>(0, 2000);
  const auto threads = *rc::gen::inRange(1, 6);
  const auto owners = *rc::gen::container<std::vector<int>>(
      count, rc::gen::inRange(-2, 40));  // any int: taken modulo the workers
  Shares shares(count, threads, [&](std::size_t i) { return owners[i]; });
  Workers workers(threads);
  std::vector<std::atomic<int>> taken(count);
  workers.Run([&](int worker) {
    for (std::size_t i; (i = shares.Next(worker)) != SIZE_MAX;)
      taken[i].fetch_add(1);
  });
  for (const std::atomic<int>& n : taken) RC_ASSERT(n.load() == 1);
}

}  // namespace
}  // namespace memwal::checker::engine
