// Shards: which of N cooperating scans (a Slurm array, a Kubernetes Indexed Job, GNU
// parallel) analyses a job. The choice hashes the job's key (its path relative to the scan
// root) with 64-bit FNV-1a, so it is the same on every machine, compiler and run, whatever
// the order or spelling of the scan roots.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.hpp"

namespace faultline::scan {

struct Shard {
  uint32_t index = 0;  // 0-based: Slurm's --array=0-(N-1), Kubernetes' JOB_COMPLETION_INDEX
  uint32_t count = 1;

  bool holds(std::string_view key) const;
};

// "I/N" with 0 <= I < N; the error quotes what was given.
Result<Shard> parse_shard(std::string_view text);

}  // namespace faultline::scan
