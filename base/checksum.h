// One 64-bit checksum for bytes that leave the process and come back: a
// checkpoint's files (checker/engine/checkpoint.h) and a World shipped
// between ranks (impl/world.h). Not cryptographic: it catches truncation and
// flipped bytes, eight bytes at a time.
#ifndef MEMWAL_BASE_CHECKSUM_H_
#define MEMWAL_BASE_CHECKSUM_H_

#include <cstdint>
#include <string_view>

namespace memwal {

uint64_t Checksum64(std::string_view bytes);

}  // namespace memwal

#endif  // MEMWAL_BASE_CHECKSUM_H_
