// XOR-delta and zero-byte-bitmap packing of model states
// (checker/engine/packed.h).
#include "checker/engine/packed.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>  // AVX-512 byte compress and expand, where present
#include <tmmintrin.h>  // PSHUFB, used where the processor has it
#define MEMWAL_HAVE_SHUFFLE 1
#else
#define MEMWAL_HAVE_SHUFFLE 0
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

namespace {

// One byte per lane: for a mask m of eight bytes, gather[m] lists the lanes
// whose bit is set, in order (then 0x80, which PSHUFB turns into a zero), and
// scatter[m] gives each set lane the rank of its bit (0x80 for the others).
// count[m] is m's number of set bits (the baseline x86-64 has no POPCNT, and
// __builtin_popcount without it is a library call).
struct Shuffles {
  uint64_t gather[256];
  uint64_t scatter[256];
  uint8_t count[256];
};

constexpr Shuffles MakeShuffles() {
  Shuffles out{};
  for (int m = 0; m < 256; ++m) {
    uint64_t gather = ~uint64_t{0} / 255 * 0x80;
    uint64_t scatter = gather;
    int rank = 0;
    for (int lane = 0; lane < 8; ++lane) {
      if ((m >> lane & 1) == 0) continue;
      const uint64_t byte_mask = uint64_t{0xff} << (8 * rank);
      gather = (gather & ~byte_mask) | (uint64_t(lane) << (8 * rank));
      const uint64_t lane_mask = uint64_t{0xff} << (8 * lane);
      scatter = (scatter & ~lane_mask) | (uint64_t(rank) << (8 * lane));
      ++rank;
    }
    out.gather[m] = gather;
    out.scatter[m] = scatter;
    out.count[m] = static_cast<uint8_t>(rank);
  }
  return out;
}

constexpr Shuffles kShuffles = MakeShuffles();

// Zero bytes after a delta: the widest gather reads 64 bytes at a time.
constexpr std::size_t kPadding = 72;

// delta = the encoding with each version record after the first XORed with
// the one before it, then kPadding zero bytes.
void DeltaOf(const uint8_t* in, std::size_t size, const Layout& layout,
             uint8_t* delta) {
  const std::size_t first = layout.header + layout.version;  // record 1
  const std::size_t end = layout.header + in[0] * layout.version;
  std::memcpy(delta, in, size);
  std::memset(delta + size, 0, kPadding);
  if (end <= first) return;
#if defined(__SSE2__)
  // Sixteen bytes at a time, the last block ending at `end` (it may overlap
  // the one before: both read `in`, so they agree on the bytes they share).
  if (end - first >= 16) {
    auto block = [&](std::size_t k) {
      const __m128i now =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k));
      const __m128i before = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(in + k - layout.version));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(delta + k),
                       _mm_xor_si128(now, before));
    };
    for (std::size_t k = first; k + 16 <= end; k += 16) block(k);
    block(end - 16);
    return;
  }
#endif
  for (std::size_t k = first; k < end; ++k)
    delta[k] = in[k] ^ in[k - layout.version];
}

// The inverse, in place: each record after the first XORed with the one
// before it, which is already restored.
void UndoDelta(uint8_t* delta, std::size_t versions, const Layout& layout) {
  for (std::size_t v = 1; v < versions; ++v) {
    uint8_t* record = delta + layout.header + v * layout.version;
    const uint8_t* previous = record - layout.version;
#if defined(__SSE2__)
    if (layout.version >= 16 && layout.version <= 32) {
      // Two blocks that cover the record (they may overlap): both are read
      // before either is written, so a shared byte is XORed once.
      const std::size_t last = layout.version - 16;
      const __m128i a = _mm_xor_si128(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(record)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(previous)));
      const __m128i b = _mm_xor_si128(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(record + last)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(previous + last)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(record), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(record + last), b);
      continue;
    }
#endif
    for (std::size_t b = 0; b < layout.version; ++b) record[b] ^= previous[b];
  }
}

// Gathers the non-zero bytes of rest[0, 8 * bitmap) into `bytes` and their
// bitmap into `bits`; returns how many bytes. `rest` is readable and zero for
// 16 bytes past the end, `bits` has room for one more byte and `bytes` for 16.
std::size_t GatherPortable(const uint8_t* rest, std::size_t bitmap,
                           uint8_t* bits, uint8_t* bytes) {
  std::size_t length = 0;
  for (std::size_t b = 0; b < bitmap; b += 2) {
    uint32_t mask = NonZeroBytes16(rest + 8 * b);
    bits[b] = static_cast<uint8_t>(mask);
    bits[b + 1] = static_cast<uint8_t>(mask >> 8);
    for (; mask != 0; mask &= mask - 1)
      bytes[length++] = rest[8 * b + __builtin_ctz(mask)];
  }
  return length;
}

