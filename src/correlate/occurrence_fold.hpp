// Occurrence folding: keeps a job's findings bounded by distinct findings, not by occurrences.
// The job runner (job/job_runner.cpp) calls it while it reads, once its findings pass a threshold;
// correlate's fold (correlate.cpp) then counts each folded occurrence (Finding::folded) as it
// counts a finding.
//
// Occurrences of the same finding (same rule, fingerprint, rank, host, process and level, same
// facts up to decimal measurements such as an OOM's MiB) collapse into their first occurrence,
// which keeps a sample of their evidence and the count; the latest occurrence is kept too. Only
// findings that nothing still to come can touch are folded: none of their lines is in an open
// event, no finding on such a line shares a line with them, and the rule priority that
// rules::keep_highest_priority applies at the end is applied to them now, as it would be then.
// An error no rule knows folds only before every open event, and only with occurrences that a
// recovery of its rank does not separate, so that which of them the job recovered from stays.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "rules/finding.hpp"

namespace faultline::correlate {

struct OccurrenceFold {
  size_t folded = 0;   // occurrences removed into their first occurrence's count
  size_t yielded = 0;  // findings removed because a rule of higher priority matched their line
};

// `open_lines`: (source, line number) of the lines of the events the assembler holds open, on
// which findings may still come (assemble::Assembler::collect_open_lines); `open_since`: the
// input sequence of the earliest of those events' first lines. Keeps the order of what remains.
OccurrenceFold fold_occurrences(std::vector<rules::Finding>& findings,
                                const std::vector<std::pair<uint32_t, uint64_t>>& open_lines,
                                uint64_t open_since);

}  // namespace faultline::correlate
