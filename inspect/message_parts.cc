// Message pieces shared by the decoders; see message_parts.h.
#include "inspect/message_parts.h"

#include <cstdio>

namespace memwal::inspect {

void NoteUnknown(const std::string& where, const WireField& field,
                 Notes* notes) {
  notes->push_back(Note{where, DescribeUnknown(field)});
}

std::string Indexed(const std::string& where, std::string_view name,
                    size_t index) {
  return where + "." + std::string(name) + "[" + std::to_string(index) + "]";
}

Result<std::string> UuidField(const WireField& outer, const std::string& where,
                              Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(outer, where));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  std::string raw;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(raw, AsString(field, where));
    } else {
      NoteUnknown(where + ".uuid", field, notes);
    }
  }
  return raw;
}

Result<ShardGeneration> ShardGenerationField(const WireField& outer,
                                             const std::string& where,
                                             Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(outer, where));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  ShardGeneration entry;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(entry.first, UuidField(field, where, notes));
    } else if (field.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(entry.second, AsVarint(field, where));
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return entry;
}

uint64_t DataFragment::rows() const {
  const uint64_t deleted = deletion_file ? deletion_file->num_deleted_rows : 0;
  return deleted <= physical_rows ? physical_rows - deleted : 0;
}

std::string UuidText(std::string_view raw) {
  std::string text;
  char buffer[3];
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw.size() == 16 && (i == 4 || i == 6 || i == 8 || i == 10))
      text += '-';
    std::snprintf(buffer, sizeof(buffer), "%02x", static_cast<uint8_t>(raw[i]));
    text += buffer;
  }
  return text;
}

}  // namespace memwal::inspect
