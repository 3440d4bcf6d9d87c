// Lance 2.1 files (impl/lance_file.h) and the Lance files a table written to
// a directory holds (impl/lance_export.h).
#include "impl/lance_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "impl/format.h"
#include "impl/lance_export.h"
#include "impl/lance_sstable.h"
#include "impl/rows.h"
#include "world_fixture.h"

namespace memwal::impl {
namespace {

using testing::MakeWorld;
using testing::Publish;

uint64_t Le(const std::string& bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int k = 0; k < width; ++k)
    value |= uint64_t{static_cast<unsigned char>(bytes[at + k])} << (8 * k);
  return value;
}

LanceColumn Column(std::string name, int32_t id, std::string type,
                   uint64_t count, uint64_t first) {
  LanceColumn column{.name = std::move(name),
                     .id = id,
                     .logical_type = std::move(type),
                     .nullable = false,
                     .values = {}};
  for (uint64_t k = 0; k < count; ++k) column.values.push_back(first + k);
  return column;
}

TEST(LanceFile, ColumnsOfManyChunksDecodeToWhatWasWritten) {
  const std::vector<LanceColumn> columns = {Column("a", 0, "int64", 3000, 7),
                                            Column("b", 4, "uint32", 3000, 1)};
  const std::string bytes = EncodeLanceFile(columns, {{"k", "v"}});
  const auto decoded = DecodeLanceFile(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].values, columns[0].values);
  EXPECT_EQ((*decoded)[1].values, columns[1].values);
  EXPECT_EQ((*decoded)[1].id, 4);
  EXPECT_EQ((*decoded)[1].logical_type, "uint32");
  EXPECT_EQ(LanceFileMetadata(bytes)->at("k"), "v");
}

TEST(LanceFile, TheFooterNamesVersionTwoOneAndItsTables) {
  const std::string bytes =
      EncodeLanceFile({Column("id", 0, "int64", 100, 0)}, {});
  const size_t footer = bytes.size() - 40;
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "LANC");
  EXPECT_EQ(Le(bytes, footer + 24, 4), 1u);  // one global buffer
  EXPECT_EQ(Le(bytes, footer + 28, 4), 1u);  // one column
  EXPECT_EQ(Le(bytes, footer + 32, 2), 2u);
  EXPECT_EQ(Le(bytes, footer + 34, 2), 1u);
  // The first page buffer (the chunk lookup) at 0, the chunks at 64: one
  // chunk of 100 int64 values, 8 header bytes + 800 = 101 words, the last
  // chunk's count left to the page: ((101 - 1) << 4) | 0, as Lance 12 writes
  // it for the 100-row fixture (there as a u32).
  EXPECT_EQ(Le(bytes, 0, 2), 0x640u);
  EXPECT_EQ(Le(bytes, 64, 2), 0u);    // no levels
  EXPECT_EQ(Le(bytes, 66, 2), 800u);  // value bytes
  EXPECT_EQ(Le(bytes, 72, 8), 0u);
  EXPECT_EQ(Le(bytes, 72 + 8 * 99, 8), 99u);
}

TEST(LanceFile, ATruncatedFileIsCorruption) {
  const std::string bytes =
      EncodeLanceFile({Column("id", 0, "int64", 10, 0)}, {});
  EXPECT_FALSE(DecodeLanceFile(bytes.substr(0, bytes.size() - 1)).ok());
  EXPECT_FALSE(DecodeLanceFile(bytes.substr(20)).ok());
}

