// The job's table of processes: who is where, rank ↔ host ↔ pid ↔ local rank ↔ device. One per
// job, built once while its lines stream by, and the one owner of these facts for every stage:
//   - parse learns from the lines that say so (parse/process_lessons.hpp) which rank, local rank
//     and host a pid is, and hands later lines of that pid their rank; it notes the hosts that
//     prefixes name, and every line's host, rank, pid and device;
//   - correlate maps a finding's local rank, device or NCCL peer to a rank with it, and counts
//     the ranks and hosts seen from it; report folds a large job's lanes by its hosts.
// Bounded by what the job is, never by its size: at most kMaxEntries hosts, addresses,
// processes and devices, and kMaxPids pids. Not thread-safe; one per job.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace faultline::job {

// Host names and addresses as NCCL prints them, made comparable: lower case, an IPv6 scope
// ("%ib0") and a domain ("node-3.cluster") removed; IPv4 addresses are kept whole.
std::string normalize_host(std::string_view host);

class ProcessTable {
 public:
  static constexpr size_t kMaxEntries = 4096;
  static constexpr size_t kMaxPids = 65536;
  static constexpr size_t kMaxPrefixHosts = 256;

  // A process whose rank is known, as lines with its host, pid and rank show it.
  struct Process {
    std::string host;  // normalized
    int64_t pid = 0;
    int rank = -1;
  };

  // What taught a pid its rank.
  enum class RankOrigin {
    kNone,
    kCommunicator,  // an NCCL communicator line (`comm 0x… rank R nranks N`)
    kLauncher,      // a launcher's prefix or failure summary that names rank and pid
    kEngine,        // the engine's own rank line in the process's output (vLLM's `rank R in world size N`)
  };

  // What the lines that say so taught about one pid, whatever host printed it.
  struct PidFacts {
    int rank = -1;
    int local_rank = -1;
    RankOrigin origin = RankOrigin::kNone;
    uint64_t rank_line = 0;  // the line (within its source) that taught the rank, for kEngine
    // The size of the communicator the rank came from (the largest a pid joins is the world);
    // the largest value for a launcher's word, which no communicator overrides.
    int64_t communicator_size = 0;
    std::string host;  // as printed
  };

  // ---- What parse learns: the rank of a pid, from lines that name both.
  // The pid's rank in a communicator of `size` ranks; a larger communicator than the one its
  // rank came from replaces it. `host` is kept when the pid has none yet.
  void learn_communicator_rank(int64_t pid, int rank, int64_t size, std::string_view host);
  // The engine's own line in the pid's output names its rank in a world of `size` ranks (line
  // `line` of its source); like a communicator, the largest world wins.
  void learn_engine_rank(int64_t pid, int rank, int64_t size, std::string_view host, uint64_t line);
  // A launcher names the pid's rank (a prefix or a failure summary): no communicator overrides it.
  void learn_launcher_rank(int64_t pid, int rank);
  // What was learnt of the pid's rank was wrong (the pid drives several ranks): it has none.
  void forget_rank(int64_t pid);
  void learn_local_rank(int64_t pid, int local_rank);
  void learn_pid_host(int64_t pid, std::string_view host);
  // What is known of `pid`, or null.
  const PidFacts* pid_facts(int64_t pid) const;

  // A worker the launcher saw fail: an entry of torchelastic's failure summary (ChildFailedError),
  // `first_observed` for its "Root Cause (first observed failure)" entry. The agent's view, not the
  // worker's own words: its order is by whole-second times of the error files.
  struct WorkerFailure {
    int rank = -1;
    int local_rank = -1;
    std::string host;
    int64_t pid = 0;
    int64_t exitcode = 0;  // negative: the signal that ended it (-6 SIGABRT, -15 SIGTERM)
    bool first_observed = false;
    std::string time;  // as the summary prints it (whole seconds), empty when it has none
    uint32_t source = 0;
    uint64_t line = 0;  // of its `rank :` field
  };
  void note_worker_failure(WorkerFailure failure);
  const std::vector<WorkerFailure>& worker_failures() const { return worker_failures_; }

  // Hosts and roles (pdsh `host: `, TorchX `role/0 `) seen as prefixes: a later line may carry
  // one before a plain message, where a first sighting needs a prefix after it.
  void learn_prefix_host(std::string_view host);
  const std::vector<std::string>& prefix_hosts() const { return prefix_hosts_; }

  // ---- Every line of the job: its host and rank (empty / -1 when unknown), its pid and NCCL
  // device (0 / -1 when it shows none) and its message, where NCCL INFO lines name the
  // addresses its host uses ("Bootstrap : Using eth0:10.0.0.5<0>").
  void observe_line(std::string_view host, int rank, int64_t pid, int device, std::string_view text);
  // The parts of observe_line, for what correlate adds from findings, and for tests.
  void observe(std::string_view host, int rank, std::string_view text);
  void observe_process(std::string_view host, int64_t pid, int rank);
  // A host's CUDA device drives `rank` (NCCL's `host:pid:tid [dev]` on a line whose rank is known).
  void observe_device(std::string_view host, int device, int rank);
  // The device a process's NCCL line shows, whether or not its rank is known.
  void observe_process_device(std::string_view host, int64_t pid, int device);

  // ---- What the job's lines showed.
  // The ranks and hosts (as printed) of the lines, sorted.
  std::vector<int> ranks_seen() const { return {ranks_seen_.begin(), ranks_seen_.end()}; }
  std::vector<std::string> hosts() const { return {hosts_.begin(), hosts_.end()}; }
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
  // The one host (normalized) that lines of `rank` came from; empty when none or several.
  std::string host_of_rank(int rank) const;

 private:
  PidFacts* pid_entry(int64_t pid);

  void learn_rank(int64_t pid, int rank, int64_t size, std::string_view host, RankOrigin origin,
                  uint64_t line);

  std::unordered_map<int64_t, PidFacts> pids_;
  std::vector<WorkerFailure> worker_failures_;
  std::vector<std::string> prefix_hosts_;
  std::set<int> ranks_seen_;
  std::set<std::string, std::less<>> hosts_;
  std::map<std::string, std::set<int>, std::less<>> host_ranks_;
  std::map<std::string, std::string, std::less<>> address_hosts_;      // normalized address -> host
  std::map<std::pair<std::string, int64_t>, int> process_ranks_;       // (normalized host, pid) -> rank
  std::map<std::pair<std::string, int>, std::set<int>> device_ranks_;  // (normalized host, device) -> ranks
  std::map<std::pair<std::string, int64_t>, int> process_devices_;     // (host as printed, pid) -> device
  bool one_device_per_process_ = true;
  // Consecutive lines of one process say the same: only the first of a run is looked up.
  std::string last_device_host_;
  int last_device_ = -1;
  int last_device_rank_ = -1;
  std::string last_host_;
  int last_rank_ = -1;
  std::string last_process_host_;
  int64_t last_pid_ = 0;
  int last_process_rank_ = -1;
};

}  // namespace faultline::job
