#include "repro/cuda_kernels.hpp"

namespace faultline::repro::cuda {
namespace {

constexpr int kThreads = 256;

unsigned int blocks_for(int64_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

__global__ void masked_embedding(const int64_t* tokens, int64_t token_count, const double* table,
                                 int64_t vocab_begin, int64_t vocab_end, int64_t hidden, double* out) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= token_count * hidden) return;
  int64_t token = tokens[i / hidden];
  int64_t column = i % hidden;
  out[i] = token >= vocab_begin && token < vocab_end ? table[(token - vocab_begin) * hidden + column] : 0.0;
}

// One thread per (query token, local query head): scores against keys 0..i, softmax, and the
// weighted sum of values, in the same order as the reference's loops.
__global__ void gqa_attention(const double* q, const double* k, const double* v, double* out, int64_t tokens,
                              int64_t q_heads, int64_t kv_heads, int64_t q_head_begin, int64_t kv_head_begin,
                              int64_t group, int64_t head_dim) {
  int64_t index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= tokens * q_heads) return;
  int64_t i = index / q_heads;
  int64_t local_head = index % q_heads;
  int64_t kv_local = (q_head_begin + local_head) / group - kv_head_begin;
  int64_t q_stride = q_heads * head_dim;
  int64_t kv_stride = kv_heads * head_dim;
  const double* query = q + i * q_stride + local_head * head_dim;
  double scale = 1.0 / sqrt(static_cast<double>(head_dim));
  auto score = [&](int64_t j) {
    const double* key = k + j * kv_stride + kv_local * head_dim;
    double dot = 0;
    for (int64_t d = 0; d < head_dim; ++d) dot += query[d] * key[d];
    return dot * scale;
  };
  double top = -INFINITY;
  for (int64_t j = 0; j <= i; ++j) top = fmax(top, score(j));
  double total = 0;
  for (int64_t j = 0; j <= i; ++j) total += exp(score(j) - top);
  double* result = out + i * q_stride + local_head * head_dim;
  for (int64_t d = 0; d < head_dim; ++d) {
    double sum = 0;
    for (int64_t j = 0; j <= i; ++j) sum += exp(score(j) - top) * v[j * kv_stride + kv_local * head_dim + d];
    result[d] = sum / total;
  }
}

__global__ void swiglu(double* gate, const double* up, int64_t count) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  double g = gate[i];
  gate[i] = g / (1.0 + exp(-g)) * up[i];
}

}  // namespace

cudaError_t launch_masked_embedding(const int64_t* tokens, int64_t token_count, const double* table,
                                    int64_t vocab_begin, int64_t vocab_end, int64_t hidden, double* out,
                                    cudaStream_t stream) {
  masked_embedding<<<blocks_for(token_count * hidden), kThreads, 0, stream>>>(
      tokens, token_count, table, vocab_begin, vocab_end, hidden, out);
  return cudaGetLastError();
}

cudaError_t launch_gqa_attention(const double* q, const double* k, const double* v, double* out,
                                 int64_t tokens, int64_t q_heads, int64_t kv_heads, int64_t q_head_begin,
                                 int64_t kv_head_begin, int64_t group, int64_t head_dim,
                                 cudaStream_t stream) {
  gqa_attention<<<blocks_for(tokens * q_heads), kThreads, 0, stream>>>(
      q, k, v, out, tokens, q_heads, kv_heads, q_head_begin, kv_head_begin, group, head_dim);
  return cudaGetLastError();
}

cudaError_t launch_swiglu(double* gate, const double* up, int64_t count, cudaStream_t stream) {
  swiglu<<<blocks_for(count), kThreads, 0, stream>>>(gate, up, count);
  return cudaGetLastError();
}

}  // namespace faultline::repro::cuda
