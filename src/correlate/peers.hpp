// NCCL peers, for correlate. NCCL WARN lines that name a peer ("Connection closed by remote
// peer node-3<45678>", "Got completion from peer 10.0.0.5<45678> with error 5") point at the
// peer's host, not at the rank that printed them. A HostDirectory learns, while the job's
// lines stream by, which ranks run on which host and which addresses a host uses (NCCL INFO
// "Bootstrap : Using eth0:10.0.0.5<0>", "NET/Socket : Using [0]eth0:10.0.0.5<0>", "OOB
// eth0:10.0.0.5<0>"); peers_named() resolves the peers of a job's findings with it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.hpp"

namespace faultline::correlate {

// Host names and addresses as NCCL prints them, made comparable: lower case, an IPv6 scope
// ("%ib0") and a domain ("node-3.cluster") removed; IPv4 addresses are kept whole.
std::string normalize_host(std::string_view host);

// Which ranks ran on which host, and the addresses of each host. Bounded: it stops learning
// at kMaxEntries hosts and addresses. Not thread-safe; one per job.
class HostDirectory {
 public:
  static constexpr size_t kMaxEntries = 4096;

  // One line of the job: its host and rank (from prefixes; empty / -1 when unknown) and text.
  void observe(std::string_view host, int rank, std::string_view text);
  // Adds what the findings show (their host and rank).
  void observe(const std::vector<rules::Finding>& findings);

  // The ranks seen on the host that `peer` (a host name or an address) names; empty when unknown.
  std::vector<int> ranks_of(std::string_view peer) const;
  // The host an address belongs to, or the normalized peer itself.
  std::string host_of(std::string_view peer) const;

 private:
  std::map<std::string, std::set<int>, std::less<>> host_ranks_;
  std::map<std::string, std::string, std::less<>> address_hosts_;  // normalized address -> normalized host
  std::string last_host_;
  int last_rank_ = -1;
};

// One peer that NCCL lines blame, resolved to a host and the ranks the logs show on it.
struct PeerReport {
  std::string peer;        // as printed
  std::string host;        // normalized host it resolves to
  std::vector<int> ranks;  // ranks seen on that host; empty when none
  std::vector<int> reporters;  // ranks that printed it
};

// The peers named by symptom findings (facts peer_host / peer_ip), most reported first.
std::vector<PeerReport> peers_named(const std::vector<rules::Finding>& findings, const HostDirectory& directory);

}  // namespace faultline::correlate
