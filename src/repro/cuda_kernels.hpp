// The few element-wise and attention kernels the CUDA backend needs besides cuBLAS, in double
// precision like the reference. Each launch is asynchronous on `stream` and returns the launch
// error (cudaGetLastError). Matrices are row-major, as in tp_model.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace faultline::repro::cuda {

// out[t][c] = table[tokens[t] − vocab_begin][c] when tokens[t] is in [vocab_begin, vocab_end),
// else 0: the rank's share of a vocabulary-parallel embedding, completed by an all-reduce.
cudaError_t launch_masked_embedding(const int64_t* tokens, int64_t token_count, const double* table,
                                    int64_t vocab_begin, int64_t vocab_end, int64_t hidden, double* out,
                                    cudaStream_t stream);

// Causal softmax attention for the rank's query heads [q_head_begin, q_head_begin + q_heads);
// query head h reads KV head h / group, held at local index h / group − kv_head_begin.
// q and out are tokens × (q_heads × head_dim); k and v are tokens × (kv_heads × head_dim).
cudaError_t launch_gqa_attention(const double* q, const double* k, const double* v, double* out,
                                 int64_t tokens, int64_t q_heads, int64_t kv_heads, int64_t q_head_begin,
                                 int64_t kv_head_begin, int64_t group, int64_t head_dim, cudaStream_t stream);

// gate[i] = silu(gate[i]) × up[i].
cudaError_t launch_swiglu(double* gate, const double* up, int64_t count, cudaStream_t stream);

}  // namespace faultline::repro::cuda
