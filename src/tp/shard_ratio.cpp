#include "tp/shard_ratio.hpp"

#include <algorithm>

namespace faultline::tp {

namespace {

// Megatron pads the vocabulary to a multiple of make_vocab_size_divisible_by (128 by default)
// times TP, so one rank's rows are off from the whole factor by less than 128 per rank.
constexpr int64_t kPaddingPerRank = 128;

}  // namespace

std::optional<ShardRatio> shard_ratio(std::span<const int64_t> saved, std::span<const int64_t> current,
                                      int64_t max_factor) {
  if (saved.empty() || saved.size() != current.size()) return std::nullopt;
  std::optional<size_t> differing;
  for (size_t i = 0; i < saved.size(); ++i) {
    if (saved[i] <= 0 || current[i] <= 0) return std::nullopt;
    if (saved[i] == current[i]) continue;
    if (differing) return std::nullopt;
    differing = i;
  }
  if (!differing) return std::nullopt;
  int64_t small = std::min(saved[*differing], current[*differing]);
  int64_t large = std::max(saved[*differing], current[*differing]);
  ShardRatio ratio;
  ratio.dimension = *differing;
  ratio.saved_smaller = saved[*differing] < current[*differing];
  if (large % small == 0) {
    ratio.factor = large / small;
  } else {
    ratio.factor = (large + small / 2) / small;  // the nearest whole factor
    if (ratio.factor < 2 || ratio.factor > max_factor) return std::nullopt;
    int64_t off = std::max(large, small * ratio.factor) - std::min(large, small * ratio.factor);
    if (off > kPaddingPerRank * ratio.factor) return std::nullopt;
    ratio.padded = true;
  }
  if (ratio.factor < 2 || ratio.factor > max_factor) return std::nullopt;
  return ratio;
}

std::optional<int64_t> saved_tp(const ShardRatio& ratio, int64_t loaded_tp) {
  if (loaded_tp < 1) return std::nullopt;
  if (ratio.saved_smaller) return loaded_tp * ratio.factor;
  if (loaded_tp % ratio.factor != 0) return std::nullopt;
  return loaded_tp / ratio.factor;
}

}  // namespace faultline::tp
