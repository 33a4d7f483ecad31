// A small tensor-parallel job that reproduces a TP configuration failure and checks its fix.
// This file holds the job's sizes, how they are scaled down from a model's real ones, the
// checks frameworks make before they shard (in their words), and which slice each rank owns.
// tp_model.hpp builds the weights and the unsharded reference; cpu_backend.hpp and
// cuda_backend.hpp run the sharded job and compare it with that reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace faultline::repro {

// A model's real sizes, from config.json or the command line.
struct ModelGeometry {
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: same as heads
  int64_t head_dim = 0;  // 0: hidden / heads, or 128 when hidden is unknown too
  int64_t hidden = 0;    // 0: heads × head_dim
  int64_t ffn = 0;       // 0: 4 × hidden
  int64_t vocab = 0;     // 0: 32000
};

// The job that runs: one transformer block over `tokens` tokens.
//   embedding   vocabulary-parallel: rank r owns rows [r·Vp/tp, (r+1)·Vp/tp) of the table
//               padded to Vp rows, a multiple of vocab_multiple × tp (Megatron's
//               make_vocab_size_divisible_by × TP); out-of-shard tokens give zeros; all-reduce
//   attention   column-parallel Q/K/V split by heads, KV heads split or replicated (GQA; when
//               tp > kv_heads each KV head is copied on tp / kv_heads ranks, as vLLM does),
//               causal softmax; row-parallel output projection; all-reduce; residual
//   MLP         column-parallel gate and up (SwiGLU), row-parallel down; all-reduce; residual
struct TpJob {
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: same as heads
  int64_t head_dim = 8;
  int64_t hidden = 0;          // 0: heads × head_dim
  int64_t ffn = 0;             // 0: 4 × hidden
  int64_t vocab = 0;           // 0: 8 × hidden
  int64_t vocab_multiple = 8;  // the vocabulary is padded to a multiple of this × tp
  int64_t tp = 1;
  int64_t tokens = 8;
  uint64_t seed = 1;

  int64_t kv_heads_or_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  int64_t hidden_size() const { return hidden > 0 ? hidden : heads * head_dim; }
  int64_t ffn_size() const { return ffn > 0 ? ffn : 4 * hidden_size(); }
  int64_t vocab_size() const { return vocab > 0 ? vocab : 8 * hidden_size(); }
  int64_t padded_vocab() const;
};

// The real sizes, filled in where the geometry leaves them at 0.
ModelGeometry complete(ModelGeometry geometry);
// The job at the model's real sizes, Megatron's vocabulary padding (128 × TP).
TpJob full_size_job(const ModelGeometry& geometry, int64_t tp);
// The job scaled down: the same heads, KV heads and TP; head_dim shrunk to 8 and hidden, FFN
// and vocabulary by the same factor, each keeping what TP divisibility sees: the FFN keeps its
// remainder modulo tp, and the vocabulary needs padding exactly when the real one does.
TpJob scaled_job(const ModelGeometry& geometry, int64_t tp);
// The factor scaled_job divides by (1 when the real head_dim is already small).
int64_t scale_factor(const ModelGeometry& geometry);

// Why the job cannot be run at all (a size that is not positive, KV heads that do not divide the
// heads), or "" when it can be checked and run.
std::string invalid_sizes(const TpJob& job);

// What the frameworks check before they shard. Refused jobs carry the framework's message,
// word for word, and the causes.md id of that failure.
struct HostCheck {
  bool passed = true;
  std::string error;
  std::string cause;
};
HostCheck check_on_host(const TpJob& job);  // only for jobs with valid sizes

// The slice of every sharded weight that `rank` owns, as [begin, end) ranges.
struct RankShard {
  int64_t rank = 0;
  int64_t q_head_begin = 0, q_head_end = 0;    // query heads
  int64_t kv_head_begin = 0, kv_head_end = 0;  // KV heads held (one, replicated, when tp > kv_heads)
  int64_t ffn_begin = 0, ffn_end = 0;          // columns of gate/up, rows of down
  int64_t vocab_begin = 0, vocab_end = 0;      // rows of the padded embedding table
};
// Only for jobs that passed check_on_host.
RankShard shard_of(const TpJob& job, int64_t rank);

// Bytes of double-precision weights one copy of the block holds (embedding table included).
uint64_t weight_bytes(const TpJob& job);

// How real a result is. Never claim more than what ran.
enum class Realism { kHostCheck, kCpuEmulation, kGpuLocalReduce, kNcclSingleRank, kRealMultiGpu };
std::string_view label(Realism realism);  // "HOST_CHECK", "CPU_EMULATION", ...

struct TpOutcome {
  enum class Kind { kRefused, kRan, kCannotRun };
  Kind kind = Kind::kCannotRun;
  Realism realism = Realism::kHostCheck;
  std::string error;           // kRefused: the framework's message; kCannotRun: why not
  std::string cause;           // kRefused: the causes.md id
  std::string note;            // how the ranks ran ("4 ranks as threads", "1 GPU for TP 4: ...")
  double max_difference = 0;   // max |sharded − reference| over every rank's output
  double reference_scale = 0;  // max |reference|
  double tolerance = 0;        // the bound on max_difference: relative_tolerance × max(1, scale)
  double relative_tolerance = 0;
  bool matches = false;        // ran, and max_difference <= tolerance
  double init_ms = 0;          // weights sharded and placed, ranks (and communicators) set up
  double communicator_ms = 0;  // of init_ms, the NCCL communicators' (0 without NCCL)
  double run_ms = 0;           // the sharded forward pass with its all-reduces
  double warm_run_ms = 0;      // the same pass run again, when the backend does (0: not run)
  double reference_ms = 0;     // the unsharded reference
  int64_t all_reduces = 0;

  bool ran() const { return kind == Kind::kRan; }
};

// What every backend answers before it runs anything: the outcome of a job whose sizes are
// invalid (kCannotRun) or that the frameworks' checks refuse (kRefused, in their words), or
// nullopt when the job may run.
std::optional<TpOutcome> outcome_before_running(const TpJob& job);

}  // namespace faultline::repro
