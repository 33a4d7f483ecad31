// The rank a per-rank log file's path names: torchrun's --log-dir layout
// `attempt_0/3/stderr.log`, `rank3.log` / `rank_3.out`, and Slurm's `slurm-<job>-<task>.out`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace faultline::ingest {

std::optional<int> rank_from_path(std::string_view path);

// A path or archive member name as reports may print it: control bytes (ESC, CR, LF, BEL,
// backspace, DEL) and C1 controls become \xNN, so a name cannot move the cursor, recolour the
// terminal or forge a report line. Other bytes, and the backslash, are kept.
std::string printable_name(std::string_view name);

}  // namespace faultline::ingest
