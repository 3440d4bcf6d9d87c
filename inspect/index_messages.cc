// Decoders of the index section (IndexSection, IndexMetadata, the Any holding
// index details) and operation names; see lance_messages.h. Field numbers:
// docs/lance-facts.md section 1.4 and docs/lance-file-layout.md
// section 1.4.
#include "inspect/lance_messages.h"
#include "inspect/message_parts.h"
#include "inspect/wire.h"

namespace memwal::inspect {
namespace {

Result<AnyMessage> DecodeAny(std::string_view bytes, const std::string& where,
                             Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  AnyMessage out;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(out.type_url, AsString(field, where));
    } else if (field.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(out.value, AsString(field, where));
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return out;
}

Status DecodeIndexField(const WireField& field, const std::string& where,
                        Notes* notes, IndexMetadata* out) {
  switch (field.number) {
    case 1: {
      MEMWAL_ASSIGN_OR_RETURN(out->uuid, UuidField(field, where, notes));
      return Status::Ok();
    }
    case 2:
      return AppendInts(field, where, &out->fields);
    case 3: {
      MEMWAL_ASSIGN_OR_RETURN(out->name, AsString(field, where));
      return Status::Ok();
    }
    case 4: {
      MEMWAL_ASSIGN_OR_RETURN(out->dataset_version, AsVarint(field, where));
      return Status::Ok();
    }
    case 5: {
      MEMWAL_ASSIGN_OR_RETURN(out->fragment_bitmap, AsString(field, where));
      return Status::Ok();
    }
    case 6: {
      MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes,
                              AsBytes(field, where));
      MEMWAL_ASSIGN_OR_RETURN(
          out->index_details,
          DecodeAny(bytes, where + ".index_details", notes));
      return Status::Ok();
    }
    case 7: {
      MEMWAL_ASSIGN_OR_RETURN(const uint64_t version, AsVarint(field, where));
      out->index_version = static_cast<int32_t>(version);
      return Status::Ok();
    }
    case 8: {
      MEMWAL_ASSIGN_OR_RETURN(out->created_at_ms, AsVarint(field, where));
      return Status::Ok();
    }
    case 10:
      ++out->file_count;
      return AsBytes(field, where).status();
    case 9:
    case 11:
      return Status::Ok();  // Base id, covering fields.
    default:
      NoteUnknown(where, field, notes);
      return Status::Ok();
  }
}

}  // namespace

Result<std::vector<IndexMetadata>> DecodeIndexSection(std::string_view bytes,
                                                      const std::string& where,
                                                      Notes* notes) {
  const std::string what = where + ": IndexSection";
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, what));
  std::vector<IndexMetadata> indices;
  for (const WireField& field : fields) {
    if (field.number != 1) {
      NoteUnknown(what, field, notes);
      continue;
    }
    const std::string item = Indexed(what, "indices", indices.size());
    MEMWAL_ASSIGN_OR_RETURN(const std::string_view message,
                            AsBytes(field, item));
    MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> parts,
                            SplitMessage(message, item));
    IndexMetadata index;
    for (const WireField& part : parts) {
      MEMWAL_RETURN_IF_ERROR(DecodeIndexField(part, item, notes, &index));
    }
    indices.push_back(std::move(index));
  }
  return indices;
}

std::string OperationName(uint32_t operation) {
  static constexpr std::string_view kNames[] = {"Append",
                                                "Delete",
                                                "Overwrite",
                                                "CreateIndex",
                                                "Rewrite",
                                                "Merge",
                                                "Restore",
                                                "ReserveFragments",
                                                "Update",
                                                "Project",
                                                "UpdateConfig",
                                                "DataReplacement",
                                                "UpdateMemWalState",
                                                "Clone",
                                                "UpdateBases",
                                                "DataOverlay",
                                                "AppendFriTransitions"};
  constexpr size_t kCount = sizeof(kNames) / sizeof(kNames[0]);
  if (operation >= 100 && operation < 100 + kCount)
    return std::string(kNames[operation - 100]);
  return "operation " + std::to_string(operation);
}

}  // namespace memwal::inspect
