#include "assemble/assembler.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "base/text.hpp"

namespace faultline::assemble {
namespace {

using std::string_view;

constexpr string_view kTracebackHeader = "Traceback (most recent call last):";
constexpr string_view kTerminateHeader = "terminate called after throwing an instance of '";
constexpr size_t kMaxMessageContinuations = 20;
// A bare exception line indented by at most this much is a quoted paste's, not a code line's.
constexpr size_t kMaxExceptionIndent = 8;
constexpr size_t kMaxStreams = 4096;

// `  File "x.py", line 3, in f`: a frame, which also starts a traceback pasted without its
// header.
bool is_frame_line(string_view text) {
  return is_frame_header(trim_left(text));
}

// `    assert heads % tp == 0`: the source line of the frame that raised a bare AssertionError,
// all a paste may keep of its traceback.
bool is_assert_statement(string_view text) {
  return !text.empty() && is_space(text.front()) && trim_left(text).starts_with("assert ");
}

bool is_chaining_line(string_view text) {
  return text.starts_with("During handling of the above exception") ||
         text.starts_with("The above exception was the direct cause");
}

// "ValueError", "torch.distributed.DistBackendError", "ray.exceptions.RayTaskError(X)".
// Returns the length of the dotted name (with its parenthesised suffix), or 0.
size_t exception_name_length(string_view text) {
  size_t i = 0;
  if (text.empty() || !(is_alpha(text[0]) || text[0] == '_')) return 0;
  while (i < text.size() && (is_word(text[i]) || text[i] == '.')) ++i;
  if (i < text.size() && text[i] == '(') {
    size_t close = text.find(')', i);
    if (close == string_view::npos || text.substr(i, close - i).find(' ') != string_view::npos) return 0;
    i = close + 1;
  }
  return i;
}

bool has_exception_suffix(string_view name) {
  if (size_t paren = name.find('('); paren != string_view::npos) name = name.substr(0, paren);
  for (string_view suffix : {"Error", "Exception", "Exit", "Interrupt", "Warning", "Failure", "Fault"}) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

// A Python exception line. `strict` (outside a traceback) requires a name such as
// `...Error: text`; inside a traceback any `name: text` or a bare `...Error` counts.
bool is_exception_line(string_view text, bool strict) {
  text = trim_right(text);  // a terminal pads a line to its width
  if (text.starts_with("File \"") || text.starts_with(kTracebackHeader)) return false;
  size_t length = exception_name_length(text);
  if (length == 0) return false;
  string_view name = text.substr(0, length);
  string_view rest = text.substr(length);
  if (rest.empty()) return has_exception_suffix(name);
  if (rest.front() != ':' || (rest.size() > 1 && rest[1] != ' ')) return false;
  return !strict || has_exception_suffix(name);
}

bool has_byte(string_view text, char byte) {
  return !text.empty() && std::memchr(text.data(), byte, text.size()) != nullptr;
}

// TGI's shard manager ends a shard's error with a line " rank=N".
std::optional<int> launcher_rank_suffix(string_view text) {
  text = trim(text);
  if (!text.starts_with("rank=")) return std::nullopt;
  auto rank = parse_integer(text.substr(5));
  if (!rank) return std::nullopt;
  return static_cast<int>(*rank);
}

// torch.multiprocessing.spawn: "-- Process 5 terminated with the following error:"
std::optional<int> spawned_process_rank(string_view text) {
  if (!text.starts_with("-- Process ")) return std::nullopt;
  text.remove_prefix(11);
  auto rank = take_integer(text);
  if (!rank || !text.starts_with(" terminated with the following error")) return std::nullopt;
  return static_cast<int>(*rank);
}

bool looks_like_traceback_line(string_view text) {
  return text.empty() || is_space(text.front()) || text.starts_with("File \"") ||
         text.starts_with(kTracebackHeader) || is_chaining_line(text) || is_exception_line(text, false);
}

}  // namespace

bool is_frame_header(string_view text) {
  constexpr string_view kLine = "\", line ";
  if (text.starts_with("File \"")) return text.find(kLine) != string_view::npos;
  // Cut off: a path with no space or quote in it, then `", line N, in `.
  size_t quote = text.find(kLine);
  if (quote == string_view::npos || quote == 0 ||
      text.substr(0, quote).find_first_of(" \t\"'") != string_view::npos ||
      !text.substr(0, quote).ends_with(".py"))
    return false;
  string_view rest = text.substr(quote + kLine.size());
  if (!take_integer(rest)) return false;
  return rest.starts_with(", in ");
}

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kTraceback:
      return "traceback";
    case EventKind::kException:
      return "exception";
    case EventKind::kLogError:
      return "log_error";
    case EventKind::kTerminate:
      return "terminate";
    case EventKind::kNcclWarn:
      return "nccl_warn";
  }
  return "event";
}

