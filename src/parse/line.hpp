// Line: what parse hands to assemble. One log line with its launcher prefixes, log header
// and ANSI escapes taken apart, and the damage of a paste (Markdown quoting, hard wraps,
// progress bars and lines glued together) repaired where it can be. The views point into the
// parser's scratch space and the Record's block: valid until the parser's next call.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/timestamp.hpp"

namespace faultline::parse {

struct Line {
  std::string_view text;          // the message: prefixes, headers and ANSI escapes removed
  std::string_view display;       // the whole line, ANSI escapes and Markdown quoting removed (for evidence)
  int rank = -1;                  // global rank, -1 when unknown
  int local_rank = -1;            // torchrun [defaultN]: local rank, -1 when unknown
  bool rank_from_prefix = false;  // the rank came from this line, not from the file name
  bool rank_from_pid = false;     // the rank came from the line's pid, mapped by an earlier line
                                  // (NCCL ncclCommInitRank, torchrun `(pid: P)`, a vLLM prefix)
  std::string_view host;          // from an `ip=`, pdsh `host: `, NCCL `host:pid:tid`, kubectl, compose or
                                  // TorchX prefix, or the host known for the pid; empty when unknown
  int64_t pid = 0;                // from a `pid=` or NCCL prefix; 0 when unknown
  int device = -1;                // NCCL prefix `host:pid:tid [cudaDev]`: the process-local CUDA device
                                  // (not a rank); -1 when the line has none
  Timestamp time;                 // the line's own, else the last one of its rank in this source
  bool time_inherited = false;    // `time` came from an earlier line
  char severity = 0;              // 'E', 'F', 'W', 'I', 'D' from a log header; 0 when none
  int repeated = 0;               // Ray's ` [repeated Nx across cluster]` (removed from text): N; 0 when none
  // A terminal hard-wrapped the previous line of this source mid-token and this line is its
  // tail: `text` and `display` hold the whole mended line, and rank, pid, host, time and
  // severity are the previous line's.
  bool continues_previous = false;
  // An indented continuation of a multi-line log record (NeMo's "\n    "): the indentation is
  // removed from `text`, and rank, time and severity are the record's.
  bool continues_record = false;
  // `text` was rebuilt (a mended wrap, a line of a log flattened with escaped "\n") and is not
  // found as such in the record's bytes: a prefilter over raw bytes must not rule it out.
  bool text_rebuilt = false;
  // The next line may continue this one (it may be hard-wrapped, or it opens a NeMo record).
  bool may_continue = false;
  uint32_t source = 0;
  uint64_t number = 0;  // line number within the source
};

}  // namespace faultline::parse
