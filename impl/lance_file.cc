// Lance 2.1 files of fixed-width integer columns; see lance_file.h.
#include "impl/lance_file.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <string>
#include <utility>

#include "base/assert.h"
#include "impl/proto/encodings21.pb.h"
#include "impl/proto/file2.pb.h"

namespace memwal::impl {
namespace {

namespace v2 = lance::file::v2;
namespace enc = lance::encodings21;

constexpr std::string_view kMagic = "LANC";
constexpr size_t kFooterBytes = 40;
constexpr size_t kPageAlignment = 64;
constexpr size_t kChunkAlignment = 8;
// Values per full chunk: a power of two, so that a chunk of 64-bit values
// stays far below the 32 KiB a chunk may hold.
constexpr int kLogChunkValues = 10;
constexpr uint64_t kChunkValues = uint64_t{1} << kLogChunkValues;
// The bytes Lance pads with (the value does not matter to a reader).
constexpr char kFill = static_cast<char>(0xfe);
constexpr std::string_view kPageLayoutUrl = "/lance.encodings21.PageLayout";
constexpr std::string_view kColumnEncodingUrl =
    "/lance.encodings.ColumnEncoding";
// lance.encodings.ColumnEncoding { values: google.protobuf.Empty {} }: field
// 1, length 0.
constexpr std::string_view kPlainColumnEncoding{"\x0a\x00", 2};

void PutLe(uint64_t value, int bytes, std::string* out) {
  for (int k = 0; k < bytes; ++k)
    out->push_back(static_cast<char>(value >> (8 * k)));
}
uint64_t GetLe(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int k = 0; k < width; ++k)
    value |= uint64_t{static_cast<unsigned char>(bytes[at + k])} << (8 * k);
  return value;
}
void Pad(size_t alignment, char fill, std::string* out) {
  while (out->size() % alignment != 0) out->push_back(fill);
}

std::string DirectAny(std::string_view url, std::string value) {
  google::protobuf::Any any;
  any.set_type_url(std::string(url));
  any.set_value(std::move(value));
  return any.SerializeAsString();
}

// Appends column `column`'s page buffers to `out` and returns its metadata.
v2::ColumnMetadata WritePage(const LanceColumn& column, std::string* out) {
  const int bits = BitsOf(column.logical_type);
  MEMWAL_ASSERT(bits != 0);
  const int width = bits / 8;
  v2::ColumnMetadata metadata;
  metadata.mutable_encoding()->mutable_direct()->set_encoding(
      DirectAny(kColumnEncodingUrl, std::string(kPlainColumnEncoding)));
  const uint64_t count = column.values.size();
  if (count == 0) return metadata;
  std::string chunks;
  std::string lookup;
  for (uint64_t start = 0; start < count; start += kChunkValues) {
    const uint64_t end = std::min(count, start + kChunkValues);
    const size_t begin = chunks.size();
    PutLe(0, 2, &chunks);  // no repetition or definition levels
    PutLe((end - start) * width, 2, &chunks);
    Pad(kChunkAlignment, kFill, &chunks);
    for (uint64_t k = start; k < end; ++k)
      PutLe(column.values[k], width, &chunks);
    Pad(kChunkAlignment, kFill, &chunks);
    const uint64_t words = (chunks.size() - begin) / kChunkAlignment;
    const uint64_t log_values = end == count ? 0 : kLogChunkValues;
    PutLe(((words - 1) << 4) | log_values, 2, &lookup);
  }
  v2::ColumnMetadata::Page* page = metadata.add_pages();
  Pad(kPageAlignment, kFill, out);
  page->add_buffer_offsets(out->size());
  page->add_buffer_sizes(lookup.size());
  out->append(lookup);
  Pad(kPageAlignment, kFill, out);
  page->add_buffer_offsets(out->size());
  page->add_buffer_sizes(chunks.size());
  out->append(chunks);
  page->set_length(count);
  enc::PageLayout layout;
  enc::MiniBlockLayout* mini = layout.mutable_mini_block_layout();
  mini->mutable_value_compression()->mutable_flat()->set_bits_per_value(bits);
  mini->add_layers(enc::REPDEF_ALL_VALID_ITEM);
  mini->set_num_buffers(1);
  mini->set_num_items(count);
  page->mutable_encoding()->mutable_direct()->set_encoding(
      DirectAny(kPageLayoutUrl, layout.SerializeAsString()));
  return metadata;
}

Status Corrupt(const std::string& why) {
  return Status::Corruption("lance file: " + why);
}

// The values of a page WritePage wrote.
Status ReadPage(std::string_view bytes, const v2::ColumnMetadata::Page& page,
                int width, std::vector<uint64_t>* values) {
  if (page.buffer_offsets_size() != 2 || page.buffer_sizes_size() != 2)
    return Corrupt("a page without two buffers");
  for (int b = 0; b < 2; ++b) {
    if (page.buffer_offsets(b) > bytes.size() ||
        page.buffer_sizes(b) > bytes.size() - page.buffer_offsets(b))
      return Corrupt("a page buffer past the end");
  }
  const std::string_view lookup =
      bytes.substr(page.buffer_offsets(0), page.buffer_sizes(0));
  const std::string_view chunks =
      bytes.substr(page.buffer_offsets(1), page.buffer_sizes(1));
  size_t at = 0;
  for (size_t c = 0; c + 2 <= lookup.size(); c += 2) {
    const uint64_t word = GetLe(lookup, c, 2);
    const size_t size = ((word >> 4) + 1) * kChunkAlignment;
    if (at + size > chunks.size() || size < kChunkAlignment)
      return Corrupt("a chunk past its buffer");
    const uint64_t value_bytes = GetLe(chunks, at + 2, 2);
    if (GetLe(chunks, at, 2) != 0 || value_bytes % width != 0 ||
        value_bytes + kChunkAlignment > size)
      return Corrupt("a chunk header this writer does not write");
    for (uint64_t k = 0; k < value_bytes; k += width)
      values->push_back(GetLe(chunks, at + kChunkAlignment + k, width));
    at += size;
  }
  if (values->size() != page.length()) return Corrupt("page length disagrees");
  return Status::Ok();
}

}  // namespace

