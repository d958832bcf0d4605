// Status and Result<T>: the error-reporting types of the vector engine.
//
// The engine never throws across its API. Fallible calls return a Status (ok or an
// error code with a human-readable message) or a Result<T> holding either a value or
// an error Status.
//
//   Result<bool> added = index.Add("doc:1", vec, std::nullopt);
//   if (!added.ok()) { return added.status(); }
//   if (*added) { ... newly inserted ... }
//
// Thread safety: Status and Result are plain values; distinct objects may be used from
// different threads freely, one object is not synchronised.
#ifndef HOTKV_VECTOR_STATUS_H_
#define HOTKV_VECTOR_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hotkv::vector {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // Bad input: wrong dimension, NaN, malformed expression, ...
  kNotFound,         // The element does not exist.
  kFailedPrecondition,
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

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_STATUS_H_
