// The trace reader (checker/report/trace_reader.h): a SAX handler that builds the
// document outside "steps" as JSON values, refusing duplicate keys and deep
// nesting, and turns each element of the top-level "steps" array into a
// model::Action as soon as it closes.
#include "checker/report/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "base/input_file.h"
#include "base/output_file.h"
#include "checker/engine/liveness.h"
#include "checker/lockstep/refinement.h"
#include "model/config.h"
#include "model/invariants.h"

namespace memwal::checker::report {
namespace {

using nlohmann::json;

Status Bad(std::string_view message) {
  return Status::InvalidArgument(message);
}

class TraceSax {
 public:
  bool null() { return Scalar(json(nullptr)); }
  bool boolean(bool value) { return Scalar(json(value)); }
  bool number_integer(json::number_integer_t value) {
    return Scalar(json(value));
  }
  bool number_unsigned(json::number_unsigned_t value) {
    return Scalar(json(value));
  }
  bool number_float(json::number_float_t value, const std::string&) {
    return Scalar(json(value));
  }
  bool string(std::string& value) { return Scalar(json(std::move(value))); }
  bool binary(json::binary_t&) { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return Open(json::object()); }
  bool start_array(std::size_t) { return Open(json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(std::string& name) {
    json* object = stack_.back();
    MEMWAL_ASSERT(object->is_object());
    if (object->contains(name))
      return Fail("duplicate key \"" + name + "\" (corrupt trace file)");
    if (stack_.size() == 1) steps_key_ = name == "steps";
    slot_ = &(*object)[name];
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const json::exception&) {
    return Fail("not valid JSON at byte " + std::to_string(position) +
                " (corrupt trace file)");
  }

  const Status& error() const { return error_; }
  json& root() { return root_; }
  std::vector<model::Action>& steps() { return steps_; }

 private:
  bool Fail(std::string message) {
    if (error_.ok()) error_ = Bad(message);
    return false;
  }
  bool InStep() const { return in_steps_ && stack_.size() >= 2; }

  // Puts `value` where the parser is: the root, the next array element, the
  // pending object key, or (a direct element of "steps") step_.
  json* Place(json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    const bool step_root = in_steps_ && stack_.size() == 2;
    std::size_t& count = InStep() ? step_values_ : other_values_;
    if (step_root) count = 0;
    const std::size_t max = InStep() ? kStepValuesMax : kOtherValuesMax;
    if (++count > max) {
      Fail(InStep()
               ? "step " + std::to_string(steps_.size() + 1) +
                     " holds more than " + std::to_string(max) + " JSON values"
               : "more than " + std::to_string(max) +
                     " JSON values outside the steps");
      return nullptr;
    }
    if (step_root) {
      step_ = std::move(value);
      return &step_;
    }
    json* top = stack_.back();
    if (top->is_array()) {
      top->push_back(std::move(value));
      return &top->back();
    }
    MEMWAL_ASSERT(slot_ != nullptr);
    *slot_ = std::move(value);
    return std::exchange(slot_, nullptr);
  }

  bool Scalar(json value) {
    json* placed = Place(std::move(value));
    if (placed == nullptr) return false;
    return placed == &step_ ? FinishStep() : true;
  }

  bool Open(json value) {
    if (stack_.size() >= static_cast<std::size_t>(kTraceDepthMax))
      return Fail("nested deeper than " + std::to_string(kTraceDepthMax) +
                  " levels");
    const bool steps = stack_.size() == 1 && steps_key_ && value.is_array();
    json* placed = Place(std::move(value));
    if (placed == nullptr) return false;
    if (steps) in_steps_ = true;
    stack_.push_back(placed);
    return true;
  }

  bool Close() {
    MEMWAL_ASSERT(!stack_.empty());
    const json* closed = stack_.back();
    stack_.pop_back();
    if (in_steps_ && stack_.size() == 1) in_steps_ = false;
    if (in_steps_ && closed == &step_) return FinishStep();
    return true;
  }

  bool FinishStep() {
    const std::string where = "step " + std::to_string(steps_.size() + 1);
    if (steps_.size() >= kTraceStepsMax)
      return Fail("more than " + std::to_string(kTraceStepsMax) + " steps");
    if (!step_.is_object() || step_.size() != 1 || !step_.contains("action"))
      return Fail(where + ": a step must be {\"action\": ...}");
    Result<model::Action> action = model::ActionFromJson(step_["action"]);
    if (!action.ok()) return Fail(where + ": " + action.status().message());
    steps_.push_back(*action);
    step_ = json();
    MEMWAL_ASSERT(steps_.size() <= kTraceStepsMax);
    return true;
  }

  json root_;
  json step_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;
  bool steps_key_ = false;
  bool in_steps_ = false;
  std::size_t step_values_ = 0;
  std::size_t other_values_ = 0;
  std::vector<model::Action> steps_;
  Status error_;
};

Status CheckVersion(const json& document) {
  if (!document.is_object())
    return Bad("not a JSON object (corrupt trace file)");
  const auto format = document.find("format");
  if (format == document.end() || !format->is_string())
    return Bad("not a memwal-check trace (no \"format\" string)");
  if (format->get<std::string>() != kTraceFormat) {
    return Bad("not a memwal-check trace (format \"" +
               format->get<std::string>() + "\")");
  }
  const auto version = document.find("version");
  if (version == document.end()) return Bad("trace has no version");
  if (!version->is_number_unsigned()) {
    return Bad(std::string("trace field 'version' must be an integer, not ") +
               version->type_name() + " " + version->dump());
  }
  if (version->get<uint64_t>() != kLockstepTraceVersion) {
    return Bad("unsupported trace version " +
               std::to_string(version->get<uint64_t>()) +
               " (this memwal-check reads version " +
               std::to_string(kLockstepTraceVersion) + ")");
  }
  return Status::Ok();
}

// The keys version 2 adds to version 1 (checker/cli/check.h), taken out
// of `document`.
Status TakeLockstepFields(json* document, LockstepTrace* out) {
  const auto lockstep = document->find("lockstep");
  if (lockstep == document->end() || !lockstep->is_boolean())
    return Bad("trace field 'lockstep' is missing or not a boolean");
  out->lockstep = lockstep->get<bool>();
  const auto bugs = document->find("impl_bugs");
  if (bugs == document->end() || !bugs->is_array())
    return Bad("trace field 'impl_bugs' is missing or not a list");
  for (const json& name : *bugs) {
    if (!name.is_string()) return Bad("trace impl_bugs holds a non-string");
    MEMWAL_ASSIGN_OR_RETURN(const model::Bug bug,
                            model::ParseBug(name.get<std::string>()));
    out->impl_only_bugs |= model::BugBit(bug);
  }
  const auto step = document->find("step");
  const auto detail = document->find("detail");
  const auto state = document->find("implementation_state");
  if (step == document->end() || !step->is_number_unsigned() ||
      detail == document->end() || !detail->is_string() ||
      state == document->end() || !state->is_string()) {
    return Bad(
        "trace fields 'step', 'detail' or 'implementation_state' are missing "
        "or mistyped");
  }
  out->step = step->get<uint64_t>();
  out->detail = std::move(detail->get_ref<std::string&>());
  out->implementation_state = std::move(state->get_ref<std::string&>());
  for (const char* key :
       {"lockstep", "impl_bugs", "step", "detail", "implementation_state"})
    document->erase(key);
  return Status::Ok();
}

// Whether `name` is what a counterexample of this tool can be about: empty (a
// corpus entry), a model invariant, a goal, the liveness property, or one of
// lockstep's own findings. Anything else in a trace is refused, not echoed.
bool IsFindingName(std::string_view name) {
  if (name.empty() || name == lockstep::kImplementationMatchesModel ||
      name == lockstep::kPublishedVersionsLoad || name == engine::kLivenessName)
    return true;
  for (const model::Invariant& invariant : model::AllInvariants()) {
    if (invariant.name == name) return true;
  }
  for (const model::Goal& goal : model::AllGoals()) {
    if (goal.name == name) return true;
  }
  return false;
}

Result<LockstepTrace> FromParsed(TraceSax* sax) {
  json& document = sax->root();
  MEMWAL_RETURN_IF_ERROR(CheckVersion(document));
  LockstepTrace out;
  MEMWAL_RETURN_IF_ERROR(TakeLockstepFields(&document, &out));
  // The rest is version 1's strict format (checker/report/trace.h), with the steps
  // already read.
  document["version"] = static_cast<uint64_t>(kTraceVersion);
  MEMWAL_ASSIGN_OR_RETURN(out.trace, TraceFromJson(document));
  if (!IsFindingName(out.trace.invariant)) {
    return Bad("trace field 'invariant' names nothing this tool checks (\"" +
               Escaped(out.trace.invariant, 80) + "\")");
  }
  MEMWAL_ASSERT(out.trace.steps.empty());
  out.trace.steps = std::move(sax->steps());
  if (out.trace.loop && *out.trace.loop > out.trace.steps.size()) {
    return Bad("trace field 'loop' is " + std::to_string(*out.trace.loop) +
               ", not one of the " + std::to_string(out.trace.steps.size()) +
               " steps");
  }
  if (out.step > out.trace.steps.size()) {
    return Bad("trace field 'step' is " + std::to_string(out.step) +
               ", past the last of " + std::to_string(out.trace.steps.size()) +
               " steps");
  }
  return out;
}

// `status` with its message made one line and free of escape sequences.
Status Cleaned(const Status& status) {
  if (status.ok()) return status;
  // Escaped once: a message from base/input_file.h names its path escaped.
  const std::string message = NeedsTerminalEscape(status.message())
                                  ? Escaped(status.message(), 400)
                                  : status.message();
  if (status.code() == StatusCode::kNotFound) return Status::NotFound(message);
  return Status::InvalidArgument(message);
}

template <typename Input>
Result<LockstepTrace> Parse(Input&& input) {
  TraceSax sax;
  const bool parsed = json::sax_parse(std::forward<Input>(input), &sax,
                                      json::input_format_t::json, true);
  if (!parsed) {
    if (!sax.error().ok()) return sax.error();
    return Bad("not valid JSON (corrupt trace file)");
  }
  return FromParsed(&sax);
}

}  // namespace

Result<LockstepTrace> ReadTraceFile(const std::string& path) {
  Result<int> fd = OpenInputFile(path, kTraceFileBytesMax);
  if (!fd.ok()) return Cleaned(fd.status());
  std::FILE* file = ::fdopen(*fd, "rb");
  if (file == nullptr) {
    ::close(*fd);
    return Cleaned(Status::IoError("cannot read " + path));
  }
  Result<LockstepTrace> trace = Parse(file);
  const bool read_error = std::ferror(file) != 0;
  std::fclose(file);
  if (read_error) return Cleaned(Bad("cannot read " + path));
  if (!trace.ok()) return Cleaned(Bad(path + ": " + trace.status().message()));
  return trace;
}

Result<LockstepTrace> ReadTraceText(std::string_view text) {
  Result<LockstepTrace> trace = Parse(text);
  if (!trace.ok()) return Cleaned(trace.status());
  return trace;
}

}  // namespace memwal::checker::report
