// The CUDA backend's entry points in a binary built without CUDA, cuBLAS or NCCL.
#include "repro/cuda_backend.hpp"

namespace faultline::repro {
namespace {

constexpr const char* kNotBuilt =
    "the 'cuda' backend is not built into this binary: CMake found no CUDA compiler, cuBLAS or NCCL when it "
    "was "
    "configured (see cmake/Cuda.cmake), so there is no faultline-cuda next to faultline; use --backend cpu";

}  // namespace

bool cuda_backend_built() {
  return false;
}

int cuda_device_count(std::string& error) {
  error = kNotBuilt;
  return 0;
}

TpOutcome run_on_cuda(const TpJob& job, const CudaRunOptions&) {
  if (auto early = outcome_before_running(job)) return *early;
  TpOutcome outcome;
  outcome.error = kNotBuilt;
  return outcome;
}

}  // namespace faultline::repro
