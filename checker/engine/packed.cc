// XOR-delta and zero-run packing of model states (checker/engine/packed.h).
#include "checker/engine/packed.h"

#include "base/assert.h"

namespace memwal::checker::engine {
namespace {

// The sizes of model::Encode's header and version record, measured on the
// encoding itself, so that they follow any change of the layout.
struct Layout {
  std::size_t header = 0;
  std::size_t version = 0;
};

const Layout& EncodingLayout() {
  static const Layout layout = [] {
    model::State state;
    std::string bytes;
    state.version_count = 0;
    model::Encode(state, &bytes);
    Layout out;
    out.header = bytes.size();
    state.version_count = 1;
    model::Encode(state, &bytes);
    out.version = bytes.size() - out.header;
    return out;
  }();
  return layout;
}

// XORs version record k (k >= 1) with record k-1, last first, so that it can
// be undone first to last. `versions` is the encoding's version count.
void DeltaVersions(std::string* bytes, std::size_t versions, bool undo) {
  const Layout& layout = EncodingLayout();
  auto delta = [&](std::size_t k) {
    char* previous = bytes->data() + layout.header + (k - 1) * layout.version;
    char* record = previous + layout.version;
    for (std::size_t b = 0; b < layout.version; ++b) record[b] ^= previous[b];
  };
  if (undo) {
    for (std::size_t k = 1; k < versions; ++k) delta(k);
    return;
  }
  for (std::size_t k = versions; k-- > 1;) delta(k);
}

}  // namespace

void PackEncoding(std::string_view encoding, std::string* out) {
  const Layout& layout = EncodingLayout();
  MEMWAL_ASSERT(!encoding.empty() && encoding.size() >= layout.header);
  std::string delta(encoding);
  const std::size_t versions = static_cast<uint8_t>(encoding[0]);
  MEMWAL_ASSERT(layout.header + versions * layout.version <= delta.size());
  DeltaVersions(&delta, versions, /*undo=*/false);
  out->clear();
  for (std::size_t k = 0; k < delta.size();) {
    if (delta[k] != 0) {
      out->push_back(delta[k++]);
      continue;
    }
    std::size_t run = 0;
    while (k < delta.size() && delta[k] == 0 && run < 255) {
      ++run;
      ++k;
    }
    out->push_back(0);
    out->push_back(static_cast<char>(run));
  }
}

void Pack(const model::State& state, std::string* out) {
  std::string encoding;
  model::Encode(state, &encoding);
  PackEncoding(encoding, out);
}

bool Unpack(std::string_view packed, model::State* out) {
  const Layout& layout = EncodingLayout();
  std::string bytes;
  for (std::size_t k = 0; k < packed.size(); ++k) {
    if (packed[k] != 0) {
      bytes.push_back(packed[k]);
      continue;
    }
    if (k + 1 >= packed.size()) return false;
    const std::size_t run = static_cast<uint8_t>(packed[++k]);
    if (run == 0) return false;
    bytes.append(run, '\0');
  }
  if (bytes.size() < layout.header) return false;
  const std::size_t versions = static_cast<uint8_t>(bytes[0]);
  if (layout.header + versions * layout.version > bytes.size()) return false;
  DeltaVersions(&bytes, versions, /*undo=*/true);
  return model::Decode(bytes, out);
}

}  // namespace memwal::checker::engine
