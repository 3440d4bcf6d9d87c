// Portable Roaring layout check; see roaring_check.h. Layout (CRoaring's
// portable format):
//   cookie u32: 12346 (no run containers), then u32 container count n; or
//               12347 | (n - 1) << 16, then a run bitmap of (n + 7) / 8 bytes
//   n x (u16 key, u16 cardinality - 1), keys strictly increasing
//   n x u32 offsets, present for 12346 always and for 12347 when n >= 4
//   payloads: run container u16 r then r x (u16 start, u16 length - 1); array
//   container (cardinality <= 4096) cardinality x u16; bitset container 8192
//   bytes.
#include "inspect/roaring_check.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memwal::inspect {
namespace {

constexpr uint32_t kNoRunCookie = 12346;
constexpr uint32_t kRunCookie = 12347;

struct Reader {
  std::string_view bytes;
  size_t at = 0;
  bool Take(size_t count) {
    if (bytes.size() - at < count) return false;
    at += count;
    return true;
  }
  uint32_t Le(size_t offset, size_t width) const {
    uint32_t value = 0;
    for (size_t i = 0; i < width; ++i) {
      value |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i]))
               << (8 * i);
    }
    return value;
  }
};

Status Bad(const std::string& what) {
  return Status::Corruption("fragment bitmap: " + what);
}

// Reads the header; fills the per-container cardinalities and run flags.
Status ReadHeader(Reader* r, std::vector<uint32_t>* cards,
                  std::vector<bool>* runs) {
  if (!r->Take(4)) return Bad("shorter than its 4-byte cookie");
  const uint32_t cookie = r->Le(0, 4);
  size_t count = 0;
  bool has_offsets = true;
  if (cookie == kNoRunCookie) {
    if (!r->Take(4)) return Bad("no container count");
    count = r->Le(4, 4);
    if (count > 65536) return Bad("more than 65536 containers");
    runs->assign(count, false);
  } else if ((cookie & 0xffff) == kRunCookie) {
    count = (cookie >> 16) + 1;
    const size_t bitmap_at = r->at;
    if (!r->Take((count + 7) / 8)) return Bad("run bitmap cut short");
    for (size_t i = 0; i < count; ++i) {
      runs->push_back((r->Le(bitmap_at + i / 8, 1) >> (i % 8) & 1) != 0);
    }
    has_offsets = count >= 4;
  } else {
    return Bad("unknown cookie " + std::to_string(cookie));
  }
  const size_t pairs_at = r->at;
  if (!r->Take(4 * count)) return Bad("key/cardinality array cut short");
  for (size_t i = 0; i < count; ++i) {
    if (i > 0 &&
        r->Le(pairs_at + 4 * i, 2) <= r->Le(pairs_at + 4 * (i - 1), 2)) {
      return Bad("container keys not increasing");
    }
    cards->push_back(r->Le(pairs_at + 4 * i + 2, 2) + 1);
  }
  if (has_offsets && !r->Take(4 * count)) return Bad("offsets cut short");
  return Status::Ok();
}

}  // namespace

Status CheckPortableRoaring(std::string_view bytes) {
  if (bytes.empty()) return Status::Ok();
  Reader r{bytes};
  std::vector<uint32_t> cards;
  std::vector<bool> runs;
  MEMWAL_RETURN_IF_ERROR(ReadHeader(&r, &cards, &runs));
  MEMWAL_ASSERT(cards.size() == runs.size());
  for (size_t i = 0; i < cards.size(); ++i) {
    if (runs[i]) {
      const size_t header_at = r.at;
      if (!r.Take(2)) return Bad("run container header cut short");
      if (!r.Take(4 * static_cast<size_t>(r.Le(header_at, 2))))
        return Bad("run container cut short");
    } else if (!r.Take(cards[i] <= 4096 ? 2 * static_cast<size_t>(cards[i])
                                        : 8192)) {
      return Bad("container " + std::to_string(i) + " cut short");
    }
  }
  if (r.at != bytes.size()) {
    return Bad(std::to_string(bytes.size() - r.at) +
               " bytes after the last container");
  }
  return Status::Ok();
}

}  // namespace memwal::inspect