// The inverse: scatters `bytes` to the set bits' places of rest[0, 8 *
// bitmap), which is zero; `bytes` holds exactly one byte per set bit.
void ScatterPortable(const uint8_t* bits, std::size_t bitmap,
                     const uint8_t* bytes, uint8_t* rest) {
  std::size_t next = 0;
  for (std::size_t b = 0; b < bitmap; ++b) {
    for (unsigned mask = bits[b]; mask != 0; mask &= mask - 1)
      rest[8 * b + __builtin_ctz(mask)] = bytes[next++];
  }
}

#if MEMWAL_HAVE_SHUFFLE

// PSHUFB (SSSE3, in every x86-64 processor since 2006; checked at run time):
// eight bytes gathered or scattered by one table lookup and one shuffle
// instead of a loop over their set bits.
__attribute__((target("ssse3"))) std::size_t GatherShuffle(const uint8_t* rest,
                                                           std::size_t bitmap,
                                                           uint8_t* bits,
                                                           uint8_t* bytes) {
  std::size_t length = 0;
  for (std::size_t b = 0; b < bitmap; b += 2) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(rest + 8 * b));
    const unsigned mask = ~static_cast<unsigned>(_mm_movemask_epi8(
                              _mm_cmpeq_epi8(v, _mm_setzero_si128()))) &
                          0xffffu;
    const unsigned low = mask & 0xffu;
    const unsigned high = mask >> 8;
    bits[b] = static_cast<uint8_t>(low);
    bits[b + 1] = static_cast<uint8_t>(high);
    // The high half's lanes are 8-15 of v: 8 more (0x80 stays negative).
    const __m128i control = _mm_set_epi64x(
        static_cast<long long>(kShuffles.gather[high] + 0x0808080808080808ULL),
        static_cast<long long>(kShuffles.gather[low]));
    const __m128i packed = _mm_shuffle_epi8(v, control);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(bytes + length), packed);
    length += kShuffles.count[low];
    _mm_storel_epi64(reinterpret_cast<__m128i*>(bytes + length),
                     _mm_srli_si128(packed, 8));
    length += kShuffles.count[high];
  }
  return length;
}

// `bytes` is readable for 8 bytes past its last; `rest` writable for 8 past
// 8 * bitmap.
__attribute__((target("ssse3"))) void ScatterShuffle(const uint8_t* bits,
                                                     std::size_t bitmap,
                                                     const uint8_t* bytes,
                                                     uint8_t* rest) {
  std::size_t next = 0;
  for (std::size_t b = 0; b < bitmap; ++b) {
    const unsigned mask = bits[b];
    const __m128i source =
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + next));
    const __m128i control =
        _mm_cvtsi64_si128(static_cast<long long>(kShuffles.scatter[mask]));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(rest + 8 * b),
                     _mm_shuffle_epi8(source, control));
    next += kShuffles.count[mask];
  }
}

// AVX-512 (VBMI2, checked at run time): sixty-four bytes at a time, their
// bitmap by one test and their non-zero bytes by one compress. `rest` is
// readable and zero for 64 bytes past 8 * bitmap, `bits` has room for 8 more
// bytes and `bytes` for 64.
#define MEMWAL_COMPRESS_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt")))
MEMWAL_COMPRESS_TARGET std::size_t GatherCompress(const uint8_t* rest,
                                                  std::size_t bitmap,
                                                  uint8_t* bits,
                                                  uint8_t* bytes) {
  std::size_t length = 0;
  for (std::size_t b = 0; b < bitmap; b += 8) {
    const __m512i v = _mm512_loadu_si512(rest + 8 * b);
    const __mmask64 mask = _mm512_test_epi8_mask(v, v);
    const uint64_t word = mask;
    std::memcpy(bits + b, &word, 8);
    _mm512_storeu_si512(bytes + length, _mm512_maskz_compress_epi8(mask, v));
    length += static_cast<std::size_t>(__builtin_popcountll(word));
  }
  return length;
}

// `bits` is readable and zero for 8 bytes past its last, `bytes` readable for
// 64 past its last, `rest` writable for 64 past 8 * bitmap.
MEMWAL_COMPRESS_TARGET void ScatterCompress(const uint8_t* bits,
                                            std::size_t bitmap,
                                            const uint8_t* bytes,
                                            uint8_t* rest) {
  std::size_t next = 0;
  for (std::size_t b = 0; b < bitmap; b += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bits + b, 8);
    const __m512i source = _mm512_loadu_si512(bytes + next);
    _mm512_storeu_si512(rest + 8 * b, _mm512_maskz_expand_epi8(word, source));
    next += static_cast<std::size_t>(__builtin_popcountll(word));
  }
}
#undef MEMWAL_COMPRESS_TARGET

bool HasShuffle() {
  static const bool has = __builtin_cpu_supports("ssse3");
  return has;
}

