// Names and formatting for Status (base/status.h).
#include "base/status.h"

namespace memwal {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "Ok";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kIoError:
      return "IoError";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
  }
  MEMWAL_ASSERT(false && "StatusCode out of range");
  return "";
}

Status::Status(StatusCode code, std::string_view message)
    : code_(code), message_(message) {
  MEMWAL_ASSERT(code != StatusCode::kOk);
}

std::string Status::ToString() const {
  std::string text(StatusCodeName(code_));
  if (!message_.empty()) {
    text += ": ";
    text += message_;
  }
  return text;
}

}  // namespace memwal
