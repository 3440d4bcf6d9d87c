// Decoders of Lance's table-format messages; see lance_messages.h. Field
// numbers are those of docs/lance-facts.md section 1 and
// docs/lance-file-layout.md; a field listed there that inspect does not report
// is skipped silently, any other becomes a Note.
#include "inspect/lance_messages.h"

#include <cstdio>

#include "inspect/message_parts.h"
#include "inspect/wire.h"

namespace memwal::inspect {
namespace {

Result<SchemaField> DecodeSchemaField(std::string_view bytes,
                                      const std::string& where, Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  SchemaField out;
  for (const WireField& field : fields) {
    switch (field.number) {
      case 2: {
        MEMWAL_ASSIGN_OR_RETURN(out.name, AsString(field, where));
        break;
      }
      case 3: {
        MEMWAL_ASSIGN_OR_RETURN(const uint64_t id, AsVarint(field, where));
        out.id = static_cast<int32_t>(id);
        break;
      }
      case 4: {
        MEMWAL_ASSIGN_OR_RETURN(const uint64_t parent, AsVarint(field, where));
        out.parent_id = static_cast<int32_t>(parent);
        break;
      }
      case 5: {
        MEMWAL_ASSIGN_OR_RETURN(out.logical_type, AsString(field, where));
        break;
      }
      case 6: {
        MEMWAL_ASSIGN_OR_RETURN(const uint64_t nullable,
                                AsVarint(field, where));
        out.nullable = nullable != 0;
        break;
      }
      case 10:
        MEMWAL_RETURN_IF_ERROR(AddMapEntry(field, where, &out.metadata));
        break;
      case 1:
      case 7:
      case 8:
      case 9:
      case 11:
      case 12:
      case 13:
        break;  // Type, encoding, dictionary, extension, storage and
                // primary-key details.
      default:
        NoteUnknown(where, field, notes);
    }
  }
  return out;
}

Result<DataFile> DecodeDataFile(std::string_view bytes,
                                const std::string& where, Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  DataFile out;
  for (const WireField& field : fields) {
    switch (field.number) {
      case 1: {
        MEMWAL_ASSIGN_OR_RETURN(out.path, AsString(field, where));
        break;
      }
      case 2:
        MEMWAL_RETURN_IF_ERROR(AppendInts(field, where, &out.fields));
        break;
      case 4: {
        MEMWAL_ASSIGN_OR_RETURN(out.file_major_version, AsVarint(field, where));
        break;
      }
      case 5: {
        MEMWAL_ASSIGN_OR_RETURN(out.file_minor_version, AsVarint(field, where));
        break;
      }
      case 6: {
        MEMWAL_ASSIGN_OR_RETURN(out.file_size_bytes, AsVarint(field, where));
        break;
      }
      case 3:
      case 7:
        break;  // Column indices, base id.
      default:
        NoteUnknown(where, field, notes);
    }
  }
  return out;
}

Result<DeletionFile> DecodeDeletionFile(std::string_view bytes,
                                        const std::string& where,
                                        Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  DeletionFile out;
  for (const WireField& field : fields) {
    uint64_t* target = nullptr;
    switch (field.number) {
      case 1:
        target = &out.file_type;
        break;
      case 2:
        target = &out.read_version;
        break;
      case 3:
        target = &out.id;
        break;
      case 4:
        target = &out.num_deleted_rows;
        break;
      case 7:
        break;  // Base id.
      default:
        NoteUnknown(where, field, notes);
    }
    if (target != nullptr) {
      MEMWAL_ASSIGN_OR_RETURN(*target, AsVarint(field, where));
    }
  }
  return out;
}

Status DecodeFragmentField(const WireField& field, const std::string& where,
                           Notes* notes, DataFragment* out) {
  switch (field.number) {
    case 1: {
      MEMWAL_ASSIGN_OR_RETURN(out->id, AsVarint(field, where));
      return Status::Ok();
    }
    case 2: {
      MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes,
                              AsBytes(field, where));
      MEMWAL_ASSIGN_OR_RETURN(
          DataFile file,
          DecodeDataFile(bytes, Indexed(where, "files", out->files.size()),
                         notes));
      out->files.push_back(std::move(file));
      return Status::Ok();
    }
    case 3: {
      MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes,
                              AsBytes(field, where));
      MEMWAL_ASSIGN_OR_RETURN(
          out->deletion_file,
          DecodeDeletionFile(bytes, where + ".deletion_file", notes));
      return Status::Ok();
    }
    case 4: {
      MEMWAL_ASSIGN_OR_RETURN(out->physical_rows, AsVarint(field, where));
      return Status::Ok();
    }
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11:
      return Status::Ok();  // Row ids, last-updated and created-at versions,
                            // overlays.
    default:
      NoteUnknown(where, field, notes);
      return Status::Ok();
  }
}

Result<DataFragment> DecodeFragment(std::string_view bytes,
                                    const std::string& where, Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  DataFragment out;
  for (const WireField& field : fields) {
    MEMWAL_RETURN_IF_ERROR(DecodeFragmentField(field, where, notes, &out));
  }
  return out;
}

