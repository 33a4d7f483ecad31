// Shards: which of N cooperating scans (a Slurm array, a Kubernetes Indexed Job, GNU
// parallel) analyses a job. The choice hashes the job's key (its path relative to the scan
// root) with 64-bit FNV-1a, so it is the same on every machine, compiler and run, whatever
// the order or spelling of the scan roots.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"

namespace faultline::scan {

struct Shard {
  uint32_t index = 0;  // 0-based: Slurm's --array=0-(N-1), Kubernetes' JOB_COMPLETION_INDEX
  uint32_t count = 1;

  bool holds(std::string_view key) const;
};

// The keys shards hash, for the roots of one scan: a job's path relative to the roots' common
// parent. One directory root is its own parent, so a job's key is its path under that root, as
// PlannedJob::key says; several roots (a shell glob: `scan logs/run-*`) are keyed under the
// folder that holds them all, so `scan logs` and `scan logs/*` shard alike and the roots' jobs
// are spread over the shards instead of all being '.'.
class ShardKeys {
 public:
  explicit ShardKeys(const std::vector<std::string>& roots);
  // The key of the job or skipped input at `path` (a job's name, a skipped source).
  std::string key(const std::string& path) const;

 private:
  std::filesystem::path parent_;
};

// "I/N" with 0 <= I < N; the error quotes what was given.
Result<Shard> parse_shard(std::string_view text);

}  // namespace faultline::scan
