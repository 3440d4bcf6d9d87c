// A first-in first-out queue of byte records kept in an unlinked temporary
// file (TLC keeps its queue on disk the same way): the liveness pass's layers
// (spec R74) wait there, so memory holds only their fingerprints.
//
// Records are appended through a write buffer and read back in order through
// a read buffer; a read past what was written flushes the write buffer first,
// so a queue may be read while it still grows (the current layer's BFS). The
// file lives in $TMPDIR (else /tmp) and disappears when the queue is closed or
// the process ends.
#ifndef MEMWAL_CHECKER_ENGINE_SPILL_H_
#define MEMWAL_CHECKER_ENGINE_SPILL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace memwal::checker::engine {

class SpillQueue {
 public:
  SpillQueue() = default;
  SpillQueue(SpillQueue&& other) noexcept;
  SpillQueue& operator=(SpillQueue&& other) noexcept;
  SpillQueue(const SpillQueue&) = delete;
  SpillQueue& operator=(const SpillQueue&) = delete;
  ~SpillQueue();

  // Appends one record of at most 255 bytes. The file is created on the
  // first push; an error (no temporary directory, a full disk) is kept and
  // returned by status() and every later call.
  void Push(std::string_view record);
  // The next record in push order into *out; false when every pushed record
  // has been popped, or after an error.
  bool Pop(std::string* out);

  const Status& status() const { return status_; }
  uint64_t pushed() const { return pushed_; }
  uint64_t popped() const { return popped_; }
  // The buffers' bytes in memory (the file's are not counted).
  std::size_t bytes() const { return write_.capacity() + read_.capacity(); }

 private:
  bool Open();
  bool Flush();
  void Fail(std::string_view what);
  void Close();

  int fd_ = -1;
  Status status_ = Status::Ok();
  std::string write_;         // not yet in the file
  std::string read_;          // read from the file, from read_at_ on
  std::size_t read_at_ = 0;   // next unread byte of read_
  uint64_t file_size_ = 0;    // bytes in the file
  uint64_t file_offset_ = 0;  // where read_ continues in the file
  uint64_t pushed_ = 0;
  uint64_t popped_ = 0;
};

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_SPILL_H_
