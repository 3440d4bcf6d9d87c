// Fragment bitmaps: the `IndexMetadata.fragment_bitmap` codec [P §1.4].
//
// Lance stores the fragments a segment covers as a 32-bit Roaring bitmap in the
// portable serialization. Empty bytes mean "unknown coverage" (std::nullopt),
// which is different from covering nothing: an empty bitmap serializes to
// non-empty bytes. Fragment ids are uint64 in the protocol but bounded by
// Manifest.max_fragment_id (uint32), so they fit the 32-bit bitmap.
#ifndef MEMWAL_IMPL_BITMAP_H_
#define MEMWAL_IMPL_BITMAP_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"

namespace memwal::impl {

using FragmentSet = std::set<uint64_t>;
// nullopt = unknown coverage (a segment without a bitmap).
using Coverage = std::optional<FragmentSet>;

// Portable Roaring bytes for `fragments`; empty string for nullopt.
// REQUIRES: every id fits in uint32.
std::string EncodeFragmentBitmap(const Coverage& fragments);

// Inverse of EncodeFragmentBitmap. Corruption if the bytes are not exactly one
// portable Roaring bitmap.
Result<Coverage> DecodeFragmentBitmap(std::string_view bytes);

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_BITMAP_H_
