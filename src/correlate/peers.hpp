// NCCL peers, for correlate. NCCL WARN lines that name a peer ("Connection closed by remote
// peer node-3<45678>", "Got completion from peer 10.0.0.5<45678> with error 5") point at the
// peer's host, not at the rank that printed them. The job's table of processes
// (job/process_table.hpp) knows which ranks ran on which host and which addresses a host uses
// (NCCL INFO "Bootstrap : Using eth0:10.0.0.5<0>"); peers_named() resolves the peers of a job's
// findings with it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "job/process_table.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

using job::normalize_host;

// Adds what the findings show to the job's table: their host and rank, and the rank of their
// process.
void observe_findings(job::ProcessTable& processes, const std::vector<rules::Finding>& findings);

// One peer that NCCL lines blame, resolved to a host and the ranks the logs show on it.
struct PeerReport {
  std::string peer;            // as printed
  std::string host;            // normalized host it resolves to
  std::vector<int> ranks;      // ranks seen on that host; empty when none
  std::vector<int> reporters;  // ranks that printed it
};

// The peers named by symptom findings (facts peer_host / peer_ip), most reported first.
std::vector<PeerReport> peers_named(const std::vector<rules::Finding>& findings,
                                    const job::ProcessTable& processes);

// The process a launcher did not stop. torchrun's agent sends its closing signal ("Sending
// process P closing signal SIGTERM") to every local worker still running; the one worker it
// skips had already exited. When the table knows the rank of every process signalled on a
// host, and of exactly one more process there, that process is the one that ended first.
// Weak evidence: it may also have exited cleanly, or the map may miss a worker.
struct UnsignalledProcess {
  job::ProcessTable::Process process;
  std::vector<int64_t> signalled;  // the pids the launcher stopped on that host, sorted
};

// Findings that name a signalled process carry the facts `pid` and `signal_name` (SIGTERM,
// SIGINT or SIGKILL). Nothing when no host has exactly one such process, or several hosts do.
std::optional<UnsignalledProcess> process_not_signalled(const std::vector<rules::Finding>& findings,
                                                        const job::ProcessTable& processes);

}  // namespace faultline::correlate
