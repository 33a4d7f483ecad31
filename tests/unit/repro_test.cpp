#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "repro/cpu_backend.hpp"
#include "repro/cuda_backend.hpp"
#include "repro/host_memory.hpp"
#include "repro/thread_all_reduce.hpp"
#include "repro/tp_job.hpp"
#include "repro/tp_model.hpp"

using faultline::repro::compare;
using faultline::repro::Matrix;
using faultline::repro::ModelGeometry;
using faultline::repro::Realism;
using faultline::repro::run_on_cpu;
using faultline::repro::scaled_job;
using faultline::repro::shard_of;
using faultline::repro::TpJob;
using faultline::repro::TpOutcome;

TEST_CASE("TP 4 of 32 heads and 8 KV heads on threads matches the unsharded reference") {
  TpJob job = scaled_job(ModelGeometry{.heads = 32, .kv_heads = 8, .hidden = 4096, .ffn = 11008}, 4);
  auto outcome = run_on_cpu(job);
  REQUIRE(outcome.ran());
  CHECK(outcome.realism == Realism::kCpuEmulation);
  CHECK(outcome.note == "4 ranks as threads");
  CHECK(outcome.all_reduces == 3);
  CHECK(outcome.matches);
  CHECK(outcome.max_difference <= outcome.tolerance);
  CHECK(outcome.tolerance == doctest::Approx(1e-9 * std::max(1.0, outcome.reference_scale)));
  CHECK(outcome.reference_scale > 0.1);  // the block computed something
}

TEST_CASE("heads that do not divide are refused in vLLM's words") {
  auto outcome = run_on_cpu(TpJob{.heads = 32, .kv_heads = 8, .tp = 6});
  CHECK(outcome.kind == TpOutcome::Kind::kRefused);
  CHECK(outcome.cause == "tp.heads_not_divisible");
  CHECK(outcome.error ==
        "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).");
}

TEST_CASE("KV heads that neither divide nor are divided by TP are refused") {
  auto outcome = run_on_cpu(TpJob{.heads = 40, .kv_heads = 8, .tp = 5});
  CHECK(outcome.kind == TpOutcome::Kind::kRefused);
  CHECK(outcome.cause == "tp.kv_heads_not_divisible");
  CHECK(outcome.error ==
        "ValueError: num_query_groups (8) must be a multiple or divisor of tensor_model_parallel_size (5).");
}

TEST_CASE("with TP above the KV heads each KV head is replicated and the result still matches") {
  TpJob job{.heads = 32, .kv_heads = 2, .head_dim = 4, .ffn = 64, .tp = 8, .tokens = 5};
  for (int64_t rank = 0; rank < 8; ++rank) {
    auto shard = shard_of(job, rank);
    CHECK(shard.kv_head_begin == rank / 4);  // ranks 0-3 hold KV head 0, ranks 4-7 KV head 1
    CHECK(shard.kv_head_end == shard.kv_head_begin + 1);
    CHECK(shard.q_head_begin == 4 * rank);
  }
  auto outcome = run_on_cpu(job);
  REQUIRE(outcome.ran());
  CHECK(outcome.matches);
}

TEST_CASE(
    "the vocabulary is padded to a multiple of vocab_multiple × TP and out-of-shard tokens are masked") {
  TpJob job{
      .heads = 8, .kv_heads = 4, .head_dim = 4, .vocab = 1000, .vocab_multiple = 8, .tp = 4, .tokens = 6};
  CHECK(job.padded_vocab() == 1024);
  auto last = shard_of(job, 3);
  CHECK(last.vocab_begin == 768);
  CHECK(last.vocab_end == 1024);                           // rows 1000-1023 are padding
  CHECK(faultline::repro::token_ids(job).front() == 999);  // in the shard with the padding
  auto outcome = run_on_cpu(job);
  REQUIRE(outcome.ran());
  CHECK(outcome.matches);

  TpJob exact = job;
  exact.vocab = 1024;
  CHECK(exact.padded_vocab() == 1024);
}

TEST_CASE("a vocabulary-parallel embedding gives zeros for another rank's tokens") {
  TpJob job{.heads = 2, .head_dim = 2, .vocab = 30, .vocab_multiple = 4, .tp = 2, .tokens = 3};
  auto first = faultline::repro::make_rank_weights(job, 0);   // rows 0-15
  auto second = faultline::repro::make_rank_weights(job, 1);  // rows 16-31
  std::vector<int64_t> tokens{29, 0, 16};
  Matrix x0 = faultline::repro::embedding_partial(first, tokens);
  Matrix x1 = faultline::repro::embedding_partial(second, tokens);
  CHECK(x0.at(0, 0) == 0.0);
  CHECK(x0.at(1, 0) == first.embedding.at(0, 0));
  CHECK(x1.at(0, 1) == second.embedding.at(13, 1));
  CHECK(x1.at(1, 1) == 0.0);
  CHECK(x1.at(2, 0) == second.embedding.at(0, 0));
}

