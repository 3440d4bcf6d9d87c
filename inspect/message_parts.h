// Pieces shared by the decoders of lance_messages.cc and memwal_messages.cc
// (internal to inspect/): note-taking for unknown fields, message paths, and
// the two small messages (UUID, CompactedSsTable) that both files read.
#ifndef MEMWAL_INSPECT_MESSAGE_PARTS_H_
#define MEMWAL_INSPECT_MESSAGE_PARTS_H_

#include <string>
#include <string_view>

#include "base/status.h"
#include "inspect/lance_messages.h"
#include "inspect/wire.h"

namespace memwal::inspect {

void NoteUnknown(const std::string& where, const WireField& field,
                 Notes* notes);
// "<where>.<name>[<index>]".
std::string Indexed(const std::string& where, std::string_view name,
                    size_t index);
// UUID { bytes uuid = 1 } carried in the length-delimited `field`: the raw
// bytes.
Result<std::string> UuidField(const WireField& field, const std::string& where,
                              Notes* notes);
// CompactedSsTable { UUID shard_id = 1; uint64 generation = 2 } carried in
// `field`.
Result<ShardGeneration> ShardGenerationField(const WireField& field,
                                             const std::string& where,
                                             Notes* notes);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_MESSAGE_PARTS_H_
