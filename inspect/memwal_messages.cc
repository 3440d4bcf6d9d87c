// Decoders of the MemWAL messages (MemWalIndexDetails, ShardManifest) and of
// the parts of a Transaction inspect reports; see lance_messages.h. Field
// numbers: docs/lance-facts.md sections 1.2 and 1.3.
#include "inspect/lance_messages.h"
#include "inspect/message_parts.h"
#include "inspect/wire.h"

namespace memwal::inspect {
namespace {

Status DecodeShardingFieldPart(const WireField& field, const std::string& where,
                               Notes* notes, ShardingField* out) {
  std::string* text = nullptr;
  switch (field.number) {
    case 1:
      text = &out->field_id;
      break;
    case 2:
      return AppendInts(field, where, &out->source_ids);
    case 3:
      text = &out->transform;
      break;
    case 4:
      text = &out->expression;
      break;
    case 5:
      text = &out->result_type;
      break;
    case 6:
      return AddMapEntry(field, where, &out->parameters);
    default:
      NoteUnknown(where, field, notes);
      return Status::Ok();
  }
  MEMWAL_ASSIGN_OR_RETURN(*text, AsString(field, where));
  return Status::Ok();
}

Result<ShardingSpec> DecodeShardingSpec(const WireField& outer,
                                        const std::string& where,
                                        Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(outer, where));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  ShardingSpec spec;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(spec.spec_id, AsVarint(field, where));
    } else if (field.number == 2) {
      const std::string item = Indexed(where, "fields", spec.fields.size());
      MEMWAL_ASSIGN_OR_RETURN(const std::string_view message,
                              AsBytes(field, item));
      MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> parts,
                              SplitMessage(message, item));
      ShardingField sharding_field;
      for (const WireField& part : parts) {
        MEMWAL_RETURN_IF_ERROR(
            DecodeShardingFieldPart(part, item, notes, &sharding_field));
      }
      spec.fields.push_back(std::move(sharding_field));
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return spec;
}

Result<IndexCatchupProgress> DecodeCatchup(const WireField& outer,
                                           const std::string& where,
                                           Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(outer, where));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  IndexCatchupProgress progress;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(progress.index_name, AsString(field, where));
    } else if (field.number == 2) {
      const std::string item = Indexed(where, "caught_up_generations",
                                       progress.caught_up_generations.size());
      MEMWAL_ASSIGN_OR_RETURN(ShardGeneration entry,
                              ShardGenerationField(field, item, notes));
      progress.caught_up_generations.push_back(std::move(entry));
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return progress;
}

Status DecodeDetailsField(const WireField& field, const std::string& where,
                          Notes* notes, MemWalIndexDetails* out) {
  switch (field.number) {
    case 1: {
      MEMWAL_ASSIGN_OR_RETURN(const uint64_t millis, AsVarint(field, where));
      out->snapshot_ts_millis = static_cast<int64_t>(millis);
      return Status::Ok();
    }
    case 2: {
      MEMWAL_ASSIGN_OR_RETURN(out->num_shards, AsVarint(field, where));
      return Status::Ok();
    }
    case 3:
      out->has_inline_snapshots = true;
      return AsBytes(field, where).status();
    case 7: {
      const std::string item =
          Indexed(where, "sharding_specs", out->sharding_specs.size());
      MEMWAL_ASSIGN_OR_RETURN(ShardingSpec spec,
                              DecodeShardingSpec(field, item, notes));
      out->sharding_specs.push_back(std::move(spec));
      return Status::Ok();
    }
    case 8: {
      MEMWAL_ASSIGN_OR_RETURN(std::string name, AsString(field, where));
      out->maintained_indexes.push_back(std::move(name));
      return Status::Ok();
    }
    case 9: {
      const std::string item =
          Indexed(where, "compacted_sstables", out->compacted_sstables.size());
      MEMWAL_ASSIGN_OR_RETURN(ShardGeneration entry,
                              ShardGenerationField(field, item, notes));
      out->compacted_sstables.push_back(std::move(entry));
      return Status::Ok();
    }
    case 10: {
      const std::string item =
          Indexed(where, "index_catchup", out->index_catchup.size());
      MEMWAL_ASSIGN_OR_RETURN(IndexCatchupProgress progress,
                              DecodeCatchup(field, item, notes));
      out->index_catchup.push_back(std::move(progress));
      return Status::Ok();
    }
    case 11:
      return AddMapEntry(field, where, &out->writer_config_defaults);
    default:
      NoteUnknown(where, field, notes);
      return Status::Ok();
  }
}

}  // namespace

