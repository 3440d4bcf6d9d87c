// Format: the Roaring fragment-bitmap codec, manifest file framing, file names
// and the validating decoders (spec R2; P §1).
#include "impl/format.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "impl/bitmap.h"

namespace memwal::impl {
namespace {

TEST(FragmentBitmap, EmptyBytesDecodeToUnknownCoverage) {
  const auto decoded = DecodeFragmentBitmap("");
  ASSERT_TRUE(decoded.ok());
  EXPECT_FALSE(decoded->has_value());
}

TEST(FragmentBitmap, AnEmptyBitmapEncodesToNonEmptyBytes) {
  const std::string bytes = EncodeFragmentBitmap(FragmentSet{});
  EXPECT_FALSE(bytes.empty());
  const auto decoded = DecodeFragmentBitmap(bytes);
  ASSERT_TRUE(decoded.ok());
  ASSERT_TRUE(decoded->has_value());
  EXPECT_TRUE((*decoded)->empty());
}

TEST(FragmentBitmap, IsWrittenWithoutRunContainersAsLanceWritesIt) {
  FragmentSet many;
  for (uint64_t id = 0; id < 100; ++id) many.insert(id);
  const std::string bytes = EncodeFragmentBitmap(many);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes.substr(0, 2),
            std::string("\x3a\x30", 2));  // SERIAL_COOKIE_NO_RUNCONTAINER.
}

TEST(FragmentBitmap, GarbageIsCorruptionNotACrash) {
  const auto decoded = DecodeFragmentBitmap("\x01\x02\x03");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace memwal::impl

namespace memwal::impl {
namespace {

ManifestFile SampleFile() {
  ManifestFile file;
  file.manifest.set_version(3);
  file.manifest.set_max_fragment_id(4);
  file.manifest.add_fragments()->set_id(2);
  file.manifest.add_fragments()->set_id(4);
  file.manifest.set_transaction_file("2-abc.txn");
  pb::IndexMetadata* index = file.index_section.add_indices();
  index->mutable_uuid()->set_uuid(std::string(16, 'u'));
  index->set_name("idx_0");
  index->set_fragment_bitmap(EncodeFragmentBitmap(FragmentSet{2, 4}));
  pb::IndexMetadata* system = file.index_section.add_indices();
  system->mutable_uuid()->set_uuid(std::string(16, 'm'));
  system->set_name(std::string(kMemWalIndexName));
  pb::MemWalIndexDetails details;
  details.set_num_shards(1);
  PackMemWalDetails(details, system);
  return file;
}

TEST(ManifestFile, RoundTripsAndReencodesToTheSameBytes) {
  const std::string bytes = EncodeManifestFile(SampleFile());
  const auto decoded = DecodeManifestFile(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->manifest.version(), 3u);
  EXPECT_EQ(decoded->index_section.indices_size(), 2);
  EXPECT_EQ(EncodeManifestFile(*decoded), bytes);
}

TEST(ManifestFile, TheIndexSectionSitsAtTheOffsetTheManifestNames) {
  const std::string bytes = EncodeManifestFile(SampleFile());
  const auto decoded = DecodeManifestFile(bytes);
  ASSERT_TRUE(decoded.ok());
  const uint64_t offset = decoded->manifest.index_section();
  uint32_t size = 0;
  for (int k = 0; k < 4; ++k)
    size |= uint32_t{static_cast<uint8_t>(bytes[offset + k])} << (8 * k);
  pb::IndexSection section;
  ASSERT_TRUE(section.ParseFromString(bytes.substr(offset + 4, size)));
  EXPECT_EQ(section.indices(0).name(), "idx_0");
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "LANC");
}

TEST(ManifestFile, EveryTruncationIsCorruption) {
  const std::string bytes = EncodeManifestFile(SampleFile());
  for (size_t size = 0; size < bytes.size(); ++size) {
    const auto decoded =
        DecodeManifestFile(std::string_view(bytes).substr(0, size));
    ASSERT_FALSE(decoded.ok()) << size;
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  }
}

TEST(ManifestFile, EmbedsTheTransactionAndOmitsAnEmptyIndexSection) {
  ManifestFile file = SampleFile();
  file.index_section.clear_indices();
  pb::Transaction transaction;
  transaction.set_read_version(2);
  transaction.mutable_append();
  file.transaction = transaction;
  const std::string bytes = EncodeManifestFile(file);
  const auto decoded = DecodeManifestFile(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_FALSE(decoded->manifest.has_index_section());
  ASSERT_TRUE(decoded->manifest.has_transaction_section());
  EXPECT_EQ(decoded->manifest.transaction_section(), 0u);
  ASSERT_TRUE(decoded->transaction.has_value());
  EXPECT_EQ(decoded->transaction->read_version(), 2u);
  EXPECT_EQ(EncodeManifestFile(*decoded), bytes);
}

// Decode-once (WriteManifestFile seeds the decode cache with it): the form
// EncodeManifestFileAsDecoded leaves is the decoding of the bytes it returns,
// field for field, with and without an index section and a transaction.
void ExpectTheDecodedFormIsTheDecoding(ManifestFile file) {
  ManifestFile kept = file;
  const std::string bytes = EncodeManifestFileAsDecoded(&kept);
  EXPECT_EQ(bytes, EncodeManifestFile(file));
  const auto decoded = DecodeManifestFile(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(CheckManifestFile(kept).ok());
  EXPECT_EQ(kept.manifest.SerializeAsString(),
            decoded->manifest.SerializeAsString());
  EXPECT_EQ(kept.manifest.has_index_section(),
            decoded->manifest.has_index_section());
  EXPECT_EQ(kept.manifest.has_transaction_section(),
            decoded->manifest.has_transaction_section());
  EXPECT_EQ(kept.index_section.SerializeAsString(),
            decoded->index_section.SerializeAsString());
  ASSERT_EQ(kept.transaction.has_value(), decoded->transaction.has_value());
  if (kept.transaction.has_value()) {
    EXPECT_EQ(EncodeTransaction(*kept.transaction),
              EncodeTransaction(*decoded->transaction));
  }
}

TEST(ManifestFile, TheFormAWriterKeepsIsWhatTheBytesDecodeTo) {
  ExpectTheDecodedFormIsTheDecoding(SampleFile());
  ManifestFile with_transaction = SampleFile();
  with_transaction.manifest.set_index_section(99);  // stale offsets
  with_transaction.manifest.set_transaction_section(7);
  pb::Transaction transaction;
  transaction.set_read_version(2);
  transaction.mutable_append();
  (*transaction.mutable_transaction_properties())["k"] = "v";
  with_transaction.transaction = transaction;
  ExpectTheDecodedFormIsTheDecoding(with_transaction);
  ManifestFile without_indexes = with_transaction;
  without_indexes.index_section.clear_indices();
  ExpectTheDecodedFormIsTheDecoding(without_indexes);
}

TEST(ManifestFile, ADuplicateSegmentUuidIsFoundInALongIndexSection) {
  // The duplicate check compares a few uuids in place and many through a set.
  for (const int segments : {3, 16, 17, 40}) {
    ManifestFile file = SampleFile();
    for (int k = 0; k < segments; ++k) {
      pb::IndexMetadata* index = file.index_section.add_indices();
      index->mutable_uuid()->set_uuid(std::string(15, 's') +
                                      static_cast<char>('A' + k));
      index->set_name("idx_0");
    }
    EXPECT_TRUE(DecodeManifestFile(EncodeManifestFile(file)).ok()) << segments;
    *file.index_section.add_indices() = file.index_section.indices(2);
    EXPECT_FALSE(DecodeManifestFile(EncodeManifestFile(file)).ok()) << segments;
  }
}

TEST(ManifestFile, RefusesDuplicateSegmentUuidsAndUnorderedFragments) {
  ManifestFile duplicate = SampleFile();
  *duplicate.index_section.add_indices() = duplicate.index_section.indices(0);
  EXPECT_FALSE(DecodeManifestFile(EncodeManifestFile(duplicate)).ok());
  ManifestFile unordered = SampleFile();
  unordered.manifest.mutable_fragments(0)->set_id(9);
  EXPECT_FALSE(DecodeManifestFile(EncodeManifestFile(unordered)).ok());
}

TEST(FileNames, VersionNamesSortNewestFirstAndParseBack) {
  EXPECT_EQ(VersionFileName(1), "_versions/18446744073709551614.manifest");
  EXPECT_LT(VersionFileName(10), VersionFileName(9));
  EXPECT_EQ(ParseVersionFileName(VersionFileName(12345)), 12345u);
  EXPECT_FALSE(ParseVersionFileName("_versions/abc.manifest").has_value());
  EXPECT_EQ(TransactionFileName(7, "u"), "7-u.txn");
}

TEST(FileNames, ATwentyDigitVersionNameParsesUpToTheLargestNumberAndNoFurther) {
  EXPECT_EQ(ParseVersionFileName("18446744073709551615.manifest"), 0u);
  EXPECT_EQ(ParseVersionFileName("00000000000000000000.manifest"),
            std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(
      ParseVersionFileName("18446744073709551616.manifest").has_value());
  EXPECT_FALSE(
      ParseVersionFileName("99999999999999999999.manifest").has_value());
  EXPECT_FALSE(
      ParseVersionFileName("1844674407370955161x.manifest").has_value());
  // Around the end of the names that share u64::MAX's first 17 digits.
  for (uint64_t version = 0; version < 1200; ++version)
    EXPECT_EQ(ParseVersionFileName(VersionFileName(version)), version);
  EXPECT_FALSE(
      ParseVersionFileName("18446744073709551a15.manifest").has_value());
  EXPECT_FALSE(
      ParseVersionFileName("18446744073709551699.manifest").has_value());
}

TEST(FileNames, AUuidIsWrittenAsThirtySixLowercaseHexDigitsAndDashes) {
  std::string raw(16, '\0');
  for (int i = 0; i < 16; ++i) raw[i] = static_cast<char>(0x10 * i + 0x0f - i);
  EXPECT_EQ(UuidHex(raw), "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
}

TEST(FileNames, ShardManifestNamesAreTheVersionBitsLeastSignificantFirst) {
  const std::string shard(16, '\x11');
  EXPECT_EQ(ShardManifestPath(shard, 1),
            "_mem_wal/11111111-1111-1111-1111-111111111111/manifest/1" +
                std::string(63, '0') + ".binpb");
  EXPECT_EQ(ParseShardManifestName(ShardManifestPath(shard, 6)), 6u);
  EXPECT_FALSE(ParseShardManifestName("manifest/12.binpb").has_value());
}

RC_GTEST_PROP(FileNames, AnyShardManifestVersionParsesBackFromItsName,
              (uint64_t version)) {
  const std::string shard(16, '\x22');
  RC_ASSERT(ParseShardManifestName(ShardManifestPath(shard, version)) ==
            std::optional<uint64_t>(version));
}

TEST(FileNames, AShardManifestNameWithAnyDigitButZeroOrOneIsNotOne) {
  const std::string name = std::string(64, '0') + ".binpb";
  for (size_t at = 0; at < 64; ++at) {
    // '0' and '1' with a high bit set, or with the bit next to theirs.
    for (const char c : {'2', '/', 'p', '\0', '\xb0', '\xb1', '3'}) {
      std::string bad = name;
      bad[at] = c;
      EXPECT_FALSE(ParseShardManifestName(bad).has_value()) << at << " " << c;
    }
  }
}

TEST(TransactionSlot, ACopySharesTheMessageUntilOneOfThemChangesIt) {
  pb::Transaction t;
  t.set_read_version(3);
  TransactionSlot slot(t);
  const TransactionSlot copy = slot;
  EXPECT_EQ(&*copy, &*std::as_const(slot));
  slot->set_read_version(4);  // The change copies first.
  EXPECT_EQ(copy->read_version(), 3u);
  EXPECT_EQ(slot->read_version(), 4u);
  EXPECT_NE(&*copy, &*std::as_const(slot));
}

TEST(TransactionSlot, ASharedMessageIsNeverChangedThroughTheSlot) {
  auto shared = std::make_shared<const pb::Transaction>();
  TransactionSlot slot(shared);
  EXPECT_EQ(slot.shared(), shared);
  slot->set_read_version(9);
  EXPECT_EQ(shared->read_version(), 0u);
  EXPECT_EQ(slot->read_version(), 9u);
  slot.emplace().set_uuid("x");  // Emplace starts from an empty message.
  EXPECT_EQ(slot->read_version(), 0u);
  slot.reset();
  EXPECT_FALSE(slot.has_value());
}

TEST(Transaction, AnExplicitFalseActivationIsRefused) {
  pb::Transaction t;
  t.mutable_update_mem_wal_state()->set_require_index_catchup(false);
  EXPECT_EQ(DecodeTransaction(EncodeTransaction(t)).status().code(),
            StatusCode::kInvalidArgument);
  pb::Transaction ordinary;
  ordinary.mutable_update_mem_wal_state();
  const std::string bytes = EncodeTransaction(ordinary);
  const auto decoded = DecodeTransaction(bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_FALSE(decoded->update_mem_wal_state().has_require_index_catchup());
}

TEST(Transaction, AnOrdinaryProgressUpdateNeverWritesTheActivationField) {
  // Lance keeps ordinary updates byte-identical: field 2 appears only when
  // true.
  pb::Transaction ordinary;
  ordinary.mutable_update_mem_wal_state();
  pb::Transaction activation;
  activation.mutable_update_mem_wal_state()->set_require_index_catchup(true);
  EXPECT_LT(EncodeTransaction(ordinary).size(),
            EncodeTransaction(activation).size());
}

RC_GTEST_PROP(FragmentBitmap, SurvivesEncodeAndDecode,
              (const std::vector<uint32_t>& ids)) {
  const FragmentSet fragments(ids.begin(), ids.end());
  const auto decoded = DecodeFragmentBitmap(EncodeFragmentBitmap(fragments));
  RC_ASSERT(decoded.ok());
  RC_ASSERT(decoded->has_value());
  RC_ASSERT(**decoded == fragments);
}

RC_GTEST_PROP(FragmentBitmap, ArbitraryBytesNeverCrashTheDecoder,
              (const std::string& bytes)) {
  const auto decoded = DecodeFragmentBitmap(bytes);
  if (!decoded.ok())
    RC_ASSERT(decoded.status().code() == StatusCode::kCorruption);
}

RC_GTEST_PROP(ManifestFile, ArbitraryBytesNeverCrashTheDecoder,
              (const std::string& bytes)) {
  const auto decoded = DecodeManifestFile(bytes);
  if (!decoded.ok())
    RC_ASSERT(decoded.status().code() == StatusCode::kCorruption);
}

}  // namespace
}  // namespace memwal::impl