int BitsOf(std::string_view logical_type) {
  if (logical_type == "int64" || logical_type == "uint64") return 64;
  if (logical_type == "uint32") return 32;
  return 0;
}

std::string EncodeLanceFile(
    const std::vector<LanceColumn>& columns,
    const std::map<std::string, std::string>& metadata) {
  std::string out;
  std::vector<v2::ColumnMetadata> pages;
  v2::FileDescriptor descriptor;
  for (const LanceColumn& column : columns) {
    MEMWAL_ASSERT(column.values.size() == columns.front().values.size());
    pages.push_back(WritePage(column, &out));
    v2::Field* field = descriptor.mutable_schema()->add_fields();
    field->set_name(column.name);
    field->set_id(column.id);
    field->set_parent_id(-1);
    field->set_logical_type(column.logical_type);
    field->set_nullable(column.nullable);
  }
  for (const auto& [key, value] : metadata)
    (*descriptor.mutable_schema()->mutable_metadata())[key] = value;
  descriptor.set_length(columns.empty() ? 0 : columns.front().values.size());
  Pad(kPageAlignment, kFill, &out);
  const uint64_t global_at = out.size();
  out.append(descriptor.SerializeAsString());
  const uint64_t global_size = out.size() - global_at;
  const uint64_t columns_at = out.size();
  std::vector<std::pair<uint64_t, uint64_t>> column_table;
  for (const v2::ColumnMetadata& column : pages) {
    const uint64_t at = out.size();
    out.append(column.SerializeAsString());
    column_table.emplace_back(at, out.size() - at);
  }
  const uint64_t column_table_at = out.size();
  for (const auto& [at, size] : column_table) {
    PutLe(at, 8, &out);
    PutLe(size, 8, &out);
  }
  const uint64_t global_table_at = out.size();
  PutLe(global_at, 8, &out);
  PutLe(global_size, 8, &out);
  PutLe(columns_at, 8, &out);
  PutLe(column_table_at, 8, &out);
  PutLe(global_table_at, 8, &out);
  PutLe(1, 4, &out);
  PutLe(columns.size(), 4, &out);
  PutLe(2, 2, &out);
  PutLe(1, 2, &out);
  out.append(kMagic);
  return out;
}

