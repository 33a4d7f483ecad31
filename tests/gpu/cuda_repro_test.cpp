#include <doctest/doctest.h>

#include <string>

#include "repro/cuda_backend.hpp"
#include "repro/tp_job.hpp"
#include "tp/arithmetic.hpp"

using faultline::repro::ModelGeometry;
using faultline::repro::Realism;
using faultline::repro::run_on_cuda;
using faultline::repro::scaled_job;
using faultline::repro::TpOutcome;

namespace {

int gpu_count() {
  std::string why_not;
  return faultline::repro::cuda_device_count(why_not);
}

const ModelGeometry kLlama{.heads = 32, .kv_heads = 8, .hidden = 4096, .ffn = 11008, .vocab = 32000};

}  // namespace

TEST_CASE("TP 1 runs through an NCCL communicator of one rank and matches the reference") {
  auto outcome = run_on_cuda(scaled_job(kLlama, 1));
  INFO(outcome.error);
  REQUIRE(outcome.ran());
  CHECK(outcome.realism == Realism::kNcclSingleRank);
  CHECK(outcome.matches);
  CHECK(outcome.communicator_ms > 0);
  CHECK(outcome.all_reduces == 3);
}

TEST_CASE("the largest TP the GPUs hold runs one rank per GPU and matches the reference") {
  int64_t tp = faultline::tp::largest_divisor_le(8, gpu_count());
  auto outcome = run_on_cuda(scaled_job(kLlama, tp));
  INFO(outcome.error);
  REQUIRE(outcome.ran());
  CHECK(outcome.realism == (tp == 1 ? Realism::kNcclSingleRank : Realism::kRealMultiGpu));
  CHECK(outcome.matches);
}

TEST_CASE("more ranks than GPUs run on GPU 0 with a local reduction, and say so") {
  int64_t tp = 2 * faultline::tp::largest_divisor_le(8, gpu_count());
  if (tp > 8) return;  // 8 GPUs or more: every valid TP of this model fits
  auto outcome = run_on_cuda(scaled_job(kLlama, tp));
  INFO(outcome.error);
  REQUIRE(outcome.ran());
  CHECK(outcome.realism == Realism::kGpuLocalReduce);
  CHECK(outcome.note.find("shards ran one after another on GPU 0") != std::string::npos);
  CHECK(outcome.communicator_ms == 0);
  CHECK(outcome.matches);
}

TEST_CASE("GQA with TP above the KV heads, and a padded vocabulary, match on the GPU") {
  auto outcome = run_on_cuda(scaled_job(ModelGeometry{.heads = 32, .kv_heads = 2, .vocab = 32001}, 8));
  INFO(outcome.error);
  REQUIRE(outcome.ran());
  CHECK(outcome.matches);
}

TEST_CASE("TP 6 of 32 heads is refused before any GPU work") {
  auto outcome = run_on_cuda(scaled_job(kLlama, 6));
  CHECK(outcome.kind == TpOutcome::Kind::kRefused);
  CHECK(outcome.error ==
        "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).");
}
