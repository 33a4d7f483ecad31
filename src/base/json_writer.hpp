// JsonWriter: a streaming JSON writer with correct string escaping. It writes to a
// std::string; the caller decides where the text goes. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/value.hpp"

namespace faultline {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  // An array of scalars on one line: "[0, 1, 2]".
  JsonWriter& begin_inline_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& string(std::string_view text);
  JsonWriter& number(int64_t value);
  JsonWriter& number(double value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();
  JsonWriter& value(const Value& value);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void before_value();
  JsonWriter& close(char bracket);
  void newline();

  std::string out_;
  std::vector<bool> has_items_;  // one entry per open container
  int inline_depth_ = 0;         // > 0 inside an inline array
  bool pretty_;
  bool after_key_ = false;
};

void append_json_escaped(std::string& out, std::string_view text);

}  // namespace faultline
