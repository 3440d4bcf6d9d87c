// A model state packed for storage: the frontier of a search and the exact
// seen set hold states this way.
//
// model::Encode's layout is a fixed header, one fixed-size record per version
// and one per in-flight transaction. Successive versions differ in a few
// fields, so each version record is XORed with the one before it; the result
// is mostly zero bytes, and every run of zeros becomes a zero byte and the run
// length. A typical state of the small preset packs into about a third of its
// encoding.
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

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_PACKED_H_
