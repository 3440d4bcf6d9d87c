// A tolerant reader of the protobuf wire format, for manifests written by any
// Lance version.
//
// inspect/ reads real Lance files with their own field numbers instead of
// impl/'s generated messages: impl/proto declares only the fields the protocol
// needs, so protobuf's unknown-field set could not tell "a newer Lance wrote
// this" from "our .proto left it out", and impl's decoders validate for our own
// writer (they refuse what inspect must report as a finding). Here every
// message is split into its top-level fields; decoders in lance_messages.cc
// take the fields they know and turn every other one into a Note. Bounds: every
// length is checked against the bytes that remain, so no input can make a read
// run past its buffer.
#ifndef MEMWAL_INSPECT_WIRE_H_
#define MEMWAL_INSPECT_WIRE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace memwal::inspect {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kFixed32 = 5
};

// One top-level field of a message. `value` holds varint and fixed values;
// `bytes` the payload of a length-delimited field (a view into the message's
// buffer).
struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;
  std::string_view bytes;
};

// The fields of one serialized message, in wire order. Corruption (naming
// `what`) on a truncated varint or payload, a field number 0, or a
// group/unknown wire type.
Result<std::vector<WireField>> SplitMessage(std::string_view bytes,
                                            std::string_view what);

// "varint", "fixed64", "length-delimited", "fixed32".
std::string_view WireTypeName(WireType type);

// Typed views of a field; Corruption naming `what` if the wire type does not
// fit.
Result<uint64_t> AsVarint(const WireField& field, std::string_view what);
Result<std::string_view> AsBytes(const WireField& field, std::string_view what);
// A repeated integer field, packed (one length-delimited field) or not (one
// varint); appends to `out`. Negative int32 values arrive as 10-byte varints
// and are narrowed.
Status AppendInts(const WireField& field, std::string_view what,
                  std::vector<int64_t>* out);
Result<std::string> AsString(const WireField& field, std::string_view what);
// A map<string, string|bytes> entry (key = 1, value = 2) added to `out`.
Status AddMapEntry(const WireField& field, std::string_view what,
                   std::map<std::string, std::string>* out);
// "field 22 (varint, value 4096) not understood".
std::string DescribeUnknown(const WireField& field);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_WIRE_H_
