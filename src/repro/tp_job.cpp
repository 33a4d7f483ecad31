#include "repro/tp_job.hpp"

#include <algorithm>

#include "tp/arithmetic.hpp"

namespace faultline::repro {
namespace {

constexpr int64_t kScaledHeadDim = 8;
constexpr int64_t kMegatronVocabDivisibleBy = 128;

// A size n divided by `factor`, at least 1, keeping n's remainder modulo `modulus`: whether
// `modulus` divides it stays as it was.
int64_t scale_keeping_remainder(int64_t n, int64_t factor, int64_t modulus) {
  int64_t quotient = std::max<int64_t>(1, n / factor / modulus);
  return quotient * modulus + n % modulus;
}

}  // namespace

int64_t TpJob::padded_vocab() const {
  return tp::next_multiple(vocab_size(), std::max<int64_t>(1, vocab_multiple) * std::max<int64_t>(1, tp));
}

ModelGeometry complete(ModelGeometry geometry) {
  if (geometry.kv_heads <= 0) geometry.kv_heads = geometry.heads;
  if (geometry.head_dim <= 0) {
    geometry.head_dim = geometry.hidden > 0 && geometry.heads > 0 && geometry.hidden % geometry.heads == 0
                            ? geometry.hidden / geometry.heads
                            : 128;
  }
  if (geometry.hidden <= 0) geometry.hidden = geometry.heads * geometry.head_dim;
  if (geometry.ffn <= 0) geometry.ffn = 4 * geometry.hidden;
  if (geometry.vocab <= 0) geometry.vocab = 32000;
  return geometry;
}

TpJob full_size_job(const ModelGeometry& geometry, int64_t tp) {
  ModelGeometry real = complete(geometry);
  TpJob job;
  job.heads = real.heads;
  job.kv_heads = real.kv_heads;
  job.head_dim = real.head_dim;
  job.hidden = real.hidden;
  job.ffn = real.ffn;
  job.vocab = real.vocab;
  job.vocab_multiple = kMegatronVocabDivisibleBy;
  job.tp = tp;
  return job;
}

int64_t scale_factor(const ModelGeometry& geometry) {
  ModelGeometry real = complete(geometry);
  return real.head_dim > kScaledHeadDim ? real.head_dim / kScaledHeadDim : 1;
}

TpJob scaled_job(const ModelGeometry& geometry, int64_t tp) {
  ModelGeometry real = complete(geometry);
  int64_t factor = scale_factor(real);
  tp = std::max<int64_t>(1, tp);
  TpJob job = full_size_job(real, tp);
  job.head_dim = real.head_dim / factor;
  job.hidden = real.hidden == real.heads * real.head_dim ? real.heads * job.head_dim
                                                         : std::max<int64_t>(1, real.hidden / factor);
  job.ffn = scale_keeping_remainder(real.ffn, factor, tp);
  job.vocab_multiple = std::max<int64_t>(1, kMegatronVocabDivisibleBy / factor);
  int64_t real_multiple = kMegatronVocabDivisibleBy * tp;
  int64_t scaled_multiple = job.vocab_multiple * tp;
  int64_t vocab = std::max<int64_t>(1, (real.vocab + factor - 1) / factor);
  bool real_needs_padding = real.vocab % real_multiple != 0;
  if (real_needs_padding && vocab % scaled_multiple == 0 && scaled_multiple > 1) {
    vocab = vocab > 1 ? vocab - 1 : vocab + 1;
  } else if (!real_needs_padding) {
    vocab = tp::next_multiple(vocab, scaled_multiple);
  }
  job.vocab = vocab;
  return job;
}

std::string invalid_sizes(const TpJob& job) {
  if (job.heads <= 0 || job.kv_heads < 0 || job.head_dim <= 0 || job.hidden < 0 || job.ffn < 0 ||
      job.vocab < 0 || job.vocab_multiple <= 0 || job.tp <= 0 || job.tokens <= 0) {
    return "heads, head_dim, tokens and tp must be positive, and no size negative";
  }
  if (job.heads % job.kv_heads_or_heads() != 0) {
    return std::to_string(job.heads) + " attention heads are not a multiple of " +
           std::to_string(job.kv_heads_or_heads()) + " KV heads";
  }
  return "";
}

HostCheck check_on_host(const TpJob& job) {
  HostCheck check;
  auto refuse = [&](std::string error, std::string cause) {
    check.passed = false;
    check.error = std::move(error);
    check.cause = std::move(cause);
    return check;
  };
  int64_t kv_heads = job.kv_heads_or_heads();
  // vLLM's check, then Megatron's for query groups, then the divide() both use for the FFN.
  if (job.heads % job.tp != 0) {
    return refuse("ValueError: Total number of attention heads (" + std::to_string(job.heads) +
                      ") must be divisible by tensor parallel size (" + std::to_string(job.tp) + ").",
                  "tp.heads_not_divisible");
  }
  if (kv_heads % job.tp != 0 && job.tp % kv_heads != 0) {
    return refuse("ValueError: num_query_groups (" + std::to_string(kv_heads) +
                      ") must be a multiple or divisor of tensor_model_parallel_size (" +
                      std::to_string(job.tp) + ").",
                  "tp.kv_heads_not_divisible");
  }
  if (job.ffn_size() % job.tp != 0) {
    return refuse("AssertionError: " + std::to_string(job.ffn_size()) + " is not divisible by " +
                      std::to_string(job.tp),
                  "tp.ffn_not_divisible");
  }
  return check;
}

RankShard shard_of(const TpJob& job, int64_t rank) {
  RankShard shard;
  shard.rank = rank;
  int64_t q_per_rank = job.heads / job.tp;
  shard.q_head_begin = rank * q_per_rank;
  shard.q_head_end = shard.q_head_begin + q_per_rank;
  int64_t kv_heads = job.kv_heads_or_heads();
  if (job.tp <= kv_heads) {
    int64_t kv_per_rank = kv_heads / job.tp;
    shard.kv_head_begin = rank * kv_per_rank;
    shard.kv_head_end = shard.kv_head_begin + kv_per_rank;
  } else {
    shard.kv_head_begin = rank / (job.tp / kv_heads);
    shard.kv_head_end = shard.kv_head_begin + 1;
  }
  int64_t ffn_per_rank = job.ffn_size() / job.tp;
  shard.ffn_begin = rank * ffn_per_rank;
  shard.ffn_end = shard.ffn_begin + ffn_per_rank;
  int64_t vocab_per_rank = job.padded_vocab() / job.tp;
  shard.vocab_begin = rank * vocab_per_rank;
  shard.vocab_end = shard.vocab_begin + vocab_per_rank;
  return shard;
}

uint64_t weight_bytes(const TpJob& job) {
  auto hidden = static_cast<uint64_t>(job.hidden_size());
  auto q_width = static_cast<uint64_t>(job.heads * job.head_dim);
  auto kv_width = static_cast<uint64_t>(job.kv_heads_or_heads() * job.head_dim);
  auto ffn = static_cast<uint64_t>(job.ffn_size());
  auto vocab = static_cast<uint64_t>(job.padded_vocab());
  uint64_t values = vocab * hidden + hidden * (q_width + 2 * kv_width) + q_width * hidden + 3 * hidden * ffn;
  return values * sizeof(double);
}

std::string_view label(Realism realism) {
  switch (realism) {
    case Realism::kHostCheck:
      return "HOST_CHECK";
    case Realism::kCpuEmulation:
      return "CPU_EMULATION";
    case Realism::kGpuLocalReduce:
      return "GPU_LOCAL_REDUCE";
    case Realism::kNcclSingleRank:
      return "NCCL_SINGLE_RANK";
    case Realism::kRealMultiGpu:
      return "REAL_MULTI_GPU";
  }
  return "HOST_CHECK";
}

std::optional<TpOutcome> outcome_before_running(const TpJob& job) {
  TpOutcome outcome;
  outcome.error = invalid_sizes(job);
  if (!outcome.error.empty()) return outcome;
  HostCheck check = check_on_host(job);
  if (check.passed) return std::nullopt;
  outcome.kind = TpOutcome::Kind::kRefused;
  outcome.error = check.error;
  outcome.cause = check.cause;
  return outcome;
}

}  // namespace faultline::repro
