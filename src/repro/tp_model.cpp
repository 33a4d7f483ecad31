#include "repro/tp_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace faultline::repro {
namespace {

enum class Tensor : uint64_t { kEmbedding = 1, kQuery, kKey, kValue, kOutput, kGate, kUp, kDown, kTokens };

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in [-amplitude, amplitude), from (seed, tensor, index) alone.
double weight_value(uint64_t seed, Tensor tensor, uint64_t index, double amplitude) {
  uint64_t bits = mix(mix(seed ^ (static_cast<uint64_t>(tensor) << 56)) ^ index);
  double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;
  return (2.0 * unit - 1.0) * amplitude;
}

// The full tensor's shape and scale: uniform with variance 1 / fan-in keeps activations near 1.
struct TensorShape {
  int64_t rows;
  int64_t cols;
  double amplitude;
};

TensorShape shape_of(const TpJob& job, Tensor tensor) {
  int64_t hidden = job.hidden_size();
  int64_t q_width = job.heads * job.head_dim;
  int64_t kv_width = job.kv_heads_or_heads() * job.head_dim;
  auto fan_in = [](int64_t rows) { return std::sqrt(3.0 / static_cast<double>(rows)); };
  switch (tensor) {
    case Tensor::kEmbedding:
      return {job.padded_vocab(), hidden, 1.0};
    case Tensor::kQuery:
      return {hidden, q_width, fan_in(hidden)};
    case Tensor::kKey:
    case Tensor::kValue:
      return {hidden, kv_width, fan_in(hidden)};
    case Tensor::kOutput:
      return {q_width, hidden, fan_in(q_width)};
    case Tensor::kGate:
    case Tensor::kUp:
      return {hidden, job.ffn_size(), fan_in(hidden)};
    case Tensor::kDown:
      return {job.ffn_size(), hidden, fan_in(job.ffn_size())};
    case Tensor::kTokens:
      break;
  }
  return {0, 0, 0.0};
}

// Rows [row_begin, row_end) and columns [col_begin, col_end) of a full tensor.
Matrix block(const TpJob& job, Tensor tensor, int64_t row_begin, int64_t row_end, int64_t col_begin,
             int64_t col_end) {
  TensorShape shape = shape_of(job, tensor);
  Matrix m(row_end - row_begin, col_end - col_begin);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) {
      auto index = static_cast<uint64_t>((row_begin + r) * shape.cols + col_begin + c);
      m.at(r, c) = weight_value(job.seed, tensor, index, shape.amplitude);
    }
  }
  return m;
}

Matrix whole(const TpJob& job, Tensor tensor) {
  TensorShape shape = shape_of(job, tensor);
  return block(job, tensor, 0, shape.rows, 0, shape.cols);
}

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);
  for (int64_t r = 0; r < a.rows; ++r) {
    double* out_row = &out.values[static_cast<size_t>(r * out.cols)];
    for (int64_t k = 0; k < a.cols; ++k) {
      double left = a.at(r, k);
      const double* b_row = &b.values[static_cast<size_t>(k * b.cols)];
      for (int64_t c = 0; c < b.cols; ++c) out_row[c] += left * b_row[c];
    }
  }
  return out;
}

double silu(double x) {
  return x / (1.0 + std::exp(-x));
}

// Causal attention of one query head over its KV head: columns [q_col, q_col + head_dim) of q
// against [kv_col, kv_col + head_dim) of k and v, written to columns [q_col, …) of out.
void attend(const Matrix& q, const Matrix& k, const Matrix& v, int64_t q_col, int64_t kv_col,
            int64_t head_dim, Matrix& out) {
  double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  std::vector<double> scores(static_cast<size_t>(q.rows));
  for (int64_t i = 0; i < q.rows; ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j <= i; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < head_dim; ++d) dot += q.at(i, q_col + d) * k.at(j, kv_col + d);
      scores[static_cast<size_t>(j)] = dot * scale;
      top = std::max(top, dot * scale);
    }
    double total = 0;
    for (int64_t j = 0; j <= i; ++j) {
      scores[static_cast<size_t>(j)] = std::exp(scores[static_cast<size_t>(j)] - top);
      total += scores[static_cast<size_t>(j)];
    }
    for (int64_t d = 0; d < head_dim; ++d) {
      double sum = 0;
      for (int64_t j = 0; j <= i; ++j) sum += scores[static_cast<size_t>(j)] * v.at(j, kv_col + d);
      out.at(i, q_col + d) = sum / total;
    }
  }
}

Matrix swiglu(const Matrix& gate, const Matrix& up) {
  Matrix h(gate.rows, gate.cols);
  for (size_t i = 0; i < h.values.size(); ++i) h.values[i] = silu(gate.values[i]) * up.values[i];
  return h;
}

}  // namespace

RankWeights make_rank_weights(const TpJob& job, int64_t rank) {
  RankWeights w;
  w.shard = shard_of(job, rank);
  const RankShard& s = w.shard;
  int64_t hidden = job.hidden_size();
  int64_t d = job.head_dim;
  w.embedding = block(job, Tensor::kEmbedding, s.vocab_begin, s.vocab_end, 0, hidden);
  w.query = block(job, Tensor::kQuery, 0, hidden, s.q_head_begin * d, s.q_head_end * d);
  w.key = block(job, Tensor::kKey, 0, hidden, s.kv_head_begin * d, s.kv_head_end * d);
  w.value = block(job, Tensor::kValue, 0, hidden, s.kv_head_begin * d, s.kv_head_end * d);
  w.output = block(job, Tensor::kOutput, s.q_head_begin * d, s.q_head_end * d, 0, hidden);
  w.gate = block(job, Tensor::kGate, 0, hidden, s.ffn_begin, s.ffn_end);
  w.up = block(job, Tensor::kUp, 0, hidden, s.ffn_begin, s.ffn_end);
  w.down = block(job, Tensor::kDown, s.ffn_begin, s.ffn_end, 0, hidden);
  return w;
}

