// The one way the tool parses JSON it did not just write itself (variants
// rows, ITF traces, version hints, bench reports): a document with a key twice
// in one object is refused, as the trace reader (checker/report/trace_reader.h)
// refuses it, instead of the last one silently winning; so is one nested
// deeper than kJsonDepthMax. No exception leaves it.
//
// Thread-safety: a pure function.
#ifndef MEMWAL_BASE_JSON_INPUT_H_
#define MEMWAL_BASE_JSON_INPUT_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "base/status.h"

namespace memwal {

inline constexpr std::size_t kJsonDepthMax = 64;

// InvalidArgument, one line: "not valid JSON", "duplicate key \"K\"" (the key
// escaped), "nested deeper than 64 levels".
Result<nlohmann::json> ParseJsonInput(std::string_view text);

}  // namespace memwal

#endif  // MEMWAL_BASE_JSON_INPUT_H_
