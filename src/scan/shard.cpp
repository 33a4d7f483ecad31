#include "scan/shard.hpp"

#include "base/text.hpp"

namespace faultline::scan {

bool Shard::holds(std::string_view key) const {
  return count <= 1 || fnv1a(key) % count == index;
}

Result<Shard> parse_shard(std::string_view text) {
  auto bad = [&] {
    return Status::error(
        "--shard '" + std::string(text) +
        "' must be I/N with 0 <= I < N (0-based, as Slurm array and Kubernetes indexes are)");
  };
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  auto index = parse_integer(text.substr(0, slash));
  auto count = parse_integer(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *count > 1'000'000 || *index < 0 || *index >= *count) return bad();
  return Shard{static_cast<uint32_t>(*index), static_cast<uint32_t>(*count)};
}

}  // namespace faultline::scan
