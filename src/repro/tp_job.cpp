#include "repro/tp_job.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace faultline::repro {
namespace {

using Matrix = std::vector<double>;  // row-major

Matrix random_matrix(int64_t rows, int64_t cols, std::mt19937_64& random) {
  std::normal_distribution<double> normal(0.0, 0.1);
  Matrix m(static_cast<size_t>(rows * cols));
  for (auto& value : m) value = normal(random);
  return m;
}

// out[rows × cols] = a[rows × inner] · b[inner × cols], reading columns [col_begin, col_end)
// of b, or rows [row_begin, row_end) of b when `by_rows`.
Matrix multiply(const Matrix& a, int64_t rows, int64_t inner, const Matrix& b, int64_t b_cols, int64_t begin,
                int64_t end, bool by_rows) {
  int64_t cols = by_rows ? b_cols : end - begin;
  int64_t used_inner = by_rows ? end - begin : inner;
  Matrix out(static_cast<size_t>(rows * cols), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < used_inner; ++k) {
      double left = a[static_cast<size_t>(r * (by_rows ? used_inner : inner) + k)];
      int64_t b_row = by_rows ? begin + k : k;
      for (int64_t c = 0; c < cols; ++c) {
        int64_t b_col = by_rows ? c : begin + c;
        out[static_cast<size_t>(r * cols + c)] += left * b[static_cast<size_t>(b_row * b_cols + b_col)];
      }
    }
  }
  return out;
}

void add_into(Matrix& sum, const Matrix& part) {
  for (size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
}

Matrix gelu(Matrix m) {
  for (auto& x : m) x = 0.5 * x * (1.0 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
  return m;
}

// One block: v = x·Wv (the value projection stands for QKV), o = v·Wo, h = gelu(o·W1), y = h·W2.
// Ranks own column slices of Wv and W1 and row slices of Wo and W2; the two row-parallel
// products are summed across ranks, which is what the all-reduce does.
struct Block {
  int64_t hidden, inner, ffn;
  Matrix x, wv, wo, w1, w2;
};

Matrix run_block(const Block& b, int64_t tokens, int64_t tp) {
  Matrix attention(static_cast<size_t>(tokens * b.hidden), 0.0);
  for (int64_t rank = 0; rank < tp; ++rank) {
    int64_t begin = b.inner / tp * rank, end = b.inner / tp * (rank + 1);
    Matrix v = multiply(b.x, tokens, b.hidden, b.wv, b.inner, begin, end, false);
    add_into(attention, multiply(v, tokens, end - begin, b.wo, b.hidden, begin, end, true));  // all-reduce
  }
  Matrix out(static_cast<size_t>(tokens * b.hidden), 0.0);
  for (int64_t rank = 0; rank < tp; ++rank) {
    int64_t begin = b.ffn / tp * rank, end = b.ffn / tp * (rank + 1);
    Matrix h = gelu(multiply(attention, tokens, b.hidden, b.w1, b.ffn, begin, end, false));
    add_into(out, multiply(h, tokens, end - begin, b.w2, b.hidden, begin, end, true));  // all-reduce
  }
  return out;
}

}  // namespace

TpOutcome run_on_cpu(const TpJob& job) {
  TpOutcome outcome;
  int64_t kv_heads = job.kv_heads > 0 ? job.kv_heads : job.heads;
  int64_t ffn = job.ffn > 0 ? job.ffn : 4 * job.heads * job.head_dim;
  if (job.heads <= 0 || job.tp <= 0 || job.head_dim <= 0) {
    outcome.error = "heads, head_dim and tp must be positive";
    return outcome;
  }
  // The checks frameworks make before they shard, in their words (vLLM's, then Megatron's).
  if (job.heads % job.tp != 0) {
    outcome.error = "ValueError: Total number of attention heads (" + std::to_string(job.heads) +
                    ") must be divisible by tensor parallel size (" + std::to_string(job.tp) + ").";
    outcome.cause = "tp.heads_not_divisible";
    return outcome;
  }
  if (kv_heads % job.tp != 0 && job.tp % kv_heads != 0) {
    outcome.error = "ValueError: num_query_groups (" + std::to_string(kv_heads) +
                    ") must be a multiple or divisor of tensor_model_parallel_size (" + std::to_string(job.tp) + ").";
    outcome.cause = "tp.kv_heads_not_divisible";
    return outcome;
  }
  if (ffn % job.tp != 0) {
    outcome.error = "AssertionError: " + std::to_string(ffn) + " is not divisible by " + std::to_string(job.tp);
    outcome.cause = "tp.ffn_not_divisible";
    return outcome;
  }
  std::mt19937_64 random(job.seed);
  Block block;
  block.hidden = job.heads * job.head_dim;
  block.inner = block.hidden;
  block.ffn = ffn;
  block.x = random_matrix(job.tokens, block.hidden, random);
  block.wv = random_matrix(block.hidden, block.inner, random);
  block.wo = random_matrix(block.inner, block.hidden, random);
  block.w1 = random_matrix(block.hidden, ffn, random);
  block.w2 = random_matrix(ffn, block.hidden, random);
  Matrix reference = run_block(block, job.tokens, 1);
  Matrix split = run_block(block, job.tokens, job.tp);
  outcome.ran = true;
  for (size_t i = 0; i < reference.size(); ++i) {
    outcome.max_difference = std::max(outcome.max_difference, std::abs(reference[i] - split[i]));
  }
  outcome.matches = outcome.max_difference < 1e-9;
  return outcome;
}

}  // namespace faultline::repro
