// The shared readers and the one escaper of issue 42 (base/input_file.h,
// base/json_input.h, base/escape.h) and the memory reserve (base/memory.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <new>
#include <thread>
#include <vector>

#include "base/escape.h"
#include "base/input_file.h"
#include "base/json_input.h"
#include "base/memory.h"

namespace memwal {
namespace {

namespace fs = std::filesystem;

class InputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/input_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
  }

  std::string dir_;
};

TEST_F(InputFile, AFifoIsRefusedAtOnceInsteadOfBlockingTheOpen) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const Result<std::string> read = ReadInputFile(Path("fifo"), 100);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(read.status().message(), Path("fifo") + ": not a regular file");
}

TEST_F(InputFile, ADeviceADirectoryAndASymlinkLoopAreRefused) {
  EXPECT_FALSE(ReadInputFile("/dev/zero", 100).ok());
  EXPECT_NE(
      ReadInputFile(dir_, 100).status().message().find("not a regular file"),
      std::string::npos);
  fs::create_symlink("loop", Path("loop"));
  EXPECT_NE(ReadInputFile(Path("loop"), 100)
                .status()
                .message()
                .find("a symlink loop"),
            std::string::npos);
}

TEST_F(InputFile, ARegularFileIsReadWholeAndAMissingOneIsNotFound) {
  Write("a", "hello");
  EXPECT_EQ(*ReadInputFile(Path("a"), 5), "hello");
  EXPECT_EQ(ReadInputFile(Path("a"), 4).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadInputFile(Path("none"), 4).status().code(),
            StatusCode::kNotFound);
}

TEST_F(InputFile, AMessageNamesAHostilePathEscaped) {
  const std::string name = "evil\n\x1b[2J";
  ASSERT_EQ(mkfifo(Path(name).c_str(), 0600), 0);
  const std::string message = ReadInputFile(Path(name), 10).status().message();
  EXPECT_FALSE(NeedsTerminalEscape(message)) << message;
  EXPECT_NE(message.find("evil\\x0a\\x1b[2J"), std::string::npos);
}

TEST_F(InputFile, ASymlinkOutOfTheRootIsRefusedAndOneInsideIsFollowed) {
  fs::create_directories(Path("table/_versions"));
  Write("secret", "outside");
  Write("table/_versions/1.manifest", "inside");
  fs::create_symlink("../../secret", Path("table/_versions/2.manifest"));
  fs::create_symlink("1.manifest", Path("table/_versions/3.manifest"));
  fs::create_symlink(dir_, Path("table/up"));
  const std::string root = Path("table");
  EXPECT_EQ(*ReadInputFileWithin(root, Path("table/_versions/1.manifest"), 99),
            "inside");
  EXPECT_EQ(*ReadInputFileWithin(root, Path("table/_versions/3.manifest"), 99),
            "inside");
  const Result<std::string> out =
      ReadInputFileWithin(root, Path("table/_versions/2.manifest"), 99);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("outside"), std::string::npos);
  EXPECT_FALSE(CheckWithin(root, Path("table/up")).ok());
  EXPECT_FALSE(CheckWithin(root, Path("table/up/secret")).ok());
  EXPECT_TRUE(CheckWithin(root, Path("table/_versions")).ok());
  // A sibling whose name starts with the root's is not inside it.
  fs::create_directories(Path("table2"));
  EXPECT_FALSE(CheckWithin(root, Path("table2")).ok());
}

TEST(JsonInput, ADuplicateKeyIsRefusedAtAnyDepth) {
  EXPECT_TRUE(ParseJsonInput(R"({"a":1,"b":{"a":2}})").ok());
  const Result<nlohmann::json> top = ParseJsonInput(R"({"a":1,"a":2})");
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().message(), "duplicate key \"a\"");
  EXPECT_FALSE(ParseJsonInput(R"([{"x":{"k":1,"k":1}}])").ok());
  // Sibling objects may share keys.
  EXPECT_TRUE(ParseJsonInput(R"([{"k":1},{"k":2}])").ok());
}

TEST(JsonInput, BadAndDeepDocumentsAreOneLineErrors) {
  EXPECT_EQ(ParseJsonInput("{").status().message(), "not valid JSON");
  EXPECT_NE(ParseJsonInput(std::string(100, '[') + std::string(100, ']'))
                .status()
                .message()
                .find("nested deeper"),
            std::string::npos);
  EXPECT_EQ(
      ParseJsonInput(R"({"\u001b[2J":1,"\u001b[2J":2})").status().message(),
      "duplicate key \"\\x1b[2J\"");
}

TEST(Escaper, TheTerminalFormIsOneLineWithoutEscapeSequences) {
  EXPECT_EQ(Escaped("a\nb\x1b[2J\x7f\\"), "a\\x0ab\\x1b[2J\\x7f\\\\");
  EXPECT_EQ(Escaped("\xc3\xa9"), "\\xc3\\xa9");
  EXPECT_TRUE(NeedsTerminalEscape("\r"));
  EXPECT_FALSE(NeedsTerminalEscape("a\\x0a"));
}

TEST(Escaper, TheMarkupFormEscapesEntitiesAndShowsControlBytes) {
  EXPECT_EQ(MarkupEscaped("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(MarkupEscaped("line\nnext\ttab"), "line\nnext\ttab");
  EXPECT_EQ(MarkupEscaped(std::string("nul\0esc\x1b\r", 9)),
            "nul\\x00esc\\x1b\\x0d");
  // Valid UTF-8 stays; a C1 control and a broken sequence are shown.
  EXPECT_EQ(MarkupEscaped("\xe2\x80\x94 \xc3\xa9"), "\xe2\x80\x94 \xc3\xa9");
  EXPECT_EQ(MarkupEscaped("\xc2\x9b"), "\\xc2\\x9b");
  EXPECT_EQ(MarkupEscaped("\xff\xc3"), "\\xff\\xc3");
}

// Run alone (its own process, ctest): the reserve and the handler are the
// process's.
TEST(MemoryReserve, AFailedAllocationOnAnyThreadRaisesTheFlagAndNeverAborts) {
  InstallMemoryReserve(std::size_t{1} << 20);
  ResetMemoryExhaustionForTesting();
  EXPECT_FALSE(MemoryExhausted());
  // An allocation no machine can satisfy, on a worker thread: the handler
  // frees the reserve, the retry fails again, std::bad_alloc reaches the
  // thread's outermost frame, which records it.
  bool finished = true;
  std::thread worker([&finished] {
    finished = CatchMemoryExhaustion([] {
      std::vector<char> huge;
      huge.reserve(std::size_t{1} << 62);
    });
  });
  worker.join();
  EXPECT_FALSE(finished);
  EXPECT_TRUE(MemoryExhausted());
  ResetMemoryExhaustionForTesting();
  EXPECT_FALSE(MemoryExhausted());
  EXPECT_TRUE(CatchMemoryExhaustion([] { std::vector<char> small(10); }));
}

}  // namespace
}  // namespace memwal
