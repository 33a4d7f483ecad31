#include "repro/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "repro/cuda_kernels.hpp"
#include "repro/host_memory.hpp"
#include "repro/tp_model.hpp"

namespace faultline::repro {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A CUDA, cuBLAS or NCCL failure inside run_on_cuda, which turns it into the outcome's error.
// Thrown only here; destructors on the way out free memory and abort communicators.
struct CudaFailure {
  std::string message;
};

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw CudaFailure{std::string(what) + ": " + cudaGetErrorString(status)};
}
void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaFailure{std::string(what) + ": " + cublasGetStatusString(status)};
}
// Non-blocking communicators answer ncclInProgress; wait_for_communicators then polls.
void check(ncclResult_t status, const char* what) {
  if (status != ncclSuccess && status != ncclInProgress) {
    throw CudaFailure{std::string(what) + ": " + ncclGetErrorString(status)};
  }
}

// Memory on one GPU, freed on that GPU.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(int device, size_t count) : device_(device), count_(count) {
    check(cudaSetDevice(device), "cudaSetDevice");
    void* memory = nullptr;
    check(cudaMalloc(&memory, std::max<size_t>(1, count) * sizeof(T)), "cudaMalloc");
    data_ = static_cast<T*>(memory);
  }
  DeviceArray(int device, const std::vector<T>& host) : DeviceArray(device, host.size()) {
    check(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
          "cudaMemcpy to the GPU");
  }
  DeviceArray(DeviceArray&& other) noexcept { *this = std::move(other); }
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(count_, other.count_);
    std::swap(data_, other.data_);
    return *this;
  }
  ~DeviceArray() {
    if (data_ != nullptr && cudaSetDevice(device_) == cudaSuccess) cudaFree(data_);
  }
  T* get() const { return data_; }
  size_t size() const { return count_; }

 private:
  int device_ = 0;
  size_t count_ = 0;
  T* data_ = nullptr;
};

// One rank's weights, activations and the stream and cuBLAS handle it issues work on (shared by
// every rank when they all sit on GPU 0).
struct DeviceRank {
  int device = 0;
  RankShard shard;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  int64_t q_width = 0, kv_width = 0, ffn_width = 0;
  DeviceArray<int64_t> tokens;
  DeviceArray<double> embedding, query, key, value, output, gate, up, down;
  DeviceArray<double> x, q, k, v, heads, partial, gate_out, up_out;
};

// out (rows × cols) = a (rows × inner) · b (inner × cols), row-major: in cuBLAS's column-major
// terms outᵀ = bᵀ · aᵀ.
void gemm(cublasHandle_t blas, const double* a, const double* b, double* out, int64_t rows, int64_t inner,
          int64_t cols) {
  const double one = 1.0;
  const double zero = 0.0;
  check(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(cols), static_cast<int>(rows),
                    static_cast<int>(inner), &one, b, static_cast<int>(cols), a, static_cast<int>(inner),
                    &zero, out, static_cast<int>(cols)),
        "cublasDgemm");
}

void add(cublasHandle_t blas, const double* part, double* sum, int64_t count) {
  const double one = 1.0;
  check(cublasDaxpy(blas, static_cast<int>(count), &one, part, 1, sum, 1), "cublasDaxpy");
}

// Bytes one rank takes on its GPU: its weights and its activations.
uint64_t rank_bytes(const TpJob& job) {
  auto tokens = static_cast<uint64_t>(job.tokens);
  auto hidden = static_cast<uint64_t>(job.hidden_size());
  auto q_width = static_cast<uint64_t>(job.heads / job.tp * job.head_dim);
  auto kv_width =
      static_cast<uint64_t>(std::max<int64_t>(1, job.kv_heads_or_heads() / job.tp) * job.head_dim);
  auto ffn = static_cast<uint64_t>(job.ffn_size() / job.tp);
  uint64_t activations = tokens * (2 * hidden + 2 * q_width + 2 * kv_width + 2 * ffn) * sizeof(double);
  return weight_bytes(job) / static_cast<uint64_t>(job.tp) + activations + tokens * sizeof(int64_t);
}

// The sharded job on the GPUs: set up once, then forward passes, then finish().
class CudaJob {
 public:
  CudaJob(const TpJob& job, bool local, const CudaRunOptions& options)
      : job_(job), local_(local), options_(options) {}
  CudaJob(const CudaJob&) = delete;
  CudaJob& operator=(const CudaJob&) = delete;
  ~CudaJob() {
    // Communicators not finished cleanly are aborted: that also stops work stuck in them.
    for (ncclComm_t comm : communicators_) {
      if (comm != nullptr) ncclCommAbort(comm);
    }
    for (cublasHandle_t blas : handles_) cublasDestroy(blas);
    for (cudaStream_t stream : streams_) cudaStreamDestroy(stream);
  }

