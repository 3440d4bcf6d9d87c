// Status and Result<T>: how expected failures travel (expected failures are
// values, never exceptions).
//
// A Status is OK or one of a small set of error codes with a message. Result<T>
// holds either a T or a non-OK Status. Both are [[nodiscard]]. Project code
// never throws: bad input and I/O errors come back as one of these, bugs hit
// MEMWAL_ASSERT (base/assert.h), and protocol outcomes (a commit refused by the
// conflict rules, say) are ordinary values.
//
// Namespace: base vocabulary lives in namespace memwal itself (memwal::Status,
// memwal::Result), not memwal::base, so that code in memwal::model,
// memwal::impl and memwal::checker writes plain Status.
//
// Thread-safety: values; distinct objects may be used from distinct threads.
#ifndef MEMWAL_BASE_STATUS_H_
#define MEMWAL_BASE_STATUS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "base/assert.h"

namespace memwal {

enum class StatusCode : uint8_t {
  kOk,
  kInvalidArgument,  // The caller passed something malformed (bad flag, bad
                     // trace).
  kNotFound,         // A named thing (file, version, index) does not exist.
  kCorruption,       // Stored bytes do not decode, or decode to something
                     // impossible.
  kIoError,          // The operating system or object store failed.
  kConflict,  // A concurrent commit won; the caller may rebase and retry.
  kFailedPrecondition,  // The system is not in a state where the operation is
                        // allowed.
  kAlreadyExists,       // A put-if-absent found the name taken.
};

// The code's name as written in this file without the k: "Ok",
// "InvalidArgument", ...
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // An OK status.
  Status() = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string_view message) {
    return Status(StatusCode::kInvalidArgument, message);
  }
  static Status NotFound(std::string_view message) {
    return Status(StatusCode::kNotFound, message);
  }
  static Status Corruption(std::string_view message) {
    return Status(StatusCode::kCorruption, message);
  }
  static Status IoError(std::string_view message) {
    return Status(StatusCode::kIoError, message);
  }
  static Status Conflict(std::string_view message) {
    return Status(StatusCode::kConflict, message);
  }
  static Status FailedPrecondition(std::string_view message) {
    return Status(StatusCode::kFailedPrecondition, message);
  }
  static Status AlreadyExists(std::string_view message) {
    return Status(StatusCode::kAlreadyExists, message);
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // Empty for an OK status.
  const std::string& message() const { return message_; }

  // "Ok" for an OK status, else "<CodeName>: <message>" (just "<CodeName>" if
  // the message is empty), e.g. "NotFound: version 7".
  std::string ToString() const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  // REQUIRES: code != kOk.
  Status(StatusCode code, std::string_view message);

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class Result;

namespace internal {

// A U that a Result<T> may be built from as its value: it converts to T, and it
// is neither a Status (that is the error constructor) nor a Result<T> (copy).
template <typename U, typename T>
concept ResultValueFor = std::is_convertible_v<U&&, T> &&
                         !std::is_same_v<std::remove_cvref_t<U>, Status> &&
                         !std::is_same_v<std::remove_cvref_t<U>, Result<T>>;

}  // namespace internal

// Either a T or a non-OK Status. Converts implicitly from both, so a function
// returning Result<T> may `return value;` or `return Status::NotFound(...);`.
template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Status>,
                "use Status, not Result<Status>");
  static_assert(!std::is_reference_v<T>, "Result holds values");

 public:
  template <internal::ResultValueFor<T> U = T>
  Result(U&& value)
      : state_(std::in_place_index<kValue>, std::forward<U>(value)) {}

  // REQUIRES: !status.ok(). An OK status carries no T to hold.
  Result(Status status)
      : state_(std::in_place_index<kError>, std::move(status)) {
    MEMWAL_ASSERT(!std::get<kError>(state_).ok());
  }

  bool ok() const { return state_.index() == kValue; }

  // OK when a value is held.
  const Status& status() const& {
    return ok() ? OkStatus() : std::get<kError>(state_);
  }
  Status status() && {
    return ok() ? Status() : std::get<kError>(std::move(state_));
  }

  // REQUIRES: ok(). Asserted, in every build type.
  const T& value() const& {
    MEMWAL_ASSERT(ok());
    return std::get<kValue>(state_);
  }
  T& value() & {
    MEMWAL_ASSERT(ok());
    return std::get<kValue>(state_);
  }
  T&& value() && {
    MEMWAL_ASSERT(ok());
    return std::get<kValue>(std::move(state_));
  }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  static constexpr std::size_t kValue = 0;
  static constexpr std::size_t kError = 1;

  static const Status& OkStatus() {
    static const Status ok;
    return ok;
  }

  std::variant<T, Status> state_;
};

}  // namespace memwal

// Evaluates `expr` (a Status); if it is not OK, returns it from the enclosing
// function, which must return Status or some Result<U>.
#define MEMWAL_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::memwal::Status memwal_status_ = (expr);        \
    if (!memwal_status_.ok()) return memwal_status_; \
  } while (false)

// Evaluates `expr` (a Result<T>); if it holds an error, returns that Status
// from the enclosing function, else moves the value into `lhs`, which may be a
// declaration:
//   MEMWAL_ASSIGN_OR_RETURN(const Manifest manifest, ReadManifest(version));
// At most one use per line. A type with a top-level comma needs an alias first.
#define MEMWAL_ASSIGN_OR_RETURN(lhs, expr) \
  MEMWAL_ASSIGN_OR_RETURN_IMPL_(           \
      MEMWAL_STATUS_CONCAT_(memwal_result_, __LINE__), lhs, expr)

#define MEMWAL_ASSIGN_OR_RETURN_IMPL_(result, lhs, expr) \
  auto result = (expr);                                  \
  if (!result.ok()) return std::move(result).status();   \
  lhs = std::move(result).value()

#define MEMWAL_STATUS_CONCAT_INNER_(a, b) a##b
#define MEMWAL_STATUS_CONCAT_(a, b) MEMWAL_STATUS_CONCAT_INNER_(a, b)

#endif  // MEMWAL_BASE_STATUS_H_
