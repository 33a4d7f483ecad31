// Event: what assemble hands to rules. One error as a rank reported it: a Python traceback
// (chained ones as one event), a bare `SomeError: text` line, a glog/c10/logger ERROR line,
// a C++ `terminate called…`/`what():` pair, or an NCCL WARN line. An event owns copies of
// its lines, capped at Event::kMaxLines (what is dropped is counted).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/timestamp.hpp"

namespace faultline::assemble {

enum class EventKind { kTraceback, kException, kLogError, kTerminate, kNcclWarn };

const char* to_string(EventKind kind);

// A Python traceback's frame line, its indentation removed: `File "x.py", line 3, in f`, or one
// that a paste cut off at its left (`models/chatglm.py", line 53, in __init__`).
bool is_frame_header(std::string_view text);

struct EventLine {
  uint32_t source = 0;
  uint64_t number = 0;
  std::string text;     // the message part (prefixes and headers removed)
  std::string display;  // the whole line as the log shows it, ANSI removed
};

struct Event {
  static constexpr size_t kMaxLines = 256;
  static constexpr size_t kMaxMessageBytes = 8192;

  EventKind kind = EventKind::kLogError;
  int rank = -1;
  // The rank came from a header line above the event, not from its lines' prefixes
  // (torch.multiprocessing.spawn's "-- Process 3 terminated with the following error:").
  bool rank_from_header = false;
  int local_rank = -1;
  std::string host;
  int64_t pid = 0;
  int device = -1;              // of its first line (see parse::Line::device)
  Timestamp time;               // of its first line (see parse::Line::time)
  bool time_inherited = false;  // true while no line of its own carried one
  std::string exception_type;   // "ValueError", "c10::DistBackendError"; empty if none
  std::string message;          // "ValueError: text\ncontinuation"; see docs/rule-format.md
  size_t message_line = 0;      // index into lines of the line the message starts on
  std::vector<EventLine> lines;
  uint64_t lines_dropped = 0;
  uint64_t sequence = 0;  // input order of the first line, across the whole job
  // A traceback a logger printed at this level ('W', 'I', 'D': a handled exception logged with
  // its traceback inside a warning record, as NeMo's `[NeMo W ...]` records and a log line that
  // holds the header show it): the header line's own level, 0 when it has none.
  char logged_at = 0;

  // Every line's text joined with '\n': what `scope: event` rules match.
  std::string full_text() const;
};

}  // namespace faultline::assemble
