#include "rules/template_match.hpp"

#include <cstring>

#include "base/text.hpp"

namespace faultline::rules {

namespace {

constexpr char template_byte(char c) {
  return c >= '0' && c <= '9' ? '0' : c;
}

// Where `[` at `at` opens a class: returns the index just past its `]` and sets `partial` when
// the class holds some digits but not all. npos when it does not close.
size_t scan_class(std::string_view regex, size_t at, bool& partial, bool& unknown) {
  size_t i = at + 1;
  if (i < regex.size() && regex[i] == '^') ++i;
  bool digits[10] = {};
  bool all = false;
  bool first = true;
  auto mark = [&](char low, char high) {
    for (char c = '0'; c <= '9'; ++c) {
      if (c >= low && c <= high) digits[c - '0'] = true;
    }
  };
  while (i < regex.size()) {
    char c = regex[i];
    if (c == ']' && !first) break;
    first = false;
    if (c == '[' && i + 1 < regex.size() && regex[i + 1] == ':') {  // [:digit:]
      size_t close = regex.find(":]", i + 2);
      if (close == std::string_view::npos) return std::string_view::npos;
      std::string_view name = regex.substr(i + 2, close - i - 2);
      if (name.starts_with('^')) name.remove_prefix(1);  // a negated class: the others, alike
      if (name == "digit" || name == "alnum" || name == "xdigit" || name == "word") all = true;
      i = close + 2;
      continue;
    }
    char low = c;
    if (c == '\\') {
      if (i + 1 >= regex.size()) return std::string_view::npos;
      char escaped = regex[i + 1];
      i += 2;
      if (escaped == 'd' || escaped == 'w') {
        all = true;
        continue;
      }
      if (escaped == 'D' || escaped == 'W' || escaped == 's' || escaped == 'S') continue;
      if (is_digit(escaped) || escaped == 'x' || escaped == 'p' || escaped == 'P' || escaped == 'Q') {
        unknown = true;
        return i;
      }
      low = escaped;
    } else {
      ++i;
    }
    char high = low;
    if (i + 1 < regex.size() && regex[i] == '-' && regex[i + 1] != ']') {
      high = regex[i + 1];
      i += 2;
      if (high == '\\') {
        unknown = true;
        return i;
      }
    }
    mark(low, high);
  }
  if (i >= regex.size()) return std::string_view::npos;
  if (!all) {
    size_t count = 0;
    for (bool digit : digits) count += digit ? 1 : 0;
    partial = count != 0 && count != 10;
  }
  return i + 1;
}

// "{3}", "{2,}", "{1,4}" at `at`: the index past it, or `at` when it is not a repetition.
size_t skip_repetition(std::string_view regex, size_t at) {
  size_t i = at + 1;
  size_t digits = 0;
  while (i < regex.size() && is_digit(regex[i])) ++i, ++digits;
  if (digits == 0) return at;
  if (i < regex.size() && regex[i] == ',') {
    ++i;
    while (i < regex.size() && is_digit(regex[i])) ++i;
  }
  return i < regex.size() && regex[i] == '}' ? i + 1 : at;
}

}  // namespace

bool digit_uniform(std::string_view regex) {
  size_t i = 0;
  while (i < regex.size()) {
    char c = regex[i];
    if (c == '\\') {
      if (i + 1 >= regex.size()) return false;
      char escaped = regex[i + 1];
      if (is_digit(escaped) || escaped == 'x' || escaped == 'p' || escaped == 'P' || escaped == 'Q' ||
          escaped == 'C')
        return false;
      i += 2;
    } else if (c == '[') {
      bool partial = false, unknown = false;
      size_t next = scan_class(regex, i, partial, unknown);
      if (next == std::string_view::npos || partial || unknown) return false;
      i = next;
    } else if (c == '{') {
      size_t next = skip_repetition(regex, i);
      i = next == i ? i + 1 : next;  // a literal brace
    } else if (c == '(' && regex.substr(i).starts_with("(?P<")) {
      size_t close = regex.find('>', i);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    } else if (c == '(' && regex.substr(i).starts_with("(?<") && !regex.substr(i).starts_with("(?<=") &&
               !regex.substr(i).starts_with("(?<!")) {
      size_t close = regex.find('>', i);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    } else if (is_digit(c)) {
      return false;
    } else {
      ++i;
    }
  }
  return true;
}

// The template of the text the engine runs its patterns on, made once for all of them: a line is
// tried by many patterns in a row. The text is compared, not trusted by its address: a buffer
// refilled in place may hold another line of the same length.
const TemplateCache::Prepared& TemplateCache::prepare(std::string_view text) {
  if (text.size() == prepared_.source.size() &&
      std::memcmp(text.data(), prepared_.source.data(), text.size()) == 0)
    return prepared_;
  prepared_.source.assign(text.data(), text.size());
  prepared_.text.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) prepared_.text[i] = template_byte(text[i]);
  // Eight bytes at a step: the slot is only a hint, the template is compared whole.
  uint64_t hash = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, prepared_.text.data() + i, 8);
    hash = (hash ^ word) * 0x9e3779b97f4a7c15ull;
    hash ^= hash >> 32;
  }
  for (; i < text.size(); ++i)
    hash = (hash ^ static_cast<unsigned char>(prepared_.text[i])) * 1099511628211ull;
  prepared_.hash = hash ^ text.size();
  return prepared_;
}

uint64_t TemplateCache::slot_hash(uint64_t pattern, uint64_t text_hash) {
  uint64_t hash = (text_hash ^ pattern * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
  return hash ^ (hash >> 29);
}

const TemplateCache::Result* TemplateCache::find(uint64_t pattern, std::string_view text) {
  if (text.size() > kMaxText) return nullptr;
  const Prepared& prepared = prepare(text);
  uint64_t hash = slot_hash(pattern, prepared.hash);
  const Entry& entry = slots_[hash & (kSlots - 1)];
  if (entry.pattern != pattern || entry.hash != hash || entry.text != prepared.text) return nullptr;
  return &entry.result;
}

void TemplateCache::store(uint64_t pattern, std::string_view text, Result result) {
  if (text.size() > kMaxText) return;
  const Prepared& prepared = prepare(text);
  uint64_t hash = slot_hash(pattern, prepared.hash);
  Entry& entry = slots_[hash & (kSlots - 1)];
  entry.pattern = pattern;
  entry.hash = hash;
  entry.text = prepared.text;
  entry.result = std::move(result);
}

}  // namespace faultline::rules
