#include "correlate/peers.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace faultline::correlate {
namespace {

const std::string* string_fact(const Facts& facts, std::string_view name) {
  const Value* value = find_fact(facts, name);
  if (!value || !std::holds_alternative<std::string>(*value)) return nullptr;
  return &std::get<std::string>(*value);
}

}  // namespace

void observe_findings(job::ProcessTable& processes, const std::vector<rules::Finding>& findings) {
  for (const auto& finding : findings) {
    processes.observe(finding.host, finding.rank, {});
    if (finding.pid != 0 && finding.rank >= 0 && !finding.host.empty()) {
      processes.observe_process(finding.host, finding.pid, finding.rank);
    }
  }
}

std::vector<PeerReport> peers_named(const std::vector<rules::Finding>& findings,
                                    const job::ProcessTable& table) {
  std::vector<PeerReport> peers;
  for (const auto& finding : findings) {
    if (finding.rule->role != rules::Role::kSymptom) continue;
    const std::string* peer = string_fact(finding.facts, "peer_host");
    if (!peer) peer = string_fact(finding.facts, "peer_ip");
    if (!peer || peer->empty()) continue;
    std::string host = table.host_of(*peer);
    auto it = std::find_if(peers.begin(), peers.end(), [&](const PeerReport& p) { return p.host == host; });
    if (it == peers.end()) {
      peers.push_back({*peer, host, table.ranks_of(*peer), {}});
      it = peers.end() - 1;
    }
    if (finding.rank >= 0 &&
        std::find(it->reporters.begin(), it->reporters.end(), finding.rank) == it->reporters.end()) {
      it->reporters.push_back(finding.rank);
    }
  }
  for (auto& peer : peers) std::sort(peer.reporters.begin(), peer.reporters.end());
  std::stable_sort(peers.begin(), peers.end(), [](const PeerReport& a, const PeerReport& b) {
    return a.reporters.size() > b.reporters.size();
  });
  return peers;
}

std::optional<UnsignalledProcess> process_not_signalled(const std::vector<rules::Finding>& findings,
                                                        const job::ProcessTable& table) {
  std::map<std::string, std::set<int64_t>> signalled;  // normalized host ("" when unknown) -> pids
  for (const auto& finding : findings) {
    const Value* pid = find_fact(finding.facts, "pid");
    const std::string* signal = string_fact(finding.facts, "signal_name");
    if (!pid || !std::holds_alternative<int64_t>(*pid) || !signal) continue;
    if (*signal != "SIGTERM" && *signal != "SIGINT" && *signal != "SIGKILL") continue;
    signalled[normalize_host(finding.host)].insert(std::get<int64_t>(*pid));
  }
  if (signalled.empty()) return std::nullopt;
  auto processes = table.processes();
  std::set<std::string> process_hosts;
  for (const auto& process : processes) process_hosts.insert(process.host);
  std::optional<UnsignalledProcess> found;
  for (const auto& [host, pids] : signalled) {
    // Lines that name no host stand for the job's one host, when it has one.
    std::string where = host;
    if (where.empty()) {
      if (process_hosts.size() != 1 || table.host_count() > 1) continue;
      where = *process_hosts.begin();
    }
    std::vector<job::ProcessTable::Process> unsignalled;
    size_t known_signalled = 0;
    for (const auto& process : processes) {
      if (process.host != where) continue;
      if (pids.contains(process.pid)) {
        ++known_signalled;
      } else {
        unsignalled.push_back(process);
      }
    }
    // Every signalled pid must be a known worker, else the map of this host is incomplete.
    if (known_signalled != pids.size() || unsignalled.size() != 1) continue;
    if (found) return std::nullopt;  // several hosts each lost a process: no one first
    found = UnsignalledProcess{unsignalled.front(), std::vector<int64_t>(pids.begin(), pids.end())};
  }
  return found;
}

}  // namespace faultline::correlate
