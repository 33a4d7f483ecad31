#include "base/json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace faultline {
namespace {

// The length of the well-formed UTF-8 sequence at the start of `text` (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or 0.
size_t utf8_sequence_length(std::string_view text) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if ((byte(k) & 0xc0) != 0x80) return 0;
  }
  return length;
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view text) {
  out += '"';
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else if (c >= 0x80) {
          // Pass valid UTF-8 through; replace anything else so the output stays valid JSON.
          if (size_t length = utf8_sequence_length(text.substr(i))) {
            out.append(text.substr(i, length));
            i += length - 1;
          } else {
            out += "\\ufffd";
          }
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void JsonWriter::newline() {
  if (!pretty_) return;
  if (inline_depth_ > 0) {
    out_ += ' ';
    return;
  }
  out_ += '\n';
  out_.append(has_items_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_items_.empty()) return;
  bool first = !has_items_.back();
  if (!first) out_ += ',';
  has_items_.back() = true;
  if (!first || inline_depth_ == 0) newline();
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  bool had_items = has_items_.back();
  has_items_.pop_back();
  if (inline_depth_ > 0) {
    --inline_depth_;
  } else if (had_items) {
    newline();
  }
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::begin_inline_array() {
  before_value();
  out_ += '[';
  has_items_.push_back(false);
  ++inline_depth_;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  return close('}');
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  return close(']');
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  append_json_escaped(out_, name);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  append_json_escaped(out_, text);
  return *this;
}

JsonWriter& JsonWriter::number(int64_t value) {
  before_value();
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  before_value();
  if (!std::isfinite(value)) {
    out_ += "null";
    return *this;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  out_ += buffer;
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::value(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return number(*i);
  if (auto* s = std::get_if<std::string>(&v)) return string(*s);
  begin_inline_array();
  if (auto* list = std::get_if<IntList>(&v)) {
    for (auto item : *list) number(item);
  } else {
    for (const auto& item : std::get<StringList>(v)) string(item);
  }
  return end_array();
}

}  // namespace faultline
