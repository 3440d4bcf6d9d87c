// The memory reserve (base/memory.h).
#include "base/memory.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>

namespace memwal {
namespace {

std::atomic<bool> exhausted{false};
std::atomic<bool> installed{false};
std::mutex reserve_lock;
void* reserve = nullptr;
std::size_t reserve_bytes = 0;

void OnAllocationFailure() {
  exhausted.store(true);
  void* spare = nullptr;
  {
    std::lock_guard<std::mutex> lock(reserve_lock);
    spare = reserve;
    reserve = nullptr;
  }
  if (spare != nullptr) {
    std::free(spare);
    return;  // operator new retries
  }
  throw std::bad_alloc();
}

void Allocate(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(reserve_lock);
  reserve_bytes = bytes;
  if (reserve == nullptr) {
    // Address space, not touched: `ulimit -v` counts it, resident memory
    // does not grow.
    reserve = std::malloc(bytes);
  }
}

// The partial report's record: fixed storage, no allocation.
struct Partial {
  std::mutex lock;
  char command[64] = {};
  bool json = false;
  const char* names[kPartialCounts] = {};
  std::uint64_t values[kPartialCounts] = {};
  char note[256] = {};
};
Partial partial_record;  // constant-initialized: usable before main
Partial& PartialRecord() { return partial_record; }

void CopyLine(std::string_view text, char* to, std::size_t capacity) {
  const std::size_t n = std::min(text.size(), capacity - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    to[k] = c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c);
  }
  to[n] = '\0';
}

// `text` as the inside of a JSON string: the record holds no control bytes
// (CopyLine), so only the quote and the backslash need escaping.
void PutJsonText(const char* text, std::FILE* out) {
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c == '"' || *c == '\\') std::fputc('\\', out);
    std::fputc(*c, out);
  }
}

}  // namespace

void BeginPartialReport(std::string_view command, bool json) {
  Partial& record = PartialRecord();
  std::lock_guard<std::mutex> lock(record.lock);
  CopyLine(command, record.command, sizeof(record.command));
  record.json = json;
  std::fill(std::begin(record.names), std::end(record.names), nullptr);
  std::fill(std::begin(record.values), std::end(record.values), 0);
  record.note[0] = '\0';
}

void SetPartialCount(const char* name, std::uint64_t value) {
  Partial& record = PartialRecord();
  std::lock_guard<std::mutex> lock(record.lock);
  for (int k = 0; k < kPartialCounts; ++k) {
    if (record.names[k] == nullptr) record.names[k] = name;
    if (std::strcmp(record.names[k], name) == 0) {
      record.values[k] = value;
      return;
    }
  }
}

void SetPartialNote(std::string_view note) {
  Partial& record = PartialRecord();
  std::lock_guard<std::mutex> lock(record.lock);
  CopyLine(note, record.note, sizeof(record.note));
}

void WritePartialReport(std::FILE* out) {
  Partial& record = PartialRecord();
  std::lock_guard<std::mutex> lock(record.lock);
  const char* command = record.command[0] != '\0' ? record.command : "";
  if (record.json) {
    std::fputs("{\"command\":\"", out);
    PutJsonText(command, out);
    std::fputs(
        "\",\"verdict\":\"memory-limit\",\"stopped_by\":\"memory-limit\","
        "\"partial\":true,\"counts\":{",
        out);
    for (int k = 0; k < kPartialCounts && record.names[k] != nullptr; ++k) {
      std::fprintf(out, "%s\"", k == 0 ? "" : ",");
      PutJsonText(record.names[k], out);
      std::fprintf(out, "\":%llu",
                   static_cast<unsigned long long>(record.values[k]));
    }
    std::fputs("}", out);
    if (record.note[0] != '\0') {
      std::fputs(",\"note\":\"", out);
      PutJsonText(record.note, out);
      std::fputs("\"", out);
    }
    std::fputs("}\n", out);
  } else {
    std::fprintf(out,
                 "memwal-check%s%s: out of memory (memory-limit); partial "
                 "report:\nverdict: memory-limit\n",
                 command[0] != '\0' ? " " : "", command);
    for (int k = 0; k < kPartialCounts && record.names[k] != nullptr; ++k)
      std::fprintf(out, "%s: %llu\n", record.names[k],
                   static_cast<unsigned long long>(record.values[k]));
    if (record.note[0] != '\0') std::fprintf(out, "note: %s\n", record.note);
  }
  std::fflush(out);
}

void WriteMemoryLimitEnd(bool cut_off) {
  std::fflush(stdout);
  WritePartialReport(stdout);
  std::fputs(cut_off ? "memwal-check: out of memory (memory-limit): the run "
                       "was cut off; its partial report is on standard output\n"
                     : "memwal-check: memory ran out during the run "
                       "(memory-limit); the report above was finished from "
                       "the reserve\n",
             stderr);
  std::fflush(stderr);
}

namespace {

std::terminate_handler previous_terminate = nullptr;

[[noreturn]] void OnTerminate() {
  if (exhausted.load()) {
    WriteMemoryLimitEnd(true);
    std::_Exit(3);
  }
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

}  // namespace

void InstallMemoryReserve(std::size_t bytes) {
  Allocate(bytes);
  std::set_new_handler(&OnAllocationFailure);
  const std::terminate_handler previous = std::set_terminate(&OnTerminate);
  if (previous != &OnTerminate) previous_terminate = previous;
  installed.store(true);
}

bool MemoryReserveInstalled() { return installed.load(); }

bool MemoryExhausted() { return exhausted.load(std::memory_order_relaxed); }

bool CatchMemoryExhaustion(const std::function<void()>& body) {
  try {
    body();
    return true;
  } catch (const std::bad_alloc&) {
    exhausted.store(true);
    return false;
  }
}

void ResetMemoryExhaustionForTesting() {
  exhausted.store(false);
  Allocate(reserve_bytes == 0 ? kMemoryReserveBytes : reserve_bytes);
}

}  // namespace memwal
