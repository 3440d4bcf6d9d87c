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
#include <vector>

#include "model/state.h"

namespace memwal::checker::engine {

// Packs model::Encode's bytes of a state.
void PackEncoding(std::string_view encoding, std::string* out);
void Pack(const model::State& state, std::string* out);
// The inverse: false when `packed` is not one packed state.
bool Unpack(std::string_view packed, model::State* out);

// How the packing gathers the non-zero bytes and the unpacking scatters them
// back: loops over the bitmap's bits, byte shuffles eight at a time (PSHUFB,
// SSSE3), or AVX-512's byte compress and expand sixty-four at a time (VBMI2).
// The two above use the fastest this processor has; the results are the
// same, and tests compare every path the processor has with the portable one.
enum class PackPath { kPortable, kShuffle, kCompress };
std::vector<PackPath> PackPaths();  // this processor's, kPortable first
void PackEncoding(std::string_view encoding, std::string* out, PackPath path);
bool Unpack(std::string_view packed, model::State* out, PackPath path);

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_PACKED_H_
