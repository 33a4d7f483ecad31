#include "correlate/rank_clues.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/text.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Every `label` + integer in `text` whose integer ends the word (`GPU 5 has`, `(GPU 5;`,
// `cuda:5'`), and whose label starts one (not `cudaDevice 5`, not `GPU 5.0 GiB`).
void devices_after(std::string_view text, std::string_view label, std::set<int>& out) {
  for (size_t at = find_text(text, label); at != std::string_view::npos;) {
    bool word_start =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    std::string_view rest = text.substr(at + label.size());
    auto number = take_integer(rest);
    bool word_end = rest.empty() || !(is_digit(rest.front()) || rest.front() == '.' ||
                                      std::isalpha(static_cast<unsigned char>(rest.front())));
    // "GPU 0000:c1:00.0": a PCI address (its domain, then the bus), not a device index.
    bool pci_address = rest.size() >= 2 && rest.front() == ':' && is_hex_digit(rest[1]);
    word_end = word_end && !pci_address;
    if (word_start && number && word_end && *number < 1 << 10) out.insert(static_cast<int>(*number));
    size_t next = find_text(text.substr(at + 1), label);
    at = next == std::string_view::npos ? next : at + 1 + next;
  }
}

// The job's hosts as one table: which host's local index is which global rank.
class HostTable {
 public:
  explicit HostTable(const JobShape& shape) : shape_(shape), processes_(shape.processes) {
    const auto& hosts = processes_.ranks_by_host();
    one_host_ = hosts.size() <= 1 && shape.hosts.size() <= 1;
    if (one_host_) {
      if (!hosts.empty())
        only_host_ = hosts.begin()->first;
      else if (!shape.hosts.empty())
        only_host_ = normalize_host(shape.hosts.front());
    }
    for (const auto& [key, ranks] : processes_.device_ranks()) {
      if (ranks.size() != 1 || *ranks.begin() != key.second) identity_devices_ = false;
    }
    find_blocks();
  }

  // Whether a device can stand for a local rank at all.
  bool devices_are_local_ranks() const { return processes_.one_device_per_process(); }

  // A job whose logs show one host may still span several: NCCL lost a peer over the network
  // (a peer on the same host would be reached over shared memory or P2P, not named so).
  void note_network_peer(std::string_view peer) {
    if (!one_host_ || only_host_.empty() || processes_.host_of(peer) != only_host_) one_host_ = false;
  }

  // The global rank of local index `index` on `host` (empty: the job's one host, if it has one).
  std::optional<std::pair<int, ClueMapping>> rank_of(std::string_view host, int index, bool is_device) const {
    std::string name = host.empty() ? only_host_ : normalize_host(host);
    if (is_device && !devices_are_local_ranks()) return std::nullopt;
    if (is_device) {
      auto it = processes_.device_ranks().find({name, index});
      if (it != processes_.device_ranks().end()) {
        if (it->second.size() == 1) return std::pair{*it->second.begin(), ClueMapping::kDeviceLines};
        return std::nullopt;  // lines disagree about that device
      }
    }
    if (one_host_ && (host.empty() || name == only_host_)) {
      if (is_device && !identity_devices_) return std::nullopt;
      // A device past every rank the job shows (one more may be the silent one) is not a local rank.
      const auto& seen = shape_.ranks_seen;
      if (!seen.empty() && index > seen.back() + 1) return std::nullopt;
      if (shape_.hosts.empty() && processes_.ranks_by_host().empty() && !seen.empty() &&
          seen.back() >= kRanksOfOneHost) {
        return std::nullopt;  // no host named, and more ranks than one host holds
      }
      return std::pair{index, ClueMapping::kOneHost};
    }
    if (block_size_ == 0 || host.empty()) return std::nullopt;
    auto block = blocks_.find(name);
    if (block == blocks_.end() || index >= block_size_) return std::nullopt;
    return std::pair{block->second * block_size_ + index, ClueMapping::kHostBlock};
  }

