// The block's weights and arithmetic, in double precision, with no threads and no devices.
// Weights are a pure function of (seed, tensor, row, column), so a rank makes its own slice and
// it equals the same slice of the full matrix, as a rank loading its shard of a checkpoint
// would. The unsharded reference is written on its own, without shards or masks, so that it
// checks the sharding rather than repeating it. The CPU and CUDA backends both build on this.
#pragma once

#include <cstdint>
#include <vector>

#include "repro/tp_job.hpp"

namespace faultline::repro {

// Row-major.
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> values;

  Matrix() = default;
  Matrix(int64_t row_count, int64_t col_count)
      : rows(row_count), cols(col_count), values(static_cast<size_t>(row_count * col_count), 0.0) {}
  double& at(int64_t row, int64_t col) { return values[static_cast<size_t>(row * cols + col)]; }
  double at(int64_t row, int64_t col) const { return values[static_cast<size_t>(row * cols + col)]; }
};

// The weights of one rank: its slices of every sharded matrix (see RankShard).
struct RankWeights {
  RankShard shard;
  Matrix embedding;  // padded-vocabulary rows [vocab_begin, vocab_end) × hidden
  Matrix query;      // hidden × (its query heads × head_dim)
  Matrix key;        // hidden × (its KV heads × head_dim)
  Matrix value;      // hidden × (its KV heads × head_dim)
  Matrix output;     // (its query heads × head_dim) × hidden
  Matrix gate;       // hidden × its FFN columns
  Matrix up;         // hidden × its FFN columns
  Matrix down;       // its FFN rows × hidden
};
// Only for jobs that passed check_on_host. Allocates about weight_bytes(job) / tp.
RankWeights make_rank_weights(const TpJob& job, int64_t rank);

// The input: `job.tokens` token ids below the real vocabulary size; the first is the last
// real token (it lives in the shard that holds the padding), the second is token 0.
std::vector<int64_t> token_ids(const TpJob& job);

// One rank's parts of the forward pass. Each returns the rank's partial sum, which an
// all-reduce over the ranks completes.
Matrix embedding_partial(const RankWeights& weights, const std::vector<int64_t>& tokens);
Matrix attention_partial(const TpJob& job, const RankWeights& weights, const Matrix& x);
Matrix mlp_partial(const RankWeights& weights, const Matrix& x);
void add_in_place(Matrix& sum, const Matrix& part);

// The block on one rank, from full matrices (embedding rows only for the tokens used).
Matrix reference_forward(const TpJob& job, const std::vector<int64_t>& tokens);

struct Comparison {
  double max_difference = 0;
  double reference_scale = 0;
  double tolerance = 0;  // relative_tolerance × max(1, reference_scale)
  bool matches = false;
};
// Every rank's output against the reference; a missing or misshaped output never matches.
Comparison compare(const Matrix& reference, const std::vector<Matrix>& outputs, double relative_tolerance);

// Double precision on both sides; what differs is the order of the sums.
inline constexpr double kRelativeTolerance = 1e-9;

// The end of every backend's run: computes the unsharded reference (timed into reference_ms),
// compares `outputs` with it at kRelativeTolerance, and records the result in `outcome` as kRan.
void compare_with_reference(const TpJob& job, const std::vector<Matrix>& outputs, TpOutcome& outcome);

}  // namespace faultline::repro