TEST_CASE("the thread all-reduce leaves the sum over every rank in every rank's buffer") {
  constexpr int64_t kRanks = 4;
  faultline::repro::ThreadAllReduce all_reduce(kRanks);
  std::vector<std::vector<double>> buffers(kRanks);
  {
    std::vector<std::jthread> ranks;
    for (int64_t rank = 0; rank < kRanks; ++rank) {
      ranks.emplace_back([&, rank] {
        auto& buffer = buffers[static_cast<size_t>(rank)];
        for (int round = 0; round < 3; ++round) {
          buffer.assign(7, 0.0);
          for (size_t i = 0; i < buffer.size(); ++i)
            buffer[i] = static_cast<double>(rank * 100 + round) + static_cast<double>(i);
          all_reduce.sum(rank, buffer);
        }
      });
    }
  }
  CHECK(all_reduce.calls() == 3);
  for (const auto& buffer : buffers) {
    for (size_t i = 0; i < buffer.size(); ++i) CHECK(buffer[i] == 600.0 + 4 * 2 + 4 * static_cast<double>(i));
  }
}

TEST_CASE("the comparison fails on a wrong value, a NaN, a missing rank or a misshaped output") {
  Matrix reference(2, 2);
  reference.values = {1, 2, 3, 4};
  CHECK(compare(reference, {reference, reference}, 1e-9).matches);
  Matrix off = reference;
  off.values[3] += 1e-6;
  auto result = compare(reference, {reference, off}, 1e-9);
  CHECK_FALSE(result.matches);
  CHECK(result.max_difference == doctest::Approx(1e-6));
  Matrix not_a_number = reference;
  not_a_number.values[0] = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(compare(reference, {not_a_number}, 1e-9).matches);
  CHECK_FALSE(compare(reference, {}, 1e-9).matches);
  CHECK_FALSE(compare(reference, {Matrix(2, 3)}, 1e-9).matches);
}

TEST_CASE("scaling down keeps heads, KV heads and what TP divisibility sees") {
  ModelGeometry llama{.heads = 32, .kv_heads = 8, .hidden = 4096, .ffn = 11008, .vocab = 32000};
  for (int64_t tp = 1; tp <= 8; ++tp) {
    TpJob job = scaled_job(llama, tp);
    CAPTURE(tp);
    CHECK(job.heads == 32);
    CHECK(job.kv_heads == 8);
    CHECK(job.head_dim == 8);
    CHECK(job.hidden_size() == 256);
    CHECK(job.ffn_size() % tp == 11008 % tp);
    CHECK(job.ffn_size() < 11008 / 8);
    bool real_padded = 32000 % (128 * tp) != 0;
    CHECK((job.padded_vocab() != job.vocab_size()) == real_padded);
    CHECK(job.vocab_size() < 32000 / 8);
  }
  // An FFN that TP 8 does not divide stays that way, and is refused with its scaled size.
  TpJob odd = scaled_job(ModelGeometry{.heads = 8, .ffn = 1000 * 8 + 4}, 8);
  CHECK(odd.ffn_size() % 8 == 4);
  CHECK(run_on_cpu(odd).cause == "tp.ffn_not_divisible");
}

TEST_CASE("the full-size job has the model's real sizes and Megatron's vocabulary padding") {
  TpJob job = faultline::repro::full_size_job(
      ModelGeometry{.heads = 32, .kv_heads = 8, .hidden = 4096, .ffn = 14336, .vocab = 128256}, 8);
  CHECK(job.head_dim == 128);
  CHECK(job.hidden_size() == 4096);
  CHECK(job.ffn_size() == 14336);
  CHECK(job.padded_vocab() == 128256 + 768);  // a multiple of 128 × 8
  CHECK(faultline::repro::weight_bytes(job) ==
        8ull * (129024ull * 4096 + 4096ull * (4096 + 2 * 1024) + 4096ull * 4096 + 3ull * 4096 * 14336));
}

TEST_CASE("a job whose weights exceed the memory limit is not run, and says how much it needs") {
  TpJob job{.heads = 4, .head_dim = 8, .vocab = 4096, .tp = 2};
  auto outcome = run_on_cpu(job, 1024);
  CHECK(outcome.kind == TpOutcome::Kind::kCannotRun);
  CHECK(outcome.error == "the block's weights in double precision need about " +
                             faultline::repro::format_bytes(faultline::repro::weight_bytes(job)) +
                             " of memory; only " + faultline::repro::format_bytes(1024) +
                             " may be used here");
}

TEST_CASE("sizes that cannot make a block are not run") {
  CHECK(run_on_cpu(TpJob{.heads = 0, .tp = 2}).kind == TpOutcome::Kind::kCannotRun);
  auto outcome = run_on_cpu(TpJob{.heads = 12, .kv_heads = 5, .tp = 1});
  CHECK(outcome.kind == TpOutcome::Kind::kCannotRun);
  CHECK(outcome.error == "12 attention heads are not a multiple of 5 KV heads");
}

TEST_CASE("the CUDA backend refuses on the host before it needs a GPU, and says plainly when it has none") {
  auto refused = faultline::repro::run_on_cuda(TpJob{.heads = 32, .kv_heads = 8, .tp = 6});
  CHECK(refused.kind == TpOutcome::Kind::kRefused);
  CHECK(refused.cause == "tp.heads_not_divisible");
  std::string why_not;
  if (faultline::repro::cuda_device_count(why_not) == 0) {
    auto outcome = faultline::repro::run_on_cuda(TpJob{.heads = 8, .kv_heads = 2, .tp = 2});
    CHECK(outcome.kind == TpOutcome::Kind::kCannotRun);
    CHECK(outcome.error == why_not);
    CHECK_FALSE(why_not.empty());
  }
}
