// The shared readers and the one escaper of issue 42 (base/input_file.h,
// base/json_input.h, base/escape.h) and the memory reserve (base/memory.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
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

// Issue 42 item 3: resolve-then-open let a symlink swapped in between the
// check and the open lead the read outside. Method: a thread swaps a
// manifest between a regular file inside the table and a symlink to a file
// outside it, as fast as it can, while this thread reads it 3000 times; no
// read may ever return the outside file's bytes. Run through openat2 and
// through the O_NOFOLLOW walk.
void ReadsNeverLeaveTheTableWhileASymlinkIsSwappedIn(const std::string& dir,
                                                     bool walk) {
  fs::create_directories(dir + "/table/_versions");
  std::ofstream(dir + "/secret") << "outside";
  const std::string manifest = dir + "/table/_versions/2.manifest";
  std::ofstream(manifest) << "inside";
  std::atomic<bool> done{false};
  std::thread swapper([&] {
    const std::string link = dir + "/table/_versions/.link";
    const std::string file = dir + "/table/_versions/.file";
    while (!done.load()) {
      std::ofstream(file) << "inside";
      ::rename(file.c_str(), manifest.c_str());
      (void)::symlink("../../secret", link.c_str());
      ::rename(link.c_str(), manifest.c_str());
    }
  });
  ForceBeneathWalkForTesting(walk);
  // At least 3000 reads, and until both states were met 50 times (the
  // swapper may get little of a loaded machine), at most 20 seconds.
  int read_inside = 0, refused = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < 3000 || read_inside < 50 || refused < 50; ++k) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(20))
      break;
    const Result<std::string> bytes =
        ReadInputFileWithin(dir + "/table", manifest, 99);
    if (bytes.ok()) {
      ASSERT_EQ(*bytes, "inside") << "read " << k << " left the table";
      ++read_inside;
    } else {
      ++refused;
    }
  }
  ForceBeneathWalkForTesting(false);
  done.store(true);
  swapper.join();
  // Both states were met (else the test proved nothing).
  EXPECT_GT(read_inside, 0);
  EXPECT_GT(refused, 0);
}

TEST_F(InputFile, AReadNeverLeavesTheTableWhileASymlinkIsSwappedIn) {
  ReadsNeverLeaveTheTableWhileASymlinkIsSwappedIn(dir_, false);
}

TEST_F(InputFile, WithoutOpenat2AReadNeverLeavesTheTableEither) {
  ReadsNeverLeaveTheTableWhileASymlinkIsSwappedIn(dir_, true);
}

TEST_F(InputFile, WithoutOpenat2NoSymlinkIsFollowedAndDotDotIsRefused) {
  fs::create_directories(Path("table/_versions"));
  Write("secret", "outside");
  Write("table/_versions/1.manifest", "inside");
  fs::create_symlink("1.manifest", Path("table/_versions/3.manifest"));
  fs::create_symlink("_versions", Path("table/v"));
  ForceBeneathWalkForTesting(true);
  const std::string root = Path("table");
  EXPECT_EQ(*ReadInputFileWithin(root, Path("table/_versions/1.manifest"), 99),
            "inside");
  const Result<std::string> link =
      ReadInputFileWithin(root, Path("table/_versions/3.manifest"), 99);
  const Result<std::string> through =
      ReadInputFileWithin(root, Path("table/v/1.manifest"), 99);
  const Result<std::string> up =
      ReadInputFileWithin(root, Path("table/../secret"), 99);
  ForceBeneathWalkForTesting(false);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.status().message().find("not followed"), std::string::npos)
      << link.status().message();
  ASSERT_FALSE(through.ok());
  EXPECT_NE(through.status().message().find("not followed"), std::string::npos)
      << through.status().message();
  ASSERT_FALSE(up.ok());
  EXPECT_NE(up.status().message().find("outside"), std::string::npos)
      << up.status().message();
}

TEST_F(InputFile, ADirectoryIsListedBeneathTheRootOnly) {
  fs::create_directories(Path("table/_versions"));
  fs::create_directories(Path("other/_versions"));
  Write("table/_versions/1.manifest", "inside");
  Write("other/_versions/9.manifest", "other");
  fs::create_symlink("../other/_versions", Path("table/theirs"));
  const Result<int> fd = OpenRootDirectory(Path("table"));
  ASSERT_TRUE(fd.ok());
  const Beneath table{.fd = *fd, .name = Path("table")};
  const Result<std::vector<std::string>> ours =
      ListDirectoryBeneath(table, "_versions");
  const Result<std::vector<std::string>> theirs =
      ListDirectoryBeneath(table, "theirs");
  ::close(*fd);
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(*ours, std::vector<std::string>{"1.manifest"});
  ASSERT_FALSE(theirs.ok());
  EXPECT_NE(theirs.status().message().find("outside"), std::string::npos)
      << theirs.status().message();
}

// The partial report main prints when memory runs out outside a search.
std::string PartialReportText() {
  std::FILE* file = std::tmpfile();
  EXPECT_NE(file, nullptr);
  WritePartialReport(file);
  std::rewind(file);
  std::string text;
  char buffer[512];
  while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), file))
    text.append(buffer, n);
  std::fclose(file);
  return text;
}

TEST(PartialReport, NamesTheCommandItsCountsSoFarAndTheVerdictMemoryLimit) {
  BeginPartialReport("corpus", false);
  SetPartialCount("walks", 7);
  SetPartialCount("entries", 2);
  SetPartialCount("walks", 9);
  SetPartialNote("a line\nwith\x1b[2J control bytes");
  EXPECT_EQ(PartialReportText(),
            "memwal-check corpus: out of memory (memory-limit); partial "
            "report:\nverdict: memory-limit\nwalks: 9\nentries: 2\nnote: a "
            "line with [2J control bytes\n");
}

TEST(PartialReport, IsOneJsonObjectWhenTheCommandWasAskedForJson) {
  BeginPartialReport("check", true);
  SetPartialCount("states", 12);
  SetPartialNote("found \"X\" \\ here");
  const Result<nlohmann::json> json = ParseJsonInput(PartialReportText());
  ASSERT_TRUE(json.ok()) << PartialReportText();
  EXPECT_EQ((*json)["command"], "check");
  EXPECT_EQ((*json)["verdict"], "memory-limit");
  EXPECT_EQ((*json)["stopped_by"], "memory-limit");
  EXPECT_EQ((*json)["counts"]["states"], 12);
  EXPECT_EQ((*json)["note"], "found \"X\" \\ here");
  // A new command starts a clean record.
  BeginPartialReport("inspect", false);
  EXPECT_EQ(PartialReportText(),
            "memwal-check inspect: out of memory (memory-limit); partial "
            "report:\nverdict: memory-limit\n");
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
// AddressSanitizer's operator new reports a failed allocation and ends the
// process instead of throwing std::bad_alloc, so the path this test walks
// does not exist in the sanitized build (fuzz/sanitized_check.sh).
#if defined(__SANITIZE_ADDRESS__)
#define MEMWAL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMWAL_ASAN 1
#endif
#endif

TEST(MemoryReserve, AFailedAllocationOnAnyThreadRaisesTheFlagAndNeverAborts) {
#ifdef MEMWAL_ASAN
  GTEST_SKIP() << "AddressSanitizer's allocator never throws std::bad_alloc";
#endif
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