  void set_up(TpOutcome& outcome);
  std::vector<Matrix> forward(double& run_ms);
  void finish();
  int64_t all_reduces() const { return all_reduces_; }

 private:
  void all_reduce(DeviceArray<double> DeviceRank::*buffer, int64_t count);
  void wait_for_communicators(Clock::time_point deadline, const std::string& what);
  void wait_for_streams(Clock::time_point deadline);

  TpJob job_;
  bool local_;
  CudaRunOptions options_;
  std::vector<cudaStream_t> streams_;  // one per GPU used
  std::vector<cublasHandle_t> handles_;
  std::vector<ncclComm_t> communicators_;  // one per rank; empty when local_
  std::vector<DeviceRank> ranks_;
  int64_t all_reduces_ = 0;
};

void CudaJob::set_up(TpOutcome& outcome) {
  int gpus = local_ ? 1 : static_cast<int>(job_.tp);
  uint64_t needed = rank_bytes(job_) * static_cast<uint64_t>(local_ ? job_.tp : 1);
  for (int device = 0; device < gpus; ++device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (needed > free_bytes / 10 * 9) {
      throw CudaFailure{"the job needs about " + format_bytes(needed) + " on GPU " + std::to_string(device) +
                        ", which has " + format_bytes(free_bytes) + " free"};
    }
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    streams_.push_back(stream);
    cublasHandle_t blas = nullptr;
    check(cublasCreate(&blas), "cublasCreate");
    handles_.push_back(blas);
    check(cublasSetStream(blas, stream), "cublasSetStream");
  }

  if (!local_) {
    // One communicator per GPU from one process, grouped as nccl-tests does; non-blocking, so
    // a rank that never comes up is caught by the deadline instead of hanging the process.
    auto start = Clock::now();
    ncclUniqueId id;
    check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    communicators_.assign(static_cast<size_t>(job_.tp), nullptr);
    check(ncclGroupStart(), "ncclGroupStart");
    for (int rank = 0; rank < gpus; ++rank) {
      check(cudaSetDevice(rank), "cudaSetDevice");
      check(ncclCommInitRankConfig(&communicators_[static_cast<size_t>(rank)], gpus, id, rank, &config),
            "ncclCommInitRankConfig");
    }
    check(ncclGroupEnd(), "ncclGroupEnd (communicator set-up)");
    wait_for_communicators(start + options_.init_deadline, "NCCL communicator set-up");
    outcome.communicator_ms = milliseconds_since(start);
  }

  std::vector<int64_t> tokens = token_ids(job_);
  int64_t rows = job_.tokens;
  int64_t hidden = job_.hidden_size();
  for (int64_t rank = 0; rank < job_.tp; ++rank) {
    size_t slot = local_ ? 0 : static_cast<size_t>(rank);
    DeviceRank& r = ranks_.emplace_back();
    r.device = static_cast<int>(slot);
    r.stream = streams_[slot];
    r.blas = handles_[slot];
    RankWeights host = make_rank_weights(job_, rank);
    r.shard = host.shard;
    r.q_width = host.query.cols;
    r.kv_width = host.key.cols;
    r.ffn_width = host.gate.cols;
    r.tokens = DeviceArray<int64_t>(r.device, tokens);
    r.embedding = DeviceArray<double>(r.device, host.embedding.values);
    r.query = DeviceArray<double>(r.device, host.query.values);
    r.key = DeviceArray<double>(r.device, host.key.values);
    r.value = DeviceArray<double>(r.device, host.value.values);
    r.output = DeviceArray<double>(r.device, host.output.values);
    r.gate = DeviceArray<double>(r.device, host.gate.values);
    r.up = DeviceArray<double>(r.device, host.up.values);
    r.down = DeviceArray<double>(r.device, host.down.values);
    auto activation = [&](int64_t cols) {
      return DeviceArray<double>(r.device, static_cast<size_t>(rows * cols));
    };
    r.x = activation(hidden);
    r.partial = activation(hidden);
    r.q = activation(r.q_width);
    r.heads = activation(r.q_width);
    r.k = activation(r.kv_width);
    r.v = activation(r.kv_width);
    r.gate_out = activation(r.ffn_width);
    r.up_out = activation(r.ffn_width);
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

void CudaJob::wait_for_communicators(Clock::time_point deadline, const std::string& what) {
  for (;;) {
    bool pending = false;
    for (size_t rank = 0; rank < communicators_.size(); ++rank) {
      ncclResult_t state = ncclSuccess;
      check(ncclCommGetAsyncError(communicators_[rank], &state), "ncclCommGetAsyncError");
      if (state == ncclInProgress) {
        pending = true;
      } else if (state != ncclSuccess) {
        throw CudaFailure{what + ", rank " + std::to_string(rank) + ": " + ncclGetErrorString(state) + " (" +
                          ncclGetLastError(communicators_[rank]) + "); the communicators were aborted"};
      }
    }
    if (!pending) return;
    if (Clock::now() > deadline) {
      throw CudaFailure{what + " did not finish within its deadline; the communicators were aborted"};
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void CudaJob::wait_for_streams(Clock::time_point deadline) {
  for (;;) {
    bool pending = false;
    for (cudaStream_t stream : streams_) {
      cudaError_t status = cudaStreamQuery(stream);
      if (status == cudaErrorNotReady)
        pending = true;
      else
        check(status, "the forward pass (cudaStreamQuery)");
    }
    if (!communicators_.empty()) wait_for_communicators(deadline, "an all-reduce");
    if (!pending) return;
    if (Clock::now() > deadline) {
      throw CudaFailure{"the forward pass did not finish within its deadline" +
                        std::string(communicators_.empty() ? "" : "; the communicators were aborted")};
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// Sums `buffer` over the ranks, in place on every rank. Without NCCL (every rank on GPU 0, one
// stream) the sum runs in rank order into rank 0's buffer and is copied back to the others.
void CudaJob::all_reduce(DeviceArray<double> DeviceRank::*buffer, int64_t count) {
  ++all_reduces_;
  if (local_) {
    DeviceRank& first = ranks_.front();
    for (size_t rank = 1; rank < ranks_.size(); ++rank) {
      add(first.blas, (ranks_[rank].*buffer).get(), (first.*buffer).get(), count);
    }
    for (size_t rank = 1; rank < ranks_.size(); ++rank) {
      check(cudaMemcpyAsync((ranks_[rank].*buffer).get(), (first.*buffer).get(),
                            static_cast<size_t>(count) * sizeof(double), cudaMemcpyDeviceToDevice,
                            first.stream),
            "cudaMemcpyAsync");
    }
    return;
  }
  check(ncclGroupStart(), "ncclGroupStart");
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    double* data = (ranks_[rank].*buffer).get();
    check(ncclAllReduce(data, data, static_cast<size_t>(count), ncclDouble, ncclSum, communicators_[rank],
                        ranks_[rank].stream),
          "ncclAllReduce");
  }
  check(ncclGroupEnd(), "ncclGroupEnd (all-reduce)");
  // A non-blocking communicator may still be enqueueing the collective: wait before the next call.
  wait_for_communicators(Clock::now() + options_.run_deadline, "an all-reduce");
}

std::vector<Matrix> CudaJob::forward(double& run_ms) {
  auto start = Clock::now();
  int64_t rows = job_.tokens;
  int64_t hidden = job_.hidden_size();
  int64_t group = job_.heads / job_.kv_heads_or_heads();
  for (DeviceRank& r : ranks_) {
    check(cudaSetDevice(r.device), "cudaSetDevice");
    check(cuda::launch_masked_embedding(r.tokens.get(), rows, r.embedding.get(), r.shard.vocab_begin,
                                        r.shard.vocab_end, hidden, r.x.get(), r.stream),
          "the embedding kernel");
  }
  all_reduce(&DeviceRank::x, rows * hidden);
  for (DeviceRank& r : ranks_) {
    check(cudaSetDevice(r.device), "cudaSetDevice");
    gemm(r.blas, r.x.get(), r.query.get(), r.q.get(), rows, hidden, r.q_width);
    gemm(r.blas, r.x.get(), r.key.get(), r.k.get(), rows, hidden, r.kv_width);
    gemm(r.blas, r.x.get(), r.value.get(), r.v.get(), rows, hidden, r.kv_width);
    check(cuda::launch_gqa_attention(r.q.get(), r.k.get(), r.v.get(), r.heads.get(), rows,
                                     r.shard.q_head_end - r.shard.q_head_begin,
                                     r.shard.kv_head_end - r.shard.kv_head_begin, r.shard.q_head_begin,
                                     r.shard.kv_head_begin, group, job_.head_dim, r.stream),
          "the attention kernel");
    gemm(r.blas, r.heads.get(), r.output.get(), r.partial.get(), rows, r.q_width, hidden);
  }
  all_reduce(&DeviceRank::partial, rows * hidden);
  for (DeviceRank& r : ranks_) {
    check(cudaSetDevice(r.device), "cudaSetDevice");
    add(r.blas, r.partial.get(), r.x.get(), rows * hidden);
    gemm(r.blas, r.x.get(), r.gate.get(), r.gate_out.get(), rows, hidden, r.ffn_width);
    gemm(r.blas, r.x.get(), r.up.get(), r.up_out.get(), rows, hidden, r.ffn_width);
    check(cuda::launch_swiglu(r.gate_out.get(), r.up_out.get(), rows * r.ffn_width, r.stream),
          "the SwiGLU kernel");
    gemm(r.blas, r.gate_out.get(), r.down.get(), r.partial.get(), rows, r.ffn_width, hidden);
  }
  all_reduce(&DeviceRank::partial, rows * hidden);
  for (DeviceRank& r : ranks_) {
    check(cudaSetDevice(r.device), "cudaSetDevice");
    add(r.blas, r.partial.get(), r.x.get(), rows * hidden);
  }
  wait_for_streams(start + options_.run_deadline);
  run_ms = milliseconds_since(start);

  std::vector<Matrix> outputs;
  for (DeviceRank& r : ranks_) {
    Matrix& out = outputs.emplace_back(rows, hidden);
    check(cudaSetDevice(r.device), "cudaSetDevice");
    check(
        cudaMemcpy(out.values.data(), r.x.get(), out.values.size() * sizeof(double), cudaMemcpyDeviceToHost),
        "cudaMemcpy from the GPU");
  }
  return outputs;
}

// Finalises the communicators (non-blocking: all started, then polled) and destroys them.
void CudaJob::finish() {
  if (communicators_.empty()) return;
  for (ncclComm_t comm : communicators_) check(ncclCommFinalize(comm), "ncclCommFinalize");
  wait_for_communicators(Clock::now() + options_.init_deadline, "NCCL communicator finalisation");
  std::vector<ncclComm_t> finished;
  finished.swap(communicators_);
  for (ncclComm_t comm : finished) check(ncclCommDestroy(comm), "ncclCommDestroy");
}

}  // namespace

bool cuda_backend_built() {
  return true;
}

int cuda_device_count(std::string& error) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    error = std::string("no CUDA GPU can be used: cudaGetDeviceCount: ") + cudaGetErrorString(status);
    return 0;
  }
  if (count == 0) error = "no CUDA GPU is visible: cudaGetDeviceCount found none";
  return count;
}

TpOutcome run_on_cuda(const TpJob& job, const CudaRunOptions& options) {
  if (auto early = outcome_before_running(job)) return *early;
  TpOutcome outcome;
  int gpus = cuda_device_count(outcome.error);
  if (gpus == 0) return outcome;
  outcome.error.clear();

  bool local = job.tp > gpus;
  std::string tp = std::to_string(job.tp);
  if (local) {
    outcome.realism = Realism::kGpuLocalReduce;
    outcome.note = "TP " + tp + " needs " + tp + " GPUs and " + std::to_string(gpus) +
                   (gpus == 1 ? " is" : " are") + " visible; ranks never share a GPU through NCCL, so the " +
                   tp + " shards ran one after another on GPU 0 and were summed there, without NCCL";
  } else if (job.tp == 1) {
    outcome.realism = Realism::kNcclSingleRank;
    outcome.note =
        "1 rank on GPU 0 with an NCCL communicator of one rank: the all-reduces pass through NCCL "
        "with no other rank to exchange with";
  } else {
    outcome.realism = Realism::kRealMultiGpu;
    outcome.note = tp + " ranks on GPUs 0-" + std::to_string(job.tp - 1) +
                   ", one per GPU, communicators from a grouped non-blocking ncclCommInitRank, all-reduces "
                   "through NCCL";
  }

  std::vector<Matrix> outputs;
  try {
    CudaJob cuda_job(job, local, options);
    auto start = Clock::now();
    cuda_job.set_up(outcome);
    outcome.init_ms = milliseconds_since(start);
    outputs = cuda_job.forward(outcome.run_ms);
    std::vector<Matrix> again = cuda_job.forward(outcome.warm_run_ms);
    outputs.insert(outputs.end(), std::make_move_iterator(again.begin()),
                   std::make_move_iterator(again.end()));
    outcome.all_reduces = cuda_job.all_reduces() / 2;
    cuda_job.finish();
  } catch (const CudaFailure& failure) {
    outcome.kind = TpOutcome::Kind::kCannotRun;
    outcome.error = failure.message;
    return outcome;
  }
  compare_with_reference(job, outputs, outcome);
  return outcome;
}

}  // namespace faultline::repro
