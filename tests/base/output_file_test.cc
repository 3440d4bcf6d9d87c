// The one output writer (base/output_file.h): what it refuses, what it leaves
// behind, and that a file planted at a temporary name is never written
// through.
#include "base/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace memwal {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/output_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const {
    return (fs::path(dir_) / name).string();
  }
  static std::string Contents(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // The names in the directory, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir_;
};

TEST_F(OutputFile, WritesANewFileAndLeavesNoTemporaryBehind) {
  ASSERT_TRUE(WriteOutputFile(Path("out.txt"), "hello\n").ok());
  EXPECT_EQ(Contents(Path("out.txt")), "hello\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"out.txt"});
}

TEST_F(OutputFile, ReplacesARegularFile) {
  ASSERT_TRUE(WriteOutputFile(Path("out.txt"), "old").ok());
  ASSERT_TRUE(WriteOutputFile(Path("out.txt"), "new").ok());
  EXPECT_EQ(Contents(Path("out.txt")), "new");
}

TEST_F(OutputFile, RefusesAFifoAndLeavesItAFifo) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0644), 0);
  const Status status = WriteOutputFile(Path("fifo"), "x");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("it is a FIFO"), std::string::npos)
      << status.message();
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(Path("fifo"))));
  EXPECT_EQ(Names(), std::vector<std::string>{"fifo"});
}

TEST_F(OutputFile, RefusesASymlinkAndLeavesItsTargetUnchanged) {
  ASSERT_TRUE(WriteOutputFile(Path("target"), "precious").ok());
  fs::create_symlink(Path("target"), Path("link"));
  const Status status = WriteOutputFile(Path("link"), "overwritten");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("it is a symlink"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(Path("link"))));
  EXPECT_EQ(Contents(Path("target")), "precious");
}

