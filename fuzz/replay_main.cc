// The plain replay executable of a fuzz target: runs LLVMFuzzerTestOneInput on
// every file named on the command line (a directory: every regular file in it
// whose name does not start with ".", sorted by name), without libFuzzer, so
// that ctest replays the committed corpus with any compiler. Arguments that
// start with "--" go to the target's LLVMFuzzerInitialize (libFuzzer ignores
// them the same way). Exit 0 when every input ran; a finding aborts, as under
// libFuzzer. A target may define MemwalReplayExitCode() to decide the exit code
// itself (the lockstep target's --expect-finding).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));
extern "C" int MemwalReplayExitCode() __attribute__((weak));

namespace {

// Inputs larger than this are not corpus entries (libFuzzer's -max_len is far
// smaller); refusing them keeps the replay's memory bounded.
constexpr std::uintmax_t kInputBytesMax = 16u << 20;

bool CollectFiles(const std::string& arg, std::vector<std::string>* files) {
  std::error_code error;
  const std::filesystem::path path(arg);
  if (std::filesystem::is_directory(path, error)) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
      // Hidden files are not entries: the output writer's temporaries
      // (.NAME.tmp-XXXXXX, base/output_file.h) that a killed run left behind.
      const bool hidden = entry.path().filename().string().starts_with(".");
      if (!hidden && entry.is_regular_file(error))
        found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
    return !error;
  }
  if (!std::filesystem::is_regular_file(path, error)) return false;
  files->push_back(arg);
  return true;
}

bool ReadInput(const std::string& file, std::string* bytes) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error || size > kInputBytesMax) return false;
  std::ifstream in(file, std::ios::binary);
  bytes->assign(std::istreambuf_iterator<char>(in),
                std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0) continue;
    if (!CollectFiles(arg, &files)) {
      std::fprintf(stderr, "replay: %s: not a readable file or directory\n",
                   arg.c_str());
      return 2;
    }
  }
  std::string bytes;
  for (const std::string& file : files) {
    if (!ReadInput(file, &bytes)) {
      std::fprintf(stderr, "replay: %s: unreadable or over %ju bytes\n",
                   file.c_str(), kInputBytesMax);
      return 2;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
  }
  std::fprintf(stderr, "replay: %zu inputs ran\n", files.size());
  return MemwalReplayExitCode != nullptr ? MemwalReplayExitCode() : 0;
}
