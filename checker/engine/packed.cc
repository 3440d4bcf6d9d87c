// XOR-delta and zero-byte-bitmap packing of model states
// (checker/engine/packed.h).
#include "checker/engine/packed.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/assert.h"

namespace memwal::checker::engine {
namespace {

// The sizes of model::Encode's header, version record and transaction record,
// measured on the encoding itself, so that they follow any change of the
// layout. The first two bytes of the header are the version count and the
// in-flight count.
struct Layout {
  std::size_t header = 0;
  std::size_t version = 0;
  std::size_t txn = 0;
  std::size_t Size(std::size_t versions, std::size_t txns) const {
    return header + versions * version + txns * txn;
  }
};

const Layout& EncodingLayout() {
  static const Layout layout = [] {
    model::State state;
    std::string bytes;
    state.version_count = 0;
    state.inflight_count = 0;
    model::Encode(state, &bytes);
    Layout out;
    out.header = bytes.size();
    state.version_count = 1;
    model::Encode(state, &bytes);
    out.version = bytes.size() - out.header;
    state.version_count = 0;
    state.inflight_count = 1;
    model::Encode(state, &bytes);
    out.txn = bytes.size() - out.header;
    MEMWAL_ASSERT(out.header >= 2 && out.version >= 8 && out.txn > 0);
    return out;
  }();
  return layout;
}

constexpr std::size_t kBitmapMax = (model::kEncodedMax + 7) / 8;

}  // namespace

// Bit k of the result: byte k of bytes[0, 16) is not zero. SSE2 (in every
// x86-64) compares sixteen bytes at once; elsewhere two eight-byte words.
uint32_t NonZeroBytes16(const uint8_t* bytes) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  const int zero = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
  return ~static_cast<uint32_t>(zero) & 0xffffu;
#else
  auto eight = [](const uint8_t* at) {
    constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t word;
    std::memcpy(&word, at, 8);
    const uint64_t high =
        (((word & kLow7) + kLow7) | word) & 0x8080808080808080ULL;
    return static_cast<uint32_t>(((high >> 7) * 0x0102040810204080ULL) >> 56);
  };
  return eight(bytes) | (eight(bytes + 8) << 8);
#endif
}

// The packing: the two count bytes, then a bitmap with one bit per remaining
// byte of the delta (1: not zero), then the delta's non-zero bytes in order.
// The bitmap is built eight bytes at a time and the bytes are gathered by its
// set bits (the zero-run form it replaced branched on every byte and cost an
// eighth of the model-only search).
void PackEncoding(std::string_view encoding, std::string* out) {
  const Layout& layout = EncodingLayout();
  const std::size_t size = encoding.size();
  const auto* in = reinterpret_cast<const uint8_t*>(encoding.data());
  MEMWAL_ASSERT(size >= layout.header && size <= model::kEncodedMax &&
                size == layout.Size(in[0], in[1]));
  const std::size_t first = layout.header + layout.version;  // record 1
  const std::size_t end = layout.header + in[0] * layout.version;
  uint8_t delta[model::kEncodedMax + 16];
  std::memcpy(delta, in, size);
  std::memset(delta + size, 0, 16);
  for (std::size_t k = first; k < end; ++k)
    delta[k] = in[k] ^ in[k - layout.version];
  const uint8_t* rest = delta + 2;
  const std::size_t bitmap = (size - 2 + 7) / 8;
  uint8_t packed[2 + kBitmapMax + model::kEncodedMax];
  packed[0] = in[0];
  packed[1] = in[1];
  uint8_t* bits = packed + 2;
  uint8_t* bytes = bits + bitmap;
  std::size_t length = 0;
  // Sixteen bytes (two bitmap bytes) at a time; past the end, the zero
  // padding sets no bit.
  for (std::size_t b = 0; b < bitmap; b += 2) {
    uint32_t mask = NonZeroBytes16(rest + 8 * b);
    bits[b] = static_cast<uint8_t>(mask);
    if (b + 1 < bitmap) bits[b + 1] = static_cast<uint8_t>(mask >> 8);
    for (; mask != 0; mask &= mask - 1)
      bytes[length++] = rest[8 * b + __builtin_ctz(mask)];
  }
  out->assign(reinterpret_cast<const char*>(packed), 2 + bitmap + length);
}

void Pack(const model::State& state, std::string* out) {
  uint8_t encoding[model::kEncodedMax];
  const std::size_t size = model::EncodeTo(state, encoding);
  PackEncoding(std::string_view(reinterpret_cast<const char*>(encoding), size),
               out);
}

bool Unpack(std::string_view packed, model::State* out) {
  const Layout& layout = EncodingLayout();
  if (packed.size() < 2) return false;
  const auto* in = reinterpret_cast<const uint8_t*>(packed.data());
  const std::size_t versions = in[0];
  const std::size_t txns = in[1];
  if (versions > model::kVersionsMax || txns > model::kInflightMax)
    return false;
  const std::size_t size = layout.Size(versions, txns);
  if (size > model::kEncodedMax) return false;
  const std::size_t rest = size - 2;
  const std::size_t bitmap = (rest + 7) / 8;
  if (packed.size() < 2 + bitmap) return false;
  const uint8_t* bits = in + 2;
  const uint8_t* bytes = bits + bitmap;
  const std::size_t available = packed.size() - 2 - bitmap;
  // No bit past the last byte.
  if (rest % 8 != 0 && (bits[bitmap - 1] >> (rest % 8)) != 0) return false;
  uint8_t delta[model::kEncodedMax + 8];
  delta[0] = in[0];
  delta[1] = in[1];
  std::memset(delta + 2, 0, rest);
  std::size_t next = 0;
  for (std::size_t b = 0; b < bitmap; ++b) {
    for (unsigned mask = bits[b]; mask != 0; mask &= mask - 1) {
      if (next == available) return false;
      delta[2 + 8 * b + __builtin_ctz(mask)] = bytes[next++];
    }
  }
  // Exactly one byte per set bit.
  if (next != available) return false;
  for (std::size_t v = 1; v < versions; ++v) {
    uint8_t* record = delta + layout.header + v * layout.version;
    const uint8_t* previous = record - layout.version;
    // Eight bytes at a time: a record is at least eight bytes from the one
    // before, so a word never reads bytes this loop has still to write.
    std::size_t b = 0;
    for (; b + 8 <= layout.version; b += 8) {
      uint64_t word, before;
      std::memcpy(&word, record + b, 8);
      std::memcpy(&before, previous + b, 8);
      word ^= before;
      std::memcpy(record + b, &word, 8);
    }
    for (; b < layout.version; ++b) record[b] ^= previous[b];
  }
  return model::Decode(
      std::string_view(reinterpret_cast<const char*>(delta), size), out);
}

}  // namespace memwal::checker::engine
