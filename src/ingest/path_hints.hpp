// The rank a per-rank log file's path names: torchrun's --log-dir layout
// `attempt_0/3/stderr.log`, `rank3.log` / `rank_3.out`, and Slurm's `slurm-<job>-<task>.out`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::ingest {

// torchrun's --log-dir layout names a local rank (`<log_dir>/<run>/attempt_K/<local_rank>/`), the
// global rank only on one node: with `torchrun_layout_is_global` false it names no rank.
std::optional<int> rank_from_path(std::string_view path, bool torchrun_layout_is_global = true);

// Whether these inputs hold torchrun --log-dir trees of more than one node (files under
// `attempt_K/N/` below two or more distinct directories): then N is a local rank, not a rank.
bool torchrun_layouts_span_nodes(const std::vector<std::string>& paths);

// A path or archive member name as reports may print it: control bytes (ESC, CR, LF, BEL,
// backspace, DEL) and C1 controls become \xNN, so a name cannot move the cursor, recolour the
// terminal or forge a report line. Other bytes, and the backslash, are kept.
std::string printable_name(std::string_view name);

}  // namespace faultline::ingest
