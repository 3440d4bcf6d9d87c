// A model state packed for storage: the frontier of a search and the exact
// seen set hold states this way.
//
// model::Encode's layout is a fixed header (the version count and the
// in-flight count first), one fixed-size record per version and one per
// in-flight transaction. Successive versions differ in a few fields, so each
// version record is XORed with the one before it; the result is mostly zero
// bytes. The packing keeps the two counts (they give the encoding's size), a
// bitmap of the other bytes that are not zero, and those bytes.
#ifndef MEMWAL_CHECKER_ENGINE_PACKED_H_
#define MEMWAL_CHECKER_ENGINE_PACKED_H_

#include <string>
#include <string_view>

#include "model/state.h"

namespace memwal::checker::engine {

// Packs model::Encode's bytes of a state.
void PackEncoding(std::string_view encoding, std::string* out);
void Pack(const model::State& state, std::string* out);
// The inverse: false when `packed` is not one packed state.
bool Unpack(std::string_view packed, model::State* out);

// The same with `portable` true: without the byte shuffles (SSSE3) the two
// above use where the processor has them. The results are the same; tests
// compare the two.
void PackEncoding(std::string_view encoding, std::string* out, bool portable);
bool Unpack(std::string_view packed, model::State* out, bool portable);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_PACKED_H_
