#include "preflight/checks.hpp"

#include <algorithm>

#include "tp/arithmetic.hpp"

namespace faultline::preflight {
namespace {

std::string list(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

Check divides(const char* name, const char* what, std::optional<int64_t> size, int64_t parts,
              const char* parallel, const char* cause) {
  Check check{name, Verdict::kOk, "", ""};
  std::string split = std::to_string(*size) + " " + what + " over " + parallel + " " + std::to_string(parts);
  if (*size % parts == 0) {
    check.message = split + ": " + std::to_string(*size / parts) + " each";
  } else {
    check.verdict = Verdict::kError;
    check.cause = cause;
    check.message = split + ": not divisible (divisors of " + std::to_string(*size) + ": " +
                    list(tp::divisors_le(*size, 64)) + ")";
  }
  return check;
}

Check kv_heads_check(int64_t kv_heads, int64_t tp, bool replicate) {
  Check check{"kv_heads", Verdict::kOk, "", ""};
  std::string split = std::to_string(kv_heads) + " key/value heads over TP " + std::to_string(tp);
  if (kv_heads % tp == 0) {
    check.message = split + ": " + std::to_string(kv_heads / tp) + " each";
  } else if (!replicate) {
    check.verdict = Verdict::kError;
    check.cause = "tp.kv_heads_not_divisible";
    check.message = split + ": not divisible, and this framework does not replicate KV heads (query groups)";
  } else if (tp % kv_heads == 0) {
    check.verdict = Verdict::kNote;
    check.message = split + ": each KV head is replicated on " + std::to_string(tp / kv_heads) +
                    " ranks (vLLM and SGLang do this; Megatron requires num_query_groups to divide or be a "
                    "multiple of TP)";
  } else {
    check.verdict = Verdict::kError;
    check.cause = "tp.kv_heads_not_divisible";
    check.message = split + ": neither divides the other";
  }
  return check;
}

Check vocab_check(int64_t vocab, int64_t tp, bool unpadded) {
  Check check{"vocab", Verdict::kOk, "", ""};
  std::string split = std::to_string(vocab) + " vocabulary rows over TP " + std::to_string(tp);
  if (vocab % tp == 0) {
    check.message = split + ": " + std::to_string(vocab / tp) + " each";
  } else if (unpadded) {
    check.verdict = Verdict::kError;
    check.cause = "tp.vocab_not_divisible";
    check.message = split + ": not divisible, and this framework shards the embedding without padding it";
  } else {
    check.verdict = Verdict::kNote;
    check.message =
        split + ": not divisible; Megatron pads to " + std::to_string(tp::next_multiple(vocab, 128 * tp)) +
        " (make_vocab_size_divisible_by 128 × TP), vLLM to " + std::to_string(tp::next_multiple(vocab, 64)) +
        "; loaders that shard without padding (TGI get_sharded) fail";
  }
  return check;
}

// With a kernel tile or quantization group (--ffn-multiple): each rank's FFN shard must be a
// multiple of it, where TP divides the FFN (else the FFN check has failed already).
void shard_checks(const ModelShape& shape, const Plan& plan, int64_t tp, std::vector<Check>& checks) {
  int64_t multiple = plan.rules.ffn_multiple;
  if (multiple <= 1) return;
  for (auto [size, what] : {std::pair{shape.ffn, "FFN"}, std::pair{shape.moe_ffn, "MoE FFN"}}) {
    if (!size || *size % tp != 0) continue;
    Check check{"ffn_shard", Verdict::kOk, "", ""};
    int64_t shard = *size / tp;
    std::string split = std::to_string(*size) + " " + what + " over TP " + std::to_string(tp) + ": " +
                        std::to_string(shard) + " a rank";
    if (shard % multiple == 0) {
      check.message = split + ", " + std::to_string(shard / multiple) + " × " + std::to_string(multiple);
    } else {
      check.verdict = Verdict::kError;
      check.cause = "tp.ffn_not_divisible";
      check.message = split + ": not a multiple of " + std::to_string(multiple) +
                      " (the kernel tile or quantization group each rank's shard must fill)";
    }
    checks.push_back(check);
  }
}

std::string pool_words(const Plan& plan) {
  switch (plan.rules.expert_groups) {
    case tp::SplitRules::ExpertGroups::kWithinTp:
      return "TP " + std::to_string(plan.tp) + " (expert groups within the TP group)";
    case tp::SplitRules::ExpertGroups::kBesideTp:
      return "the GPUs over TP × PP (TP × EP × PP must divide the world size)";
    case tp::SplitRules::ExpertGroups::kStage:
      break;
  }
  return "the GPUs of a pipeline stage (GPUs / PP)";
}

// With an expert-parallel size (--ep): it must divide the experts, and the ranks its groups are
// drawn from.
void expert_checks(const ModelShape& shape, const Plan& plan, std::vector<Check>& checks) {
  if (!plan.ep) return;
  int64_t ep = *plan.ep;
  if (shape.experts)
    checks.push_back(divides("experts", "experts", shape.experts, ep, "EP", "tp.ffn_not_divisible"));
  auto pool = tp::expert_pool(plan.rules, plan.gpus, plan.tp, plan.pp);
  if (!pool) return;
  Check check{"ep_groups", Verdict::kOk, "", ""};
  std::string split = "EP " + std::to_string(ep) + " from " + pool_words(plan) + ", " + std::to_string(*pool);
  if (*pool % ep == 0) {
    check.message = split + ": " + std::to_string(*pool / ep) + " expert group(s)";
  } else {
    check.verdict = Verdict::kError;
    check.cause = "tp.size_exceeds_gpus";
    check.message =
        split + ": not divisible (EP sizes that fit: " + list(tp::valid_ep(shape.experts, pool, *pool)) + ")";
  }
  checks.push_back(check);
}

// With a virtual pipeline size (--virtual-pipeline): Megatron cuts each stage's layers into that
// many chunks, at PP > 1 only.
void virtual_pipeline_check(const ModelShape& shape, const Plan& plan, int64_t pp,
                            std::vector<Check>& checks) {
  if (!plan.virtual_pipeline || !shape.layers || *shape.layers % pp != 0) return;
  int64_t vp = *plan.virtual_pipeline;
  Check check{"virtual_pp", Verdict::kOk, "", ""};
  if (pp == 1) {
    check.verdict = Verdict::kNote;
    check.message = "virtual pipeline " + std::to_string(vp) +
                    " at PP 1: no interleaving (Megatron interleaves only at PP > 1)";
  } else {
    check = divides("virtual_pp", "layers a stage", *shape.layers / pp, vp, "virtual pipeline",
                    "pp.layers_not_divisible");
  }
  checks.push_back(check);
}

}  // namespace

void apply_framework(const std::string& framework, Plan& plan) {
  bool megatron_like =
      framework == "megatron" || framework == "nemo" || framework == "deepspeed" || framework == "colossalai";
  plan.rules.replicate_kv_heads = !megatron_like && framework != "tgi" && framework != "trtllm";
  plan.rules.vocab_unpadded = framework == "tgi";
  plan.layers_divisible = megatron_like || framework == "trtllm";
  plan.rules.expert_groups = framework == "megatron" || framework == "nemo"
                                 ? tp::SplitRules::ExpertGroups::kBesideTp
                             : framework == "sglang" ? tp::SplitRules::ExpertGroups::kWithinTp
                                                     : tp::SplitRules::ExpertGroups::kStage;
  plan.gpu_fit = framework == "trtllm" ? Plan::GpuFit::kExact
                 : megatron_like       ? Plan::GpuFit::kMultiple
                                       : Plan::GpuFit::kAtLeast;
}

Status apply_requirements(std::string_view list, Plan& plan) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view word = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (word == "kv-divisible") {
      plan.rules.replicate_kv_heads = false;
    } else if (word == "vocab-divisible") {
      plan.rules.vocab_unpadded = true;
    } else if (word == "layers-divisible") {
      plan.layers_divisible = true;
    } else if (word == "gpus-multiple") {
      if (plan.gpu_fit != Plan::GpuFit::kExact) plan.gpu_fit = Plan::GpuFit::kMultiple;
    } else if (word == "gpus-exact") {
      plan.gpu_fit = Plan::GpuFit::kExact;
    } else if (!word.empty()) {
      return Status::error("--require: unknown requirement '" + std::string(word) +
                           "' (kv-divisible, vocab-divisible, layers-divisible, gpus-multiple, gpus-exact)");
    }
  }
  return Status::ok();
}

