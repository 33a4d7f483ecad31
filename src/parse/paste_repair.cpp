#include "parse/paste_repair.hpp"

#include <cstring>

#include "base/text.hpp"
#include "parse/prefix_scanner.hpp"

namespace faultline::parse {
namespace {

using std::string_view;

constexpr string_view kTerminate = "terminate called after throwing an instance of '";
constexpr size_t kMaxPieces = 4096;
// Two records of a timestamped log are longer than this; one line of it seldom is.
constexpr size_t kMinJoinedRecords = 120;

// "[rank12]:" at text[at].
bool rank_prefix_at(string_view text, size_t at) {
  string_view rest = text.substr(at);
  if (!rest.starts_with("[rank")) return false;
  rest.remove_prefix(5);
  return take_integer(rest) && rest.starts_with("]:");
}

// "2025-10-31 03:11:02": a date, then its time, as a log record starts.
bool starts_with_date(string_view text) {
  return text.size() >= 19 && is_digit(text[0]) && is_digit(text[1]) && is_digit(text[2]) &&
         is_digit(text[3]) && (text[4] == '-' || text[4] == '/') && is_digit(text[5]) && is_digit(text[6]) &&
         text[7] == text[4] && is_digit(text[8]) && is_digit(text[9]);
}

// Whether text[at] starts a record stamped as `text` is at its start: the same characters, or a
// digit where it has a digit, for the length of a date and time.
bool same_stamp_at(string_view text, size_t at) {
  constexpr size_t kStamp = 19;
  if (at == 0 || !is_space(text[at - 1]) || text.size() - at < kStamp) return false;
  for (size_t i = 0; i < kStamp; ++i) {
    char head = text[i];
    char here = text[at + i];
    if (is_digit(head) ? !is_digit(here) : head != here) return false;
  }
  return true;
}

size_t count_text(string_view text, string_view needle, size_t enough) {
  size_t count = 0;
  for (size_t from = 0; count < enough;) {
    size_t at = find_text(text.substr(from), needle);
    if (at == string_view::npos) break;
    ++count;
    from += at + needle.size();
  }
  return count;
}

// A log flattened into one string: literal "\n" between its lines, and the escapes of a JSON
// or Python string literal ("\"", "\'", "\\", "\t"; "\r" dropped).
void split_escaped(string_view text, std::string& buffer, std::vector<string_view>& pieces) {
  buffer.clear();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      char next = text[i + 1];
      if (next == 'n' || next == '"' || next == '\'' || next == '\\' || next == 't' || next == 'r') {
        ++i;
        if (next == 'n')
          buffer += '\n';
        else if (next == 't')
          buffer += '\t';
        else if (next != 'r')
          buffer += next;
        continue;
      }
    }
    buffer += c;
  }
  string_view all = buffer;
  while (pieces.size() < kMaxPieces) {
    size_t newline = all.find('\n');
    pieces.push_back(all.substr(0, newline));
    if (newline == string_view::npos) return;
    all.remove_prefix(newline + 1);
  }
}

// Splits `text` before each position `at` for which `starts(text, at)` holds.
template <typename Starts>
void split_before(string_view text, string_view marker, Starts starts, std::vector<string_view>& pieces) {
  size_t piece_start = 0;
  size_t from = 1;
  while (pieces.size() + 1 < kMaxPieces) {
    size_t found = find_text(text.substr(from), marker);
    if (found == string_view::npos) break;
    size_t at = from + found;
    if (starts(at)) {
      pieces.push_back(text.substr(piece_start, at - piece_start));
      piece_start = at;
    }
    from = at + 1;
  }
  if (!pieces.empty()) pieces.push_back(text.substr(piece_start));
}

