// NCCL peers, for correlate. NCCL WARN lines that name a peer ("Connection closed by remote
// peer node-3<45678>", "Got completion from peer 10.0.0.5<45678> with error 5") point at the
// peer's host, not at the rank that printed them. A HostDirectory learns, while the job's
// lines stream by, which ranks run on which host and which addresses a host uses (NCCL INFO
// "Bootstrap : Using eth0:10.0.0.5<0>", "NET/Socket : Using [0]eth0:10.0.0.5<0>", "OOB
// eth0:10.0.0.5<0>"); peers_named() resolves the peers of a job's findings with it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.hpp"

namespace faultline::correlate {

// Host names and addresses as NCCL prints them, made comparable: lower case, an IPv6 scope
// ("%ib0") and a domain ("node-3.cluster") removed; IPv4 addresses are kept whole.
std::string normalize_host(std::string_view host);

// Which ranks ran on which host, the addresses of each host, and which process (host, pid)
// was which rank. Bounded: it stops learning at kMaxEntries hosts, addresses and processes.
// Not thread-safe; one per job.
class HostDirectory {
 public:
  static constexpr size_t kMaxEntries = 4096;

  // A process of the job, as lines with an NCCL `host:pid:tid` prefix and a known rank show it.
  struct Process {
    std::string host;  // normalized
    int64_t pid = 0;
    int rank = -1;
  };

  // One line of the job: its host and rank (from prefixes or the line's pid; empty / -1 when
  // unknown) and text.
  void observe(std::string_view host, int rank, std::string_view text);
  // Adds what the findings show (their host and rank, and the rank of their process).
  void observe(const std::vector<rules::Finding>& findings);
  // Maps one process to its rank (both known).
  void observe_process(std::string_view host, int64_t pid, int rank);
  // Maps a host's CUDA device to the rank whose line shows it (NCCL's `host:pid:tid [dev]`
  // prefix on a line whose rank is known).
  void observe_device(std::string_view host, int device, int rank);
  // Notes the device a process's NCCL line shows, whether or not its rank is known.
  void observe_process_device(std::string_view host, int64_t pid, int device);
  // False once some process showed more than one device (nccl-tests' -g, a single-process
  // DataParallel job): then a device is not a process's local rank.
  bool one_device_per_process() const { return one_device_per_process_; }

  // The processes whose rank is known, by host then pid.
  std::vector<Process> processes() const;
  // How many hosts ranks were seen on.
  size_t host_count() const { return host_ranks_.size(); }
  // The ranks seen on each host (normalized), sorted.
  const std::map<std::string, std::set<int>, std::less<>>& ranks_by_host() const { return host_ranks_; }
  // The ranks each (normalized host, device) was seen driving; several when lines disagree.
  const std::map<std::pair<std::string, int>, std::set<int>>& device_ranks() const { return device_ranks_; }

  // The ranks seen on the host that `peer` (a host name or an address) names; empty when unknown.
  std::vector<int> ranks_of(std::string_view peer) const;
  // The host an address belongs to, or the normalized peer itself.
  std::string host_of(std::string_view peer) const;

 private:
  std::map<std::string, std::set<int>, std::less<>> host_ranks_;
  std::map<std::string, std::string, std::less<>> address_hosts_;  // normalized address -> normalized host
  std::map<std::pair<std::string, int64_t>, int> process_ranks_;   // (normalized host, pid) -> rank
  std::map<std::pair<std::string, int>, std::set<int>> device_ranks_;  // (normalized host, device) -> ranks
  std::map<std::pair<std::string, int64_t>, int> process_devices_;     // (host as printed, pid) -> device
  bool one_device_per_process_ = true;
  std::string last_device_host_;
  int last_device_ = -1;
  int last_device_rank_ = -1;
  std::string last_host_;
  int last_rank_ = -1;
  std::string last_process_host_;
  int64_t last_pid_ = 0;
  int last_process_rank_ = -1;
};

// One peer that NCCL lines blame, resolved to a host and the ranks the logs show on it.
struct PeerReport {
  std::string peer;            // as printed
  std::string host;            // normalized host it resolves to
  std::vector<int> ranks;      // ranks seen on that host; empty when none
  std::vector<int> reporters;  // ranks that printed it
};

// The peers named by symptom findings (facts peer_host / peer_ip), most reported first.
std::vector<PeerReport> peers_named(const std::vector<rules::Finding>& findings,
                                    const HostDirectory& directory);

// The process a launcher did not stop. torchrun's agent sends its closing signal ("Sending
// process P closing signal SIGTERM") to every local worker still running; the one worker it
// skips had already exited. When the directory knows the rank of every process signalled on a
// host, and of exactly one more process there, that process is the one that ended first.
// Weak evidence: it may also have exited cleanly, or the map may miss a worker.
struct UnsignalledProcess {
  HostDirectory::Process process;
  std::vector<int64_t> signalled;  // the pids the launcher stopped on that host, sorted
};

// Findings that name a signalled process carry the facts `pid` and `signal_name` (SIGTERM,
// SIGINT or SIGKILL). Nothing when no host has exactly one such process, or several hosts do.
std::optional<UnsignalledProcess> process_not_signalled(const std::vector<rules::Finding>& findings,
                                                        const HostDirectory& directory);

}  // namespace faultline::correlate
