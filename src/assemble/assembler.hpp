// Assembler: Line stream ─▶ Event. Keeps one small state machine per stream (a source and
// the rank, local rank and pid its lines carry), so a traceback whose lines are interleaved
// with other ranks' lines comes out whole. A line with no prefix that looks like part of a
// traceback joins the stream whose traceback the same source was last writing (SGLang and
// NeMo prefix only the first line of a record). The tail of a hard-wrapped line
// (Line::continues_previous) replaces its head in the event; a log error or NCCL WARN line that
// may continue (Line::may_continue) is held until the next line of its stream, which may be a
// NeMo record's continuation (Line::continues_record) to add to its message.
//
// Memory is bounded: each open event is capped (Event::kMaxLines), and so is the number of
// streams. Events go to the sink as soon as they are complete; finish() flushes the rest.
// Not thread-safe.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "assemble/event.hpp"
#include "parse/line.hpp"

namespace faultline::assemble {

// Literals (case-sensitive), one of which every line holds that may open an event reaching past
// its own line with no rule's words in that line: a traceback's header or frame, a C++ terminate,
// a spawned process's banner, an exception name. A reader that skips lines keeps these
// (the job runner's sparse read); a Warning is left out on purpose: it opens no diagnosis.
inline constexpr std::array<std::string_view, 10> kEventOpeners = {
    "Traceback", "File \"", "terminate called", "-- Process ", "Error",
    "Exception", "Exit",    "Interrupt",        "Failure",     "Fault"};

class Assembler {
 public:
  using Sink = std::function<void(Event&&)>;

  explicit Assembler(Sink sink);
  ~Assembler();

  // `sequence` orders lines across all sources of the job.
  void push(const parse::Line& line, uint64_t sequence);
  void finish();
  // Whether a traceback of `source` is still waiting for its exception line: read at the end
  // of a source, it says the log was cut in the middle of an error.
  bool has_open_event(uint32_t source) const;
  // Whether no stream is inside an event (or holding one for its next line).
  bool idle() const;
  // The input sequence of the first line of the earliest event still open (or held), UINT64_MAX
  // when none is: no finding still to come can hold a line before it.
  uint64_t earliest_open_sequence() const;
  // Appends (source, line number) of every line an open (or held) event holds: the lines on
  // which a finding may still come, besides lines not read yet.
  void collect_open_lines(std::vector<std::pair<uint32_t, uint64_t>>& lines) const;

 private:
  struct Stream;
  using StreamKey = std::tuple<uint32_t, int, int, int64_t>;

  Stream& stream_for(const parse::Line& line);

  Sink sink_;
  std::map<StreamKey, std::unique_ptr<Stream>> streams_;
  std::map<uint32_t, Stream*> last_traceback_stream_;  // by source
  std::map<uint32_t, Stream*> last_stream_;            // by source: where its last line went
  // The stream whose single-line event is held for a continuation, if any: only the next line
  // parsed may continue it (LineParser: a record's indented lines, a hard wrap's tail).
  Stream* held_ = nullptr;
  // How many streams are not idle: the sparse read asks idle() before every line it may skip,
  // and a 64-rank job has hundreds of streams. Only push and finish change a stream's state.
  size_t open_streams_ = 0;
};

}  // namespace faultline::assemble