std::optional<int64_t> weights_mib(const ModelShape& shape) {
  if (!shape.heads || !shape.hidden || !shape.layers || *shape.heads <= 0) return std::nullopt;
  double hidden = static_cast<double>(*shape.hidden);
  double head_dim = hidden / static_cast<double>(*shape.heads);
  double kv = static_cast<double>(shape.kv_heads.value_or(*shape.heads)) * head_dim;
  double attention = 2 * hidden * hidden + 2 * hidden * kv;
  double ffn = static_cast<double>(shape.ffn.value_or(4 * *shape.hidden));
  double mlp = 3 * hidden * ffn;
  if (shape.experts && *shape.experts > 1) {
    mlp = 3 * hidden * static_cast<double>(shape.moe_ffn.value_or(static_cast<int64_t>(ffn))) *
          static_cast<double>(*shape.experts);
  }
  double embeddings = 2 * hidden * static_cast<double>(shape.vocab.value_or(32000));
  double parameters = static_cast<double>(*shape.layers) * (attention + mlp) + embeddings;
  return static_cast<int64_t>(parameters * 2 / (1024.0 * 1024.0));
}

bool PreflightResult::ok() const {
  return std::none_of(checks.begin(), checks.end(),
                      [](const Check& c) { return c.verdict == Verdict::kError; });
}

