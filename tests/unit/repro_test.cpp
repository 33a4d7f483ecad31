#include <doctest/doctest.h>

#include "repro/tp_job.hpp"

using faultline::repro::run_on_cpu;
using faultline::repro::TpJob;

TEST_CASE("a TP split the model allows runs and matches the single-rank block") {
  TpJob job{.heads = 32, .kv_heads = 8, .head_dim = 4, .ffn = 96, .tp = 4, .tokens = 3, .seed = 7};
  auto outcome = run_on_cpu(job);
  CHECK(outcome.ran);
  CHECK(outcome.matches);
  CHECK(outcome.max_difference < 1e-9);
}

TEST_CASE("heads that do not divide are refused in vLLM's words") {
  auto outcome = run_on_cpu(TpJob{.heads = 32, .tp = 6});
  CHECK_FALSE(outcome.ran);
  CHECK(outcome.cause == "tp.heads_not_divisible");
  CHECK(outcome.error == "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).");
}

TEST_CASE("KV heads that neither divide nor are divided by TP are refused; replication is allowed") {
  CHECK(run_on_cpu(TpJob{.heads = 40, .kv_heads = 8, .tp = 5}).cause == "tp.kv_heads_not_divisible");
  CHECK(run_on_cpu(TpJob{.heads = 32, .kv_heads = 2, .ffn = 64, .tp = 8, .tokens = 2}).matches);
}

TEST_CASE("an FFN size that does not divide is refused") {
  auto outcome = run_on_cpu(TpJob{.heads = 8, .ffn = 100, .tp = 8});
  CHECK_FALSE(outcome.ran);
  CHECK(outcome.cause == "tp.ffn_not_divisible");
}
