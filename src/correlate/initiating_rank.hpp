// The initiating rank, for correlate: who started the failure the diagnosis names, from the
// reports of its own group (the only rank, or the earliest where timestamps order them, on the
// job's common clock across hosts), from collective timeouts when only symptoms were found (the
// rank that never reached the collective, or whose NCCL work is behind), and from the watchdog
// lines beside several ranks' root cause. Each choice comes with the confidence reasons it rests
// on. rank_fallbacks.hpp holds the weaker signs used when none of these names a rank. Pure: no I/O.
#pragma once

#include <optional>
#include <vector>

#include "correlate/clock_skew.hpp"
#include "correlate/confidence_reason.hpp"
#include "correlate/diagnosis.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

struct InitiatingRank {
  std::optional<int> rank;
  std::vector<ConfidenceReason> reasons;
  std::optional<ConfidenceReason> skew_note = {};  // set when correcting host clocks changed who looks first
  bool contradicted = false;  // the watchdog lines name another rank than the first reporter
};

// `group` is the diagnosis' group and `members` its findings, earliest first; `symptoms` every
// symptom of the job.
InitiatingRank initiating_rank_of(const FindingGroup& group,
                                  const std::vector<const rules::Finding*>& members,
                                  const std::vector<int>& ranks_seen, const Coverage& coverage,
                                  const HostOffsets& offsets,
                                  const std::vector<const rules::Finding*>& symptoms);

}  // namespace faultline::correlate
