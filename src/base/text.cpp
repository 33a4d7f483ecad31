#include "base/text.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace faultline {

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && (is_space(text.front()) || text.front() == '\r' || text.front() == '\n')) {
    text.remove_prefix(1);
  }
  return text;
}

std::string_view trim_right(std::string_view text) {
  while (!text.empty() && (is_space(text.back()) || text.back() == '\r' || text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string_view trim(std::string_view text) {
  return trim_right(trim_left(text));
}

std::optional<int64_t> take_integer(std::string_view& text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() || text.front() == '-') return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

std::optional<int64_t> parse_integer(std::string_view text) {
  auto value = take_integer(text);
  if (!value || !text.empty()) return std::nullopt;
  return value;
}

bool starts_with_word(std::string_view text, std::string_view word) {
  return text.starts_with(word) && (text.size() == word.size() || !is_word(text[word.size()]));
}

size_t find_text(std::string_view text, std::string_view needle) {
  if (needle.empty()) return 0;
  if (text.size() < needle.size()) return std::string_view::npos;  // memmem must not see a null view
  const void* hit = ::memmem(text.data(), text.size(), needle.data(), needle.size());
  return hit ? static_cast<size_t>(static_cast<const char*>(hit) - text.data()) : std::string_view::npos;
}

FileText read_small_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {false, path + ": " + std::strerror(errno)};
  std::ostringstream text;
  text << file.rdbuf();
  return {true, text.str()};
}

size_t leading_nuls(std::string_view text) {
  size_t i = 0;
  for (uint64_t word; i + 8 <= text.size(); i += 8) {
    std::memcpy(&word, text.data() + i, 8);
    if (word != 0) break;
  }
  while (i < text.size() && text[i] == '\0') ++i;
  return i;
}

std::string format_ranges(const std::vector<int>& sorted_values) {
  std::string out;
  for (size_t i = 0; i < sorted_values.size();) {
    size_t j = i;
    while (j + 1 < sorted_values.size() && sorted_values[j + 1] == sorted_values[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted_values[i]);
    if (j > i) {
      out += (j == i + 1) ? ',' : '-';
      out += std::to_string(sorted_values[j]);
    }
    i = j + 1;
  }
  return out;
}

std::string ranks_phrase(const std::vector<int>& sorted_ranks, std::string_view none) {
  if (sorted_ranks.empty()) return std::string(none);
  return (sorted_ranks.size() == 1 ? "rank " : "ranks ") + format_ranges(sorted_ranks);
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string char_array_initialiser(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 7 + bytes.size() / 4);
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto byte = static_cast<unsigned char>(bytes[i]);
    out += i % 24 == 0 ? "\n    " : " ";
    out += "'\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
    out += "',";
  }
  return out;
}

}  // namespace faultline