std::string Event::full_text() const {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line.text;
  }
  return out;
}

struct Assembler::Stream {
  // kHeld: a single-line event (log error, NCCL WARN) kept open while the next line may
  // continue it (a hard-wrapped tail, or a NeMo record's indented lines).
  enum class State { kIdle, kFrames, kMessage, kAfterMessage, kTerminate, kHeld };

  explicit Stream(Sink& sink) : sink_(sink) {}

  bool in_traceback() const {
    return state_ != State::kIdle && state_ != State::kTerminate && state_ != State::kHeld;
  }

  // Inside a traceback's frames: its exception line has not come yet.
  bool cut_off() const { return state_ == State::kFrames; }

  void push(const parse::Line& line, uint64_t sequence) {
    if (line.continues_previous && mend(line)) return;
    string_view text = line.text;
    switch (state_) {
      case State::kIdle:
        break;
      case State::kHeld:
        if (line.continues_record && !text.starts_with(kTracebackHeader)) {
          add_line(line);
          if (continuations_ < kMaxMessageContinuations && !trim(text).empty()) {
            append_message("\n", trim(text));
            ++continuations_;
          }
          return;
        }
        finish();
        break;
      case State::kFrames:
        if (text.empty()) {
          if (++blank_run_ > 2)
            finish();  // a blank separator is allowed, a gap ends it
          else
            add_line(line);
          return;
        }
        blank_run_ = 0;
        if (is_exception_line(text, false) && !is_chaining_line(text)) {
          start_message(line);
        } else if (indented_exception(text)) {
          start_message(line);
        } else {
          if (frame_indent_ == string_view::npos && is_frame_line(text))
            frame_indent_ = text.size() - trim_left(text).size();
          add_line(line);
        }
        return;
      case State::kMessage:
        if (text.empty()) {
          state_ = State::kAfterMessage;
          blank_run_ = 1;
          return;
        }
        // The next traceback after an ignored one is the program's own, not a chained cause.
        if (unraisable_event_ && text.starts_with(kTracebackHeader)) {
          finish();
          break;
        }
        if (is_chaining_line(text) || text.starts_with(kTracebackHeader)) {
          chain(line);
          return;
        }
        if (auto rank = launcher_rank_suffix(text)) {  // TGI: " rank=N" after the shard's error
          if (event_.rank < 0) event_.rank = *rank;
          add_line(line);
          return;
        }
        if (awaits_message(text)) {  // "ValueError:" alone: its message is the next line
          add_line(line);
          event_.message.resize(trim_right(event_.message).size());
          append_message(" ", trim(text));
          ++continuations_;
          return;
        }
        if (is_space(line.text.front()) && !trim_left(text).starts_with("File \"") &&
            continuations_ < kMaxMessageContinuations) {
          add_line(line);
          append_message("\n", trim(text));
          ++continuations_;
          return;
        }
        finish();
        break;
      case State::kAfterMessage:
        if (text.empty()) {
          if (++blank_run_ <= 3) return;
          finish();
          return;
        }
        // The next traceback after an ignored one is the program's own, not a chained cause.
        if (unraisable_event_ && text.starts_with(kTracebackHeader)) {
          finish();
          break;
        }
        if (is_chaining_line(text) || text.starts_with(kTracebackHeader)) {
          chain(line);
          return;
        }
        finish();
        break;
      case State::kTerminate:
        if (string_view what = trim_left(text); what.starts_with("what():")) {
          add_line(line);
          event_.message_line = event_.lines.size() - 1;
          append_message(": ", trim(what.substr(7)));
          return;
        }
        if (text.starts_with("Exception raised from") || text.starts_with("frame #")) {
          add_line(line);
          return;
        }
        finish();
        break;
    }
    start(line, sequence);
    if (state_ == State::kIdle) remember(line);
  }

  bool idle() const { return state_ == State::kIdle; }
  bool held() const { return state_ == State::kHeld; }
  uint64_t open_sequence() const { return idle() ? UINT64_MAX : event_.sequence; }
  const Event* open_event() const { return idle() ? nullptr : &event_; }

