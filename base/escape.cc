// The one escaper (base/escape.h).
#include "base/escape.h"

namespace memwal {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendHex(unsigned char byte, std::string* out) {
  *out += "\\x";
  *out += kHex[byte >> 4];
  *out += kHex[byte & 15];
}

// The length of the valid UTF-8 sequence starting at text[at] (2 to 4 bytes,
// no overlong form, no surrogate, at most U+10FFFF), or 0 when there is none.
std::size_t Utf8Length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) {
    return static_cast<unsigned char>(text[at + k]);
  };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() - at < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xbf) return 0;
  }
  // C1 controls (U+0080..U+009F: C2 80..C2 9F) act on terminals and are
  // forbidden in XML 1.0's discouraged set; shown, not kept.
  if (lead == 0xc2 && byte(1) <= 0x9f) return 0;
  return length;
}

}  // namespace

std::string Escaped(std::string_view text, EscapeFor target,
                    std::size_t max_bytes) {
  std::string out;
  out.reserve(text.size() < 4096 ? text.size() + 16 : 4096);
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (k >= max_bytes) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[k]);
    if (target == EscapeFor::kTerminal) {
      if (byte == '\\') {
        out += "\\\\";
      } else if (byte < 0x20 || byte >= 0x7f) {
        AppendHex(byte, &out);
      } else {
        out += static_cast<char>(byte);
      }
      continue;
    }
    switch (byte) {
      case '&':
        out += "&amp;";
        continue;
      case '<':
        out += "&lt;";
        continue;
      case '>':
        out += "&gt;";
        continue;
      case '"':
        out += "&quot;";
        continue;
      case '\'':
        out += "&apos;";
        continue;
      case '\n':
      case '\t':
        out += static_cast<char>(byte);
        continue;
      default:
        break;
    }
    if (byte < 0x20 || byte == 0x7f) {
      AppendHex(byte, &out);
    } else if (byte < 0x80) {
      out += static_cast<char>(byte);
    } else if (const std::size_t length = Utf8Length(text, k); length > 0) {
      out.append(text.substr(k, length));
      k += length - 1;
    } else {
      AppendHex(byte, &out);
    }
  }
  return out;
}

bool NeedsTerminalEscape(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) return true;
  }
  return false;
}

}  // namespace memwal
