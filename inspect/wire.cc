// Protobuf wire-format splitting; see wire.h.
#include "inspect/wire.h"

namespace memwal::inspect {
namespace {

// Reads one varint at `*pos`; false if it runs past the end or past 10 bytes.
bool ReadVarint(std::string_view bytes, size_t* pos, uint64_t* out) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= bytes.size()) return false;
    const auto byte = static_cast<uint8_t>(bytes[*pos]);
    ++*pos;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *out = result;
      return true;
    }
  }
  return false;
}

uint64_t ReadFixed(std::string_view bytes, size_t pos, size_t width) {
  MEMWAL_ASSERT(pos + width <= bytes.size());
  uint64_t result = 0;
  for (size_t i = 0; i < width; ++i) {
    result |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[pos + i]))
              << (8 * i);
  }
  return result;
}

Status Truncated(std::string_view what, size_t offset) {
  return Status::Corruption(std::string(what) +
                            ": protobuf truncated at byte " +
                            std::to_string(offset));
}

// Reads the payload of `field` (whose key has been read) at `*pos`.
Status ReadPayload(std::string_view bytes, std::string_view what, size_t* pos,
                   WireField* field) {
  const size_t start = *pos;
  switch (field->type) {
    case WireType::kVarint:
      if (!ReadVarint(bytes, pos, &field->value)) return Truncated(what, start);
      return Status::Ok();
    case WireType::kFixed64:
    case WireType::kFixed32: {
      const size_t width = field->type == WireType::kFixed64 ? 8 : 4;
      if (bytes.size() - *pos < width) return Truncated(what, start);
      field->value = ReadFixed(bytes, *pos, width);
      *pos += width;
      return Status::Ok();
    }
    case WireType::kLen: {
      uint64_t length = 0;
      if (!ReadVarint(bytes, pos, &length)) return Truncated(what, start);
      if (length > bytes.size() - *pos) {
        return Status::Corruption(
            std::string(what) + ": field " + std::to_string(field->number) +
            " claims " + std::to_string(length) + " bytes, " +
            std::to_string(bytes.size() - *pos) + " remain");
      }
      field->bytes = bytes.substr(*pos, length);
      *pos += length;
      return Status::Ok();
    }
  }
  MEMWAL_ASSERT(false);
  return Status::Ok();
}

}  // namespace

Result<std::vector<WireField>> SplitMessage(std::string_view bytes,
                                            std::string_view what) {
  std::vector<WireField> fields;
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t key_at = pos;
    uint64_t key = 0;
    if (!ReadVarint(bytes, &pos, &key)) return Truncated(what, key_at);
    const uint64_t number = key >> 3;
    const uint64_t type = key & 7;
    if (number == 0 || number > 0x1fffffff) {
      return Status::Corruption(std::string(what) + ": invalid field number " +
                                std::to_string(number) + " at byte " +
                                std::to_string(key_at));
    }
    if (type != 0 && type != 1 && type != 2 && type != 5) {
      return Status::Corruption(std::string(what) + ": unsupported wire type " +
                                std::to_string(type) + " at byte " +
                                std::to_string(key_at));
    }
    WireField field;
    field.number = static_cast<uint32_t>(number);
    field.type = static_cast<WireType>(type);
    MEMWAL_RETURN_IF_ERROR(ReadPayload(bytes, what, &pos, &field));
    fields.push_back(field);
  }
  MEMWAL_ASSERT(pos == bytes.size());
  return fields;
}

std::string_view WireTypeName(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLen:
      return "length-delimited";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "?";
}

namespace {

Status WrongType(const WireField& field, std::string_view what,
                 std::string_view expected) {
  return Status::Corruption(std::string(what) + ": field " +
                            std::to_string(field.number) + " is " +
                            std::string(WireTypeName(field.type)) +
                            ", expected " + std::string(expected));
}

}  // namespace

Result<uint64_t> AsVarint(const WireField& field, std::string_view what) {
  if (field.type != WireType::kVarint) return WrongType(field, what, "varint");
  return field.value;
}

Result<std::string_view> AsBytes(const WireField& field,
                                 std::string_view what) {
  if (field.type != WireType::kLen)
    return WrongType(field, what, "length-delimited");
  return field.bytes;
}

Status AppendInts(const WireField& field, std::string_view what,
                  std::vector<int64_t>* out) {
  if (field.type == WireType::kVarint) {
    out->push_back(static_cast<int64_t>(field.value));
    return Status::Ok();
  }
  if (field.type != WireType::kLen)
    return WrongType(field, what, "varint or packed");
  size_t pos = 0;
  while (pos < field.bytes.size()) {
    uint64_t value = 0;
    if (!ReadVarint(field.bytes, &pos, &value)) return Truncated(what, pos);
    out->push_back(static_cast<int64_t>(value));
  }
  return Status::Ok();
}

Result<std::string> AsString(const WireField& field, std::string_view what) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(field, what));
  return std::string(bytes);
}

Status AddMapEntry(const WireField& field, std::string_view what,
                   std::map<std::string, std::string>* out) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(field, what));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> parts,
                          SplitMessage(bytes, what));
  std::string key;
  std::string value;
  for (const WireField& part : parts) {
    if (part.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(key, AsString(part, what));
    } else if (part.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(value, AsString(part, what));
    }
  }
  (*out)[key] = value;
  return Status::Ok();
}

std::string DescribeUnknown(const WireField& field) {
  std::string text = "field " + std::to_string(field.number) + " (" +
                     std::string(WireTypeName(field.type));
  if (field.type == WireType::kLen) {
    text += ", " + std::to_string(field.bytes.size()) + " bytes";
  } else {
    text += ", value " + std::to_string(field.value);
  }
  return text + ") not understood";
}

}  // namespace memwal::inspect
