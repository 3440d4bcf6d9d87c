// The protobuf wire reader and the file-name codecs of inspect/ on hand-made
// bytes.
#include "inspect/wire.h"

#include <gtest/gtest.h>

#include "inspect/manifest_file.h"

namespace memwal::inspect {
namespace {

TEST(Wire, SplitsVarintAndLengthDelimitedFields) {
  // field 3 varint 7; field 2 bytes "id"
  const std::string bytes = std::string("\x18\x07\x12\x02id", 6);
  const Result<std::vector<WireField>> fields = SplitMessage(bytes, "m");
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  ASSERT_EQ(fields->size(), 2u);
  EXPECT_EQ((*fields)[0].number, 3u);
  EXPECT_EQ((*fields)[0].value, 7u);
  EXPECT_EQ((*fields)[1].bytes, "id");
}

TEST(Wire, RefusesALengthPastTheEnd) {
  const std::string bytes = std::string("\x12\x05id", 4);
  const Result<std::vector<WireField>> fields = SplitMessage(bytes, "m");
  ASSERT_FALSE(fields.ok());
  EXPECT_EQ(fields.status().code(), StatusCode::kCorruption);
}

TEST(Wire, RefusesATruncatedVarint) {
  EXPECT_FALSE(SplitMessage(std::string("\x18\xff", 2), "m").ok());
}

TEST(Wire, RefusesGroupWireTypes) {
  EXPECT_FALSE(
      SplitMessage(std::string("\x1b", 1), "m").ok());  // field 3, wire type 3
}

TEST(Wire, ReadsNegativeInt32AsATenByteVarint) {
  const std::string bytes =
      std::string("\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
  const Result<std::vector<WireField>> fields = SplitMessage(bytes, "m");
  ASSERT_TRUE(fields.ok());
  std::vector<int64_t> ints;
  ASSERT_TRUE(AppendInts((*fields)[0], "m", &ints).ok());
  EXPECT_EQ(ints, std::vector<int64_t>{-1});
}

TEST(FileNames, DecodeLanceV2VersionNames) {
  EXPECT_EQ(VersionOfFileName("18446744073709551614.manifest"), 1u);
  EXPECT_EQ(VersionOfFileName("18446744073709551608.manifest"), 7u);
  EXPECT_EQ(VersionOfFileName("7.manifest"), 7u);  // Lance's V1 naming.
  EXPECT_EQ(VersionOfFileName("x.manifest"), std::nullopt);
  EXPECT_EQ(VersionOfFileName("99999999999999999999.manifest"), std::nullopt);
}

TEST(FileNames, DecodeShardManifestNamesLeastSignificantBitFirst) {
  const std::string zeros(63, '0');
  EXPECT_EQ(ShardVersionOfFileName("1" + zeros + ".binpb"), 1u);
  EXPECT_EQ(ShardVersionOfFileName("01" + std::string(62, '0') + ".binpb"), 2u);
  EXPECT_EQ(ShardVersionOfFileName("101" + std::string(61, '0') + ".binpb"),
            5u);
  EXPECT_EQ(ShardVersionOfFileName("2" + zeros + ".binpb"), std::nullopt);
  EXPECT_EQ(ShardVersionOfFileName("1.binpb"), std::nullopt);
}

}  // namespace
}  // namespace memwal::inspect
