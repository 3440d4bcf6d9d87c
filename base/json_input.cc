// The JSON input parser (base/json_input.h).
#include "base/json_input.h"

#include <set>
#include <string>
#include <vector>

#include "base/escape.h"

namespace memwal {

Result<nlohmann::json> ParseJsonInput(std::string_view text) {
  using json = nlohmann::json;
  // The keys met so far in each object being parsed, innermost last.
  std::vector<std::set<std::string>> keys;
  std::string problem;
  const json::parser_callback_t check =
      [&](int depth, json::parse_event_t event, json& parsed) {
        if (!problem.empty()) return false;
        if (static_cast<std::size_t>(depth) > kJsonDepthMax) {
          problem =
              "nested deeper than " + std::to_string(kJsonDepthMax) + " levels";
          return false;
        }
        switch (event) {
          case json::parse_event_t::object_start:
            keys.emplace_back();
            break;
          case json::parse_event_t::object_end:
            if (!keys.empty()) keys.pop_back();
            break;
          case json::parse_event_t::key:
            if (!keys.empty() &&
                !keys.back().insert(parsed.get<std::string>()).second) {
              problem = "duplicate key \"" +
                        Escaped(parsed.get<std::string>(), 80) + "\"";
              return false;
            }
            break;
          default:
            break;
        }
        return true;
      };
  json document = json::parse(text.begin(), text.end(), check,
                              /*allow_exceptions=*/false);
  if (!problem.empty()) return Status::InvalidArgument(problem);
  if (document.is_discarded()) return Status::InvalidArgument("not valid JSON");
  return document;
}

}  // namespace memwal
