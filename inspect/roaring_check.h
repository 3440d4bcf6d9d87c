// A structural check of portable Roaring bytes (the fragment_bitmap format),
// run before the bytes reach CRoaring: CRoaring 0.2 prints a line to stdout for
// every short or malformed input before it throws, which would corrupt
// inspect's output and break its one-line error rule. The check walks the
// layout (cookie, container count, optional run bitmap, keys and cardinalities,
// optional offsets, container payloads) and requires the walk to end exactly at
// the last byte.
#ifndef MEMWAL_INSPECT_ROARING_CHECK_H_
#define MEMWAL_INSPECT_ROARING_CHECK_H_

#include <string_view>

#include "base/status.h"

namespace memwal::inspect {

// OK for empty bytes (unknown coverage) and for a well-formed portable bitmap;
// Corruption with the reason otherwise.
Status CheckPortableRoaring(std::string_view bytes);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_ROARING_CHECK_H_