TEST_F(OutputFile, RefusesADeviceNodeAndADirectory) {
  struct stat before;
  ASSERT_EQ(stat("/dev/null", &before), 0);
  EXPECT_EQ(WriteOutputFile("/dev/null", "x").code(),
            StatusCode::kInvalidArgument);
  struct stat after;
  ASSERT_EQ(stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(before.st_ino, after.st_ino);
  fs::create_directory(Path("sub"));
  EXPECT_EQ(WriteOutputFile(Path("sub"), "x").code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(fs::is_directory(Path("sub")));
}

TEST_F(OutputFile, NeverFollowsASymlinkPlantedAtATemporaryName) {
  // Method: the test chooses the temporary names and plants a symlink at the
  // first one; the writer must skip it (exclusive creation) and use the next.
  ASSERT_TRUE(WriteOutputFile(Path("victim"), "precious").ok());
  fs::create_symlink(Path("victim"), Path(".out.txt.tmp-planted"));
  int calls = 0;
  const auto suffixes = [&calls] {
    return ++calls == 1 ? std::string("planted") : std::string("fresh");
  };
  ASSERT_TRUE(WriteOutputFile(Path("out.txt"), "output", suffixes).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(Contents(Path("victim")), "precious");
  EXPECT_EQ(Contents(Path("out.txt")), "output");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(Path(".out.txt.tmp-planted"))));
}

TEST_F(OutputFile, GivesUpWhenEveryTemporaryNameIsTaken) {
  ASSERT_TRUE(WriteOutputFile(Path("victim"), "precious").ok());
  fs::create_symlink(Path("victim"), Path(".out.txt.tmp-planted"));
  const Status status = WriteOutputFile(Path("out.txt"), "output",
                                        [] { return std::string("planted"); });
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_EQ(Contents(Path("victim")), "precious");
  EXPECT_FALSE(fs::exists(fs::symlink_status(Path("out.txt"))));
}

TEST_F(OutputFile, TwoWritersOfOnePathNeverShareATemporaryFile) {
  const std::string a(100000, 'a');
  const std::string b(100000, 'b');
  auto writer = [this](const std::string& text) {
    for (int k = 0; k < 50; ++k)
      ASSERT_TRUE(WriteOutputFile(Path("out.txt"), text).ok());
  };
  std::thread first(writer, a);
  std::thread second(writer, b);
  first.join();
  second.join();
  const std::string result = Contents(Path("out.txt"));
  EXPECT_TRUE(result == a || result == b);
  EXPECT_EQ(Names(), std::vector<std::string>{"out.txt"});
}

// A temporary a killed run left: the writer's own name pattern, a regular
// file nobody holds.
TEST_F(OutputFile, TheNextWriteIntoADirectorySweepsAKilledRunsTemporaries) {
  std::ofstream(Path(".out.txt.tmp-0123456789ab")) << "half";
  std::ofstream(Path(".other.json.tmp-fedcba987654")) << "half";
  // Not the writer's pattern: left alone.
  std::ofstream(Path(".out.txt.tmp-planted")) << "mine";
  std::ofstream(Path("notes.tmp-0123456789ab")) << "mine";
  // The writer's pattern, but a symlink (to a file outside) and a FIFO: left
  // alone, the symlink's target untouched.
  ASSERT_TRUE(WriteOutputFile(Path("victim"), "precious").ok());
  fs::create_symlink(Path("victim"), Path(".link.tmp-00000000000a"));
  ASSERT_EQ(mkfifo(Path(".fifo.tmp-00000000000b").c_str(), 0600), 0);
  // A live writer's temporary (its flock held): left alone.
  const int live = ::open(Path(".live.tmp-00000000000c").c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(live, 0);
  ASSERT_EQ(::flock(live, LOCK_EX), 0);
  ASSERT_TRUE(WriteOutputFile(Path("out.txt"), "output").ok());
  ::close(live);
  EXPECT_EQ(Names(), (std::vector<std::string>{
                         ".fifo.tmp-00000000000b", ".link.tmp-00000000000a",
                         ".live.tmp-00000000000c", ".out.txt.tmp-planted",
                         "notes.tmp-0123456789ab", "out.txt", "victim"}));
  EXPECT_EQ(Contents(Path("victim")), "precious");
}

TEST_F(OutputFile, MakingAnExistingOutputDirectorySweepsItToo) {
  fs::create_directories(Path("o"));
  std::ofstream(Path("o/.x.trace.json.tmp-0123456789ab")) << "half";
  ASSERT_TRUE(MakeOutputDirectory(Path("o")).ok());
  EXPECT_TRUE(fs::is_empty(Path("o")));
}

// A sweeper in another run may take the lock between a writer's create and
// its flock: the writer sees its file unlinked and makes another, so a write
// never fails or loses its file to a sweep.
TEST_F(OutputFile, WritersNeverLoseTheirTemporaryToAConcurrentSweep) {
  const std::string text(20000, 'x');
  std::atomic<bool> done{false};
  std::thread sweeper([&] {
    // Fresh directory names, so that each MakeOutputDirectory sweeps.
    while (!done.load()) {
      for (const auto& entry : fs::directory_iterator(dir_)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".tmp-") == std::string::npos) continue;
        const int fd = ::open(entry.path().c_str(),
                              O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(entry.path().c_str());
        ::close(fd);
      }
    }
  });
  for (int k = 0; k < 200; ++k)
    ASSERT_TRUE(WriteOutputFile(Path("out.txt"), text).ok()) << k;
  done.store(true);
  sweeper.join();
  EXPECT_EQ(Contents(Path("out.txt")), text);
}

TEST_F(OutputFile, ReportsAnUnwritableDirectory) {
  const Status status = WriteOutputFile(Path("missing/out.txt"), "x");
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("missing/out.txt"), std::string::npos);
}

TEST(FlushOutput, ReportsAFullDevice) {
  std::FILE* full = std::fopen("/dev/full", "w");
  ASSERT_NE(full, nullptr);
  std::fputs("lost\n", full);
  const Status status = FlushOutput(full, "standard output");
  std::fclose(full);
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("standard output"), std::string::npos);
}

TEST(Escaped, TurnsControlCharactersIntoVisibleEscapes) {
  EXPECT_EQ(Escaped("plain-name_1"), "plain-name_1");
  EXPECT_EQ(Escaped("a\nb"), "a\\x0ab");
  EXPECT_EQ(Escaped("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(Escaped("back\\slash"), "back\\\\slash");
  EXPECT_EQ(Escaped("\xc2\x9b"), "\\xc2\\x9b");
  EXPECT_EQ(Escaped(std::string(300, 'x'), 4), "xxxx...");
}

}  // namespace
}  // namespace memwal