bool HasCompress() {
  static const bool has =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("popcnt");
  return has;
}
#endif

// The fastest path this processor has.
PackPath Fastest() {
#if MEMWAL_HAVE_SHUFFLE
  if (HasCompress()) return PackPath::kCompress;
  if (HasShuffle()) return PackPath::kShuffle;
#endif
  return PackPath::kPortable;
}

std::size_t Gather(const uint8_t* rest, std::size_t bitmap, uint8_t* bits,
                   uint8_t* bytes, PackPath path) {
#if MEMWAL_HAVE_SHUFFLE
  if (path == PackPath::kCompress)
    return GatherCompress(rest, bitmap, bits, bytes);
  if (path == PackPath::kShuffle)
    return GatherShuffle(rest, bitmap, bits, bytes);
#endif
  return GatherPortable(rest, bitmap, bits, bytes);
}

void Scatter(const uint8_t* bits, std::size_t bitmap, const uint8_t* bytes,
             uint8_t* rest, PackPath path) {
#if MEMWAL_HAVE_SHUFFLE
  if (path == PackPath::kCompress)
    return ScatterCompress(bits, bitmap, bytes, rest);
  if (path == PackPath::kShuffle)
    return ScatterShuffle(bits, bitmap, bytes, rest);
#endif
  ScatterPortable(bits, bitmap, bytes, rest);
}

}  // namespace

std::vector<PackPath> PackPaths() {
  std::vector<PackPath> out = {PackPath::kPortable};
#if MEMWAL_HAVE_SHUFFLE
  if (HasShuffle()) out.push_back(PackPath::kShuffle);
  if (HasCompress()) out.push_back(PackPath::kCompress);
#endif
  return out;
}

// The packing: the two count bytes, then a bitmap with one bit per remaining
// byte of the delta (1: not zero), then the delta's non-zero bytes in order.
// The bitmap is built sixteen bytes at a time and the bytes are gathered by
// its set bits (the zero-run form it replaced branched on every byte and cost
// an eighth of the model-only search).
void PackEncoding(std::string_view encoding, std::string* out, PackPath path) {
  const Layout& layout = EncodingLayout();
  const std::size_t size = encoding.size();
  const auto* in = reinterpret_cast<const uint8_t*>(encoding.data());
  MEMWAL_ASSERT(size >= layout.header && size <= model::kEncodedMax &&
                size == layout.Size(in[0], in[1]));
  uint8_t delta[model::kEncodedMax + kPadding];
  DeltaOf(in, size, layout, delta);
  const std::size_t bitmap = (size - 2 + 7) / 8;
  uint8_t bits[kBitmapMax + 8];
  uint8_t packed[2 + kBitmapMax + model::kEncodedMax + 64];
  packed[0] = in[0];
  packed[1] = in[1];
  // Past the end, the zero padding sets no bit.
  const std::size_t length =
      Gather(delta + 2, bitmap, bits, packed + 2 + bitmap, path);
  std::memcpy(packed + 2, bits, bitmap);
  out->assign(reinterpret_cast<const char*>(packed), 2 + bitmap + length);
}

void PackEncoding(std::string_view encoding, std::string* out) {
  static const PackPath fastest = Fastest();
  PackEncoding(encoding, out, fastest);
}

void Pack(const model::State& state, std::string* out) {
  uint8_t encoding[model::kEncodedMax];
  const std::size_t size = model::EncodeTo(state, encoding);
  PackEncoding(std::string_view(reinterpret_cast<const char*>(encoding), size),
               out);
}

bool Unpack(std::string_view packed, model::State* out, PackPath path) {
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
  const std::size_t available = packed.size() - 2 - bitmap;
  // No bit past the last byte, and exactly one byte per set bit.
  if (rest % 8 != 0 && (bits[bitmap - 1] >> (rest % 8)) != 0) return false;
  std::size_t set = 0;
  for (std::size_t b = 0; b < bitmap; ++b) set += kShuffles.count[bits[b]];
  if (set != available) return false;
  // The bitmap and the bytes, copied where 8 and 64 more can be read.
  uint8_t padded_bits[kBitmapMax + 8] = {};
  std::memcpy(padded_bits, bits, bitmap);
  uint8_t bytes[model::kEncodedMax + 64];
  std::memcpy(bytes, bits + bitmap, available);
  uint8_t delta[model::kEncodedMax + kPadding];
  delta[0] = in[0];
  delta[1] = in[1];
  std::memset(delta + 2, 0, 8 * bitmap);
  Scatter(padded_bits, bitmap, bytes, delta + 2, path);
  UndoDelta(delta, versions, layout);
  return model::Decode(
      std::string_view(reinterpret_cast<const char*>(delta), size), out);
}

bool Unpack(std::string_view packed, model::State* out) {
  static const PackPath fastest = Fastest();
  return Unpack(packed, out, fastest);
}

}  // namespace memwal::checker::engine