bool is_exception_start(string_view text) {
  size_t colon = text.find(": ");
  if (colon == string_view::npos || colon == 0 || colon > 120) return false;
  string_view name = text.substr(0, colon);
  for (char c : name) {
    if (!is_word(c) && c != '.') return false;
  }
  for (string_view suffix : {"Error", "Exception", "Exit", "Interrupt", "Warning", "Failure", "Fault"}) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace

string_view strip_markdown_quote(string_view text) {
  string_view rest = text;
  while (!rest.empty() && rest.front() == '>') {
    if (rest.size() == 1) return {};
    if (rest[1] == '>' && rest.size() > 2 && rest[2] == '>') return text;  // a ">>>" prompt
    if (rest[1] != ' ' && rest[1] != '>') return text;
    rest.remove_prefix(rest[1] == ' ' ? 2 : 1);
  }
  return rest;
}

bool is_code_fence(string_view text) {
  text = trim(text);
  return text.starts_with("```") || text == "~~~";
}

string_view strip_markdown_bold(string_view text) {
  string_view inner = trim_right(text);
  // Bold text starts and ends with a non-space that is no '*': glibc's "*** Error in `python':
  // double free or corruption ***" is no Markdown.
  auto inside = [](char c) { return c != '*' && !is_space(c); };
  if (inner.size() > 4 && inner.starts_with("**") && inner.ends_with("**") && inside(inner[2]) &&
      inside(inner[inner.size() - 3])) {
    return inner.substr(2, inner.size() - 4);
  }
  return text;
}

bool split_flattened(string_view text, std::string& buffer, std::vector<string_view>& pieces) {
  pieces.clear();
  if (text.size() < 16) return false;
  // Cheap byte checks first: this runs on every line.
  bool has_backslash = std::memchr(text.data(), '\\', text.size()) != nullptr;
  if (has_backslash && find_text(text, "\\n") != string_view::npos && count_text(text, "\\n", 3) >= 3 &&
      (find_text(text, "Traceback (most recent call last):") != string_view::npos ||
       find_text(text, "File \\\"") != string_view::npos || find_text(text, "[rank") != string_view::npos)) {
    split_escaped(text, buffer, pieces);
    return true;
  }
  if (rank_prefix_at(text, 0)) {
    split_before(
        text, "[rank", [&](size_t at) { return rank_prefix_at(text, at); }, pieces);
    if (!pieces.empty()) return false;
  }
  // Records a terminal or a web page joined into one line, each padded to the width: split
  // before each stamp shaped as the line's own.
  if (text.size() >= kMinJoinedRecords && starts_with_date(text)) {
    split_before(
        text, text.substr(0, 4), [&](size_t at) { return same_stamp_at(text, at); }, pieces);
    for (auto& piece : pieces) piece = trim_right(piece);  // the padding is no part of a record
    if (!pieces.empty()) return false;
  }
  if (std::memchr(text.data(), '\'', text.size()) == nullptr) return false;  // kTerminate ends in a quote
  if (size_t first = find_text(text, kTerminate); first != string_view::npos) {
    string_view from_first = text.substr(first);
    split_before(
        from_first, kTerminate, [](size_t) { return true; }, pieces);
    if (!pieces.empty() && first > 0) pieces.insert(pieces.begin(), text.substr(0, first));
  }
  return false;
}

size_t find_glued_start(string_view text) {
  // Progress bars (tqdm, Lightning) print a percentage: no '%', no bar.
  if (text.empty() || std::memchr(text.data(), '%', text.size()) == nullptr) return string_view::npos;
  if (find_text(text, "it/s") == string_view::npos && find_text(text, "s/it") == string_view::npos &&
      find_text(text, "%|") == string_view::npos) {
    return string_view::npos;
  }
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != ']' && text[i] != '|') continue;
    string_view rest = text.substr(i + 1);
    if (rest.empty() || is_space(rest.front()) || is_digit(rest.front())) continue;
    if (rest.starts_with("Traceback (most recent call last):") || rest.starts_with("terminate called") ||
        rest.starts_with("slurmstepd: ") || rest.starts_with("srun: error") || is_exception_start(rest) ||
        starts_with_prefix(rest)) {
      return i + 1;
    }
  }
  return string_view::npos;
}

int strip_repeated_suffix(string_view& text) {
  string_view trimmed = trim_right(text);
  if (!trimmed.ends_with("x across cluster]")) return 0;
  size_t open = trimmed.rfind(" [repeated ");
  if (open == string_view::npos) return 0;
  string_view count_text = trimmed.substr(open + 11);
  auto count = take_integer(count_text);
  if (!count || count_text != "x across cluster]") return 0;
  text = trimmed.substr(0, open);
  return static_cast<int>(*count);
}

bool ends_mid_token(string_view text) {
  return !text.empty() && (is_word(text.back()) || text.back() == '=');
}

bool is_wrap_tail(string_view text, bool strict) {
  if (text.empty()) return false;
  char first = text.front();
  bool lower = (first >= 'a' && first <= 'z') || is_digit(first) || first == '_';
  bool punctuation = first == ',' || first == '.' || first == ')' || first == ']' || first == '=' ||
                     first == '\'' || first == '(' || first == '[';
  if (!lower && !punctuation && !(!strict && is_alpha(first))) return false;
  for (string_view start :
       {"Traceback", "File \"", "terminate called", "During handling", "The above exception", "frame #",
        "Exception raised from", "what():", "Process ", "Root Cause"}) {
    if (text.starts_with(start)) return false;
  }
  if (is_exception_start(text)) return false;
  std::string_view host;
  int64_t pid = 0;
  return !take_nccl_prefix(text, host, pid);
}

}  // namespace faultline::parse
