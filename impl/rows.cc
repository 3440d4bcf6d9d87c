// Row files, row id sequences and deletion files; see rows.h.
#include "impl/rows.h"

#include <memory>
#include <string>
#include <utility>

#include "impl/bitmap.h"
#include "impl/blob_cache.h"
#include "impl/lance_export.h"
#include "impl/lance_file.h"
#include "impl/proto/rowids.pb.h"

namespace memwal::impl {
namespace {

constexpr std::string_view kRowFileMagic = "MWROWS01";
constexpr size_t kUuidBytes = 16;
// Our bound on the rows one decoded file or sequence may hold.
constexpr uint64_t kRowsMax = 1u << 20;

void PutU32(uint32_t value, std::string* out) {
  for (int k = 0; k < 4; ++k)
    out->push_back(static_cast<char>(value >> (8 * k)));
}
void PutU64(uint64_t value, std::string* out) {
  for (int k = 0; k < 8; ++k)
    out->push_back(static_cast<char>(value >> (8 * k)));
}
uint64_t GetLe(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int k = 0; k < width; ++k)
    value |= uint64_t{static_cast<unsigned char>(bytes[at + k])} << (8 * k);
  return value;
}

Status Corrupt(const std::string& why) { return Status::Corruption(why); }

// The values of an EncodedU64Array.
Result<std::vector<uint64_t>> DecodeArray(const pb::EncodedU64Array& array) {
  std::vector<uint64_t> out;
  auto offsets = [&](uint64_t base, const std::string& bytes,
                     int width) -> Status {
    if (bytes.size() % width != 0)
      return Corrupt("row id array: ragged offsets");
    if (bytes.size() / width > kRowsMax)
      return Corrupt("row id array: too many ids");
    for (size_t at = 0; at < bytes.size(); at += width)
      out.push_back(base + GetLe(bytes, at, width));
    return Status::Ok();
  };
  switch (array.array_case()) {
    case pb::EncodedU64Array::kU16Array:
      MEMWAL_RETURN_IF_ERROR(
          offsets(array.u16_array().base(), array.u16_array().offsets(), 2));
      break;
    case pb::EncodedU64Array::kU32Array:
      MEMWAL_RETURN_IF_ERROR(
          offsets(array.u32_array().base(), array.u32_array().offsets(), 4));
      break;
    case pb::EncodedU64Array::kU64Array:
      MEMWAL_RETURN_IF_ERROR(offsets(0, array.u64_array().values(), 8));
      break;
    case pb::EncodedU64Array::ARRAY_NOT_SET:
      return Corrupt("row id array: no encoding");
  }
  return out;
}

Status RangeIds(uint64_t start, uint64_t end, const std::set<uint64_t>& holes,
                std::vector<uint64_t>* out) {
  if (end < start || end - start > kRowsMax)
    return Corrupt("row id range: bad bounds");
  for (uint64_t id = start; id < end; ++id) {
    if (holes.count(id) == 0) out->push_back(id);
  }
  return Status::Ok();
}

Result<std::set<uint64_t>> DecodeDeletionBitmap(std::string_view bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const Coverage offsets, DecodeFragmentBitmap(bytes));
  if (!offsets.has_value()) return Corrupt("deletion file is empty");
  return *offsets;
}

}  // namespace

std::string EncodeRowFile(const std::vector<RowKey>& rows) {
  std::string out(kRowFileMagic);
  PutU32(static_cast<uint32_t>(rows.size()), &out);
  for (const RowKey& row : rows) {
    out.push_back(row.memwal() ? 1 : 0);
    if (!row.memwal()) continue;
    MEMWAL_ASSERT(row.shard.size() == kUuidBytes);
    out += row.shard;
    PutU64(row.generation, &out);
  }
  return out;
}

Result<std::vector<RowKey>> DecodeRowFile(std::string_view bytes) {
  if (bytes.substr(0, kRowFileMagic.size()) != kRowFileMagic &&
      bytes.ends_with("LANC")) {
    // A Lance file WriteLanceFiles made keeps the row file it was made from.
    MEMWAL_ASSIGN_OR_RETURN(const auto metadata, LanceFileMetadata(bytes));
    const auto rows = metadata.find(std::string(kRowFileMetadata));
    if (rows == metadata.end() ||
        rows->second.substr(0, kRowFileMagic.size()) != kRowFileMagic)
      return Corrupt("a Lance data file without its row file");
    return DecodeRowFile(rows->second);
  }
  if (bytes.substr(0, kRowFileMagic.size()) != kRowFileMagic ||
      bytes.size() < kRowFileMagic.size() + 4) {
    return Corrupt("not a row file");
  }
  size_t at = kRowFileMagic.size();
  const uint64_t count = GetLe(bytes, at, 4);
  at += 4;
  if (count > kRowsMax) return Corrupt("row file: too many rows");
  std::vector<RowKey> rows;
  for (uint64_t k = 0; k < count; ++k) {
    if (at >= bytes.size()) return Corrupt("row file: truncated");
    const char kind = bytes[at++];
    if (kind == 0) {
      rows.push_back(RowKey{});
      continue;
    }
    if (kind != 1) return Corrupt("row file: unknown row kind");
    if (bytes.size() - at < kUuidBytes + 8)
      return Corrupt("row file: truncated");
    RowKey row{.shard = std::string(bytes.substr(at, kUuidBytes)),
               .generation = GetLe(bytes, at + kUuidBytes, 8)};
    at += kUuidBytes + 8;
    if (row.generation == 0) return Corrupt("row file: generation 0");
    rows.push_back(std::move(row));
  }
  if (at != bytes.size()) return Corrupt("row file: trailing bytes");
  return rows;
}

