// Renderers of a TableReport: plain text for people, JSON for machines and for
// the tests that compare inspect with LanceDB's own view of a table
// (tests/inspect/). Both are deterministic: every list is in file, version or
// name order.
#ifndef MEMWAL_INSPECT_RENDER_H_
#define MEMWAL_INSPECT_RENDER_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "inspect/report.h"

namespace memwal::inspect {

nlohmann::json ReportToJson(const TableReport& report);
void RenderJson(const TableReport& report, std::ostream& out);
void RenderText(const TableReport& report, std::ostream& out);

// "2026-11-29T15:23:43.696Z" (UTC, milliseconds) of a manifest timestamp; empty
// if none.
std::string TimestampText(const Manifest& manifest);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_RENDER_H_
