// Finding: what rules hand to correlate. One rule matched one event or line of one rank.
// It points at its Rule, which outlives it (the RuleSet lives for the whole run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/timestamp.hpp"
#include "base/value.hpp"
#include "rules/rule.hpp"

namespace faultline::rules {

struct Evidence {
  uint32_t source = 0;
  uint64_t line = 0;
  int rank = -1;
  std::string text;  // the line as the log shows it, ANSI removed
};

struct Finding {
  const Rule* rule = nullptr;
  int rank = -1;
  int local_rank = -1;
  std::string host;
  int64_t pid = 0;
  int device = -1;  // NCCL's `[cudaDev]` prefix of its line: a process-local device, not a rank
  Timestamp time;
  bool time_inherited = false;  // from an earlier line of the rank, not the matched line
  uint64_t sequence = 0;        // input order across the job
  Facts facts;                  // captured, then derived
  std::string matched;          // the text the rule matched (message, event or line)
  char logged_at = 0;           // of an event's finding: the level a logger printed it at (Event::logged_at)
  std::vector<Evidence> evidence;
  // Later occurrences of the same finding folded into this one while the job was read
  // (correlate/occurrence_fold.hpp): each counts as an occurrence; their evidence is sampled.
  uint64_t folded = 0;
  // What occurrence folding keys the finding by, once it has been computed: the fields it reads
  // do not change after the finding is made, and a dense log is folded many times over.
  std::string fold_key;
};

}  // namespace faultline::rules
