// Status and Result: expected failures as values (style.md, convention 3).
// A Status is either ok or carries one message that already names where the problem is
// ("logs/rank3.log: gzip stream truncated at byte 1048576").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace faultline {

class Status {
 public:
  Status() = default;
  static Status ok() { return {}; }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool is_ok() const { return !message_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const std::string& message() const;

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

// A value or the Status explaining why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : state_(std::move(status)) {}  // NOLINT: implicit by design

  bool is_ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return is_ok(); }
  T& value() { return std::get<T>(state_); }
  const T& value() const { return std::get<T>(state_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const { return std::get<Status>(state_); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace faultline
