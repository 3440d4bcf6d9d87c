// The liveness pass's on-disk layer queue (checker/engine/spill.h): records
// come back in push order across the file and the write buffer, also while
// the queue still grows, and a directory that cannot hold the file is an
// I/O error, not a crash.
#include "checker/engine/spill.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace memwal::checker::engine {
namespace {

std::string Record(uint64_t k) {
  // Lengths 0..255, contents that tell records apart.
  std::string out(k % 256, '\0');
  for (std::size_t b = 0; b < out.size(); ++b)
    out[b] = static_cast<char>((k * 131 + b * 7) & 0xff);
  return out;
}

TEST(SpillQueue, GivesBackEveryRecordInPushOrderAcrossTheFile) {
  SpillQueue queue;
  constexpr uint64_t kCount = 40'000;  // about 5 MB: several file chunks
  for (uint64_t k = 0; k < kCount; ++k) queue.Push(Record(k));
  std::string out;
  for (uint64_t k = 0; k < kCount; ++k) {
    ASSERT_TRUE(queue.Pop(&out)) << k;
    ASSERT_EQ(out, Record(k)) << k;
  }
  EXPECT_FALSE(queue.Pop(&out));
  EXPECT_TRUE(queue.status().ok()) << queue.status().message();
  EXPECT_EQ(queue.pushed(), kCount);
  EXPECT_EQ(queue.popped(), kCount);
}

TEST(SpillQueue, CanBeReadWhileItStillGrows) {
  SpillQueue queue;
  std::string out;
  uint64_t pushed = 0;
  uint64_t popped = 0;
  queue.Push(Record(pushed++));
  // A breadth-first search: each pop pushes up to three more, until 30,000.
  while (queue.Pop(&out)) {
    ASSERT_EQ(out, Record(popped)) << popped;
    ++popped;
    for (int child = 0; child < 3 && pushed < 30'000; ++child)
      queue.Push(Record(pushed++));
  }
  EXPECT_TRUE(queue.status().ok()) << queue.status().message();
  EXPECT_EQ(popped, 30'000u);
}

TEST(SpillQueue, MovesWithItsFileAndRecords) {
  SpillQueue first;
  for (uint64_t k = 0; k < 10'000; ++k) first.Push(Record(k));
  SpillQueue second = std::move(first);
  std::string out;
  for (uint64_t k = 0; k < 10'000; ++k) {
    ASSERT_TRUE(second.Pop(&out));
    ASSERT_EQ(out, Record(k));
  }
  EXPECT_FALSE(second.Pop(&out));
}

TEST(SpillQueue, ReportsATemporaryDirectoryItCannotUseAsAnIoError) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", "/nonexistent-memwal-dir", 1);
  SpillQueue queue;
  for (uint64_t k = 0; k < 10'000; ++k) queue.Push(Record(k));
  std::string out;
  EXPECT_FALSE(queue.Pop(&out));
  EXPECT_EQ(queue.status().code(), StatusCode::kIoError);
  EXPECT_NE(queue.status().message().find("/nonexistent-memwal-dir"),
            std::string::npos);
  if (old != nullptr) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
}

}  // namespace
}  // namespace memwal::checker::engine