  std::vector<int> block_ranks(std::string_view host) const {
    std::vector<int> out;
    auto block = blocks_.find(normalize_host(host));
    if (block == blocks_.end()) return out;
    for (int i = 0; i < block_size_; ++i) out.push_back(block->second * block_size_ + i);
    return out;
  }

 private:
  static constexpr int kRanksOfOneHost = 16;

  // Several hosts, each holding ranks of one aligned block of N (N the most ranks any host
  // shows), no two the same block, and no device line that disagrees with local = device.
  void find_blocks() {
    const auto& hosts = processes_.ranks_by_host();
    if (hosts.size() < 2) return;
    size_t widest = 0;
    for (const auto& [host, ranks] : hosts) widest = std::max(widest, ranks.size());
    int size = static_cast<int>(widest);
    std::set<int> taken;
    for (const auto& [host, ranks] : hosts) {
      int block = *ranks.begin() / size;
      if (*ranks.rbegin() / size != block || !taken.insert(block).second) return;
      blocks_[host] = block;
    }
    for (const auto& [key, ranks] : processes_.device_ranks()) {
      auto block = blocks_.find(key.first);
      if (block == blocks_.end()) continue;
      if (ranks.size() != 1 || *ranks.begin() != block->second * size + key.second) {
        blocks_.clear();
        return;
      }
    }
    block_size_ = size;
  }

  const JobShape& shape_;
  const job::ProcessTable& processes_;
  bool one_host_ = false;
  std::string only_host_;
  bool identity_devices_ = true;  // every device line shows rank = device
  int block_size_ = 0;
  std::map<std::string, int, std::less<>> blocks_;  // normalized host -> block
};

std::optional<int> local_rank_of(const Finding& finding) {
  if (finding.local_rank >= 0) return finding.local_rank;
  if (auto local = int_fact(finding.facts, "local_rank"); local && *local >= 0 && *local < 1 << 16)
    return static_cast<int>(*local);
  return std::nullopt;
}

// The process a finding's line names (a `pid` fact) or comes from, and the rank the job's table
// knows for it, where the host it names, if any, is the line's.
// The actor a Ray error names in its message: "ray::RayWorkerWrapper.execute_method() (pid=7731,
// ip=10.20.0.12, actor_id=…)", the worker that raised what the driver re-raises.
int64_t ray_actor_pid(std::string_view text, std::string_view& host) {
  size_t at = find_text(text, "() (pid=");
  if (at == std::string_view::npos) return 0;
  std::string_view rest = text.substr(at + 8);
  auto pid = take_integer(rest);
  if (!pid) return 0;
  if (rest.starts_with(", ip=")) {
    rest.remove_prefix(5);
    host = rest.substr(0, rest.find_first_of(",) "));
  }
  return *pid;
}

std::optional<std::pair<int64_t, int>> process_rank_of(const Finding& finding,
                                                       const job::ProcessTable& processes) {
  std::string_view actor_host;
  int64_t actor = ray_actor_pid(finding.matched, actor_host);
  for (size_t i = 0; actor == 0 && i < finding.evidence.size(); ++i)
    actor = ray_actor_pid(finding.evidence[i].text, actor_host);
  for (auto [pid, host] :
       {std::pair{int_fact(finding.facts, "pid").value_or(0), std::string_view(finding.host)},
        std::pair{finding.pid, std::string_view(finding.host)}, std::pair{actor, actor_host}}) {
    const auto* known = processes.pid_facts(pid);
    if (!known || known->rank < 0) continue;
    if (!known->host.empty() && !host.empty() && normalize_host(known->host) != normalize_host(host))
      continue;
    return std::pair{pid, known->rank};
  }
  return std::nullopt;
}

std::optional<int> nccl_device_of(const Finding& finding) {
  if (finding.device >= 0) return finding.device;
  if (auto device = int_fact(finding.facts, "cuda_dev"); device && *device >= 0 && *device < 1 << 10)
    return static_cast<int>(*device);
  return std::nullopt;
}

}  // namespace

