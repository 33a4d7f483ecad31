// Paste damage: what happens to a log on its way into an issue, a chat or a terminal
// scrollback, and how LineParser undoes it. Pure functions over one line; none allocates
// except split_flattened, which reuses the buffer it is given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace faultline::parse {

// Markdown quoting "> " (nested "> > ", and a bare ">" for a quoted blank line) removed.
std::string_view strip_markdown_quote(std::string_view text);
// A Markdown code fence line: "```", "```text", "~~~".
bool is_code_fence(std::string_view text);
// A line pasted wrapped in Markdown bold: "**RuntimeError: ...** ".
std::string_view strip_markdown_bold(std::string_view text);

// Splits a line that holds several: a whole log flattened with literal "\n" (unescaped into
// `buffer`), many "[rankN]:" records on one line, or C++ `terminate called…` messages of two
// processes byte-interleaved. Leaves `pieces` empty when the line is one line. Returns true
// when the pieces were unescaped into `buffer` (their text is not the record's).
bool split_flattened(std::string_view text, std::string& buffer, std::vector<std::string_view>& pieces);

// Where a message glued to the end of a tqdm progress bar starts ("…1.37it/s, loss=2.6][E Proc…"),
// or npos.
size_t find_glued_start(std::string_view text);

// Ray's dedup suffix " [repeated 3x across cluster]": removed from `text`; returns 3, or 0.
int strip_repeated_suffix(std::string_view& text);

// The longest line that mending hard wraps may build. Past it the next line starts afresh:
// lines of one width that never end (a dump of hex digests) would otherwise be joined into one
// line that grows, and is matched again, at every line, which is quadratic.
inline constexpr size_t kMaxMendedLineBytes = size_t{8} << 10;
// Whether a wrapped line of `head_bytes` may take a tail of `tail_bytes`.
inline bool may_mend(size_t head_bytes, size_t tail_bytes) {
  return head_bytes + tail_bytes <= kMaxMendedLineBytes;
}

// A line that a terminal's hard wrap broke mid-token ends in a letter, digit, '_' or '='.
bool ends_mid_token(std::string_view text);
// Whether `text` (a line with no prefix) can be the tail of a wrapped line: no indentation,
// and not the start of anything known (a traceback, a frame, an exception, NCCL's prefix).
// `strict` also refuses a capital letter, which may start a new sentence.
bool is_wrap_tail(std::string_view text, bool strict);

}  // namespace faultline::parse
