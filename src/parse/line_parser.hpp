// LineParser: Record ─▶ Line. Recognises, in any nesting order, the launcher prefixes
// (torchrun `[rank3]:` and `[default3]:`, srun --label `3: `, Open MPI `[1,3]<stderr>:`,
// MPICH `[3] `, Ray/vLLM `(Name pid=N, ip=H)`, SGLang `[date TP3]`), leading ISO-8601
// timestamps, and the log headers after them (c10 `[E1129 10:22:33.123456789 file:1]`,
// glog `E1129 10:22:33.123456 1 file:1]`, vLLM `ERROR 11-29 10:22:33 [file.py:1]`, Python
// logging `2026-11-29 10:22:33,123 - name - ERROR -`, DeepSpeed `[date] [ERROR] [f:1:g]`).
// Everything is hand-parsed: this runs on every line, so no regular expressions.
//
// A line without a timestamp of its own takes the last one seen for its rank in its source
// (Line::time_inherited), so a traceback printed after a logger's ERROR line is ordered by it.
// Not thread-safe: one parser per job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ingest/record.hpp"
#include "parse/line.hpp"

namespace faultline::parse {

class LineParser {
 public:
  // `rank_hint` is the rank the file's path names, used when a line names none.
  Line parse(const ingest::Record& record, std::optional<int> rank_hint);

 private:
  struct LastTime {
    uint32_t source;
    int rank;
    int local_rank;
    Timestamp time;
  };
  void carry_time(Line& line);

  std::string scratch_;
  std::vector<LastTime> last_times_;  // few entries: one per rank and source
  size_t last_hit_ = 0;
};

}  // namespace faultline::parse
