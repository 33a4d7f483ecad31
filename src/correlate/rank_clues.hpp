// Rank clues, for correlate: what a finding whose line names no rank still says about the rank
// that printed it, read against the job's table of processes (job::ProcessTable: ranks per host,
// the device NCCL lines show each rank driving). Each clue is weaker than a rank's own prefix:
//   - the process the line names or comes from (a `pid` fact, such as torchrun's `failed
//     (exitcode: 1) local_rank: 1 (pid: 31842)`, the line's own pid, or the Ray actor a driver's
//     error names, `ray::RayWorkerWrapper.execute_method() (pid=P, ip=H, …)`) whose rank the table
//     learned, however late in the logs (a failure summary, an NCCL communicator, an engine line);
//   - the launcher's local rank (torchrun's `local_rank: 3`, a `[default3]` prefix) on a host
//     whose ranks are known;
//   - the CUDA device the error itself names (`GPU 5 has a total capacity`, `device 5`,
//     `cuda:5` in a frame) on such a host: with one GPU per process, device = local rank;
//   - the `[dev]` of NCCL's `host:pid:tid [dev]` prefix, in a job of one host only.
// A host's local rank L is global rank L on a job of one host, the rank NCCL lines show on that
// device, or (several hosts, each holding an aligned block of N ranks, as torchrun numbers them)
// N × block + L. Pure: no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "correlate/diagnosis.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

enum class ClueKind {
  kProcess,      // the process the line names or comes from, by the table
  kLocalRank,    // the launcher's local rank
  kErrorDevice,  // the device the error names
  kNcclDevice,   // NCCL's [dev] prefix
};

// How a host's local index became a global rank.
enum class ClueMapping {
  kOneHost,      // the job shows one host: local is global
  kDeviceLines,  // NCCL lines show that rank on that device of that host
  kHostBlock,    // the host's ranks are an aligned block of the job's ranks per host
  kPidTable,     // kProcess: the table knows the pid's rank
};

struct RankClue {
  ClueKind kind = ClueKind::kErrorDevice;
  ClueMapping mapping = ClueMapping::kOneHost;
  int rank = -1;
  int index = -1;               // the local rank or device the line shows (kProcess: none)
  int64_t pid = 0;              // kProcess: the process
  std::string host;             // as the finding names it; empty when it names none
  std::vector<int> host_ranks;  // for kHostBlock: the block's ranks
};

// The CUDA device an error names: its facts `gpu` or `device`, else one distinct `GPU N`,
// `device N` or `cuda:N` in its matched text and evidence. Nothing when none, or several.
std::optional<int> device_named_by(const rules::Finding& finding);

// Gives each finding that names no rank the rank its strongest clue names (and its evidence
// lines that rank), and returns the clue used, by finding sequence.
std::map<uint64_t, RankClue> attribute_ranks(std::vector<rules::Finding>& findings, const JobShape& shape);

// What the clue rests on, as one confidence reason (kind rank_clue: the clue's kind and mapping
// by name, the rank, the local index or pid, the host and, for a host block, its ranks).
ConfidenceReason clue_reason(const RankClue& clue);

}  // namespace faultline::correlate
