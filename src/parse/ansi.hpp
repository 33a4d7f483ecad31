// ANSI escape sequences as they reach logs: raw (`\x1b[36m`), caret-escaped by a pager or a
// paste (`^[[36m`), spelled out (`ESC[36m`), syslog-escaped (`#033[36m`), or left as bare
// residue once the ESC byte was lost (`[36m`).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace faultline::parse {

// True when `text` holds anything strip_ansi would remove. Cheap: no allocation.
bool has_ansi(std::string_view text);
// What every escape sequence starts with: the ESC byte, or how a paste spells it.
inline constexpr std::array<std::string_view, 4> kEscapeIntroducers = {"\x1b", "^[[", "ESC[", "#033["};
// A cheap test for a whole block of lines: whether any escape introducer is in it at all. A block
// without one holds no escape sequence.
bool may_hold_ansi(std::string_view block);
// Appends `text` without its escape sequences to `out`.
void strip_ansi(std::string_view text, std::string& out);

}  // namespace faultline::parse
