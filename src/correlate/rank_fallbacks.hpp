// Rank fallbacks, for correlate: the weaker signs that name the initiating rank when the
// failure's own reports do not (initiating_rank.hpp), strongest first: a relay of the same cause
// that names one rank, torchelastic's Root Cause entry, an NCCL peer that other ranks lost, a job
// of one rank or one node, the worker the launcher did not signal. Then a victim (a rank that only
// timed out) gives way to ranks with errors of their own, and the reasons say when the rank rests
// on a line's clue (rank_clues.hpp) or on the engine's rank line (process_clues.hpp). None adds to
// the confidence. Pure: no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "correlate/diagnosis.hpp"
#include "correlate/grouping.hpp"
#include "correlate/rank_clues.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

// `chosen` is the diagnosis' group among `candidates` (its tier's groups), `members` its findings,
// earliest first; `clues` the rank clues by finding sequence. The job's table of processes learns
// what the findings say of pids and peers.
void name_rank_otherwise(Diagnosis& diagnosis, const FindingGroup& chosen,
                         const std::vector<FindingGroup>& candidates,
                         const std::vector<const rules::Finding*>& members,
                         const std::vector<rules::Finding>& findings, JobShape& shape,
                         const std::map<uint64_t, RankClue>& clues, const Tiers& tiers);

}  // namespace faultline::correlate