std::optional<int> device_named_by(const Finding& finding) {
  for (const char* name : {"gpu", "device"}) {
    if (auto device = int_fact(finding.facts, name); device && *device >= 0 && *device < 1 << 10)
      return static_cast<int>(*device);
  }
  std::set<int> devices;
  auto scan = [&](std::string_view text) {
    for (std::string_view label : {"GPU ", "device ", "Device ", "cuda:"})
      devices_after(text, label, devices);
  };
  scan(finding.matched);
  for (const auto& evidence : finding.evidence) scan(evidence.text);
  if (devices.size() != 1) return std::nullopt;
  return *devices.begin();
}

std::map<uint64_t, RankClue> attribute_ranks(std::vector<Finding>& findings, const JobShape& shape) {
  std::map<uint64_t, RankClue> clues;
  HostTable table(shape);
  for (const auto& finding : findings) {
    for (const char* name : {"peer_host", "peer_ip"}) {
      const Value* peer = find_fact(finding.facts, name);
      if (peer && std::holds_alternative<std::string>(*peer))
        table.note_network_peer(std::get<std::string>(*peer));
    }
  }
  for (auto& finding : findings) {
    if (finding.rank >= 0) continue;
    std::optional<RankClue> clue;
    auto try_index = [&](ClueKind kind, std::optional<int> index) {
      if (clue || !index) return;
      bool is_device = kind != ClueKind::kLocalRank;
      auto rank = table.rank_of(finding.host, *index, is_device);
      if (!rank) return;
      // NCCL's device prefix is trusted on one host only: elsewhere devices are often remapped.
      if (kind == ClueKind::kNcclDevice && rank->second == ClueMapping::kHostBlock) return;
      RankClue found{kind, rank->second, rank->first, *index, 0, finding.host, {}};
      if (rank->second == ClueMapping::kHostBlock) found.host_ranks = table.block_ranks(finding.host);
      clue = std::move(found);
    };
    if (auto process = process_rank_of(finding, shape.processes)) {
      clue = RankClue{
          ClueKind::kProcess, ClueMapping::kPidTable, process->second, -1, process->first, finding.host, {}};
    }
    try_index(ClueKind::kLocalRank, local_rank_of(finding));
    // The device a CUDA error names is the one that failed; elsewhere (a DataParallel imbalance
    // warning naming the weaker GPU) a device is only a subject.
    bool cuda_error = finding.rule->cause.starts_with("cuda.") || finding.rule->cause == "unrecognised";
    if (cuda_error) try_index(ClueKind::kErrorDevice, device_named_by(finding));
    try_index(ClueKind::kNcclDevice, nccl_device_of(finding));
    if (!clue) continue;
    finding.rank = clue->rank;
    for (auto& evidence : finding.evidence) {
      if (evidence.rank < 0) evidence.rank = clue->rank;
    }
    clues.emplace(finding.sequence, std::move(*clue));
  }
  return clues;
}

ConfidenceReason clue_reason(const RankClue& clue) {
  static constexpr const char* kClues[] = {"process", "local_rank", "error_device", "nccl_device"};
  static constexpr const char* kMappings[] = {"one_host", "device_lines", "host_block", "pid_table"};
  ConfidenceReason reason(ConfidenceReason::Kind::kRankClue);
  reason.set("rank", clue.rank);
  reason.set("clue", kClues[static_cast<size_t>(clue.kind)]);
  reason.set("mapping", kMappings[static_cast<size_t>(clue.mapping)]);
  if (clue.kind == ClueKind::kProcess)
    reason.set("pid", clue.pid);
  else
    reason.set("index", clue.index);
  if (!clue.host.empty()) reason.set("host", clue.host);
  if (clue.mapping == ClueMapping::kHostBlock) reason.set("host_ranks", clue.host_ranks);
  return reason;
}

}  // namespace faultline::correlate
