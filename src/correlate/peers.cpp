#include "correlate/peers.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace faultline::correlate {
namespace {

bool is_ipv4(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
  });
}

const std::string* string_fact(const Facts& facts, std::string_view name) {
  const Value* value = find_fact(facts, name);
  if (!value || !std::holds_alternative<std::string>(*value)) return nullptr;
  return &std::get<std::string>(*value);
}

// The addresses in an NCCL INFO line that says which interfaces this process uses:
// "Bootstrap : Using eth0:10.0.0.5<0>", "NET/Socket : Using [0]eth0:10.0.0.5<0> [1]ib0:…",
// "NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.5<0>". An address sits between the
// interface's ':' and the '<' of its port.
std::vector<std::string_view> own_addresses(std::string_view text) {
  std::vector<std::string_view> out;
  size_t using_at = text.find(" Using ");
  if (using_at == std::string_view::npos || text.find("NCCL INFO") == std::string_view::npos) return out;
  std::string_view rest = text.substr(using_at + 7);
  while (!rest.empty()) {
    size_t open = rest.find('<');
    if (open == std::string_view::npos) break;
    size_t token = rest.find_last_of(" ]", open);
    std::string_view word = rest.substr(token == std::string_view::npos ? 0 : token + 1,
                                        open - (token == std::string_view::npos ? 0 : token + 1));
    size_t colon = word.find(':');
    if (colon != std::string_view::npos && colon + 1 < word.size()) out.push_back(word.substr(colon + 1));
    rest.remove_prefix(open + 1);
  }
  return out;
}

}  // namespace

std::string normalize_host(std::string_view host) {
  std::string out;
  for (char c : host) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (size_t scope = out.find('%'); scope != std::string::npos) out.resize(scope);
  if (out.find(':') == std::string::npos && !is_ipv4(out)) {
    if (size_t dot = out.find('.'); dot != std::string::npos && dot > 0) out.resize(dot);
  }
  return out;
}

void HostDirectory::observe(std::string_view host, int rank, std::string_view text) {
  if (host.empty()) return;
  if (rank >= 0 && (rank != last_rank_ || host != last_host_)) {
    last_rank_ = rank;
    last_host_.assign(host);
    std::string name = normalize_host(host);
    auto it = host_ranks_.find(name);
    if (it != host_ranks_.end()) {
      it->second.insert(rank);
    } else if (host_ranks_.size() < kMaxEntries) {
      host_ranks_[name].insert(rank);
    }
  }
  if (text.size() < 20 || text.find("Using") == std::string_view::npos) return;
  for (std::string_view address : own_addresses(text)) {
    if (address_hosts_.size() >= kMaxEntries) break;
    address_hosts_.try_emplace(normalize_host(address), normalize_host(host));
  }
}

void HostDirectory::observe(const std::vector<rules::Finding>& findings) {
  for (const auto& finding : findings) {
    observe(finding.host, finding.rank, {});
    if (finding.pid != 0 && finding.rank >= 0 && !finding.host.empty()) {
      observe_process(finding.host, finding.pid, finding.rank);
    }
  }
}

void HostDirectory::observe_process(std::string_view host, int64_t pid, int rank) {
  if (pid == 0 || rank < 0) return;
  // Consecutive lines of one process say the same: only the first is looked up.
  if (pid == last_pid_ && rank == last_process_rank_ && host == last_process_host_) return;
  last_pid_ = pid;
  last_process_rank_ = rank;
  last_process_host_.assign(host);
  std::pair<std::string, int64_t> key{normalize_host(host), pid};
  if (auto it = process_ranks_.find(key); it != process_ranks_.end()) {
    it->second = rank;
  } else if (process_ranks_.size() < kMaxEntries) {
    process_ranks_.emplace(std::move(key), rank);
  }
}

void HostDirectory::observe_device(std::string_view host, int device, int rank) {
  if (device < 0 || rank < 0) return;
  if (device == last_device_ && rank == last_device_rank_ && host == last_device_host_) return;
  last_device_ = device;
  last_device_rank_ = rank;
  last_device_host_.assign(host);
  std::pair<std::string, int> key{normalize_host(host), device};
  if (auto it = device_ranks_.find(key); it != device_ranks_.end()) {
    if (it->second.size() < 8) it->second.insert(rank);
  } else if (device_ranks_.size() < kMaxEntries) {
    device_ranks_[std::move(key)].insert(rank);
  }
}

void HostDirectory::observe_process_device(std::string_view host, int64_t pid, int device) {
  if (pid == 0 || device < 0 || !one_device_per_process_) return;
  std::pair<std::string, int64_t> key{std::string(host), pid};
  auto it = process_devices_.find(key);
  if (it == process_devices_.end()) {
    if (process_devices_.size() < kMaxEntries) process_devices_.emplace(std::move(key), device);
  } else if (it->second != device) {
    one_device_per_process_ = false;
  }
}

std::vector<HostDirectory::Process> HostDirectory::processes() const {
  std::vector<Process> out;
  for (const auto& [key, rank] : process_ranks_) out.push_back({key.first, key.second, rank});
  return out;
}

std::string HostDirectory::host_of(std::string_view peer) const {
  std::string name = normalize_host(peer);
  if (auto it = address_hosts_.find(name); it != address_hosts_.end()) return it->second;
  return name;
}

std::vector<int> HostDirectory::ranks_of(std::string_view peer) const {
  auto it = host_ranks_.find(host_of(peer));
  if (it == host_ranks_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<PeerReport> peers_named(const std::vector<rules::Finding>& findings,
                                    const HostDirectory& directory) {
  std::vector<PeerReport> peers;
  for (const auto& finding : findings) {
    if (finding.rule->role != rules::Role::kSymptom) continue;
    const std::string* peer = string_fact(finding.facts, "peer_host");
    if (!peer) peer = string_fact(finding.facts, "peer_ip");
    if (!peer || peer->empty()) continue;
    std::string host = directory.host_of(*peer);
    auto it = std::find_if(peers.begin(), peers.end(), [&](const PeerReport& p) { return p.host == host; });
    if (it == peers.end()) {
      peers.push_back({*peer, host, directory.ranks_of(*peer), {}});
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
                                                        const HostDirectory& directory) {
  std::map<std::string, std::set<int64_t>> signalled;  // normalized host ("" when unknown) -> pids
  for (const auto& finding : findings) {
    const Value* pid = find_fact(finding.facts, "pid");
    const std::string* signal = string_fact(finding.facts, "signal_name");
    if (!pid || !std::holds_alternative<int64_t>(*pid) || !signal) continue;
    if (*signal != "SIGTERM" && *signal != "SIGINT" && *signal != "SIGKILL") continue;
    signalled[normalize_host(finding.host)].insert(std::get<int64_t>(*pid));
  }
  if (signalled.empty()) return std::nullopt;
  auto processes = directory.processes();
  std::set<std::string> process_hosts;
  for (const auto& process : processes) process_hosts.insert(process.host);
  std::optional<UnsignalledProcess> found;
  for (const auto& [host, pids] : signalled) {
    // Lines that name no host stand for the job's one host, when it has one.
    std::string where = host;
    if (where.empty()) {
      if (process_hosts.size() != 1 || directory.host_count() > 1) continue;
      where = *process_hosts.begin();
    }
    std::vector<HostDirectory::Process> unsignalled;
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
