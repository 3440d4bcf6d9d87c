// Atomic snapshots of a search (checker/engine/checkpoint.h).
#include "checker/engine/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/input_file.h"
#include "base/output_file.h"

namespace memwal::checker::engine {
namespace {

namespace fs = std::filesystem;

// 2: exact storage's fingerprints hash the packed key (checker/engine/search.h,
// Keying), so a seen set of format 1 does not resume.
constexpr std::string_view kMagic = "memwal-check snapshot 2";

std::string LevelName(uint64_t level) {
  char name[32];
  std::snprintf(name, sizeof(name), "%08llu",
                static_cast<unsigned long long>(level));
  return name;
}

Status SyncPath(const std::string& path, bool directory) {
  const int fd =
      ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0)
    return Status::IoError("cannot open " + path + ": " + std::strerror(errno));
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0)
    return Status::IoError("cannot fsync " + path + ": " +
                           std::strerror(errno));
  return Status::Ok();
}

// The output writer's rule (base/output_file.h): a FIFO, a device or a
// symlink at `path` is refused, never written through or replaced; the bytes
// go to a fresh temporary file, fsynced, renamed over `path`, and the
// directory is fsynced. A full disk is an error, never a short file.
Status WriteSynced(const std::string& path, std::string_view bytes) {
  return WriteOutputFile(path, bytes);
}

// The input reader's rule (base/input_file.h): opened without blocking and
// refused unless a regular file.
Result<std::string> ReadWhole(const std::string& path) {
  return ReadInputFile(path, SIZE_MAX);
}

// The same status on every rank: the first failing rank's message.
Status Agree(Comm& comm, const Status& mine) {
  const uint64_t failed = comm.AllReduce(mine.ok() ? 0 : 1, Reduce::kSum);
  if (failed == 0) return Status::Ok();
  const std::vector<uint64_t> bad = comm.AllGather(mine.ok() ? 0 : 1);
  int root = 0;
  while (bad[root] == 0) ++root;
  std::string message = mine.ok() ? "" : mine.message();
  uint64_t code = mine.ok() ? 0 : static_cast<uint64_t>(mine.code());
  comm.Broadcast(&message, root);
  std::string code_text = std::to_string(code);
  comm.Broadcast(&code_text, root);
  switch (static_cast<StatusCode>(std::stoull(code_text))) {
    case StatusCode::kInvalidArgument:
      return Status::InvalidArgument(message);
    case StatusCode::kCorruption:
      return Status::Corruption(message);
    default:
      return Status::IoError(message);
  }
}

}  // namespace

void Encoder::U64(uint64_t value) {
  char bytes[8];
  for (int k = 0; k < 8; ++k) bytes[k] = static_cast<char>(value >> (8 * k));
  out_.append(bytes, 8);
}

void Encoder::Bytes(std::string_view bytes) {
  U64(bytes.size());
  out_.append(bytes);
}

bool Decoder::U64(uint64_t* value) {
  if (!ok_ || in_.size() - at_ < 8) return ok_ = false;
  *value = 0;
  for (int k = 0; k < 8; ++k)
    *value |= uint64_t{static_cast<uint8_t>(in_[at_ + k])} << (8 * k);
  at_ += 8;
  return true;
}

bool Decoder::Bytes(std::string* bytes) {
  uint64_t size = 0;
  if (!U64(&size)) return false;
  if (in_.size() - at_ < size) return ok_ = false;
  bytes->assign(in_.substr(at_, size));
  at_ += size;
  return true;
}

