// Line: what parse hands to assemble. One log line with its launcher prefixes, log header
// and ANSI escapes taken apart. The views point into the parser's scratch space and the
// Record's block: valid until the parser's next call.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/timestamp.hpp"

namespace faultline::parse {

struct Line {
  std::string_view text;     // the message: prefixes, headers and ANSI escapes removed
  std::string_view display;  // the whole line, ANSI escapes removed (for evidence)
  int rank = -1;             // global rank, -1 when unknown
  int local_rank = -1;       // torchrun [defaultN]: local rank, -1 when unknown
  bool rank_from_prefix = false;  // the rank came from this line, not from the file name
  std::string_view host;     // from an `ip=` or host prefix; empty when unknown
  int64_t pid = 0;           // from a `pid=` prefix; 0 when unknown
  Timestamp time;            // the line's own, else the last one of its rank in this source
  bool time_inherited = false;  // `time` came from an earlier line
  char severity = 0;         // 'E', 'F', 'W', 'I', 'D' from a log header; 0 when none
  uint32_t source = 0;
  uint64_t number = 0;       // line number within the source
};

}  // namespace faultline::parse