  // Whether a line with no prefix of its own continues this stream's traceback.
  bool accepts_continuation(string_view text) const {
    switch (state_) {
      case State::kFrames:
        return looks_like_traceback_line(text);
      case State::kMessage:
        return (!text.empty() && is_space(text.front())) || is_chaining_line(text) || awaits_message(text);
      case State::kAfterMessage:
        return text.empty() || is_chaining_line(text) || text.starts_with(kTracebackHeader);
      default:
        return false;
    }
  }

  void finish() {
    if (state_ != State::kIdle) emit();
    state_ = State::kIdle;
    blank_run_ = 0;
    continuations_ = 0;
  }

 private:
  void start(const parse::Line& line, uint64_t sequence) {
    string_view text = line.text;
    bool unraisable = std::exchange(after_unraisable_, false);
    if (auto rank = spawned_process_rank(text)) {  // torch.multiprocessing.spawn names the process
      pending_rank_ = *rank;
      return;
    }
    if (trim_right(text).ends_with(kTracebackHeader)) {  // the header always ends its line
      begin(line, sequence, EventKind::kTraceback);
      embedded_ = !text.starts_with(kTracebackHeader);
      // Only the header's own level counts (a record's, or a log line that holds the header): a
      // fatal traceback often follows an unrelated INFO line.
      event_.logged_at = line.severity;
      // Python's unraisable hook ("Exception ignored in: <function tqdm.__del__ …>") prints a
      // traceback of an exception it then ignores: the process goes on, as after a warning.
      if (!event_.logged_at && unraisable) {
        event_.logged_at = 'W';
        unraisable_event_ = true;
      }
      state_ = State::kFrames;
    } else if (is_frame_line(text)) {
      // A traceback pasted without its header often starts with the code line of the frame
      // cut off above it: keep that line too.
      bool keep_previous = !previous_.text.empty() && is_space(previous_.text.front());
      begin(line, sequence, EventKind::kTraceback);
      if (keep_previous) event_.lines.insert(event_.lines.begin(), previous_);
      // Indented as a whole (torchelastic's error-file block, a quoted paste): its exception line
      // is indented less than its frames.
      if (is_space(text.front())) {
        embedded_ = true;
        frame_indent_ = text.size() - trim_left(text).size();
      }
      state_ = State::kFrames;
    } else if (string_view lead = trim_left(text);
               text.size() - lead.size() <= kMaxExceptionIndent && is_exception_line(lead, true)) {
      // A bare exception line; a quoted paste indents it as a whole.
      bool keep_assert = !previous_.text.empty() && is_assert_statement(previous_.text) &&
                         lead.starts_with("AssertionError");
      begin(line, sequence, EventKind::kException);
      embedded_ = lead.size() < text.size();
      if (keep_assert) event_.lines.insert(event_.lines.begin(), previous_);
      set_message(line);
    } else if (text.starts_with(kTerminateHeader)) {
      begin(line, sequence, EventKind::kTerminate);
      string_view type = text.substr(kTerminateHeader.size());
      event_.exception_type = std::string(type.substr(0, type.find('\'')));
      event_.message = event_.exception_type;
      state_ = State::kTerminate;
    } else if (size_t warn = has_byte(text, 'W') ? find_text(text, " NCCL WARN ") : string_view::npos;
               warn != string_view::npos) {
      begin(line, sequence, EventKind::kNcclWarn);
      set_single_message(text);
      hold_or_emit(line);
    } else if (line.severity == 'E' || line.severity == 'F') {
      begin(line, sequence, EventKind::kLogError);
      event_.logged_at = line.severity;
      set_single_message(text);
      hold_or_emit(line);
    }
  }

  void set_single_message(string_view text) {
    if (event_.kind == EventKind::kNcclWarn) {
      size_t warn = find_text(text, " NCCL WARN ");
      text = warn == string_view::npos ? text : text.substr(warn + 11);
    }
    event_.message = std::string(text.substr(0, Event::kMaxMessageBytes));
    mark_line_ = event_.lines.size() - 1;
    mark_at_ = 0;
    mark_separator_ = {};
  }

  void hold_or_emit(const parse::Line& line) {
    if (line.may_continue) {
      state_ = State::kHeld;
      continuations_ = 0;
    } else {
      emit();
    }
  }

