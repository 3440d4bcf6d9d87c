// Roaring codec for fragment bitmaps; see bitmap.h.
#include "impl/bitmap.h"

#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <roaring/roaring.hh>
#include <stdexcept>
#include <string>
#include <vector>

namespace memwal::impl {
namespace {

// Our bound on the ids one decoded bitmap may hold (not Lance's: Lance has
// none); far above any table the checker or a test builds.
constexpr uint64_t kFragmentBitmapIdsMax = 1u << 20;

// CRoaring 0.2's Roaring::readSafe reports bad input by throwing
// std::runtime_error (and the C layer may print a line). Project code never
// throws, so this is the only try/catch in the project: it turns that one
// library exception into a Status at the library boundary.
Result<Roaring> ReadRoaringSafe(std::string_view bytes) {
  try {
    return Roaring::readSafe(bytes.data(), bytes.size());
  } catch (const std::runtime_error& error) {
    return Status::Corruption(std::string("fragment bitmap: ") + error.what());
  }
}

}  // namespace

std::string EncodeFragmentBitmap(const Coverage& fragments) {
  if (!fragments.has_value()) return std::string();
  Roaring bitmap;
  for (const uint64_t id : *fragments) {
    MEMWAL_ASSERT(id <= std::numeric_limits<uint32_t>::max());
    bitmap.add(static_cast<uint32_t>(id));
  }
  // No runOptimize: Lance's Rust roaring writes no run containers (cookie
  // 0x3a30).
  std::string bytes(bitmap.getSizeInBytes(/*portable=*/true), '\0');
  bytes.resize(bitmap.write(bytes.data(), /*portable=*/true));
  MEMWAL_ASSERT(
      !bytes.empty());  // Covering nothing must stay distinct from unknown.
  return bytes;
}

namespace {

Result<Coverage> DecodeUncached(std::string_view bytes) {
  MEMWAL_ASSIGN_OR_RETURN(const Roaring bitmap, ReadRoaringSafe(bytes));
  // readSafe accepts a valid prefix; trailing bytes mean the field is not one
  // bitmap.
  if (bitmap.getSizeInBytes(/*portable=*/true) != bytes.size()) {
    return Status::Corruption(
        "fragment bitmap: trailing bytes after the Roaring bitmap");
  }
  // A few bytes of run containers can claim 2^32 ids; materializing them
  // would allocate gigabytes, so untrusted bytes get a bound first.
  if (bitmap.cardinality() > kFragmentBitmapIdsMax) {
    return Status::Corruption(
        "fragment bitmap: " + std::to_string(bitmap.cardinality()) +
        " fragment ids, more than the " +
        std::to_string(kFragmentBitmapIdsMax) + " a decoder accepts");
  }
  std::vector<uint32_t> ids(bitmap.cardinality());
  bitmap.toUint32Array(ids.data());
  FragmentSet fragments(ids.begin(), ids.end());
  // readSafe does not check that an array container is sorted and free of
  // repeats (found by fuzz/roaring_target.cc): such bytes are not a bitmap.
  if (fragments.size() != bitmap.cardinality()) {
    return Status::Corruption(
        "fragment bitmap: a container repeats ids or is not sorted");
  }
  return Coverage(std::move(fragments));
}

// The last decoding per slot, by the exact bytes: a table's versions carry
// the same few small bitmaps over and over (every segment of every version
// decoded), and a Roaring read costs far more than a lookup. One per thread.
class BitmapMemo {
 public:
  Result<Coverage> Get(std::string_view bytes) {
    if (bytes.size() > kBytesMax) return DecodeUncached(bytes);
    Slot& slot = slots_[std::hash<std::string_view>{}(bytes) % kSlots];
    if (!slot.value.has_value() || slot.bytes != bytes) {
      slot.bytes.assign(bytes);
      slot.value.emplace(DecodeUncached(bytes));
    }
    return *slot.value;
  }

 private:
  static constexpr std::size_t kBytesMax = 256;
  static constexpr std::size_t kSlots = 256;
  struct Slot {
    std::string bytes;
    std::optional<Result<Coverage>> value;
  };
  std::array<Slot, kSlots> slots_{};
};

}  // namespace

Result<Coverage> DecodeFragmentBitmap(std::string_view bytes) {
  if (bytes.empty()) return Coverage(std::nullopt);
  thread_local BitmapMemo memo;
  return memo.Get(bytes);
}

}  // namespace memwal::impl
