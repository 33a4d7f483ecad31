// Process clues, for correlate: what the job's table of processes (job/process_table.hpp) and
// the NCCL work counters say about the initiating rank when the failure's own lines do not. Each
// is weaker than a rank's own first error, and its reason (confidence_reason.hpp) says which:
//   - torchelastic's "Root Cause (first observed failure)" entry: the agent's view, ordered by
//     the whole-second times of the workers' error files;
//   - NCCL work counters: the rank that enqueued the least work (watchdog's `last enqueued NCCL
//     work`, the heartbeat monitor's `workMetaList_.size()`) is behind, and the others wait for it;
//   - a worker's pid that the engine's own rank line maps (vLLM's `rank R in world size N` under
//     a `(RayWorkerWrapper pid=P, ip=H)` prefix): the reason names the line.
// Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "correlate/confidence_reason.hpp"
#include "job/process_table.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

// A rank a clue names, and why.
struct RankLead {
  int rank = -1;
  ConfidenceReason reason;
};

// The one rank that torchelastic's Root Cause entries name as exiting with an error of its own
// (a positive exit code, not a signal), among `candidates` when any are given. Nothing when the
// entries name none, several ranks, or one outside the candidates, or when another worker exited
// with an error of its own in the same second (the agent's order is then a tie).
std::optional<RankLead> root_cause_entry(const job::ProcessTable& processes,
                                         const std::vector<int>& candidates);

// The rank whose NCCL work counters are behind every other reporting rank's: the fewest works
// enqueued (`last_enqueued`), else the fewest outstanding (`outstanding_works`), each the
// smallest a rank reported, among two or more ranks (and among `candidates` when any are given).
std::optional<RankLead> behind_in_work(const std::vector<const rules::Finding*>& findings,
                                       const std::vector<int>& candidates);

// When every report of `rank` among `members` has a pid whose rank the engine's own rank line
// taught (vLLM under a Ray or multiprocessing prefix), the reason that names that line.
std::optional<ConfidenceReason> engine_rank_reason(int rank,
                                                   const std::vector<const rules::Finding*>& members,
                                                   const job::ProcessTable& processes);

}  // namespace faultline::correlate
