#include "parse/ansi.hpp"

#include <algorithm>
#include <cstring>

#include "base/text.hpp"

namespace faultline::parse {
namespace {

// Length of a CSI body starting at text[at] == '[' ("[1;36m", "[K"), or 0. Bare residue
// without an introducer only counts when it ends in 'm' (colour), to leave text such as
// "[3]" alone.
size_t csi_length(std::string_view text, size_t at, bool introduced) {
  size_t i = at + 1;
  while (i < text.size() && (is_digit(text[i]) || text[i] == ';')) ++i;
  if (i >= text.size()) return 0;
  char final_byte = text[i];
  // A bare "[m" with no digits before a word is text ("[multiproc_executor.py:470]").
  bool bare_reset = !introduced && i == at + 1;
  if (final_byte == 'm' && bare_reset && i + 1 < text.size() && is_word(text[i + 1])) return 0;
  if (final_byte == 'm') return i + 1 - at;
  if (introduced && is_alpha(final_byte)) return i + 1 - at;
  return 0;
}

// Length of the introducer that ends just before text[at] == '[': ESC, "^[", "ESC", "#033".
size_t introducer_before(std::string_view text, size_t at) {
  std::string_view before = text.substr(0, at);
  if (before.ends_with('\x1b')) return 1;
  if (before.ends_with("^[")) return 2;
  if (before.ends_with("ESC")) return 3;
  if (before.ends_with("#033")) return 4;
  return 0;
}

// Finds the next escape sequence at or after `from`; returns its [start, end) or npos.
std::pair<size_t, size_t> next_sequence(std::string_view text, size_t from) {
  while (from < text.size()) {
    const void* hit = std::memchr(text.data() + from, '[', text.size() - from);
    if (!hit) return {std::string_view::npos, 0};
    size_t at = static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    size_t introducer = introducer_before(text, at);
    if (size_t length = csi_length(text, at, introducer > 0)) {
      // "[36m" right after a digit or letter is more likely text than residue.
      if (introducer > 0 || at == 0 || !is_word(text[at - 1]) || text[at - 1] == 'm') {
        return {at - introducer, at + length};
      }
    }
    from = at + 1;
  }
  return {std::string_view::npos, 0};
}

}  // namespace

bool may_hold_ansi(std::string_view block) {
  return std::any_of(kEscapeIntroducers.begin(), kEscapeIntroducers.end(), [&](std::string_view introducer) {
    return block.find(introducer) != std::string_view::npos;
  });
}

bool has_ansi(std::string_view text) {
  // One pass over the bytes: most lines have a few '[' (prefixes) and no escape at all.
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '\x1b') return true;
    if (text[i] == '[' && (is_digit(text[i + 1]) || text[i + 1] == 'm' || text[i + 1] == ';')) {
      if (next_sequence(text, i).first != std::string_view::npos) return true;
      // No sequence from here on; only a stray ESC byte could remain.
      return std::memchr(text.data() + i, '\x1b', text.size() - i) != nullptr;
    }
  }
  return !text.empty() && text.back() == '\x1b';
}

void strip_ansi(std::string_view text, std::string& out) {
  auto append_text = [&out](std::string_view part) {
    for (char c : part) {
      if (c != '\x1b') out += c;  // a stray ESC with no sequence after it
    }
  };
  size_t from = 0;
  for (;;) {
    auto [start, end] = next_sequence(text, from);
    if (start == std::string_view::npos) break;
    append_text(text.substr(from, start - from));
    from = end;
  }
  append_text(text.substr(from));
}

}  // namespace faultline::parse
