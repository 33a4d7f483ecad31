#include "parse/line_parser.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "parse/ansi.hpp"
#include "parse/paste_repair.hpp"
#include "parse/prefix_scanner.hpp"

namespace faultline::parse {
namespace {

using std::string_view;

// Terminals are at least this wide; a shorter line was not hard-wrapped.
constexpr size_t kMinWrapWidth = 80;
// Consecutive lines whose leading "[N] " keeps the same distance to the line number.
constexpr int kLineNumberStreak = 3;

}  // namespace

LineParser::LineParser(job::ProcessTable& table) : table_(table) {}
LineParser::LineParser() : own_table_(std::make_unique<job::ProcessTable>()), table_(*own_table_) {}
LineParser::~LineParser() = default;

Line LineParser::parse(const ingest::Record& record, std::optional<int> rank_hint) {
  record_ = record;
  rank_hint_ = rank_hint;
  next_piece_ = 0;
  pieces_.clear();
  string_view text = record.text;
  if (has_ansi(text)) {
    scratch_.clear();
    strip_ansi(text, scratch_);
    text = scratch_;
  }
  text = strip_markdown_quote(text);
  if (is_code_fence(text)) {  // a Markdown fence is no part of the log
    Line line;
    line.source = record.source;
    line.number = record.line;
    line.display = text;
    wrap_.open = false;
    record_open_.open = false;
    return line;
  }
  pieces_unescaped_ = split_flattened(text, unescaped_, pieces_);
  if (pieces_.empty()) return parse_piece(text, false);
  next_piece_ = 1;
  return parse_piece(pieces_[0], true);
}

bool LineParser::next_piece(Line& line) {
  if (next_piece_ >= pieces_.size()) return false;
  line = parse_piece(pieces_[next_piece_++], true);
  return true;
}

Line LineParser::parse_piece(string_view text, bool is_piece) {
  Line line;
  line.source = record_.source;
  line.number = record_.line;
  line.display = text;
  line.host = record_.host;
  line.pid = record_.pid;
  line.time = record_.time;
  line.text_rebuilt = is_piece && pieces_unescaped_;
  if (line.source != numbered_source_) {
    numbered_source_ = line.source;
    numbered_streak_ = 0;
    line_numbered_ = false;
  }
  ScanContext context{&table_.prefix_hosts(), line_numbered_};
  ScanNotes notes;
  string_view rest = scan_prefixes(text, line, context, notes);
  if (size_t glued = find_glued_start(rest); glued != string_view::npos) {
    rest = scan_prefixes(rest.substr(glued), line, context, notes);
  }
  bool took_prefix = rest.data() != text.data();
  bool rank_prefix = line.rank_from_prefix;
  rest = strip_markdown_bold(rest);
  line.repeated = strip_repeated_suffix(rest);
  if (notes.leading_number >= 0) note_line_number(notes.leading_number, notes.leading_number_is_line);
  if (!notes.new_host.empty()) table_.learn_prefix_host(notes.new_host);

  string_view nccl_host;
  int64_t nccl_pid = 0;
  if (take_nccl_prefix(rest, nccl_host, nccl_pid, &line.device)) {
    if (line.host.empty()) line.host = nccl_host;
    if (line.pid == 0) line.pid = nccl_pid;
  }
  if (notes.pid_of_rank != 0) table_.learn_launcher_rank(notes.pid_of_rank, line.rank);
  lessons_.learn(line, rest, table_);
  ProcessLessons::apply(line, table_);

  continue_record(line, rest, notes.record_header, rank_prefix);
  line.text = rest;
  if (!is_piece) {
    if (line.source != longest_source_) {
      longest_source_ = line.source;
      longest_ = 0;
      wrap_.open = false;
    }
    bool mended = mend_wrap(line, text, rest, took_prefix);
    if (!mended) wrap_.open = false;
    size_t width = text.size();
    // A break after a space is taken only at a width seen before (the terminal's).
    bool breaks = ends_mid_token(line.text) || (line.text.ends_with(' ') && width == longest_);
    bool head = width >= kMinWrapWidth && breaks && (mended ? width == wrap_.width : width >= longest_);
    if (head) {
      remember_wrap_head(line, width, took_prefix || (mended && wrap_.had_prefix));
      line.may_continue = true;
    } else {
      wrap_.open = false;
    }
    if (width > longest_) longest_ = width;
  }
  if (record_open_.open && !record_open_.traceback) line.may_continue = true;
  if (line.rank < 0 && rank_hint_) line.rank = *rank_hint_;
  carry_time(line);
  table_.observe_line(line.host, line.rank, line.pid, line.device, line.text);
  return line;
}

// The tail of a hard-wrapped line: no prefix of its own, right after a head that filled the
// terminal's width and broke mid-token. A head that ties the longest line seen before it (the
// terminal's width, seen twice) may take any tail; a head that is merely the longest so far
// needs a prefix of its own and a tail that cannot start a sentence.
bool LineParser::mend_wrap(Line& line, string_view piece, string_view rest, bool took_prefix) {
  if (!wrap_.open || took_prefix || line.severity || wrap_.source != line.source ||
      wrap_.number + 1 != line.number || piece.size() > wrap_.width || rest.data() != piece.data() ||
      !may_mend(wrap_.text.size(), rest.size())) {
    return false;
  }
  if (!wrap_.width_seen_before && !wrap_.had_prefix) return false;
  if (!is_wrap_tail(rest, !wrap_.width_seen_before)) return false;
  joined_text_.assign(wrap_.text);
  joined_text_.append(rest);
  joined_display_.assign(wrap_.display);
  joined_display_.append(piece);
  const Line& head = wrap_.line;
  line.text = joined_text_;
  line.display = joined_display_;
  line.rank = head.rank;
  line.local_rank = head.local_rank;
  line.rank_from_prefix = head.rank_from_prefix;
  line.rank_from_pid = head.rank_from_pid;
  line.host = wrap_.host;
  line.pid = head.pid;
  line.device = head.device;
  if (head.time.valid && !head.time_inherited) line.time = head.time;
  line.severity = head.severity;
  line.repeated = head.repeated;
  line.continues_previous = true;
  line.text_rebuilt = true;
  return true;
}

void LineParser::remember_wrap_head(const Line& line, size_t width, bool took_prefix) {
  // `line` may point into wrap_'s own strings (a mended line wrapped again): copy via temporaries.
  std::string text(line.text);
  std::string display(line.display);
  std::string host(line.host);
  wrap_.width_seen_before = width == longest_;
  wrap_.open = true;
  wrap_.source = line.source;
  wrap_.number = line.number;
  wrap_.width = width;
  wrap_.had_prefix = took_prefix;
  wrap_.text.swap(text);
  wrap_.display.swap(display);
  wrap_.host.swap(host);
  wrap_.line = line;
  wrap_.line.text = {};
  wrap_.line.display = {};
  wrap_.line.host = {};
}

namespace {

// A line that continues a traceback printed by a logger that prefixes only a record's first
// line (SGLang): blank, indented, a frame, a chaining line, or the exception line.
bool continues_traceback(string_view text) {
  if (text.empty() || is_space(text.front()) || text.starts_with("File \"") ||
      text.starts_with("Traceback (") || text.starts_with("During handling") ||
      text.starts_with("The above exception")) {
    return true;
  }
  size_t colon = text.find(':');
  if (colon == string_view::npos || colon == 0 || colon > 120) return false;
  for (char c : text.substr(0, colon)) {
    if (!is_word(c) && c != '.') return false;
  }
  return true;
}

}  // namespace

// NeMo: "[NeMo E date file:1] head" then lines indented by 4 spaces with no header. SGLang:
// "[date TP3] Scheduler hit an exception: Traceback (most recent call last):" then the
// traceback's lines with no prefix at all. Either way the record's lines carry its rank.
void LineParser::continue_record(Line& line, string_view& rest, bool record_header, bool rank_prefix) {
  // A traceback header always ends its line, so a suffix test is enough (and costs nothing).
  if (record_header || (rank_prefix && trim_right(rest).ends_with("Traceback (most recent call last):"))) {
    record_open_ = {
        true, !record_header, line.source, line.rank, line.local_rank, line.rank_from_prefix, line.severity};
    return;
  }
  if (!record_open_.open) return;
  bool continues = false;
  if (record_open_.traceback) {
    continues =
        record_open_.source == line.source && !rank_prefix && !line.severity && continues_traceback(rest);
  } else {
    continues = record_open_.source == line.source && rest.starts_with("    ") && !line.severity &&
                (line.rank < 0 || line.rank == record_open_.rank);
  }
  if (!continues) {
    record_open_.open = false;
    return;
  }
  line.rank = record_open_.rank;
  line.local_rank = record_open_.local_rank;
  line.rank_from_prefix = record_open_.rank_from_prefix;
  if (record_open_.traceback) return;
  rest.remove_prefix(4);
  line.severity = record_open_.severity;
  line.continues_record = true;
}

void LineParser::note_line_number(int64_t number, bool is_line_number) {
  int64_t offset = number - static_cast<int64_t>(record_.line);
  if (numbered_streak_ > 0 && offset == numbered_offset_) {
    ++numbered_streak_;
  } else {
    numbered_offset_ = offset;
    numbered_streak_ = 1;
  }
  if (numbered_streak_ >= kLineNumberStreak && (is_line_number || number > 0)) line_numbered_ = true;
}

LineParser::Peek LineParser::peek(const ingest::Record& record, std::optional<int> rank_hint) const {
  Line line;
  line.source = record.source;
  line.display = record.text;
  line.host = record.host;
  line.pid = record.pid;
  line.time = record.time;
  ScanContext context{&table_.prefix_hosts(), line_numbered_};
  ScanNotes notes;
  string_view rest = scan_prefixes(record.text, line, context, notes);
  string_view nccl_host;
  int64_t nccl_pid = 0;
  if (take_nccl_prefix(rest, nccl_host, nccl_pid) && line.pid == 0) line.pid = nccl_pid;
  ProcessLessons::apply(line, table_);
  if (line.rank < 0 && rank_hint) line.rank = *rank_hint;
  return {line.rank, line.local_rank, line.time};
}

void LineParser::remember_time(uint32_t source, const Peek& peeked) {
  if (!peeked.time.valid) return;
  Line line;
  line.source = source;
  line.rank = peeked.rank;
  line.local_rank = peeked.local_rank;
  line.time = peeked.time;
  carry_time(line);
}

void LineParser::carry_time(Line& line) {
  auto matches = [&](const LastTime& entry) {
    return entry.source == line.source && entry.rank == line.rank && entry.local_rank == line.local_rank;
  };
  LastTime* entry = nullptr;
  if (last_hit_ < last_times_.size() && matches(last_times_[last_hit_])) {
    entry = &last_times_[last_hit_];
  } else {
    for (size_t i = 0; i < last_times_.size(); ++i) {
      if (matches(last_times_[i])) {
        entry = &last_times_[i];
        last_hit_ = i;
        break;
      }
    }
  }
  if (line.time.valid && !line.time_inherited) {
    if (entry) {
      entry->time = line.time;
    } else if (last_times_.size() < 4096) {
      last_times_.push_back({line.source, line.rank, line.local_rank, line.time});
      last_hit_ = last_times_.size() - 1;
    }
  } else if (entry) {
    line.time = entry->time;
    line.time_inherited = true;
  }
}

namespace {

// The rank a line's leading prefixes name, or -1.
int prefix_rank(string_view head) {
  while (head.starts_with('[')) {
    size_t close = head.find("]:");
    if (close == string_view::npos || close > 24) return -1;
    string_view name = head.substr(1, close - 1);
    if (name.starts_with("rank") && name.size() > 4 && name.size() < 12 &&
        std::all_of(name.begin() + 4, name.end(), [](char c) { return is_digit(c); })) {
      int rank = 0;
      for (char c : name.substr(4)) rank = rank * 10 + (c - '0');
      return rank;
    }
    head.remove_prefix(close + 2);
  }
  return -1;
}

bool is_nccl_pid_line(string_view head) {
  while (head.starts_with('[')) {  // the launcher's prefixes
    size_t close = head.find("]:");
    if (close == string_view::npos || close > 24) break;
    head.remove_prefix(close + 2);
  }
  size_t nccl = head.find(" NCCL ");
  if (nccl == string_view::npos) return false;
  string_view prefix = head.substr(0, nccl);  // "host:pid:tid [dev]"
  size_t space = prefix.find(' ');
  if (space == string_view::npos || prefix.find(' ', space + 1) != string_view::npos ||
      !prefix.ends_with(']') || prefix.substr(space + 1, 1) != "[")
    return false;
  string_view ids = prefix.substr(0, space);
  size_t second = ids.rfind(':');
  size_t first = second == string_view::npos || second == 0 ? string_view::npos : ids.rfind(':', second - 1);
  if (first == string_view::npos || first + 1 == second) return false;
  string_view pid = ids.substr(first + 1, second - first - 1);
  return std::all_of(pid.begin(), pid.end(), [](char c) { return is_digit(c); });
}

}  // namespace

bool cannot_date(string_view line, int rank) {
  string_view head = line.substr(0, 96);
  int named = prefix_rank(head);
  if (named >= 0) return named != rank;
  return is_nccl_pid_line(head);
}

}  // namespace faultline::parse