PreflightResult run_checks(const ModelShape& shape, const Plan& plan) {
  PreflightResult result;
  int64_t tp = std::max<int64_t>(plan.tp, 1);
  int64_t pp = std::max<int64_t>(plan.pp, 1);
  if (shape.heads)
    result.checks.push_back(
        divides("heads", "attention heads", shape.heads, tp, "TP", "tp.heads_not_divisible"));
  if (shape.kv_heads)
    result.checks.push_back(kv_heads_check(*shape.kv_heads, tp, plan.rules.replicate_kv_heads));
  if (shape.hidden)
    result.checks.push_back(
        divides("hidden", "hidden size", shape.hidden, tp, "TP", "tp.hidden_not_divisible"));
  if (shape.ffn)
    result.checks.push_back(
        divides("ffn", "FFN intermediate size", shape.ffn, tp, "TP", "tp.ffn_not_divisible"));
  if (shape.moe_ffn) {
    result.checks.push_back(
        divides("moe_ffn", "MoE intermediate size", shape.moe_ffn, tp, "TP", "tp.ffn_not_divisible"));
  }
  if (shape.vocab) result.checks.push_back(vocab_check(*shape.vocab, tp, plan.rules.vocab_unpadded));
  if (shape.vision_heads) {
    result.checks.push_back(divides("vision_heads", "vision-tower heads", shape.vision_heads, tp, "TP",
                                    "tp.heads_not_divisible"));
  }
  if (shape.layers && pp > 1) {
    Check layers = divides("layers", "layers", shape.layers, pp, "PP", "pp.layers_not_divisible");
    if (layers.verdict == Verdict::kError && !plan.layers_divisible && *shape.layers >= pp) {
      layers.verdict = Verdict::kNote;
      layers.cause.clear();
      layers.message =
          std::to_string(*shape.layers) + " layers over PP " + std::to_string(pp) + ": stages of " +
          std::to_string(*shape.layers / pp) + " and " + std::to_string(*shape.layers / pp + 1) +
          " layers (vLLM and SGLang split unevenly; Megatron, NeMo, DeepSpeed and TensorRT-LLM need PP "
          "to divide them: --framework megatron)";
    }
    result.checks.push_back(layers);
  }
  shard_checks(shape, plan, tp, result.checks);
  virtual_pipeline_check(shape, plan, pp, result.checks);
  expert_checks(shape, plan, result.checks);
  if (plan.gpus) {
    Check check{"gpus", Verdict::kOk, "", ""};
    int64_t needed = tp * pp;
    std::string need = "TP " + std::to_string(tp) + " × PP " + std::to_string(pp) + " = " +
                       std::to_string(needed) + " GPUs of " + std::to_string(*plan.gpus);
    if (needed > *plan.gpus) {
      check.verdict = Verdict::kError;
      check.cause = "tp.size_exceeds_gpus";
      check.message = need + ": not enough GPUs";
    } else if (plan.gpu_fit == Plan::GpuFit::kExact && *plan.gpus != needed) {
      check.verdict = Verdict::kError;
      check.cause = "tp.size_exceeds_gpus";
      check.message = need + ": this framework needs exactly TP × PP processes";
    } else if (*plan.gpus % needed != 0) {
      check.verdict = plan.gpu_fit == Plan::GpuFit::kMultiple ? Verdict::kError : Verdict::kNote;
      if (check.verdict == Verdict::kError) check.cause = "tp.size_exceeds_gpus";
      check.message =
          need + ": " + std::to_string(*plan.gpus % needed) + " GPU(s) left idle" +
          (check.verdict == Verdict::kError ? "; the world size must be a multiple of TP × PP" : "");
    } else {
      check.message = need + ": " + std::to_string(*plan.gpus / needed) + " replica(s)";
    }
    result.checks.push_back(check);
  }
  auto weights = weights_mib(shape);
  // Weights alone past 90% of a GPU leave no room for activations and the KV cache.
  auto fits_memory = [&](int64_t model_parallel) {
    return !weights || !plan.gpu_memory_mib || *weights / model_parallel <= *plan.gpu_memory_mib * 9 / 10;
  };
  if (weights && plan.gpu_memory_mib) {
    Check check{"memory", Verdict::kOk, "", ""};
    int64_t per_gpu = *weights / (tp * pp);
    std::string need = "about " + std::to_string(*weights / 1024) + " GiB of bf16 weights over TP " +
                       std::to_string(tp) + " × PP " + std::to_string(pp) + ": " +
                       std::to_string(per_gpu / 1024) + " GiB a GPU of " +
                       std::to_string(*plan.gpu_memory_mib / 1024) + " GiB";
    if (!fits_memory(tp * pp)) {
      check.verdict = Verdict::kError;
      check.cause = "cuda.oom";
      check.message = need + ": does not fit (raise TP × PP, or quantize)";
    } else {
      check.message = need;
    }
    result.checks.push_back(check);
  }
  if (!plan.gpu_mix.empty()) {
    result.checks.push_back({"gpu_models", Verdict::kError,
                             "GPUs of different models or memory in one job: " + plan.gpu_mix +
                                 "; the smallest sets the pace and the memory limit of every TP group",
                             "tp.heterogeneous_gpus"});
  }
  // What the model accepts, whatever the GPUs: the layouts below say what fits them.
  int64_t limit = shape.heads ? *shape.heads : std::max<int64_t>(plan.gpus.value_or(64), 64);
  result.valid_tp = tp::valid_tp(shape, std::min<int64_t>(limit, 1024), plan.rules);
  if (plan.ep) {
    auto pool = tp::expert_pool(plan.rules, plan.gpus, plan.tp, plan.pp);
    result.valid_ep = tp::valid_ep(shape.experts, pool, pool.value_or(shape.experts.value_or(*plan.ep)));
  }
  if (plan.gpus) {
    // Every TP×PP model that fits, then how many replicas of it (data parallel) fill the GPUs:
    // the splits that use all of them as one model first.
    for (int64_t replicas : tp::divisors(*plan.gpus)) {
      for (const auto& layout : tp::layouts(*plan.gpus / replicas)) {
        bool stages_fit = !shape.layers || (plan.layers_divisible ? *shape.layers % layout.pp == 0
                                                                  : layout.pp <= *shape.layers);
        if (tp::tp_fits(shape, layout.tp, plan.rules) && stages_fit && fits_memory(layout.tp * layout.pp)) {
          result.layouts.push_back(layout.to_string() +
                                   (replicas > 1 ? " (" + std::to_string(replicas) + " replicas)" : ""));
        }
      }
    }
  }
  return result;
}

}  // namespace faultline::preflight