Result<MemWalIndexDetails> DecodeMemWalIndexDetails(std::string_view bytes,
                                                    const std::string& where,
                                                    Notes* notes) {
  const std::string what = where + ": MemWalIndexDetails";
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, what));
  MemWalIndexDetails out;
  for (const WireField& field : fields) {
    MEMWAL_RETURN_IF_ERROR(DecodeDetailsField(field, what, notes, &out));
  }
  return out;
}

namespace {

// The operation message of a Transaction (oneof tags 100..116): only the parts
// inspect reports are read; the rest of an operation is its own business, not
// noted.
Status DecodeOperation(const WireField& field, const std::string& where,
                       Notes* notes, Transaction* out) {
  out->operation = field.number;
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(field, where));
  const std::string item = where + "." + OperationName(field.number);
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> parts,
                          SplitMessage(bytes, item));
  const bool update = field.number == 108;
  const bool progress = field.number == 112;
  const bool restore = field.number == 106;
  for (const WireField& part : parts) {
    if ((update && part.number == 5) || (progress && part.number == 1)) {
      MEMWAL_ASSIGN_OR_RETURN(ShardGeneration entry,
                              ShardGenerationField(part, item, notes));
      out->compacted_sstables.push_back(std::move(entry));
    } else if (progress && part.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(const uint64_t flag, AsVarint(part, item));
      out->require_index_catchup = flag != 0;
    } else if (progress) {
      NoteUnknown(item, part, notes);
    } else if (restore && part.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(out->restore_version, AsVarint(part, item));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Transaction> DecodeTransaction(std::string_view bytes,
                                      const std::string& where, Notes* notes) {
  const std::string what = where + ": Transaction";
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, what));
  Transaction out;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(out.read_version, AsVarint(field, what));
    } else if (field.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(out.uuid, AsString(field, what));
    } else if (field.number == 3 || field.number == 4) {
      continue;  // Tag, transaction properties.
    } else if (field.number >= 100 && field.number <= 116) {
      MEMWAL_RETURN_IF_ERROR(DecodeOperation(field, what, notes, &out));
    } else {
      NoteUnknown(what, field, notes);
    }
  }
  return out;
}

namespace {

Result<SsTable> DecodeSsTable(const WireField& outer, const std::string& where,
                              Notes* notes) {
  MEMWAL_ASSIGN_OR_RETURN(const std::string_view bytes, AsBytes(outer, where));
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, where));
  SsTable out;
  for (const WireField& field : fields) {
    if (field.number == 1) {
      MEMWAL_ASSIGN_OR_RETURN(out.generation, AsVarint(field, where));
    } else if (field.number == 2) {
      MEMWAL_ASSIGN_OR_RETURN(out.path, AsString(field, where));
    } else if (field.number == 4) {
      MEMWAL_ASSIGN_OR_RETURN(out.physical_rows, AsVarint(field, where));
    } else if (field.number == 3 || field.number == 5) {
      MEMWAL_RETURN_IF_ERROR(AsVarint(field, where).status());  // Byte sizes.
    } else {
      NoteUnknown(where, field, notes);
    }
  }
  return out;
}

Status DecodeShardField(const WireField& field, const std::string& where,
                        Notes* notes, ShardManifest* out) {
  uint64_t* number = nullptr;
  switch (field.number) {
    case 1:
      number = &out->version;
      break;
    case 2:
      number = &out->writer_epoch;
      break;
    case 3:
      number = &out->replay_after_wal_entry_position;
      break;
    case 4:
      number = &out->wal_entry_position_last_seen;
      break;
    case 6:
      number = &out->current_generation;
      break;
    case 10:
      number = &out->shard_spec_id;
      break;
    case 15:
      number = &out->status;
      break;
    case 8: {
      const std::string item = Indexed(where, "sstables", out->sstables.size());
      MEMWAL_ASSIGN_OR_RETURN(SsTable sstable,
                              DecodeSsTable(field, item, notes));
      out->sstables.push_back(std::move(sstable));
      return Status::Ok();
    }
    case 11: {
      MEMWAL_ASSIGN_OR_RETURN(out->shard_id,
                              UuidField(field, where + ".shard_id", notes));
      return Status::Ok();
    }
    case 14:
      return AsBytes(field, where).status();  // Shard field entries.
    default:
      NoteUnknown(where, field, notes);
      return Status::Ok();
  }
  MEMWAL_ASSIGN_OR_RETURN(*number, AsVarint(field, where));
  return Status::Ok();
}

}  // namespace

Result<ShardManifest> DecodeShardManifest(std::string_view bytes,
                                          const std::string& where,
                                          Notes* notes) {
  const std::string what = where + ": ShardManifest";
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<WireField> fields,
                          SplitMessage(bytes, what));
  ShardManifest out;
  for (const WireField& field : fields) {
    MEMWAL_RETURN_IF_ERROR(DecodeShardField(field, what, notes, &out));
  }
  return out;
}

}  // namespace memwal::inspect
