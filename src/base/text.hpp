// Small string helpers shared by every stage. Nothing here allocates unless it returns a
// std::string.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_space(char c) {
  return c == ' ' || c == '\t';
}
inline bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool is_word(char c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}
inline bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// `bytes` as the initialiser of a C++ char array ('\x..', 24 a line), for the build tools that
// write generated sources (faultline-packc, faultline-screenc).
std::string char_array_initialiser(std::string_view bytes);

std::string_view trim(std::string_view text);
std::string_view trim_left(std::string_view text);
std::string_view trim_right(std::string_view text);

// Parses a run of decimal digits at the start of `text`; advances `text` past them.
std::optional<int64_t> take_integer(std::string_view& text);
// The whole of `text` as a decimal integer, or nothing.
std::optional<int64_t> parse_integer(std::string_view text);

bool starts_with_word(std::string_view text, std::string_view word);

// Substring search with memmem: much faster than string_view::find for a needle whose first
// byte is common (a space), which find() would stop at again and again.
size_t find_text(std::string_view text, std::string_view needle);

// The number of NUL bytes `text` starts with (a zeroed file tail is read eight bytes at a time).
size_t leading_nuls(std::string_view text);

// "0-2,4-7" for {0,1,2,4,5,6,7}.
std::string format_ranges(const std::vector<int>& sorted_values);

// "rank 3", "ranks 0-2,4-7" (sorted ranks), or `none` when there are none.
std::string ranks_phrase(const std::vector<int>& sorted_ranks, std::string_view none);

std::string join(const std::vector<std::string>& parts, std::string_view separator);

// 64-bit FNV-1a: the same on every machine, compiler and run (shards, fingerprints, dedupe).
uint64_t fnv1a(std::string_view text);

// A small file whole (a config, a rule pack); the error names the path and says why.
struct FileText {
  bool ok = false;
  std::string text;  // the contents, or the error "path: No such file or directory"
};
FileText read_small_file(const std::string& path);

}  // namespace faultline
