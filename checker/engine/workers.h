// The threads of one search, and which of them takes which item.
//
// The lockstep step's decode caches are per thread (impl/blob_cache.h,
// impl/epoch_cache.h, checker/lockstep/refinement.cc): a World's blobs decode
// once on each thread that reads them. Threads started for each phase of each
// BFS level began every level with empty caches (only the calling thread kept
// its own), and a state's checks ran on whichever thread was free, not on the
// one that had decoded its World. Workers live for the whole search, and
// Shares hands each worker the items it made first (a chunk of states expanded
// by it on the level before, a state whose step it took), then lets it take
// the others' when its own are done, so the load still balances.
//
// Which worker takes an item never changes a result: every caller stores an
// item's outcome by its index and merges in index order.
#ifndef MEMWAL_CHECKER_ENGINE_WORKERS_H_
#define MEMWAL_CHECKER_ENGINE_WORKERS_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace memwal::checker::engine {

class Workers {
 public:
  // `threads` workers: the caller of Run is worker 0, threads - 1 are started
  // here and wait for jobs until the destructor.
  explicit Workers(int threads);
  ~Workers();
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  int size() const { return size_; }

  // Runs job(worker) on every worker and returns when every one has returned.
  void Run(const std::function<void(int worker)>& job);

 private:
  void Loop(int worker);

  int size_ = 1;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t generation_ = 0;  // one per Run
  int running_ = 0;          // workers still in the current job
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Items 0..count-1, each with an owner (a worker), handed out: a worker's own
// items in ascending order first, then the other workers' (from the front of
// their lists), until none is left.
class Shares {
 public:
  // owner(i) is taken modulo the number of workers; with no owner function
  // the items are split into one contiguous run per worker.
  Shares(std::size_t count, int workers,
         const std::function<int(std::size_t)>& owner = nullptr);

  // The next item for `worker`, or SIZE_MAX when every item is taken.
  std::size_t Next(int worker);

 private:
  struct List {
    std::vector<std::size_t> items;
    std::atomic<std::size_t> taken{0};
  };
  std::vector<std::unique_ptr<List>> lists_;
};

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_WORKERS_H_
