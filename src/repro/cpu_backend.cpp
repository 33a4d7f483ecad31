#include "repro/cpu_backend.hpp"

#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "repro/host_memory.hpp"
#include "repro/thread_all_reduce.hpp"
#include "repro/tp_model.hpp"

namespace faultline::repro {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Runs body(rank) on one thread per rank and joins them; the first exception's message, or "".
template <typename Body>
std::string on_rank_threads(int64_t ranks, Body body) {
  std::vector<std::string> errors(static_cast<size_t>(ranks));
  std::vector<std::jthread> threads;
  threads.reserve(static_cast<size_t>(ranks));
  for (int64_t rank = 0; rank < ranks; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        body(rank);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(rank)] = "rank " + std::to_string(rank) + ": " + e.what();
      }
    });
  }
  threads.clear();  // joins
  for (auto& error : errors) {
    if (!error.empty()) return error;
  }
  return "";
}

}  // namespace

TpOutcome run_on_cpu(const TpJob& job, uint64_t memory_limit_bytes) {
  if (auto early = outcome_before_running(job)) return *early;
  TpOutcome outcome;
  if (memory_limit_bytes == 0) memory_limit_bytes = available_memory_bytes() / 10 * 8;
  uint64_t needed = weight_bytes(job);
  if (memory_limit_bytes > 0 && needed > memory_limit_bytes) {
    outcome.error = "the block's weights in double precision need about " + format_bytes(needed) +
                    " of memory; only " + format_bytes(memory_limit_bytes) + " may be used here";
    return outcome;
  }

  outcome.realism = Realism::kCpuEmulation;
  outcome.note = std::to_string(job.tp) + (job.tp == 1 ? " rank as a thread" : " ranks as threads");
  auto start = std::chrono::steady_clock::now();
  std::vector<RankWeights> weights(static_cast<size_t>(job.tp));
  std::string error = on_rank_threads(
      job.tp, [&](int64_t rank) { weights[static_cast<size_t>(rank)] = make_rank_weights(job, rank); });
  std::vector<int64_t> tokens = token_ids(job);
  ThreadAllReduce all_reduce(job.tp);
  outcome.init_ms = milliseconds_since(start);
  if (!error.empty()) {
    outcome.error = "setting up the ranks failed: " + error;
    return outcome;
  }

  // No rank may leave between all-reduces, or the others would wait for it forever; the
  // weights were made above, so only small activations are allocated here.
  start = std::chrono::steady_clock::now();
  std::vector<Matrix> outputs(static_cast<size_t>(job.tp));
  error = on_rank_threads(job.tp, [&](int64_t rank) {
    const RankWeights& w = weights[static_cast<size_t>(rank)];
    Matrix x = embedding_partial(w, tokens);
    all_reduce.sum(rank, x.values);
    Matrix attention = attention_partial(job, w, x);
    all_reduce.sum(rank, attention.values);
    add_in_place(x, attention);
    Matrix mlp = mlp_partial(w, x);
    all_reduce.sum(rank, mlp.values);
    add_in_place(x, mlp);
    outputs[static_cast<size_t>(rank)] = std::move(x);
  });
  outcome.run_ms = milliseconds_since(start);
  if (!error.empty()) {
    outcome.error = "a rank failed: " + error;
    return outcome;
  }
  outcome.all_reduces = all_reduce.calls();
  weights.clear();  // the reference's matrices take their place

  compare_with_reference(job, outputs, outcome);
  return outcome;
}

}  // namespace faultline::repro