  // `line` is the whole of the event's last line, which a terminal had hard-wrapped: put it in
  // that line's place, and in the message where that line made part of it.
  bool mend(const parse::Line& line) {
    if (state_ == State::kIdle || event_.lines.empty() || event_.lines_dropped > 0) return false;
    EventLine& last = event_.lines.back();
    if (last.source != line.source || tail_number_ + 1 != line.number) return false;
    last.text.assign(line.text);
    last.display.assign(line.display);
    tail_number_ = line.number;
    size_t index = event_.lines.size() - 1;
    if (mark_line_ == index) {
      if (state_ == State::kHeld) {
        set_single_message(line.text);
      } else if (mark_separator_.empty()) {
        set_message(line);
      } else {
        event_.message.resize(mark_at_);
        append_message(mark_separator_,
                       mark_separator_ == ": " ? trim(trim_left(line.text).substr(7)) : trim(line.text));
      }
    } else if (state_ == State::kFrames && is_exception_line(line.text, false) &&
               !is_chaining_line(line.text)) {
      set_message(line);
    } else if (state_ == State::kTerminate && index == 0) {
      string_view type = line.text.substr(std::min(line.text.size(), kTerminateHeader.size()));
      event_.exception_type = std::string(type.substr(0, type.find('\'')));
      event_.message = event_.exception_type;
    }
    if (state_ == State::kHeld && !line.may_continue) finish();
    return true;
  }

  // Sends the event as it stands; a single-line event goes straight here.
  void emit() {
    sink_(std::move(event_));
    event_ = Event();
  }

  void begin(const parse::Line& line, uint64_t sequence, EventKind kind) {
    event_ = Event();
    embedded_ = false;
    unraisable_event_ = false;
    frame_indent_ = string_view::npos;
    event_.kind = kind;
    event_.rank = line.rank;
    event_.local_rank = line.local_rank;
    event_.host = std::string(line.host);
    event_.pid = line.pid;
    event_.device = line.device;
    event_.time = line.time;
    event_.time_inherited = line.time_inherited;
    event_.rank_from_header = event_.rank < 0 && pending_rank_ >= 0;
    if (event_.rank_from_header) event_.rank = pending_rank_;
    pending_rank_ = -1;
    event_.sequence = sequence;
    add_line(line);
  }

  void start_message(const parse::Line& line) {
    add_line(line);
    set_message(line);
  }

  // The event's message is `line`, which is already its last line.
  void set_message(const parse::Line& line) {
    string_view text = embedded_ ? trim_left(line.text) : line.text;
    size_t length = exception_name_length(text);
    event_.exception_type = std::string(text.substr(0, length));
    event_.message = std::string(text.substr(0, Event::kMaxMessageBytes));
    event_.message_line = event_.lines.size() - 1;
    mark_line_ = event_.message_line;
    mark_at_ = 0;
    mark_separator_ = {};
    state_ = State::kMessage;
    continuations_ = 0;
  }

  void chain(const parse::Line& line) {
    add_line(line);
    state_ = State::kFrames;
    blank_run_ = 0;
  }

  void append_message(string_view separator, string_view text) {
    mark_line_ = event_.lines.size() - 1;
    mark_at_ = event_.message.size();
    mark_separator_ = separator;
    if (event_.message.size() + separator.size() + text.size() > Event::kMaxMessageBytes) return;
    event_.message += separator;
    event_.message += text;
  }

  void add_line(const parse::Line& line) {
    if (line.time.valid && !line.time_inherited && (!event_.time.valid || event_.time_inherited)) {
      event_.time = line.time;
      event_.time_inherited = false;
    }
    tail_number_ = line.number;
    if (event_.lines.size() >= Event::kMaxLines) {
      ++event_.lines_dropped;
      return;
    }
    event_.lines.push_back({line.source, line.number, std::string(line.text), std::string(line.display)});
  }

  void remember(const parse::Line& line) {
    after_unraisable_ = line.text.starts_with("Exception ignored ");
    if (line.text.empty() || !is_space(line.text.front())) {  // only a code line is worth keeping
      previous_.text.clear();
      return;
    }
    previous_.source = line.source;
    previous_.number = line.number;
    previous_.text.assign(line.text);
    previous_.display.assign(line.display);
  }

  Sink& sink_;
  int pending_rank_ = -1;  // named by a line just before the event
  Event event_;
  EventLine previous_;             // the last line that belonged to no event
  bool after_unraisable_ = false;  // that line was Python's "Exception ignored in: …"
  bool unraisable_event_ = false;  // the event is the traceback Python printed and ignored
  // A traceback whose header follows other text on its line (torchelastic's "  traceback :
  // Traceback ..." in its failure summary, SGLang's "... hit an exception: Traceback ..."): its
  // lines may be indented as a whole, so an exception line indented less than its frames ends it.
  bool embedded_ = false;
  size_t frame_indent_ = string_view::npos;

