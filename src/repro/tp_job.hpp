// A small tensor-parallel job that reproduces a TP configuration failure and checks its fix:
// a transformer block's attention projections (column-parallel QKV split by heads, row-parallel
// output with an all-reduce) and MLP (column-parallel up, row-parallel down with an
// all-reduce), run split over `tp` ranks and compared with the same block on one rank.
// The CPU backend always builds; a CUDA/NCCL backend is for machines with GPUs.
#pragma once

#include <cstdint>
#include <string>

#include "tp/arithmetic.hpp"

namespace faultline::repro {

struct TpJob {
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: same as heads
  int64_t head_dim = 8;
  int64_t ffn = 0;       // 0: 4 × heads × head_dim
  int64_t tp = 1;
  int64_t tokens = 4;
  uint64_t seed = 1;
};

struct TpOutcome {
  bool ran = false;          // false: the split is impossible, as frameworks refuse it
  std::string error;         // the framework-style error when !ran
  std::string cause;         // the causes.md id of that error
  double max_difference = 0; // |TP result − single-rank result|, when ran
  bool matches = false;      // ran and agrees with the single-rank result
};

// Runs the job on the CPU: `tp` ranks as slices of the same matrices, the all-reduce as a sum.
TpOutcome run_on_cpu(const TpJob& job);

}  // namespace faultline::repro