namespace {

Result<v2::FileDescriptor> Descriptor(std::string_view bytes) {
  if (bytes.size() < kFooterBytes || bytes.substr(bytes.size() - 4) != kMagic)
    return Corrupt("no footer");
  const size_t footer = bytes.size() - kFooterBytes;
  const uint64_t table = GetLe(bytes, footer + 16, 8);
  if (GetLe(bytes, footer + 24, 4) < 1 || table > footer || footer - table < 16)
    return Corrupt("no global buffer");
  const uint64_t at = GetLe(bytes, table, 8);
  const uint64_t size = GetLe(bytes, table + 8, 8);
  if (at > bytes.size() || size > bytes.size() - at)
    return Corrupt("global buffer 0 past the end");
  v2::FileDescriptor descriptor;
  if (!descriptor.ParseFromArray(bytes.data() + at, static_cast<int>(size)))
    return Corrupt("global buffer 0 does not parse");
  return descriptor;
}

}  // namespace

Result<std::map<std::string, std::string>> LanceFileMetadata(
    std::string_view bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const v2::FileDescriptor descriptor,
                          Descriptor(bytes));
  return std::map<std::string, std::string>(
      descriptor.schema().metadata().begin(),
      descriptor.schema().metadata().end());
}

Result<std::vector<LanceColumn>> DecodeLanceFile(std::string_view bytes) {
  if (bytes.size() < kFooterBytes || bytes.substr(bytes.size() - 4) != kMagic)
    return Corrupt("no footer");
  const size_t footer = bytes.size() - kFooterBytes;
  const uint64_t column_table_at = GetLe(bytes, footer + 8, 8);
  const uint64_t global_table_at = GetLe(bytes, footer + 16, 8);
  const uint64_t globals = GetLe(bytes, footer + 24, 4);
  const uint64_t count = GetLe(bytes, footer + 28, 4);
  if (GetLe(bytes, footer + 32, 2) != 2 || GetLe(bytes, footer + 34, 2) != 1)
    return Corrupt("not version 2.1");
  if (globals < 1 || global_table_at + 16 * globals > footer ||
      column_table_at + 16 * count > global_table_at)
    return Corrupt("offset tables past the footer");
  auto slice = [&](uint64_t table, uint64_t k) -> Result<std::string_view> {
    const uint64_t at = GetLe(bytes, table + 16 * k, 8);
    const uint64_t size = GetLe(bytes, table + 16 * k + 8, 8);
    if (at > bytes.size() || size > bytes.size() - at)
      return Corrupt("a table entry past the end");
    return bytes.substr(at, size);
  };
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view global,
                          slice(global_table_at, 0));
  v2::FileDescriptor descriptor;
  if (!descriptor.ParseFromArray(global.data(),
                                 static_cast<int>(global.size())) ||
      static_cast<uint64_t>(descriptor.schema().fields_size()) != count)
    return Corrupt("its schema does not name its columns");
  std::vector<LanceColumn> columns;
  for (uint64_t c = 0; c < count; ++c) {
    const v2::Field& field = descriptor.schema().fields(c);
    LanceColumn column{.name = field.name(),
                       .id = field.id(),
                       .logical_type = field.logical_type(),
                       .nullable = field.nullable(),
                       .values = {}};
    const int bits = BitsOf(column.logical_type);
    if (bits == 0) return Corrupt("a type this writer does not write");
    MEMWAL_ASSIGN_OR_RETURN(const std::string_view text,
                            slice(column_table_at, c));
    v2::ColumnMetadata metadata;
    if (!metadata.ParseFromArray(text.data(), static_cast<int>(text.size())))
      return Corrupt("column metadata does not parse");
    for (const v2::ColumnMetadata::Page& page : metadata.pages())
      MEMWAL_RETURN_IF_ERROR(ReadPage(bytes, page, bits / 8, &column.values));
    if (column.values.size() != descriptor.length())
      return Corrupt("a column's length disagrees with the file's");
    columns.push_back(std::move(column));
  }
  return columns;
}

}  // namespace memwal::impl
