// The one escaper: every untrusted string (a trace's names and details, a
// file name, a flag's value, a table's contents) passes through Escaped on its
// way to a terminal, an HTML page or a JUnit XML file. There is no other.
//
//   kTerminal  one line: every control byte (newline, tab, ESC, DEL), and every
//              byte >= 0x80, becomes \xNN and a backslash becomes \\, so the
//              text can neither move the cursor nor fake a second line; past
//              `max_bytes` it is cut and marked with "...".
//   kMarkup    HTML and XML text or attribute values: & < > " ' become
//              entities; newline and tab stay (a <pre> or a JUnit failure
//              body is multi-line); every other control byte, a C1 control
//              (U+0080..U+009F) and every byte that is not part of valid
//              UTF-8 becomes the visible text \xNN (XML 1.0 forbids the
//              control bytes; a page shows that something was there); valid
//              UTF-8 stays. No length limit unless `max_bytes` is given.
//
// Thread-safety: a pure function.
#ifndef MEMWAL_BASE_ESCAPE_H_
#define MEMWAL_BASE_ESCAPE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace memwal {

enum class EscapeFor { kTerminal, kMarkup };

inline constexpr std::size_t kEscapeNoLimit = static_cast<std::size_t>(-1);

std::string Escaped(std::string_view text, EscapeFor target,
                    std::size_t max_bytes);

// For a one-line message on a terminal (cut at 200 bytes unless told).
inline std::string Escaped(std::string_view text, std::size_t max_bytes = 200) {
  return Escaped(text, EscapeFor::kTerminal, max_bytes);
}

// For HTML and XML (no limit).
inline std::string MarkupEscaped(std::string_view text) {
  return Escaped(text, EscapeFor::kMarkup, kEscapeNoLimit);
}

// Whether Escaped(text, kTerminal) would change anything but the length: a
// control byte or a byte >= 0x80 (a backslash alone does not count, so text
// already escaped is clean).
bool NeedsTerminalEscape(std::string_view text);

}  // namespace memwal

#endif  // MEMWAL_BASE_ESCAPE_H_
