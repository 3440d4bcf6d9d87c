// inspect on broken or foreign input: every corrupt file is exit 2 with exactly
// one line on stderr naming the file, never a crash; a manifest from a newer
// Lance (unknown fields, unknown feature bits) is read with notes. Each case
// copies a committed fixture table into a temporary directory and damages one
// file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "inspect/inspect.h"

namespace memwal::inspect {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = MEMWAL_FIXTURES_DIR;
// plain.lance version 7, the newest.
const std::string kNewest = "_versions/18446744073709551608.manifest";

class TempTable {
 public:
  explicit TempTable(const std::string& fixture) {
    char pattern[] = "/tmp/inspect-corrupt-XXXXXX";
    MEMWAL_ASSERT(mkdtemp(pattern) != nullptr);
    root_ = pattern;
    dir_ = root_ + "/t.lance";
    fs::copy(kFixtures + "/tables/" + fixture, dir_,
             fs::copy_options::recursive);
  }
  ~TempTable() {
    std::error_code error;
    fs::remove_all(root_, error);
  }
  const std::string& dir() const { return dir_; }
  std::string Read(const std::string& rel) const {
    std::ifstream in(dir_ + "/" + rel, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
  void Write(const std::string& rel, const std::string& bytes) const {
    std::ofstream out(dir_ + "/" + rel, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

 private:
  std::string root_;
  std::string dir_;
};

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunInspect(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = RunInspectCommand(args, out, err);
  return Outcome{code, out.str(), err.str()};
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

void ExpectOneLineError(const Outcome& outcome, const std::string& names) {
  EXPECT_EQ(outcome.code, 2);
  EXPECT_EQ(Lines(outcome.err), 1u) << outcome.err;
  EXPECT_NE(outcome.err.find(names), std::string::npos) << outcome.err;
  EXPECT_TRUE(outcome.out.empty());
}

void PutU32(std::string* bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    (*bytes)[at + i] = static_cast<char>(value >> (8 * i));
}
uint64_t GetU64(const std::string& bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= uint64_t{static_cast<uint8_t>(bytes[at + i])} << (8 * i);
  return value;
}

TEST(InspectCorruptInput, EveryDamagedManifestIsOneLineAndExitTwo) {
  // Legend: how the newest manifest of plain.lance is damaged.
  struct Case {
    const char* what;
    std::string (*damage)(std::string);
  };
  const Case cases[] = {
      {"truncated", [](std::string b) { return b.substr(0, b.size() / 2); }},
      {"truncated before the footer",
       [](std::string b) {
         return b.substr(0, b.size() - 40) + b.substr(b.size() - 16);
       }},
      {"bit-flipped footer position",
       [](std::string b) {
         b[b.size() - 16] ^= 0x40;
         return b;
       }},
      {"wrong magic",
       [](std::string b) {
         b[b.size() - 1] = 'X';
         return b;
       }},
      {"oversized length prefix",
       [](std::string b) {
         PutU32(&b, GetU64(b, b.size() - 16), 0xfffffff0u);
         return b;
       }},
      {"empty file", [](std::string) { return std::string(); }},
      {"garbage protobuf",
       [](std::string b) {
         const size_t at = GetU64(b, b.size() - 16) + 4;
         for (size_t i = at; i < at + 8; ++i) b[i] = '\xff';
         return b;
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TempTable table("plain.lance");
    table.Write(kNewest, c.damage(table.Read(kNewest)));
    ExpectOneLineError(RunInspect({table.dir()}), kNewest);
    ExpectOneLineError(RunInspect({table.dir(), "--json"}), kNewest);
  }
}

TEST(InspectCorruptInput, ADamagedFragmentBitmapIsOneLineAndPrintsNothingElse) {
  // CRoaring prints to stdout on short input; the layout check must refuse it
  // first.
  TempTable table("plain.lance");
  std::string bytes = table.Read(kNewest);
  const size_t cookie = bytes.find(std::string("\x3a\x30\x00\x00\x01", 5));
  ASSERT_NE(cookie, std::string::npos);
  bytes[cookie + 4] = 5;  // Five containers claimed, one present.
  table.Write(kNewest, bytes);
  testing::internal::CaptureStdout();
  const Outcome outcome = RunInspect({table.dir(), "--json"});
  const std::string printed = testing::internal::GetCapturedStdout();
  ExpectOneLineError(outcome, "fragment bitmap");
  EXPECT_EQ(printed, "");
}

TEST(InspectCorruptInput, AMissingVersionsDirectoryIsOneLineAndExitTwo) {
  TempTable table("plain.lance");
  fs::remove_all(table.dir() + "/_versions");
  ExpectOneLineError(RunInspect({table.dir()}), "_versions");
}

TEST(InspectCorruptInput, ACorruptShardManifestIsOneLineAndExitTwo) {
  TempTable table("memwal_unsharded.lance");
  const std::string shard =
      "_mem_wal/aa48498d-ac91-59e2-8452-69f46010ace2/manifest/";
  const std::string newest = shard + "1010" + std::string(60, '0') + ".binpb";
  table.Write(newest, std::string("\x08\x05\x42\x7f", 4));
  ExpectOneLineError(RunInspect({table.dir()}), newest);
}

TEST(InspectCorruptInput, BadUsageIsOneLineAndExitTwo) {
  ExpectOneLineError(RunInspect({}), "missing TABLE_DIR");
  ExpectOneLineError(RunInspect({"a", "b"}), "more than one");
  ExpectOneLineError(RunInspect({"a", "--version"}), "--version needs a value");
  ExpectOneLineError(RunInspect({"a", "--version", "x"}), "positive integer");
  ExpectOneLineError(RunInspect({"a", "--bogus"}), "unknown option");
  ExpectOneLineError(RunInspect({"/nonexistent/table"}), "/nonexistent/table");
  ExpectOneLineError(
      RunInspect({kFixtures + "/tables/plain.lance", "--version", "99"}),
      "no version 99");
}

// Appends fields to the Manifest block (the last block before the footer) and
// re-frames it.
std::string WithExtraManifestFields(const std::string& file,
                                    const std::string& fields) {
  const uint64_t position = GetU64(file, file.size() - 16);
  std::string message =
      file.substr(position + 4, file.size() - 16 - position - 4) + fields;
  std::string out = file.substr(0, position);
  std::string length(4, '\0');
  PutU32(&length, 0, static_cast<uint32_t>(message.size()));
  out += length + message + file.substr(file.size() - 16);
  return out;
}

TEST(InspectCorruptInput, ANewerLanceManifestIsReadWithNotes) {
  TempTable table("plain.lance");
  // reader and writer flags 4096 (fields 9, 10), unknown varint field 99,
  // unknown bytes field 100.
  const std::string extra =
      std::string("\x48\x80\x20\x50\x80\x20\x98\x06\x01\xa2\x06\x03xyz", 15);
  table.Write(kNewest, WithExtraManifestFields(table.Read(kNewest), extra));
  const Result<TableReport> report = Inspect(table.dir(), std::nullopt);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->head().contents.manifest.reader_feature_flags, 4096u);
  EXPECT_EQ(report->head().contents.manifest.fragments.size(), 2u);
  std::string notes;
  for (const Note& note : report->notes)
    notes += note.where + ": " + note.what + "\n";
  EXPECT_NE(notes.find("field 99 (varint, value 1) not understood"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("field 100 (length-delimited, 3 bytes) not understood"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("feature bit(s) 4096 not understood"), std::string::npos)
      << notes;
  const Outcome outcome = RunInspect({table.dir()});
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("field 99"), std::string::npos);
}

// Field 13 (writer_version) with `version`, and bit 128 in both words.
std::string WriterAndBit128(const std::string& version) {
  const std::string library = std::string("\x0a\x05lance", 7);
  const std::string text =
      std::string("\x12") + static_cast<char>(version.size()) + version;
  const std::string writer = library + text;
  return std::string("\x48\x80\x01\x50\x80\x01", 6) + "\x6a" +
         static_cast<char>(writer.size()) + writer;
}

TEST(InspectCorruptInput, Bit128IsReadByTheWriterVersionThatSetIt) {
  // Legend: writer version -> protocol inferred, and whether a note explains
  // bit 128.
  struct Case {
    std::string writer;
    impl::Protocol protocol;
    std::string note;  // Empty: no note about bit 128.
  };
  const Case cases[] = {
      {"11.0.0-beta.5", impl::Protocol::kAdvance, ""},
      {"11.0.0-beta.16", impl::Protocol::kDerived, ""},
      {"11.0.0", impl::Protocol::kUnconditional, "covering-index metadata"},
      {"8.0.0", impl::Protocol::kLegacy, "unknown to a legacy writer"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.writer);
    TempTable table("plain.lance");
    table.Write(kNewest, WithExtraManifestFields(table.Read(kNewest),
                                                 WriterAndBit128(c.writer)));
    const Result<TableReport> report = Inspect(table.dir(), std::nullopt);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->protocol, c.protocol) << report->protocol_reason;
    std::string notes;
    for (const Note& note : report->notes) notes += note.what + "\n";
    if (c.note.empty()) {
      EXPECT_EQ(notes.find("bit 128"), std::string::npos) << notes;
    } else {
      EXPECT_NE(notes.find(c.note), std::string::npos) << notes;
    }
  }
}

TEST(InspectCorruptInput, AHalfSetBitIsAFindingUnderABitProtocol) {
  TempTable table("plain.lance");
  const std::string writer = WriterAndBit128("11.0.0-beta.16");
  // Drop the writer word's bit: reader 128, writer 0.
  const std::string half =
      std::string("\x48\x80\x01\x50\x00", 5) + writer.substr(6);
  table.Write(kNewest, WithExtraManifestFields(table.Read(kNewest), half));
  const Result<TableReport> report = Inspect(table.dir(), std::nullopt);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  bool found = false;
  for (const Check& check : report->checks) {
    if (check.name != "FeatureBitsArePaired") continue;
    found = true;
    EXPECT_FALSE(check.ok);
    EXPECT_NE(
        check.reason.find("version 7 has bit 128 only in its reader word"),
        std::string::npos)
        << check.reason;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace memwal::inspect
