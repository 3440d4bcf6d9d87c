// The typed JSON schema of `corpus --operations` lists
// (fuzz/operations.schema.json, issue 39 item 5), generated from the protobuf
// descriptors of the messages the lists print, so that it types every operation
// and every field exactly as the printer (protobuf's JSON mapping with proto
// field names) writes them and cannot drift from it: 64-bit integers as decimal
// strings, bytes as base64, enums by name, google.protobuf.Any as an object
// with "@type".
#ifndef MEMWAL_CHECKER_CLI_OPERATIONS_SCHEMA_H_
#define MEMWAL_CHECKER_CLI_OPERATIONS_SCHEMA_H_

#include <nlohmann/json.hpp>

namespace memwal::checker::cli {

// The format_version the lists carry and the schema accepts.
inline constexpr int kOperationsFormatVersion = 3;

nlohmann::json OperationsSchema();

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_OPERATIONS_SCHEMA_H_
