// PrefixScanner: the launcher prefixes and log headers at the start of one line, in any
// nesting order (see line_parser.hpp for the list). Used by LineParser only; it holds no state
// of its own: what it needs to know about earlier lines comes in a ScanContext, and what later
// lines need to know about this one goes out in ScanNotes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse/line.hpp"

namespace faultline::parse {

struct ScanContext {
  // pdsh hosts and TorchX roles already seen as prefixes: a later line may carry one before a
  // plain message (`worker-1: Traceback …`), where a first sighting needs a prefix after it.
  const std::vector<std::string>* known_hosts = nullptr;
  // This source's lines start with a viewer's line numbers `[80746] `, not MPICH ranks.
  bool line_numbered = false;
};

struct ScanNotes {
  std::string_view new_host;            // a host or role prefix seen for the first time: remember it
  int64_t leading_number = -1;          // the N of a `[N] ` at the very start of the line
  bool leading_number_is_line = false;  // ... which was taken as a viewer's line number
  bool record_header = false;           // a NeMo header: indented lines after it continue its record
  int64_t pid_of_rank = 0;              // a process prefix named this pid together with the line's rank
};

// Takes the prefixes and headers off the front of `text` (the whole line, ANSI removed, which
// `line.display` must point at) and fills `line`; returns the message.
std::string_view scan_prefixes(std::string_view text, Line& line, const ScanContext& context,
                               ScanNotes& notes);

// Whether `text` starts with something scan_prefixes would take (other than a host, a role or
// a positional label), or with NCCL's own `host:pid:tid [dev] `.
bool starts_with_prefix(std::string_view text);

// NCCL's `host:pid:tid [cudaDev] ` at the start of `text` (not removed: rules match it).
// cudaDev is a process-local device index, never a rank; `device`, when given, receives it.
bool take_nccl_prefix(std::string_view text, std::string_view& host, int64_t& pid, int* device = nullptr);

}  // namespace faultline::parse
