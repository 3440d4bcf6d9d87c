// Manifest file framing and file names; see manifest_file.h.
#include "inspect/manifest_file.h"

#include <limits>

namespace memwal::inspect {
namespace {

uint64_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  MEMWAL_ASSERT(offset + width <= bytes.size());
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[offset + i]))
             << (8 * i);
  }
  return value;
}

Status Corrupt(const std::string& where, const std::string& what) {
  return Status::Corruption(where + ": " + what);
}

// The bytes of the length-prefixed block whose u32 prefix is at `offset`; the
// block must end at or before `limit`.
Result<std::string_view> Block(std::string_view bytes, uint64_t offset,
                               uint64_t limit, const std::string& where,
                               std::string_view name) {
  MEMWAL_ASSERT(limit <= bytes.size());
  if (offset > limit || limit - offset < 4) {
    return Corrupt(where, std::string(name) + " offset " +
                              std::to_string(offset) +
                              " leaves no room for its length (limit " +
                              std::to_string(limit) + ")");
  }
  const uint64_t length = ReadLittleEndian(bytes, offset, 4);
  if (length > limit - offset - 4) {
    return Corrupt(where, std::string(name) + " length " +
                              std::to_string(length) + " at offset " +
                              std::to_string(offset) + " runs past byte " +
                              std::to_string(limit));
  }
  return bytes.substr(offset + 4, length);
}

// Checks the footer; returns the Manifest block's offset.
Result<uint64_t> ReadFooter(std::string_view bytes, const std::string& where,
                            Notes* notes) {
  if (bytes.size() < kFooterBytes + 4) {
    return Corrupt(
        where, "file is " + std::to_string(bytes.size()) +
                   " bytes, too short for a manifest and its 16-byte footer");
  }
  const size_t footer = bytes.size() - kFooterBytes;
  const std::string_view magic = bytes.substr(bytes.size() - 4);
  if (magic != "LANC") {
    return Corrupt(
        where,
        "footer magic is not \"LANC\" (last 4 bytes are not the Lance magic)");
  }
  const uint64_t major = ReadLittleEndian(bytes, footer + 8, 2);
  const uint64_t minor = ReadLittleEndian(bytes, footer + 10, 2);
  if (major != 0 || minor != 2) {
    notes->push_back(Note{
        where, "footer format number " + std::to_string(major) + "." +
                   std::to_string(minor) + " (0.2 expected); read as 0.2"});
  }
  return ReadLittleEndian(bytes, footer, 8);
}

}  // namespace

Result<ManifestFile> DecodeManifestFile(std::string_view bytes,
                                        const std::string& where,
                                        Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const uint64_t position,
                          ReadFooter(bytes, where, notes));
  const uint64_t footer = bytes.size() - kFooterBytes;
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view message,
                          Block(bytes, position, footer, where, "Manifest"));
  ManifestFile file;
  file.size_bytes = bytes.size();
  if (position + 4 + message.size() != footer) {
    notes->push_back(
        Note{where, std::to_string(footer - position - 4 - message.size()) +
                        " bytes between the Manifest and the footer"});
  }
  MEMWAL_ASSIGN_OR_RETURN(file.manifest, DecodeManifest(message, where, notes));
  if (file.manifest.index_section.has_value()) {
    MEMWAL_ASSIGN_OR_RETURN(const std::string_view section,
                            Block(bytes, *file.manifest.index_section, position,
                                  where, "IndexSection"));
    MEMWAL_ASSIGN_OR_RETURN(file.indices,
                            DecodeIndexSection(section, where, notes));
  }
  if (file.manifest.transaction_section.has_value()) {
    MEMWAL_ASSIGN_OR_RETURN(const std::string_view block,
                            Block(bytes, *file.manifest.transaction_section,
                                  position, where, "Transaction"));
    MEMWAL_ASSIGN_OR_RETURN(file.transaction,
                            DecodeTransaction(block, where, notes));
  }
  return file;
}

namespace {

// At most 20 decimal digits that fit in a u64.
std::optional<uint64_t> ParseDecimal(std::string_view digits) {
  if (digits.empty() || digits.size() > 20) return std::nullopt;
  unsigned __int128 number = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + static_cast<unsigned>(c - '0');
  }
  if (number > std::numeric_limits<uint64_t>::max()) return std::nullopt;
  return static_cast<uint64_t>(number);
}

}  // namespace

std::optional<uint64_t> VersionOfFileName(std::string_view name) {
  constexpr std::string_view kSuffix = ".manifest";
  if (!name.ends_with(kSuffix)) return std::nullopt;
  const std::optional<uint64_t> value =
      ParseDecimal(name.substr(0, name.size() - kSuffix.size()));
  if (!value.has_value()) return std::nullopt;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  return *value > (kMax >> 1) ? kMax - *value : *value;
}

std::optional<uint64_t> ShardVersionOfFileName(std::string_view name,
                                               bool* decimal) {
  constexpr std::string_view kSuffix = ".binpb";
  if (!name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view stem = name.substr(0, name.size() - kSuffix.size());
  if (decimal != nullptr) *decimal = stem.size() == 20;
  if (stem.size() == 20) {
    const std::optional<uint64_t> reversed = ParseDecimal(stem);
    if (!reversed.has_value()) return std::nullopt;
    uint64_t value = 0;
    for (int bit = 0; bit < 64; ++bit)
      value |= ((*reversed >> bit) & 1) << (63 - bit);
    return value;
  }
  if (stem.size() != 64) return std::nullopt;
  uint64_t value = 0;
  for (size_t bit = 0; bit < 64; ++bit) {
    if (stem[bit] == '1') {
      value |= uint64_t{1} << bit;
    } else if (stem[bit] != '0') {
      return std::nullopt;
    }
  }
  return value;
}

}  // namespace memwal::inspect