  // An exception line that ends at its colon ("ValueError:", the message passed as a string that
  // starts with a newline) takes the next line as its message, indented or not, unless that line
  // starts something of its own.
  bool awaits_message(string_view text) const {
    if (state_ != State::kMessage || continuations_ > 0 || event_.message.empty() ||
        trim_right(event_.message).back() != ':' || trim(text).empty())
      return false;
    string_view next = trim_left(text);
    bool words = std::any_of(next.begin(), next.end(), [](char c) { return is_word(c); });  // not a rule
    return words && !next.starts_with("File \"") && !next.starts_with(kTracebackHeader) &&
           !is_chaining_line(next) && !is_exception_line(next, true) && !next.starts_with(kTerminateHeader);
  }

  bool indented_exception(string_view text) const {
    if (!embedded_ || frame_indent_ == string_view::npos) return false;
    string_view trimmed = trim_left(text);
    size_t indent = text.size() - trimmed.size();
    // At the frames' own indentation (a paste that indented the exception with them) only a
    // class named as one counts: a source line is indented deeper.
    return indent > 0 && indent <= frame_indent_ && is_exception_line(trimmed, indent == frame_indent_) &&
           !is_chaining_line(trimmed);
  }
  State state_ = State::kIdle;
  int blank_run_ = 0;
  size_t continuations_ = 0;
  uint64_t tail_number_ = 0;  // the number of the last physical line added
  // Where the last line went into the message, so that a mended line can replace it.
  size_t mark_line_ = SIZE_MAX;
  size_t mark_at_ = 0;
  string_view mark_separator_;  // a literal: "" (the line set the message), "\n", " " or ": "
};

Assembler::Assembler(Sink sink) : sink_(std::move(sink)) {}
Assembler::~Assembler() = default;

Assembler::Stream& Assembler::stream_for(const parse::Line& line) {
  if (line.continues_previous) {  // the tail of a hard-wrapped line goes where its head went
    auto last = last_stream_.find(line.source);
    if (last != last_stream_.end()) return *last->second;
  }
  StreamKey key{line.source, line.rank, line.local_rank, line.pid};
  auto own = streams_.find(key);
  bool own_busy = own != streams_.end() && !own->second->idle();
  if (!own_busy && !line.rank_from_prefix && line.pid == 0 && !line.continues_record) {
    auto last = last_traceback_stream_.find(line.source);
    if (last != last_traceback_stream_.end() && last->second->accepts_continuation(line.text)) {
      return *last->second;
    }
  }
  if (own != streams_.end()) return *own->second;
  if (streams_.size() >= kMaxStreams) {  // bounded memory: close every open event
    finish();
    held_ = nullptr;
    streams_.clear();
    last_traceback_stream_.clear();
    last_stream_.clear();
  }
  auto& slot = streams_[key];
  slot = std::make_unique<Stream>(sink_);
  return *slot;
}

void Assembler::push(const parse::Line& line, uint64_t sequence) {
  Stream& stream = stream_for(line);
  // A line that continues no record ends a held event of another stream now, as that stream's
  // next line would: nothing after it can continue the event, and the sparse read need not
  // read on line by line until that stream speaks again.
  if (held_ && held_ != &stream && !line.continues_record && !line.continues_previous && held_->held()) {
    held_->finish();
    --open_streams_;  // it was held, and is idle now
  }
  bool was_idle = stream.idle();
  stream.push(line, sequence);
  open_streams_ += (was_idle ? 0 : -1) + (stream.idle() ? 0 : 1);
  held_ = stream.held() ? &stream : nullptr;
  last_stream_[line.source] = &stream;
  if (stream.in_traceback()) last_traceback_stream_[line.source] = &stream;
}

void Assembler::finish() {
  for (auto& [key, stream] : streams_) stream->finish();
  open_streams_ = 0;
}

bool Assembler::has_open_event(uint32_t source) const {
  for (const auto& [key, stream] : streams_) {
    if (std::get<0>(key) == source && stream->cut_off()) return true;
  }
  return false;
}

uint64_t Assembler::earliest_open_sequence() const {
  uint64_t earliest = UINT64_MAX;
  for (const auto& [key, stream] : streams_) earliest = std::min(earliest, stream->open_sequence());
  return earliest;
}

void Assembler::collect_open_lines(std::vector<std::pair<uint32_t, uint64_t>>& lines) const {
  for (const auto& [key, stream] : streams_) {
    if (const Event* event = stream->open_event()) {
      for (const auto& line : event->lines) lines.emplace_back(line.source, line.number);
    }
  }
}

bool Assembler::idle() const {
  return open_streams_ == 0;
}

}  // namespace faultline::assemble
