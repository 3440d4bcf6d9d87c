// The liveness pass's on-disk queue (checker/engine/spill.h).
#include "checker/engine/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "base/assert.h"

namespace memwal::checker::engine {
namespace {

// The write buffer goes to the file when it holds this much; the read buffer
// takes this much from the file at a time.
constexpr std::size_t kWriteChunk = 1u << 18;
constexpr std::size_t kReadChunk = 1u << 20;

// Moves all `size` bytes between `data` and the file at `offset` with `io`
// (::pread or ::pwrite), retrying short transfers and EINTR. False on an
// error or end of file; errno tells which.
template <typename Io>
bool Transfer(Io io, int fd, char* data, std::size_t size, uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    errno = 0;
    const ssize_t n =
        io(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

SpillQueue::SpillQueue(SpillQueue&& other) noexcept {
  *this = std::move(other);
}

SpillQueue& SpillQueue::operator=(SpillQueue&& other) noexcept {
  if (this == &other) return *this;
  Close();
  fd_ = std::exchange(other.fd_, -1);
  status_ = std::move(other.status_);
  write_ = std::move(other.write_);
  read_ = std::move(other.read_);
  read_at_ = std::exchange(other.read_at_, 0);
  file_size_ = std::exchange(other.file_size_, 0);
  file_offset_ = std::exchange(other.file_offset_, 0);
  pushed_ = std::exchange(other.pushed_, 0);
  popped_ = std::exchange(other.popped_, 0);
  return *this;
}

SpillQueue::~SpillQueue() { Close(); }

void SpillQueue::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void SpillQueue::Fail(std::string_view what) {
  if (!status_.ok()) return;
  status_ = Status::IoError(
      "liveness layer queue: " + std::string(what) +
      (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
}

bool SpillQueue::Open() {
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
      "/memwal-layer-XXXXXX";
  errno = 0;
  fd_ = ::mkstemp(path.data());
  if (fd_ < 0) {
    Fail("cannot create a file like " + path);
    return false;
  }
  ::unlink(path.c_str());  // gone when closed, or when the process ends
  return true;
}

bool SpillQueue::Flush() {
  if (write_.empty()) return true;
  if (fd_ < 0 && !Open()) return false;
  const auto write = [](int fd, const char* data, std::size_t size,
                        off_t offset) {
    return ::pwrite(fd, data, size, offset);
  };
  if (!Transfer(write, fd_, write_.data(), write_.size(), file_size_)) {
    Fail("cannot write the file");
    return false;
  }
  file_size_ += write_.size();
  write_.clear();
  return true;
}

void SpillQueue::Push(std::string_view record) {
  if (!status_.ok()) return;
  MEMWAL_ASSERT(record.size() <= 255);
  if (write_.capacity() < kWriteChunk + 256) write_.reserve(kWriteChunk + 256);
  write_.push_back(static_cast<char>(record.size()));
  write_.append(record);
  ++pushed_;
  if (write_.size() >= kWriteChunk) Flush();
}

bool SpillQueue::Pop(std::string* out) {
  if (!status_.ok() || popped_ == pushed_) return false;
  // At least `n` unread bytes in read_: from the file while it has some, then
  // straight from the write buffer (which follows everything in the file).
  auto have = [this](std::size_t n) {
    while (read_.size() - read_at_ < n) {
      read_.erase(0, read_at_);
      read_at_ = 0;
      if (file_offset_ == file_size_) {
        if (write_.empty()) {
          errno = 0;
          Fail("a record is cut short");
          return false;
        }
        read_.append(write_);
        write_.clear();
        continue;
      }
      const std::size_t chunk = static_cast<std::size_t>(
          std::min<uint64_t>(kReadChunk, file_size_ - file_offset_));
      const std::size_t old = read_.size();
      read_.resize(old + chunk);
      if (!Transfer(::pread, fd_, read_.data() + old, chunk, file_offset_)) {
        Fail("cannot read the file back");
        return false;
      }
      file_offset_ += chunk;
    }
    return true;
  };
  if (!have(1)) return false;
  const std::size_t length = static_cast<uint8_t>(read_[read_at_]);
  if (!have(1 + length)) return false;
  out->assign(read_, read_at_ + 1, length);
  read_at_ += 1 + length;
  ++popped_;
  if (popped_ == pushed_) {
    // Drained: give the buffers back (a layer's queue is done with).
    std::string().swap(read_);
    read_at_ = 0;
  }
  return true;
}

}  // namespace memwal::checker::engine
