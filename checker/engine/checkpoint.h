// Checkpoints of a level-synchronous search (checker/engine/distributed.h):
// one snapshot is a directory with one file per rank (that rank's seen set,
// frontier and counters, as the engine encodes them) and a MANIFEST naming
// the configuration hash, the rank count, the level, and each file's size and
// checksum. Written atomically: every file goes to DIR/.tmp-LEVEL/ and is
// fsynced, then rank 0 writes the manifest there, renames the directory to
// DIR/snapshot-LEVEL, and points DIR/CURRENT at it (a temporary file renamed
// over it, then the directory fsynced); older snapshots are removed after
// that. A run killed at any moment leaves CURRENT naming a whole snapshot.
//
// Reading refuses (InvalidArgument, one line) a snapshot of another
// configuration or rank count, and (Corruption) one whose manifest or files
// do not match their sizes and checksums.
#ifndef MEMWAL_CHECKER_ENGINE_CHECKPOINT_H_
#define MEMWAL_CHECKER_ENGINE_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/checksum.h"
#include "base/status.h"
#include "checker/engine/comm.h"

namespace memwal::checker::engine {

// Collective: every rank passes its own payload. The same status on every
// rank.
Status WriteSnapshot(Comm& comm, const std::string& dir, uint64_t config_hash,
                     uint64_t level, const std::string& payload);

// Collective: this rank's payload of DIR's current snapshot, and its level.
// The same status on every rank.
struct Snapshot {
  uint64_t level = 0;
  std::string payload;
};
Result<Snapshot> ReadSnapshot(Comm& comm, const std::string& dir,
                              uint64_t config_hash);

// Little-endian encoding of a payload.
class Encoder {
 public:
  void U64(uint64_t value);
  void Bytes(std::string_view bytes);  // length, then the bytes
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  // False once the input ran out (then every later read fails too).
  bool U64(uint64_t* value);
  bool Bytes(std::string* bytes);
  bool done() const { return ok_ && at_ == in_.size(); }
  bool ok() const { return ok_; }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_CHECKPOINT_H_
