// The CUDA backend: the same block as the CPU backend (tp_model.hpp), in double precision with
// cuBLAS and a few kernels, one rank per GPU, the all-reduces through NCCL. One process drives
// every GPU, as nccl-tests does: one communicator per GPU made by a grouped ncclCommInitRank,
// non-blocking (ncclConfig_t.blocking = 0) and watched against a deadline with
// ncclCommGetAsyncError; on a timeout or an asynchronous error every communicator is aborted.
//
// How real a result is:
//   NCCL_SINGLE_RANK   TP 1 on one GPU: NCCL ran, with nobody to talk to
//   REAL_MULTI_GPU     TP N on N GPUs, one rank per GPU, NCCL all-reduces between them
//   GPU_LOCAL_REDUCE   fewer GPUs than TP: ranks never share a GPU through NCCL, so the shards run
//                      one after another on GPU 0 and are summed there, with no NCCL at all
//
// Built only where CMake finds CUDA, cuBLAS and NCCL (cmake/Cuda.cmake); elsewhere
// cuda_backend_stub.cpp answers every call with "not built".
#pragma once

#include <chrono>
#include <string>

#include "repro/tp_job.hpp"

namespace faultline::repro {

struct CudaRunOptions {
  std::chrono::milliseconds init_deadline{60'000};  // for the communicators to come up
  std::chrono::milliseconds run_deadline{120'000};  // for the forward pass and its all-reduces
};

// Whether this binary has the CUDA backend.
bool cuda_backend_built();

// The number of visible CUDA devices; 0 with `error` set when there are none, the runtime
// fails, or the backend is not built.
int cuda_device_count(std::string& error);

// Refused when check_on_host refuses; kCannotRun (with the reason) when the backend is not
// built, no GPU is visible, the weights do not fit, or CUDA, cuBLAS or NCCL fail.
TpOutcome run_on_cuda(const TpJob& job, const CudaRunOptions& options = {});

}  // namespace faultline::repro
