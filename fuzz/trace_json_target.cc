// Fuzz target: our JSON trace reader (checker/report/trace.h version 1 and
// checker/cli/check.h version 2). Accepted traces must re-encode to text
// that reads back to the same trace.
#include "checker/report/trace.h"
#include "checker/report/trace_reader.h"
#include "fuzz/decoder_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memwal;
  const std::string_view text = fuzz::Bytes(data, size);
  if (const auto trace = checker::report::ParseTrace(text); trace.ok()) {
    const auto again = checker::report::ParseTrace(
        checker::report::TraceToJson(*trace).dump());
    fuzz::Require(again.ok(), "a v1 trace does not read back");
    fuzz::Require(
        again->steps == trace->steps && again->config == trace->config,
        "a v1 trace reads back different");
  }
  if (const auto trace = checker::report::ReadTraceText(text); trace.ok()) {
    const auto again = checker::report::ReadTraceText(
        checker::report::LockstepTraceText(*trace));
    fuzz::Require(again.ok(), "a v2 trace does not read back");
    fuzz::Require(again->trace.steps == trace->trace.steps &&
                      again->impl_only_bugs == trace->impl_only_bugs,
                  "a v2 trace reads back different");
  }
  return 0;
}