TEST(LanceExport, ADirectoryTableHoldsLanceDataFilesWithTheRowsIdentity) {
  World world = MakeWorld(Protocol::kUnconditional, 1, 1);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  Publish(world, [&] { return world.BeginCompactSsTable(0, true); });
  const std::string root = std::filesystem::temp_directory_path().string() +
                           "/memwal-lance-" + std::to_string(::getpid());
  std::filesystem::remove_all(root);
  auto store = DirectoryStore::Open(root);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(world.WriteTo(&*store).ok());
  const auto files = store->List("data/");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 2u);  // Init's base row, the compacted SSTable row
  std::set<std::vector<int64_t>> rows;
  for (const std::string& path : *files) {
    const auto bytes = store->Get(path);
    ASSERT_TRUE(bytes.ok());
    const auto columns = DecodeLanceFile(**bytes);
    ASSERT_TRUE(columns.ok()) << path << ": " << columns.status().ToString();
    ASSERT_EQ(columns->size(), 4u);  // f0, shard, generation, key
    EXPECT_EQ((*columns)[0].name, "f0");
    EXPECT_EQ((*columns)[1].name, "shard");
    EXPECT_EQ((*columns)[2].name, "generation");
    EXPECT_EQ((*columns)[3].name, "key");
    rows.insert({static_cast<int64_t>((*columns)[1].values.at(0)),
                 static_cast<int64_t>((*columns)[2].values.at(0)),
                 static_cast<int64_t>((*columns)[3].values.at(0))});
    // The row file stays readable (World::OpenFrom).
    EXPECT_TRUE(DecodeRowFile(**bytes).ok());
  }
  EXPECT_EQ(rows, (std::set<std::vector<int64_t>>{{-1, 0, 0},
                                                  {0, 1, RowKeyValue(0, 1)}}));
  // idx_0's segments each have their BTree files.
  const auto index_files = store->List("_indices/");
  ASSERT_TRUE(index_files.ok());
  EXPECT_FALSE(index_files->empty());
  EXPECT_EQ(index_files->size() % 2, 0u);
  std::filesystem::remove_all(root);
}

TEST(LanceSsTable, AFlushedGenerationIsWrittenAsTheLanceDatasetLanceReads) {
  World world = MakeWorld(Protocol::kUnconditional, 1, 1);
  ASSERT_TRUE(world.FlushMemTable(0).ok());
  const std::string root = std::filesystem::temp_directory_path().string() +
                           "/memwal-sstable-" + std::to_string(::getpid());
  std::filesystem::remove_all(root);
  auto store = DirectoryStore::Open(root);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(world.WriteTo(&*store).ok());
  const auto files = store->List(std::string(kMemWalDir));
  ASSERT_TRUE(files.ok());
  std::string dir;  // _mem_wal/{shard}/{random8}_gen_1/
  for (const std::string& path : *files) {
    const size_t at = path.find("_gen_1/data.lance");
    if (at != std::string::npos) dir = path.substr(0, at + 7);
  }
  ASSERT_FALSE(dir.empty());
  // Version 1 of the generation's dataset: the base table's schema, one
  // fragment of one data file.
  const auto manifest_bytes = store->Get(dir + VersionFileName(1));
  ASSERT_TRUE(manifest_bytes.ok());
  const auto manifest = DecodeManifestFile(**manifest_bytes);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  EXPECT_EQ(manifest->manifest.version(), 1u);
  ASSERT_EQ(manifest->manifest.fields_size(), 4);
  EXPECT_EQ(manifest->manifest.fields(3).name(), "key");
  ASSERT_EQ(manifest->manifest.fragments_size(), 1);
  const pb::DataFragment& fragment = manifest->manifest.fragments(0);
  EXPECT_EQ(fragment.physical_rows(), 1u);
  ASSERT_EQ(fragment.files_size(), 1);
  const auto data = store->Get(dir + "data/" + fragment.files(0).path());
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(fragment.files(0).file_size_bytes(), (*data)->size());
  const auto columns = DecodeLanceFile(**data);
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  ASSERT_EQ(columns->size(), 4u);
  EXPECT_EQ((*columns)[1].values, std::vector<uint64_t>{0});  // shard
  EXPECT_EQ((*columns)[2].values, std::vector<uint64_t>{1});  // generation
  EXPECT_EQ((*columns)[3].values,
            std::vector<uint64_t>{static_cast<uint64_t>(RowKeyValue(0, 1))});
  // The primary-key BTree names the row by its address (fragment 0,
  // offset 0).
  const auto page_data = store->Get(dir + "_pk_index/page_data.lance");
  ASSERT_TRUE(page_data.ok());
  const auto pk = DecodeLanceFile(**page_data);
  ASSERT_TRUE(pk.ok()) << pk.status().ToString();
  ASSERT_EQ(pk->size(), 2u);
  EXPECT_EQ((*pk)[0].values, (*columns)[3].values);
  EXPECT_EQ((*pk)[1].values, std::vector<uint64_t>{0});
  EXPECT_TRUE(store->Get(dir + "_pk_index/page_lookup.lance").ok());
  // The row file stays beside it, and the table reads back.
  EXPECT_TRUE(DecodeRowFile(**store->Get(dir + "data.lance")).ok());
  EXPECT_TRUE(World::OpenFrom(*store, world.options()).ok());
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace memwal::impl
