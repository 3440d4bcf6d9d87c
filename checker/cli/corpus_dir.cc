// The corpus directory (checker/cli/corpus_dir.h).
#include "checker/cli/corpus_dir.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/input_file.h"
#include "base/output_file.h"

namespace memwal::checker::cli {
namespace {

namespace fs = std::filesystem;

bool IsMarker(const std::string& name) {
  return name == kCompleteMarker || name == kIncompleteMarker;
}

bool IsTemporary(const std::string& name) {
  return name.size() > 1 && name[0] == '.' &&
         name.find(".tmp-") != std::string::npos;
}

// InvalidArgument unless `dir` holds only json/, bin/, markers and what
// --tables and --operations write (tables/, operations/).
Status CheckIsCorpus(const std::string& dir) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const bool folder = (name == "json" || name == "bin" || name == "tables" ||
                         name == "operations") &&
                        entry.is_directory(error) && !entry.is_symlink(error);
    const bool marker = IsMarker(name) && entry.is_regular_file(error) &&
                        !entry.is_symlink(error);
    // A marker's temporary, left by a run killed while writing it.
    const bool marker_temporary = (name.starts_with(".COMPLETE.tmp-") ||
                                   name.starts_with(".INCOMPLETE.tmp-")) &&
                                  entry.is_regular_file(error) &&
                                  !entry.is_symlink(error);
    if (!folder && !marker && !marker_temporary) {
      return Status::InvalidArgument(dir +
                                     " is not a corpus directory (it holds " +
                                     Escaped(name) + "); nothing was removed");
    }
  }
  if (error)
    return Status::IoError("cannot read " + dir + ": " + error.message());
  return Status::Ok();
}

Status RemoveAll(const fs::path& path) {
  std::error_code error;
  fs::remove_all(path, error);
  if (error)
    return Status::IoError("cannot remove " + path.string() + ": " +
                           error.message());
  return Status::Ok();
}

Status RemoveTemporaries(const fs::path& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) return Status::Ok();
  for (const fs::directory_entry& entry :
       fs::directory_iterator(folder, error)) {
    if (IsTemporary(entry.path().filename().string()))
      MEMWAL_RETURN_IF_ERROR(RemoveAll(entry.path()));
  }
  return Status::Ok();
}

Status MakeDirectory(const fs::path& path) {
  std::error_code error;
  fs::create_directories(path, error);
  if (error) {
    return Status::IoError("cannot create directory " + path.string() + ": " +
                           error.message());
  }
  return Status::Ok();
}

}  // namespace

Status CheckCorpusDirectory(const std::string& dir, CorpusDirMode mode) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(dir, error);
  if (!fs::exists(status)) return Status::Ok();
  if (!fs::is_directory(status))
    return Status::InvalidArgument(dir + " exists and is not a directory");
  const bool empty = fs::is_empty(dir, error);
  if (error)
    return Status::IoError("cannot read " + dir + ": " + error.message());
  if (empty) return Status::Ok();
  if (mode == CorpusDirMode::kNew) {
    const bool complete = fs::exists(fs::path(dir) / kCompleteMarker, error);
    return Status::InvalidArgument(
        dir + " is not empty" +
        (complete ? std::string(" (a complete corpus)")
                  : std::string(" (a partial corpus? --resume continues it, "
                                "--force replaces it)")));
  }
  return CheckIsCorpus(dir);
}

namespace {

// OK when `path` is absent or holds exactly `contents`. Read through the
// shared reader (base/input_file.h): a FIFO planted at an entry's name is
// refused at once instead of blocking the open forever.
Status CheckResumedFile(const std::string& path, std::string_view contents) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(path, error))) return Status::Ok();
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return Status::InvalidArgument(
        Escaped(path) +
        " is not a regular file (--resume continues only a "
        "corpus this tool wrote); nothing was changed");
  const Result<std::string> text = ReadInputFile(path, contents.size());
  if (text.ok() && *text == contents) return Status::Ok();
  return Status::InvalidArgument(
      Escaped(path) +
      " differs from what this run writes (--resume needs the options and "
      "seed of the first run); nothing was changed");
}

Status PrepareCorpusDirectory(const std::string& dir, CorpusDirMode mode) {
  const fs::path root(dir);
  std::error_code error;
  if (mode == CorpusDirMode::kForce && fs::exists(root, error)) {
    for (const char* folder : {"json", "bin", "tables", "operations"})
      MEMWAL_RETURN_IF_ERROR(RemoveAll(root / folder));
  }
  for (std::string_view marker : {kCompleteMarker, kIncompleteMarker})
    MEMWAL_RETURN_IF_ERROR(RemoveAll(root / marker));
  MEMWAL_RETURN_IF_ERROR(RemoveTemporaries(root));
  MEMWAL_RETURN_IF_ERROR(RemoveTemporaries(root / "json"));
  MEMWAL_RETURN_IF_ERROR(RemoveTemporaries(root / "bin"));
  MEMWAL_RETURN_IF_ERROR(MakeDirectory(root / "json"));
  return MakeDirectory(root / "bin");
}

}  // namespace

Status WriteCorpusFiles(const std::string& dir, const CorpusFiles& files,
                        CorpusDirMode mode) {
  MEMWAL_RETURN_IF_ERROR(CheckCorpusDirectory(dir, mode));
  const fs::path root(dir);
  if (mode == CorpusDirMode::kResume) {
    for (const auto& [name, contents] : files)
      MEMWAL_RETURN_IF_ERROR(
          CheckResumedFile((root / name).string(), contents));
  }
  MEMWAL_RETURN_IF_ERROR(PrepareCorpusDirectory(dir, mode));
  std::error_code error;
  for (const auto& [name, contents] : files) {
    const std::string path = (root / name).string();
    const bool kept = mode == CorpusDirMode::kResume &&
                      fs::exists(fs::symlink_status(path, error));
    if (!kept) MEMWAL_RETURN_IF_ERROR(WriteOutputFile(path, contents));
  }
  return Status::Ok();
}

Status WriteCorpusMarker(const std::string& dir,
                         std::string_view why_incomplete,
                         std::string_view summary) {
  const fs::path root(dir);
  if (why_incomplete.empty())
    return WriteOutputFile((root / kCompleteMarker).string(), summary);
  return WriteOutputFile(
      (root / kIncompleteMarker).string(),
      std::string(why_incomplete) + "\n" + std::string(summary));
}

}  // namespace memwal::checker::cli
