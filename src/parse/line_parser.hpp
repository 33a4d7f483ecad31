// LineParser: Record ─▶ Line. Recognises, in any nesting order, the launcher prefixes
// (torchrun `[rank3]:` and `[default3]:`, srun --label `3: `, Open MPI `[1,3]<stderr>:` and
// PRRTE `[prterun-h@1,3]<stdout>: `, MPICH `[3] `, pdsh `host: `, Ray/vLLM `(Name pid=N, ip=H)`
// and `(raylet)`, SGLang `[date TP3]`, Lightning `[rank: 1]`, kubectl `[pod/name/container] `,
// docker compose `service-1  | `, TorchX `role/0 `), leading ISO-8601 and ctime timestamps, and
// the log headers after them (c10 `[E1129 10:22:33.123456789 file:1]`, glog `E1129 10:22:33.123456
// 1 file:1]`, vLLM `ERROR 11-29 10:22:33 [file.py:1]`, Python logging `2026-11-29 10:22:33,123 -
// name - ERROR -`, DeepSpeed `[date] [ERROR] [f:1:g]`, NeMo `[NeMo E date file:1]` with its
// 4-space continuation lines). NCCL's `host:pid:tid [dev] ` gives the host and pid (and stays in
// the text). Everything is hand-parsed: this runs on every line, so no regular expressions and
// no allocation on the common path.
//
// Ranks that no prefix names come from the pid, by the job's table of processes, which the parser
// fills as it reads (see process_lessons.hpp and job/process_table.hpp). Paste damage is repaired
// (see paste_repair.hpp): Markdown quotes and fences, viewer line numbers `[80746] `, messages
// glued to a progress bar, terminal hard-wraps (the tail line comes out whole, with
// Line::continues_previous), and several lines flattened into one (split into pieces).
//
// A line without a timestamp of its own takes the last one seen for its rank in its source
// (Line::time_inherited), so a traceback printed after a logger's ERROR line is ordered by it.
// Not thread-safe: one parser per job.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/record.hpp"
#include "job/process_table.hpp"
#include "parse/line.hpp"
#include "parse/process_lessons.hpp"

namespace faultline::parse {

// Whether `line` can give `rank` no time, told from its first bytes without parsing it: its
// leading prefixes name another rank ("[rank5]:", after a launcher's "[default1]:" or not), or it
// is NCCL's own line ("host:pid:tid [dev] NCCL ...", under such prefixes or none), which has no
// time of its own. A reader that skipped lines walks back over them with it.
bool cannot_date(std::string_view line, int rank);

class LineParser {
 public:
  // Parses into `table` (the job's, which must outlive the parser): every line is noted there,
  // and lines take the ranks of their pids from it. Without one, the parser keeps its own.
  explicit LineParser(job::ProcessTable& table);
  LineParser();
  LineParser(const LineParser&) = delete;
  LineParser& operator=(const LineParser&) = delete;
  ~LineParser();

  // `rank_hint` is the rank the file's path names, used when a line names none. Returns the
  // record's first line; when the record held several (a flattened log), next_piece gives the
  // others. The record's text must stay valid until then.
  Line parse(const ingest::Record& record, std::optional<int> rank_hint);
  // The record's next line, if parse found it held several. Call until it returns false.
  bool next_piece(Line& line);
  // Whether the next line may belong to the last one (a hard-wrapped head, an open NeMo or
  // SGLang record): a reader that skips lines must not skip the next one.
  bool busy() const { return wrap_.open || record_open_.open; }

  // A reader that skipped lines: the rank `record` would get, and its own time, if any, without
  // changing any state. With remember_time, the time that a skipped line of a rank would have
  // left for the rank's next line.
  struct Peek {
    int rank = -1;
    int local_rank = -1;
    Timestamp time;  // not valid when the line has none of its own
  };
  Peek peek(const ingest::Record& record, std::optional<int> rank_hint) const;
  void remember_time(uint32_t source, const Peek& peeked);

 private:
  struct LastTime {
    uint32_t source;
    int rank;
    int local_rank;
    Timestamp time;
  };
  // The last line of a source while it may be the head of a hard-wrapped line.
  struct WrapHead {
    bool open = false;
    uint32_t source = 0;
    uint64_t number = 0;
    size_t width = 0;
    bool had_prefix = false;
    bool width_seen_before = false;  // an earlier line was exactly as wide: the terminal's width
    std::string text;
    std::string display;
    std::string host;
    Line line;  // rank, pid, time, severity (its views are not used)
  };
  // A NeMo record whose 4-space continuation lines may follow, or an SGLang traceback record
  // whose unprefixed lines may follow.
  struct OpenRecord {
    bool open = false;
    bool traceback = false;
    uint32_t source = 0;
    int rank = -1;
    int local_rank = -1;
    bool rank_from_prefix = false;
    char severity = 0;
  };

  Line parse_piece(std::string_view text, bool is_piece);
  bool mend_wrap(Line& line, std::string_view piece, std::string_view rest, bool took_prefix);
  void remember_wrap_head(const Line& line, size_t width, bool took_prefix);
  void continue_record(Line& line, std::string_view& rest, bool record_header, bool rank_prefix);
  void note_line_number(int64_t number, bool is_line_number);
  void carry_time(Line& line);

  ingest::Record record_;
  std::optional<int> rank_hint_;
  std::string scratch_;                   // the record without ANSI escapes
  std::string unescaped_;                 // a flattened record with its "\n" unescaped
  std::vector<std::string_view> pieces_;  // the lines a flattened record holds
  size_t next_piece_ = 0;
  bool pieces_unescaped_ = false;
  std::unique_ptr<job::ProcessTable> own_table_;  // when no job's table was given
  job::ProcessTable& table_;
  ProcessLessons lessons_;
  // Viewer line numbers: a source whose leading "[N] " counts up with its lines.
  uint32_t numbered_source_ = 0;
  int64_t numbered_offset_ = 0;
  int numbered_streak_ = 0;
  bool line_numbered_ = false;
  // Hard wraps: the longest line of the current source so far, and the open head.
  uint32_t longest_source_ = 0;
  size_t longest_ = 0;
  WrapHead wrap_;
  std::string joined_text_;
  std::string joined_display_;
  OpenRecord record_open_;
  std::vector<LastTime> last_times_;  // few entries: one per rank and source
  size_t last_hit_ = 0;
};

}  // namespace faultline::parse
