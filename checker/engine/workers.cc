// Workers and Shares; see workers.h.
#include "checker/engine/workers.h"

#include <algorithm>

#include "base/assert.h"
#include "base/memory.h"

namespace memwal::checker::engine {
namespace {

// A job's outermost frame: running out of memory on this thread ends the job
// early with MemoryExhausted() raised (base/memory.h), which the search's
// budget check turns into its memory-limit stop. An uncaught std::bad_alloc
// on a worker thread would abort the process.
void RunJob(const std::function<void(int)>& job, int worker) {
  (void)CatchMemoryExhaustion([&] { job(worker); });
}

}  // namespace

Workers::Workers(int threads) : size_(std::max(1, threads)) {
  for (int worker = 1; worker < size_; ++worker)
    threads_.emplace_back([this, worker] { Loop(worker); });
}

Workers::~Workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void Workers::Run(const std::function<void(int)>& job) {
  if (size_ == 1) {
    RunJob(job, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    MEMWAL_ASSERT(job_ == nullptr);
    job_ = &job;
    running_ = size_ - 1;
    ++generation_;
  }
  start_.notify_all();
  RunJob(job, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
}

void Workers::Loop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    RunJob(*job, worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
    }
    done_.notify_one();
  }
}

Shares::Shares(std::size_t count, int workers,
               const std::function<int(std::size_t)>& owner) {
  const std::size_t n = static_cast<std::size_t>(std::max(1, workers));
  for (std::size_t w = 0; w < n; ++w)
    lists_.push_back(std::make_unique<List>());
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t w =
        owner ? static_cast<std::size_t>(std::max(0, owner(i))) % n
              : i * n / std::max<std::size_t>(count, 1);
    lists_[w]->items.push_back(i);
  }
}

std::size_t Shares::Next(int worker) {
  const std::size_t n = lists_.size();
  const std::size_t own = static_cast<std::size_t>(worker) % n;
  for (std::size_t k = 0; k < n; ++k) {
    List& list = *lists_[(own + k) % n];
    if (list.taken.load(std::memory_order_relaxed) >= list.items.size())
      continue;
    const std::size_t at = list.taken.fetch_add(1);
    if (at < list.items.size()) return list.items[at];
  }
  return SIZE_MAX;
}

}  // namespace memwal::checker::engine
