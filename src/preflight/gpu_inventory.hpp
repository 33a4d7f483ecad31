// The GPUs a job would run on, from `nvidia-smi --query-gpu=index,name,memory.total
// --format=csv` output (read from a file, or from running nvidia-smi when it is present).
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"

namespace faultline::preflight {

struct Gpu {
  std::string index;
  std::string name;
  std::string memory;  // as printed: "81559 MiB"
};

Result<std::vector<Gpu>> parse_gpu_csv(std::string_view csv, const std::string& name);
Result<std::vector<Gpu>> read_gpu_inventory(const std::string& path);
// Runs nvidia-smi; an error when it is absent or fails.
Result<std::vector<Gpu>> query_gpu_inventory();

// Empty when every GPU has the same name and memory; otherwise what differs.
std::string heterogeneity(const std::vector<Gpu>& gpus);

}  // namespace faultline::preflight
