// The rank a per-rank log file's path names: torchrun's --log-dir layout
// `attempt_0/3/stderr.log`, `rank3.log` / `rank_3.out`, and Slurm's `slurm-<job>-<task>.out`.
#pragma once

#include <optional>
#include <string_view>

namespace faultline::ingest {

std::optional<int> rank_from_path(std::string_view path);

}  // namespace faultline::ingest