// A two-string message: WriterVersion {library, version, prerelease, build} or
// DataStorageFormat {file_format, version}; returns the non-empty parts.
Result<std::vector<std::string>> DecodeStrings(std::string_view bytes,
                                               const std::string& where,
                                               Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  std::vector<std::string> parts(4);
  for (const WireField& field : fields) {
    if (field.number >= 1 && field.number <= 4) {
      MEMWAL_ASSIGN_OR_RETURN(parts[field.number - 1], AsString(field, where));
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return parts;
}

Status DecodeTimestamp(std::string_view bytes, const std::string& where,
                       Notes* notes, Manifest* out) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  out->timestamp_seconds = 0;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(const uint64_t seconds, AsVarint(field, where));
      out->timestamp_seconds = static_cast<int64_t>(seconds);
    } else if (field.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(const uint64_t nanos, AsVarint(field, where));
      out->timestamp_nanos = static_cast<int32_t>(nanos);
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return Status::Ok();
}

Status DecodeWriterVersion(std::string_view bytes, const std::string& where,
                           Notes* notes, Manifest* out) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<std::string> parts,
                          DecodeStrings(bytes, where, notes));
  out->writer_library = parts[0];
  out->writer_version = parts[1];
  if (!parts[2].empty()) out->writer_version += "-" + parts[2];
  return Status::Ok();
}

Status DecodeManifestMessageField(const WireField& field,
                                  const std::string& where, Notes* notes,
                                  Manifest* out) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(field, where));
  switch (field.number) {
    case 1: {
      MEMWAL_ASSIGN_OR_RETURN(
          SchemaField column,
          DecodeSchemaField(bytes, Indexed(where, "fields", out->fields.size()),
                            notes));
      out->fields.push_back(std::move(column));
      return Status::Ok();
    }
    case 2: {
      MEMWAL_ASSIGN_OR_RETURN(
          DataFragment fragment,
          DecodeFragment(bytes,
                         Indexed(where, "fragments", out->fragments.size()),
                         notes));
      out->fragments.push_back(std::move(fragment));
      return Status::Ok();
    }
    case 7:
      return DecodeTimestamp(bytes, where + ".timestamp", notes, out);
    case 8: {
      out->tag = std::string(bytes);
      return Status::Ok();
    }
    case 12: {
      out->transaction_file = std::string(bytes);
      return Status::Ok();
    }
    case 13:
      return DecodeWriterVersion(bytes, where + ".writer_version", notes, out);
    case 15: {
      MEMWAL_ASSIGN_OR_RETURN(
          const std::vector<std::string> parts,
          DecodeStrings(bytes, where + ".data_format", notes));
      out->data_format = parts[0] + " " + parts[1];
      return Status::Ok();
    }
    case 16:
      return AddMapEntry(field, where + ".config", &out->config);
    default:
      return Status::Ok();  // 4 version_aux_data, 5 schema_metadata, 18,
                            // 19, 20.
  }
}

Status DecodeManifestField(const WireField& field, const std::string& where,
                           Notes* notes, Manifest* out) {
  switch (field.number) {
    case 1:
    case 2:
    case 4:
    case 5:
    case 7:
    case 8:
    case 12:
    case 13:
    case 15:
    case 16:
    case 18:
    case 19:
    case 20:
      return DecodeManifestMessageField(field, where, notes, out);
    case 3: {
      MEMWAL_ASSIGN_OR_RETURN(out->version, AsVarint(field, where));
      return Status::Ok();
    }
    case 6: {
      MEMWAL_ASSIGN_OR_RETURN(out->index_section, AsVarint(field, where));
      return Status::Ok();
    }
    case 9: {
      MEMWAL_ASSIGN_OR_RETURN(out->reader_feature_flags,
                              AsVarint(field, where));
      return Status::Ok();
    }
    case 10: {
      MEMWAL_ASSIGN_OR_RETURN(out->writer_feature_flags,
                              AsVarint(field, where));
      return Status::Ok();
    }
    case 11: {
      MEMWAL_ASSIGN_OR_RETURN(out->max_fragment_id, AsVarint(field, where));
      return Status::Ok();
    }
    case 14:
      return AsVarint(field, where).status();  // next_row_id.
    case 21: {
      MEMWAL_ASSIGN_OR_RETURN(out->transaction_section, AsVarint(field, where));
      return Status::Ok();
    }
    default:
      NoteUnknown(where, field, notes);
      return Status::Ok();
  }
}

}  // namespace

Result<Manifest> DecodeManifest(std::string_view bytes,
                                const std::string& where, Notes* notes) {
  const std::string what = where + ": Manifest";
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, what));
  Manifest out;
  for (const WireField& field : fields) {
    MEMWAL_RETURN_IF_ERROR(DecodeManifestField(field, what, notes, &out));
  }
  return out;
}

}  // namespace memwal::inspect