std::vector<int64_t> token_ids(const TpJob& job) {
  int64_t vocab = job.vocab_size();
  std::vector<int64_t> tokens(static_cast<size_t>(std::max<int64_t>(0, job.tokens)));
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i == 0)
      tokens[i] = vocab - 1;
    else if (i == 1)
      tokens[i] = 0;
    else
      tokens[i] = static_cast<int64_t>(mix(job.seed ^ (static_cast<uint64_t>(Tensor::kTokens) << 56) ^ i) %
                                       static_cast<uint64_t>(vocab));
  }
  return tokens;
}

Matrix embedding_partial(const RankWeights& weights, const std::vector<int64_t>& tokens) {
  const RankShard& s = weights.shard;
  Matrix x(static_cast<int64_t>(tokens.size()), weights.embedding.cols);
  for (int64_t t = 0; t < x.rows; ++t) {
    int64_t token = tokens[static_cast<size_t>(t)];
    if (token < s.vocab_begin || token >= s.vocab_end) continue;  // another rank's row: masked to zero
    for (int64_t c = 0; c < x.cols; ++c) x.at(t, c) = weights.embedding.at(token - s.vocab_begin, c);
  }
  return x;
}

Matrix attention_partial(const TpJob& job, const RankWeights& weights, const Matrix& x) {
  const RankShard& s = weights.shard;
  int64_t d = job.head_dim;
  int64_t group = job.heads / job.kv_heads_or_heads();
  Matrix q = multiply(x, weights.query);
  Matrix k = multiply(x, weights.key);
  Matrix v = multiply(x, weights.value);
  Matrix heads_out(x.rows, q.cols);
  for (int64_t head = s.q_head_begin; head < s.q_head_end; ++head) {
    int64_t kv_head = head / group;
    attend(q, k, v, (head - s.q_head_begin) * d, (kv_head - s.kv_head_begin) * d, d, heads_out);
  }
  return multiply(heads_out, weights.output);
}

Matrix mlp_partial(const RankWeights& weights, const Matrix& x) {
  return multiply(swiglu(multiply(x, weights.gate), multiply(x, weights.up)), weights.down);
}

void add_in_place(Matrix& sum, const Matrix& part) {
  for (size_t i = 0; i < sum.values.size(); ++i) sum.values[i] += part.values[i];
}

Matrix reference_forward(const TpJob& job, const std::vector<int64_t>& tokens) {
  int64_t hidden = job.hidden_size();
  int64_t d = job.head_dim;
  Matrix x(static_cast<int64_t>(tokens.size()), hidden);
  for (int64_t t = 0; t < x.rows; ++t) {
    int64_t token = tokens[static_cast<size_t>(t)];
    Matrix row = block(job, Tensor::kEmbedding, token, token + 1, 0, hidden);
    std::copy(row.values.begin(), row.values.end(), x.values.begin() + t * hidden);
  }
  Matrix q = multiply(x, whole(job, Tensor::kQuery));
  Matrix k = multiply(x, whole(job, Tensor::kKey));
  Matrix v = multiply(x, whole(job, Tensor::kValue));
  Matrix heads_out(x.rows, q.cols);
  int64_t group = job.heads / job.kv_heads_or_heads();
  for (int64_t head = 0; head < job.heads; ++head) attend(q, k, v, head * d, head / group * d, d, heads_out);
  add_in_place(x, multiply(heads_out, whole(job, Tensor::kOutput)));
  Matrix mlp = multiply(swiglu(multiply(x, whole(job, Tensor::kGate)), multiply(x, whole(job, Tensor::kUp))),
                        whole(job, Tensor::kDown));
  add_in_place(x, mlp);
  return x;
}

Comparison compare(const Matrix& reference, const std::vector<Matrix>& outputs, double relative_tolerance) {
  Comparison result;
  for (double value : reference.values)
    result.reference_scale = std::max(result.reference_scale, std::abs(value));
  result.tolerance = relative_tolerance * std::max(1.0, result.reference_scale);
  bool shaped = !outputs.empty();
  bool finite = true;
  for (const Matrix& output : outputs) {
    if (output.rows != reference.rows || output.cols != reference.cols) {
      shaped = false;
      continue;
    }
    for (size_t i = 0; i < reference.values.size(); ++i) {
      double difference = std::abs(output.values[i] - reference.values[i]);
      if (std::isnan(difference))
        finite = false;
      else
        result.max_difference = std::max(result.max_difference, difference);
    }
  }
  if (!finite) result.max_difference = std::numeric_limits<double>::quiet_NaN();
  result.matches = shaped && finite && result.max_difference <= result.tolerance;
  return result;
}

void compare_with_reference(const TpJob& job, const std::vector<Matrix>& outputs, TpOutcome& outcome) {
  auto start = std::chrono::steady_clock::now();
  Matrix reference = reference_forward(job, token_ids(job));
  outcome.reference_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Comparison comparison = compare(reference, outputs, kRelativeTolerance);
  outcome.kind = TpOutcome::Kind::kRan;
  outcome.relative_tolerance = kRelativeTolerance;
  outcome.max_difference = comparison.max_difference;
  outcome.reference_scale = comparison.reference_scale;
  outcome.tolerance = comparison.tolerance;
  outcome.matches = comparison.matches;
}

}  // namespace faultline::repro
