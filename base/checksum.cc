// The checksum of base/checksum.h.
#include "base/checksum.h"

#include <cstring>

namespace memwal {

uint64_t Checksum64(std::string_view bytes) {
  uint64_t hash = 0x6a09e667f3bcc909ULL ^ bytes.size();
  const auto mix = [&hash](uint64_t word) {
    hash = (hash ^ word) * 0x9fb21c651e98df25ULL;
    hash ^= hash >> 29;
  };
  std::size_t at = 0;
  for (; at + 8 <= bytes.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes.data() + at, 8);
    mix(word);
  }
  uint64_t tail = 0;
  if (at < bytes.size())
    std::memcpy(&tail, bytes.data() + at, bytes.size() - at);
  mix(tail);
  return hash;
}

}  // namespace memwal
