#include "job/process_table.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace faultline::job {
namespace {

bool is_ipv4(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
  });
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

ProcessTable::PidFacts* ProcessTable::pid_entry(int64_t pid) {
  auto found = pids_.find(pid);
  if (found != pids_.end()) return &found->second;
  if (pids_.size() >= kMaxPids) return nullptr;
  return &pids_[pid];
}

void ProcessTable::learn_rank(int64_t pid, int rank, int64_t size, std::string_view host, RankOrigin origin,
                              uint64_t line) {
  if (pid == 0 || rank < 0 || rank >= size) return;
  PidFacts* known = pid_entry(pid);
  if (!known || size <= known->communicator_size) return;
  known->rank = rank;
  known->communicator_size = size;
  known->origin = origin;
  known->rank_line = line;
  if (known->host.empty() && !host.empty()) known->host.assign(host);
}

void ProcessTable::learn_communicator_rank(int64_t pid, int rank, int64_t size, std::string_view host) {
  learn_rank(pid, rank, size, host, RankOrigin::kCommunicator, 0);
}

void ProcessTable::learn_engine_rank(int64_t pid, int rank, int64_t size, std::string_view host,
                                     uint64_t line) {
  learn_rank(pid, rank, size, host, RankOrigin::kEngine, line);
}

void ProcessTable::learn_launcher_rank(int64_t pid, int rank) {
  if (pid == 0 || rank < 0) return;
  if (PidFacts* known = pid_entry(pid)) {
    known->rank = rank;
    known->communicator_size = std::numeric_limits<int64_t>::max();
    known->origin = RankOrigin::kLauncher;
  }
}

void ProcessTable::note_worker_failure(WorkerFailure failure) {
  if (failure.rank < 0 || worker_failures_.size() >= kMaxEntries) return;
  worker_failures_.push_back(std::move(failure));
}

void ProcessTable::forget_rank(int64_t pid) {
  auto found = pids_.find(pid);
  if (found == pids_.end()) return;
  found->second.rank = -1;
  found->second.communicator_size = 0;
  found->second.origin = RankOrigin::kNone;
}

void ProcessTable::learn_local_rank(int64_t pid, int local_rank) {
  if (pid == 0 || local_rank < 0) return;
  if (PidFacts* known = pid_entry(pid)) known->local_rank = local_rank;
}

void ProcessTable::learn_pid_host(int64_t pid, std::string_view host) {
  if (pid == 0 || host.empty()) return;
  if (PidFacts* known = pid_entry(pid)) known->host.assign(host);
}

const ProcessTable::PidFacts* ProcessTable::pid_facts(int64_t pid) const {
  if (pid == 0 || pids_.empty()) return nullptr;
  auto found = pids_.find(pid);
  return found == pids_.end() ? nullptr : &found->second;
}

void ProcessTable::learn_prefix_host(std::string_view host) {
  if (prefix_hosts_.size() >= kMaxPrefixHosts) return;
  if (std::find(prefix_hosts_.begin(), prefix_hosts_.end(), host) != prefix_hosts_.end()) return;
  prefix_hosts_.emplace_back(host);
}

void ProcessTable::observe_line(std::string_view host, int rank, int64_t pid, int device,
                                std::string_view text) {
  if (rank >= 0) ranks_seen_.insert(rank);
  if (!host.empty() && hosts_.size() < kMaxEntries && !hosts_.contains(host)) hosts_.emplace(host);
  observe(host, rank, pid ? text : std::string_view{});
  if (pid != 0 && rank >= 0) observe_process(host, pid, rank);
  if (device >= 0) {
    observe_process_device(host, pid, device);
    if (rank >= 0) observe_device(host, device, rank);
  }
}

void ProcessTable::observe(std::string_view host, int rank, std::string_view text) {
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

void ProcessTable::observe_process(std::string_view host, int64_t pid, int rank) {
  if (pid == 0 || rank < 0) return;
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

void ProcessTable::observe_device(std::string_view host, int device, int rank) {
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

void ProcessTable::observe_process_device(std::string_view host, int64_t pid, int device) {
  if (pid == 0 || device < 0 || !one_device_per_process_) return;
  std::pair<std::string, int64_t> key{std::string(host), pid};
  auto it = process_devices_.find(key);
  if (it == process_devices_.end()) {
    if (process_devices_.size() < kMaxEntries) process_devices_.emplace(std::move(key), device);
  } else if (it->second != device) {
    one_device_per_process_ = false;
  }
}

std::vector<ProcessTable::Process> ProcessTable::processes() const {
  std::vector<Process> out;
  for (const auto& [key, rank] : process_ranks_) out.push_back({key.first, key.second, rank});
  return out;
}

std::string ProcessTable::host_of(std::string_view peer) const {
  std::string name = normalize_host(peer);
  if (auto it = address_hosts_.find(name); it != address_hosts_.end()) return it->second;
  return name;
}

std::string ProcessTable::host_of_rank(int rank) const {
  std::string found;
  for (const auto& [host, ranks] : host_ranks_) {
    if (!ranks.contains(rank)) continue;
    if (!found.empty()) return "";
    found = host;
  }
  return found;
}

std::vector<int> ProcessTable::ranks_of(std::string_view peer) const {
  auto it = host_ranks_.find(host_of(peer));
  if (it == host_ranks_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace faultline::job
