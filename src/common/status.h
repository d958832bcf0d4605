// Status and Result<T>: how fallible calls report errors across module boundaries.
//
// No exceptions cross a module's API. A fallible call returns a Status (ok, or an error
// code with a human-readable message) or a Result<T> holding either a value or an error
// Status. Messages are complete sentences a caller can show as they are (the server puts
// them in its log or, for CONFIG, in Redis's error reply).
//
//   Result<bool> added = index.Add("doc:1", vec, std::nullopt);
//   if (!added.ok()) { return added.status(); }
//   if (*added) { ... newly inserted ... }
//
//   Status st = config.LoadFile(path);
//   if (!st.ok()) { fprintf(stderr, "%s\n", st.message().c_str()); }
//
// Thread safety: Status and Result are plain values; distinct objects may be used from
// different threads freely, one object is not synchronised.
#ifndef HOTKV_COMMON_STATUS_H_
#define HOTKV_COMMON_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hotkv {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // Bad input: wrong dimension, NaN, malformed expression, bad option
  kNotFound,         // The thing asked for does not exist.
  kFailedPrecondition,
  kIoError,          // A system call failed (the message names it and errno's text).
  kInternal,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(StatusCode::kNotFound, std::move(message));
  }
  static Status FailedPrecondition(std::string message) {
    return Status(StatusCode::kFailedPrecondition, std::move(message));
  }
  static Status IoError(std::string message) {
    return Status(StatusCode::kIoError, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a T or an error Status. Accessing the value of an error Result is a bug
// (checked only by the std::optional it wraps in debug builds).
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design.
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design.

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace hotkv

#endif  // HOTKV_COMMON_STATUS_H_