std::string EncodeRowIdSequence(const std::vector<uint64_t>& ids) {
  pb::RowIdSequence sequence;
  size_t k = 0;
  while (k < ids.size()) {
    size_t end = k + 1;
    while (end < ids.size() && ids[end] == ids[end - 1] + 1) ++end;
    pb::U64Segment::Range* range = sequence.add_segments()->mutable_range();
    range->set_start(ids[k]);
    range->set_end(ids[end - 1] + 1);
    k = end;
  }
  return sequence.SerializeAsString();
}

Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes) {
  pb::RowIdSequence sequence;
  if (!sequence.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Corrupt("row id sequence does not parse");
  std::vector<uint64_t> ids;
  for (const pb::U64Segment& segment : sequence.segments()) {
    switch (segment.segment_case()) {
      case pb::U64Segment::kRange:
        MEMWAL_RETURN_IF_ERROR(
            RangeIds(segment.range().start(), segment.range().end(), {}, &ids));
        break;
      case pb::U64Segment::kRangeWithHoles: {
        MEMWAL_ASSIGN_OR_RETURN(
            const std::vector<uint64_t> holes,
            DecodeArray(segment.range_with_holes().holes()));
        MEMWAL_RETURN_IF_ERROR(
            RangeIds(segment.range_with_holes().start(),
                     segment.range_with_holes().end(),
                     std::set<uint64_t>(holes.begin(), holes.end()), &ids));
        break;
      }
      case pb::U64Segment::kRangeWithBitmap: {
        // Bit k of the bitmap (LSB first) set: start + k is present.
        const auto& r = segment.range_with_bitmap();
        if (r.end() < r.start() || r.end() - r.start() > kRowsMax ||
            r.bitmap().size() * 8 < r.end() - r.start()) {
          return Corrupt("row id bitmap: bad bounds");
        }
        for (uint64_t k = 0; k < r.end() - r.start(); ++k) {
          if ((static_cast<unsigned char>(r.bitmap()[k / 8]) >> (k % 8)) & 1u)
            ids.push_back(r.start() + k);
        }
        break;
      }
      case pb::U64Segment::kSortedArray:
      case pb::U64Segment::kArray: {
        MEMWAL_ASSIGN_OR_RETURN(
            const std::vector<uint64_t> values,
            DecodeArray(segment.segment_case() == pb::U64Segment::kArray
                            ? segment.array()
                            : segment.sorted_array()));
        ids.insert(ids.end(), values.begin(), values.end());
        break;
      }
      case pb::U64Segment::SEGMENT_NOT_SET:
        return Corrupt("row id segment: no encoding");
    }
    if (ids.size() > kRowsMax) return Corrupt("row id sequence: too many ids");
  }
  return ids;
}

std::string DeletionFilePath(uint64_t fragment, const pb::DeletionFile& file) {
  const char* suffix =
      file.file_type() == pb::DeletionFile::BITMAP ? "bin" : "arrow";
  return "_deletions/" + std::to_string(fragment) + "-" +
         std::to_string(file.read_version()) + "-" + std::to_string(file.id()) +
         "." + suffix;
}

std::string RootOf(const std::string& root, const pb::Manifest& manifest,
                   bool has_base, uint32_t base_id) {
  if (!has_base) return root;
  for (const pb::BasePath& base : manifest.base_paths()) {
    if (base.id() == base_id) return base.path();
  }
  return root + "<no base path " + std::to_string(base_id) + ">/";
}

std::string DataFilePath(const std::string& root, const pb::Manifest& manifest,
                         const pb::DataFile& file) {
  constexpr std::string_view kData = "data/";
  std::string path = RootOf(root, manifest, file.has_base_id(), file.base_id());
  path.reserve(path.size() + kData.size() + file.path().size());
  path.append(kData).append(file.path());
  return path;
}

namespace {

// Row id sequences by their bytes: a version's fragments repeat the sequences
// of the versions before, so a sequence decodes once per thread (a decoding is
// a function of the bytes), kept in two generations (impl/blob_cache.h).
Result<std::vector<uint64_t>> DecodeRowIdSequenceOnce(std::string_view bytes) {
  thread_local TwoGenerations<std::string, std::vector<uint64_t>, 20'000> cache;
  thread_local std::string key;  // reused: no allocation per lookup
  key.assign(bytes);
  if (const std::vector<uint64_t>* ids = cache.Find(key)) return *ids;
  MEMWAL_ASSIGN_OR_RETURN(std::vector<uint64_t> ids,
                          DecodeRowIdSequence(bytes));
  return cache.Put(key, std::move(ids));
}

}  // namespace

Result<FragmentRows> ReadFragmentRows(const Store& store,
                                      const std::string& root,
                                      const pb::Manifest& manifest,
                                      const pb::DataFragment& fragment) {
  thread_local BlobCache<std::vector<RowKey>> row_files;
  thread_local BlobCache<std::set<uint64_t>> deletion_files;
  // Named only in an error (this runs for every fragment of every version).
  const auto which = [&] {
    return "fragment " + std::to_string(fragment.id());
  };
  if (fragment.files_size() == 0) return Corrupt(which() + " has no data file");
  FragmentRows out;
  {
    const std::string path = DataFilePath(root, manifest, fragment.files(0));
    Result<Blob> blob = store.Get(path);
    if (!blob.ok())
      return Corrupt(which() + ": data file " + path + ": " +
                     blob.status().message());
    MEMWAL_ASSIGN_OR_RETURN(out.rows, row_files.Get(*blob, DecodeRowFile));
  }
  if (out.rows->size() != fragment.physical_rows()) {
    return Corrupt(which() + ": physical_rows " +
                   std::to_string(fragment.physical_rows()) +
                   " but its data file holds " +
                   std::to_string(out.rows->size()) + " rows");
  }
  if (fragment.has_external_row_ids())
    return Status::FailedPrecondition(which() +
                                      ": external row id files are not read");
  if (fragment.has_inline_row_ids()) {
    MEMWAL_ASSIGN_OR_RETURN(out.row_ids,
                            DecodeRowIdSequenceOnce(fragment.inline_row_ids()));
    if (out.row_ids.size() != out.rows->size()) {
      return Corrupt(which() + ": its row id sequence has " +
                     std::to_string(out.row_ids.size()) + " ids for " +
                     std::to_string(out.rows->size()) + " rows");
    }
  }
  if (fragment.has_deletion_file()) {
    const pb::DeletionFile& file = fragment.deletion_file();
    if (file.file_type() != pb::DeletionFile::BITMAP)
      return Status::FailedPrecondition(which() +
                                        ": arrow deletion files are not read");
    const std::string path =
        RootOf(root, manifest, file.has_base_id(), file.base_id()) +
        DeletionFilePath(fragment.id(), file);
    Result<Blob> blob = store.Get(path);
    if (!blob.ok())
      return Corrupt(which() + ": deletion file " + path + ": " +
                     blob.status().message());
    MEMWAL_ASSIGN_OR_RETURN(
        const std::shared_ptr<const std::set<uint64_t>> offsets,
        deletion_files.Get(*blob, DecodeDeletionBitmap));
    out.deleted = *offsets;
    if (out.deleted.size() != file.num_deleted_rows())
      return Corrupt(which() + ": num_deleted_rows disagrees with its file");
    if (!out.deleted.empty() && *out.deleted.rbegin() >= out.rows->size())
      return Corrupt(which() + ": a deleted offset past its rows");
  }
  return out;
}

Result<pb::DataFragment> WriteDataFragment(
    Store* table, const std::string& uuid_hex, uint32_t fields,
    const std::vector<RowKey>& rows, const std::vector<uint64_t>& row_ids) {
  MEMWAL_ASSERT(row_ids.empty() || row_ids.size() == rows.size());
  pb::DataFragment fragment;
  pb::DataFile* file = fragment.add_files();
  file->set_path(uuid_hex + ".lance");
  // The index fields, then the row's identity (lance_export.h).
  for (uint32_t field = 0; field < fields + kIdentityColumns; ++field) {
    file->add_fields(static_cast<int32_t>(field));
    file->add_column_indices(static_cast<int32_t>(field));
  }
  // Lance 2.1 files, as every fragment of the table.
  file->set_file_major_version(2);
  file->set_file_minor_version(1);
  fragment.set_physical_rows(rows.size());
  if (!row_ids.empty())
    fragment.set_inline_row_ids(EncodeRowIdSequence(row_ids));
  MEMWAL_RETURN_IF_ERROR(
      table->PutIfAbsent("data/" + file->path(), EncodeRowFile(rows)));
  return fragment;
}

}  // namespace memwal::impl
