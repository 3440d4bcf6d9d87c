// Counterexample files: our versioned JSON trace (replayable) and ITF, the
// trace format of Apalache and Quint.
//
// Our format:
//   {"format":"memwal-check-trace","version":1,
//    "config":{"protocol":"derived","read":"strict","gc":"atomic","bugs":[...],
//              "bounds":{"shards":1,"generations":2,"fragments":3,"indexes":1,"commits":5,
//                        "inflight":2}},
//    "seed":0,"invariant":"ReadsMissNoRows","steps":[{"action":{"kind":"Append"}},...]}
// A lasso (a liveness counterexample, spec R72) adds "loop": the steps from
// index loop on form the cycle (loop == the number of steps: the last state
// stutters forever, no weakly fair action enabled in it), which returns to the
// state after `loop` steps and "window" when it has one: the steps from index
// window on run in the liveness continuation on folded states (spec R70,
// model/window.h). Reading is strict: anything missing, extra, mistyped or from
// another format version is an InvalidArgument with a one-line message; nothing
// throws.
#ifndef MEMWAL_CHECKER_REPORT_TRACE_H_
#define MEMWAL_CHECKER_REPORT_TRACE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::report {

inline constexpr std::string_view kTraceFormat = "memwal-check-trace";
inline constexpr int kTraceVersion = 1;

struct Trace {
  model::Config config;
  uint64_t seed = 0;
  std::string invariant{};
  std::vector<model::Action> steps{};
  std::optional<uint64_t> loop{};    // a lasso: steps[loop, end) is the cycle
  std::optional<uint64_t> window{};  // a lasso: steps[window, end) windowed
};

nlohmann::json ConfigToJson(const model::Config& config);
Result<model::Config> ConfigFromJson(const nlohmann::json& json);

nlohmann::json TraceToJson(const Trace& trace);
Result<Trace> TraceFromJson(const nlohmann::json& json);
// Parses the text of a trace file (never throws).
Result<Trace> ParseTrace(std::string_view text);

// The ITF document for `states` (Init first) reached by `trace` (states.size()
// == trace.size() + 1). Each ITF state holds the model state's fields (see
// trace.cc for the encoding) plus "mbt::actionTaken" and "mbt::nondetPicks" for
// the step that led to it. A lasso sets ITF's top-level "loop": the index of
// the state the last state returns to (its successor by the first cycle step).
nlohmann::json ToItf(const model::Config& config, std::string_view invariant,
                     const std::vector<model::Action>& trace,
                     const std::vector<model::State>& states,
                     std::optional<std::size_t> loop = std::nullopt);

// Trace files of format version 2: version 1's keys plus "lockstep" (whether
// the run drove the implementation), "impl_bugs" (bugs switched on in the
// implementation only), "step" (the step whose state breaks the invariant),
// "detail" (the differences, implementation vs model) and
// "implementation_state" (the implementation at that step, in model terms).
// Version 2 is written; ReadTraceText (trace_reader.h) reads it and refuses
// any other version.
inline constexpr int kLockstepTraceVersion = 2;

struct LockstepTrace {
  Trace trace{};
  bool lockstep = true;
  uint32_t impl_only_bugs = 0;  // model::BugBit values
  uint64_t step = 0;
  std::string detail{};
  std::string implementation_state{};
};
std::string LockstepTraceText(const LockstepTrace& trace);

// The names of the bugs in `bugs` (model::BugBit values), in table order.
nlohmann::json BugNames(uint32_t bugs);

// Writes `contents` to `path` with the one output writer
// (base/output_file.h): a reader never sees a half-written file, and a `path`
// that is not a regular file (FIFO, device, symlink) is refused, unchanged.
Status WriteFileAtomically(const std::string& path, std::string_view contents);
Result<std::string> ReadFile(const std::string& path);

}  // namespace memwal::checker::report

#endif  // MEMWAL_CHECKER_REPORT_TRACE_H_
