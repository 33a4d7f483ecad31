// What two shapes of one tensor say about the layouts that made them: a checkpoint's tensor
// and the model's, one dimension apart by a whole factor (or by a factor and the vocabulary's
// padding), are shards of the same tensor for two tensor-parallel sizes. Pure: no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace faultline::tp {

struct ShardRatio {
  size_t dimension = 0;        // the one dimension that differs (0-based)
  int64_t factor = 1;          // how many times the larger shard holds the smaller
  bool padded = false;         // off from the whole factor by padding only, not exact
  bool saved_smaller = false;  // the checkpoint's shard is the smaller: saved with the larger TP
};

// The ratio between a saved and a current shape of the same rank (number of dimensions), when
// they differ in exactly one dimension by a factor from 2 to `max_factor`: exactly, or within
// the padding Megatron adds to a vocabulary (a multiple of 128 per rank of the larger TP).
std::optional<ShardRatio> shard_ratio(std::span<const int64_t> saved, std::span<const int64_t> current,
                                      int64_t max_factor = 64);

// The TP size a checkpoint was saved with, when a job that runs TP `loaded_tp` reads it:
// `loaded_tp` times the factor for a smaller saved shard, divided by it for a larger one
// (nothing when the factor does not divide `loaded_tp`: then the shards are not TP shards).
std::optional<int64_t> saved_tp(const ShardRatio& ratio, int64_t loaded_tp);

}  // namespace faultline::tp