Status WriteSnapshot(Comm& comm, const std::string& dir, uint64_t config_hash,
                     uint64_t level, const std::string& payload) {
  const std::string temp = (fs::path(dir) / (".tmp-" + LevelName(level)));
  const std::string file = "rank-" + std::to_string(comm.rank());
  Status status = Status::Ok();
  if (comm.rank() == 0) {
    status = MakeOutputDirectory(dir);
    std::error_code error;
    if (status.ok()) {
      fs::remove_all(temp, error);
      fs::create_directory(temp, error);
      if (error)
        status =
            Status::IoError("cannot create " + temp + ": " + error.message());
    }
  }
  MEMWAL_RETURN_IF_ERROR(Agree(comm, status));
  status = WriteSynced((fs::path(temp) / file).string(), payload);
  MEMWAL_RETURN_IF_ERROR(Agree(comm, status));
  const std::vector<uint64_t> sizes = comm.AllGather(payload.size());
  const std::vector<uint64_t> sums = comm.AllGather(Checksum64(payload));
  if (comm.rank() == 0) {
    std::ostringstream manifest;
    manifest << kMagic << "\nconfig " << config_hash << "\nranks "
             << comm.size() << "\nlevel " << level << "\n";
    for (int r = 0; r < comm.size(); ++r)
      manifest << "rank-" << r << " " << sizes[r] << " " << sums[r] << "\n";
    std::string text = manifest.str();
    text += "checksum " + std::to_string(Checksum64(text)) + "\n";
    // A name no snapshot has: the snapshot CURRENT names may be of this very
    // level (a resumed run snapshots the level it resumed at), and it must
    // stay whole until CURRENT names the new one.
    std::string final_name = "snapshot-" + LevelName(level);
    std::error_code exists_error;
    for (int copy = 2; fs::exists(
             fs::symlink_status(fs::path(dir) / final_name, exists_error));
         ++copy)
      final_name = "snapshot-" + LevelName(level) + "-" + std::to_string(copy);
    const std::string final_dir = (fs::path(dir) / final_name).string();
    status = WriteSynced((fs::path(temp) / "MANIFEST").string(), text);
    if (status.ok()) status = SyncPath(temp, true);
    // CURRENT is checked before the snapshot directory takes the name: a
    // FIFO or symlink there is refused, and nothing is renamed.
    if (status.ok()) status = CheckOutputPath((fs::path(dir) / "CURRENT"));
    std::error_code error;
    if (status.ok()) {
      fs::rename(temp, final_dir, error);
      if (error)
        status =
            Status::IoError("cannot rename " + temp + ": " + error.message());
    }
    if (status.ok()) status = SyncPath(dir, true);
    const std::string current = (fs::path(dir) / "CURRENT").string();
    if (status.ok()) status = WriteSynced(current, final_name + "\n");
    if (status.ok()) {
      // Older snapshots (and abandoned temporary directories).
      for (const fs::directory_entry& entry :
           fs::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (entry.path() != fs::path(final_dir) &&
            (name.starts_with("snapshot-") || name.starts_with(".tmp-") ||
             name.starts_with(".CURRENT.tmp-")))
          fs::remove_all(entry.path(), error);
      }
    }
  }
  return Agree(comm, status);
}

Result<Snapshot> ReadSnapshot(Comm& comm, const std::string& dir,
                              uint64_t config_hash) {
  Snapshot snapshot;
  auto read = [&]() -> Status {
    const std::string where = "snapshot " + dir;
    Result<std::string> current = ReadWhole((fs::path(dir) / "CURRENT"));
    if (!current.ok() && current.status().code() == StatusCode::kNotFound)
      return Status::InvalidArgument(where + " has no CURRENT: not a snapshot");
    if (!current.ok())
      return Status::InvalidArgument(where + ": " + current.status().message());
    std::string name = *current;
    while (!name.empty() && name.back() == '\n') name.pop_back();
    if (name.find('/') != std::string::npos || !name.starts_with("snapshot-"))
      return Status::Corruption(where + ": CURRENT is corrupt");
    const fs::path snap = fs::path(dir) / name;
    Result<std::string> manifest = ReadWhole((snap / "MANIFEST").string());
    if (!manifest.ok() && manifest.status().code() == StatusCode::kNotFound)
      return Status::Corruption(where + ": " + name + "/MANIFEST is missing");
    if (!manifest.ok())
      return Status::Corruption(where + ": " + manifest.status().message());
    const std::size_t sum_at = manifest->rfind("checksum ");
    if (sum_at == std::string::npos ||
        manifest->substr(sum_at) !=
            "checksum " +
                std::to_string(Checksum64(manifest->substr(0, sum_at))) + "\n")
      return Status::Corruption(where + ": the manifest's checksum differs");
    std::istringstream lines(manifest->substr(0, sum_at));
    std::string magic;
    std::getline(lines, magic);
    if (magic != kMagic)
      return Status::Corruption(
          where + ": not a memwal-check snapshot of this format (" +
          std::string(kMagic) + ")");
    std::string key;
    uint64_t config = 0;
    int ranks = 0;
    if (!(lines >> key >> config) || key != "config" ||
        !(lines >> key >> ranks) || key != "ranks" ||
        !(lines >> key >> snapshot.level) || key != "level")
      return Status::Corruption(where + ": the manifest is corrupt");
    if (config != config_hash)
      return Status::InvalidArgument(where +
                                     " is of another configuration (its hash " +
                                     std::to_string(config) + ", this run's " +
                                     std::to_string(config_hash) + ")");
    if (ranks != comm.size())
      return Status::InvalidArgument(
          where + " was written by " + std::to_string(ranks) +
          " ranks; resume it with " + std::to_string(ranks));
    uint64_t size = 0;
    uint64_t sum = 0;
    for (int r = 0; r <= comm.rank(); ++r) {
      if (!(lines >> key >> size >> sum) || key != "rank-" + std::to_string(r))
        return Status::Corruption(where + ": the manifest is corrupt");
    }
    Result<std::string> payload =
        ReadWhole((snap / ("rank-" + std::to_string(comm.rank()))).string());
    if (!payload.ok() && payload.status().code() != StatusCode::kNotFound)
      return Status::Corruption(where + ": " + payload.status().message());
    if (!payload.ok() || payload->size() != size || Checksum64(*payload) != sum)
      return Status::Corruption(where + ": rank-" +
                                std::to_string(comm.rank()) +
                                " does not match its size and checksum");
    snapshot.payload = std::move(*payload);
    return Status::Ok();
  };
  MEMWAL_RETURN_IF_ERROR(Agree(comm, read()));
  return snapshot;
}

}  // namespace memwal::checker::engine
