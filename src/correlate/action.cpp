#include "correlate/action.hpp"

#include <algorithm>
#include <map>

#include "base/text.hpp"
#include "tp/arithmetic.hpp"

namespace faultline::correlate {
namespace {

std::string numbers(const std::vector<int64_t>& sizes) {
  std::vector<std::string> words;
  for (int64_t size : sizes) words.push_back(std::to_string(size));
  return join(words, ", ");
}

// A size the facts give: a positive integer, else nothing.
std::optional<int64_t> size_fact(const Facts& facts, std::string_view name) {
  auto value = faultline::int_fact(facts, name);
  if (value && *value <= 0) return std::nullopt;
  return value;
}

struct CauseAction {
  ActionKind kind;
  bool retryable;
};

// What each cause calls for. A configuration error fails again on restart; a host's memory
// killer, a hang or a rendezvous hiccup may not; a hardware fault wants its host left out.
CauseAction action_of(const std::string& cause) {
  static const std::map<std::string, CauseAction, std::less<>> kActions = {
      {"cuda.oom", {ActionKind::kFixConfig, false}},
      {"cuda.illegal_memory_access", {ActionKind::kInvestigate, false}},
      {"cuda.device_assert", {ActionKind::kInvestigate, false}},
      {"cuda.hardware_xid_ecc", {ActionKind::kReplaceHardware, true}},
      {"cuda.driver_mismatch", {ActionKind::kFixEnvironment, false}},
      {"cuda.no_device", {ActionKind::kFixEnvironment, false}},
      {"nccl.watchdog_timeout", {ActionKind::kRestart, true}},
      {"nccl.collective_mismatch", {ActionKind::kInvestigate, false}},
      {"nccl.unhandled_system_error", {ActionKind::kFixEnvironment, true}},
      {"nccl.internal_error", {ActionKind::kInvestigate, false}},
      {"nccl.invalid_usage", {ActionKind::kFixConfig, false}},
      {"nccl.shm_p2p_failure", {ActionKind::kFixEnvironment, false}},
      {"nccl.version_mismatch", {ActionKind::kFixEnvironment, false}},
      {"nccl.remote_rank_failed", {ActionKind::kInvestigate, false}},
      {"nccl.nvls_fabric_failure", {ActionKind::kFixEnvironment, false}},
      {"dist.rendezvous_failure", {ActionKind::kRestart, true}},
      {"dist.host_oom_killed", {ActionKind::kRestart, true}},
      {"dist.worker_signal", {ActionKind::kInvestigate, false}},
      {"io.storage_failure", {ActionKind::kFixEnvironment, false}},
      {"tp.heterogeneous_gpus", {ActionKind::kFixEnvironment, false}},
      {"unrecognised", {ActionKind::kInvestigate, false}},
  };
  if (auto it = kActions.find(cause); it != kActions.end()) return it->second;
  if (cause.starts_with("tp.") || cause.starts_with("pp.")) return {ActionKind::kFixConfig, false};
  return {ActionKind::kInvestigate, false};
}

bool names_any(std::string_view text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view word) { return text.find(word) != text.npos; });
}

// The causes whose remedy is a layout the model accepts.
bool is_layout_cause(const std::string& cause) {
  return cause == "tp.heads_not_divisible" || cause == "tp.kv_heads_not_divisible" ||
         cause == "tp.hidden_not_divisible" || cause == "tp.vocab_not_divisible" ||
         cause == "tp.ffn_not_divisible" || cause == "tp.size_exceeds_gpus" ||
         cause == "pp.layers_not_divisible";
}

// The job's GPU count from what it states: its world size, its GPUs, the devices a process sees,
// the launcher's processes per node times nodes, a node's GPU table times nodes; else at least the layout
// that crashed, and a GPU per rank its lines show (not for a layout that did not fit the GPUs).
// With `floor` false, only a count the job states (no lower bound from the layout or the ranks).
std::optional<int64_t> job_gpus(const Facts& facts, const std::string& cause, int64_t ranks,
                                bool floor = true) {
  // A layout that did not fit: the GPUs there are (`gpus`) count before a world size, which
  // such an error may state as the size it asked for.
  bool did_not_fit = cause == "tp.size_exceeds_gpus";
  std::optional<int64_t> gpus = did_not_fit ? size_fact(facts, "gpus") : size_fact(facts, "world_size");
  if (!gpus) gpus = did_not_fit ? size_fact(facts, "world_size") : size_fact(facts, "gpus");
  if (const Value* visible = find_fact(facts, "visible_devices"); !gpus && visible) {
    // CUDA_VISIBLE_DEVICES=0,1,2,3: the GPUs a process on that node sees.
    std::string list = to_display(*visible);
    gpus = 1 + static_cast<int64_t>(std::count(list.begin(), list.end(), ','));
  }
  if (!gpus && size_fact(facts, "nproc_per_node")) {
    gpus = *size_fact(facts, "nproc_per_node") * size_fact(facts, "nnodes").value_or(1);
  }
  if (!gpus && size_fact(facts, "node_gpus")) {
    // A GPU table (nvidia-smi) of one node, times the nodes where the job states them.
    gpus = *size_fact(facts, "node_gpus") * size_fact(facts, "nnodes").value_or(1);
  }
  if (!gpus && floor && cause != "tp.size_exceeds_gpus" && size_fact(facts, "tp")) {
    auto tp = *size_fact(facts, "tp");
    gpus = std::max(tp * size_fact(facts, "pp").value_or(1) * size_fact(facts, "dp").value_or(1), ranks);
  }
  return gpus;
}

// The suggestion in each framework's own names for the sizes (TGI shards by tensor parallelism
// alone).
void name_settings(Action& action) {
  if (!action.suggest) return;
  const std::string& name = action.framework;
  bool megatron = name == "megatron" || name == "nemo";
  bool short_names = name == "sglang" || name == "trtllm" || name == "colossalai";
  const char* tp_name = megatron              ? "tensor_model_parallel_size"
                        : name == "tgi"       ? "num_shard"
                        : name == "deepspeed" ? "tensor_parallel.tp_size"
                        : short_names         ? "tp_size"
                                              : "tensor_parallel_size";
  action.settings.emplace_back(tp_name, action.suggest->tp);
  if (name != "tgi" && name != "deepspeed") {
    action.settings.emplace_back(megatron      ? "pipeline_model_parallel_size"
                                 : short_names ? "pp_size"
                                               : "pipeline_parallel_size",
                                 action.suggest->pp);
    if (action.suggest->dp > 1 && !megatron) {
      action.settings.emplace_back(short_names ? "dp_size" : "data_parallel_size", action.suggest->dp);
    }
  }
}

// A checkpoint saved with another TP size: its shapes against the model's (`ckpt_rows`,
// `ckpt_cols` against `model_rows`, `model_cols`), the TP it was saved with where the job states
// its own, and loading with that TP as the suggestion when the job's GPUs allow it.
void plan_checkpoint(Action& action, const std::string& rule_id, const Facts& facts, int64_t ranks) {
  CheckpointLayout layout;
  for (auto [name, shape] :
       {std::pair{"ckpt_rows", &layout.saved_shape}, std::pair{"ckpt_cols", &layout.saved_shape},
        std::pair{"model_rows", &layout.current_shape}, std::pair{"model_cols", &layout.current_shape}}) {
    if (auto size = size_fact(facts, name)) shape->push_back(*size);
  }
  auto ratio = tp::shard_ratio(layout.saved_shape, layout.current_shape);
  if (!ratio) return;
  layout.ratio = *ratio;
  layout.loaded_tp = size_fact(facts, "tp");
  if (layout.loaded_tp) layout.saved_tp = tp::saved_tp(*ratio, *layout.loaded_tp);
  action.framework = framework_of(rule_id, facts);
  if (layout.saved_tp) {
    int64_t pp = size_fact(facts, "pp").value_or(1);
    action.gpus = job_gpus(facts, "tp.checkpoint_shard_mismatch", ranks);
    int64_t model_parallel = *layout.saved_tp * pp;
    if (!action.gpus) {
      action.suggest = tp::Suggestion{*layout.saved_tp, pp, 1};
    } else if (*action.gpus % model_parallel == 0) {
      action.suggest = tp::Suggestion{*layout.saved_tp, pp, *action.gpus / model_parallel};
    }
    name_settings(action);
  }
  action.checkpoint = std::move(layout);
}

// The expert-parallel size, where the job states one that its experts or the GPUs its groups are
// drawn from do not accept: the sizes that fit, and the largest below the job's EP that keeps
// what the job's EP already fitted (a divisor of it, where the experts or the pool are unknown).
std::optional<ExpertLayout> plan_experts(const Facts& facts, const tp::SplitRules& rules,
                                         std::optional<int64_t> gpus) {
  auto ep = size_fact(facts, "ep");
  if (!ep) return std::nullopt;
  ExpertLayout layout;
  layout.ep = *ep;
  layout.experts = size_fact(facts, "experts");
  layout.pool =
      tp::expert_pool(rules, gpus, size_fact(facts, "tp").value_or(1), size_fact(facts, "pp").value_or(1));
  bool experts_fit = !layout.experts || *layout.experts % *ep == 0;
  bool pool_fits = !layout.pool || *layout.pool % *ep == 0;
  if (experts_fit && pool_fits) return std::nullopt;
  if (layout.experts || layout.pool) {
    layout.valid_ep = tp::valid_ep(layout.experts, layout.pool, layout.pool.value_or(*layout.experts));
  }
  for (int64_t size = *ep - 1; size >= 1; --size) {
    bool fits =
        (!layout.experts || *layout.experts % size == 0) && (!layout.pool || *layout.pool % size == 0);
    if (fits && (layout.experts && layout.pool ? true : *ep % size == 0)) {
      layout.suggest_ep = size;
      break;
    }
  }
  return layout;
}

// Megatron's virtual pipeline size, where the job states one that does not divide a stage's
// layers (at PP > 1, where Megatron interleaves).
std::optional<VirtualPipeline> plan_virtual_pipeline(const Facts& facts) {
  auto vp = size_fact(facts, "vp");
  auto pp = size_fact(facts, "pp");
  if (!vp || (pp && *pp == 1)) return std::nullopt;
  auto per_stage = size_fact(facts, "layers_per_stage");
  if (!per_stage && pp && size_fact(facts, "layers") && *size_fact(facts, "layers") % *pp == 0) {
    per_stage = *size_fact(facts, "layers") / *pp;
  }
  if (!per_stage || *per_stage % *vp == 0) return std::nullopt;
  VirtualPipeline layout{*per_stage, *vp, tp::divisors_le(*per_stage, 64), 1};
  for (int64_t size : layout.valid_vp) {
    if (size < *vp) layout.suggest_vp = size;
  }
  return layout;
}

// The expert-parallel and virtual pipeline settings in the framework's own names.
void name_parallel_settings(Action& action) {
  const std::string& name = action.framework;
  if (action.expert) {
    const char* ep_name = name == "megatron" || name == "nemo"      ? "expert_model_parallel_size"
                          : name == "deepspeed" || name == "sglang" ? "ep_size"
                                                                    : "expert_parallel_size";
    action.settings.emplace_back(ep_name, action.expert->suggest_ep);
  }
  if (action.virtual_pipeline) {
    action.settings.emplace_back("virtual_pipeline_model_parallel_size", action.virtual_pipeline->suggest_vp);
  }
}

// A kernel tile or quantization group the per-rank FFN shard missed (`rows`, with `multiple` or
// `group_size`): the multiple every TP's shard must be.
void plan_shard_multiple(Action& action, const std::string& cause, const Facts& facts) {
  auto rows = size_fact(facts, "rows");
  auto multiple = size_fact(facts, "multiple");
  if (!multiple) multiple = size_fact(facts, "group_size");
  if (cause != "tp.ffn_not_divisible" || !rows || !multiple || *multiple <= 1 || *rows % *multiple == 0)
    return;
  action.ffn_multiple = *multiple;
}

// The model's sizes that a rank's share of them and the job's TP give, where no fact states them
// (Action::derived).
void derive_sizes(Action& action, const Facts& facts) {
  auto tp = size_fact(facts, "tp");
  if (!tp) return;
  auto derive = [&](const char* name, int64_t value) {
    if (!size_fact(facts, name) && value > 0) set_fact(action.derived, name, Value(value));
  };
  if (auto rows = size_fact(facts, "rows"); rows && action.ffn_multiple > 1 && !size_fact(facts, "moe_ffn")) {
    derive("ffn", *rows * *tp);
  }
  auto per_rank = size_fact(facts, "hidden_per_rank");
  auto head_dim = size_fact(facts, "head_dim");
  if (per_rank && head_dim && (*per_rank * *tp) % *head_dim == 0) {
    derive("hidden", *per_rank * *tp);
    derive("heads", *per_rank * *tp / *head_dim);
  }
  if (auto spans = size_fact(facts, "ranks_per_kv_head"); spans && *tp % *spans == 0) {
    derive("kv_heads", *tp / *spans);
  }
}

// A size the facts give, or one the remedy derived.
std::optional<int64_t> model_size(const Facts& facts, const Action& action, std::string_view name) {
  if (auto size = size_fact(facts, name)) return size;
  return size_fact(action.derived, name);
}
}  // namespace

const char* to_string(ActionKind kind) {
  switch (kind) {
    case ActionKind::kFixConfig:
      return "fix_config";
    case ActionKind::kRestart:
      return "restart";
    case ActionKind::kReplaceHardware:
      return "replace_hardware";
    case ActionKind::kFixEnvironment:
      return "fix_environment";
    case ActionKind::kInvestigate:
      return "investigate";
  }
  return "investigate";
}

Action plan_action(const std::string& cause, const std::string& rule_id, const Facts& facts,
                   const std::vector<std::string>& hosts, int64_t ranks) {
  Action action;
  auto [kind, retryable] = action_of(cause);
  action.kind = kind;
  action.retryable = retryable;
  if (kind == ActionKind::kReplaceHardware) action.exclude_hosts = hosts;
  if (cause == "tp.checkpoint_shard_mismatch") plan_checkpoint(action, rule_id, facts, ranks);
  if (!is_layout_cause(cause)) return action;

  plan_shard_multiple(action, cause, facts);
  derive_sizes(action, facts);
  tp::Geometry model;
  model.heads = model_size(facts, action, "heads");
  model.kv_heads = model_size(facts, action, "kv_heads");
  model.hidden = model_size(facts, action, "hidden");
  model.ffn = model_size(facts, action, "ffn");
  model.moe_ffn = size_fact(facts, "moe_ffn");
  model.experts = size_fact(facts, "experts");
  model.vocab = size_fact(facts, "vocab");
  model.layers = size_fact(facts, "layers");
  model.vision_heads = size_fact(facts, "vision_heads");
  tp::SplitRules rules;
  action.framework = framework_of(rule_id, facts);
  rules.ffn_multiple = action.ffn_multiple;
  rules.expert_groups = action.framework == "megatron" || action.framework == "nemo"
                            ? tp::SplitRules::ExpertGroups::kBesideTp
                        : action.framework == "sglang" ? tp::SplitRules::ExpertGroups::kWithinTp
                                                       : tp::SplitRules::ExpertGroups::kStage;
  bool kv_cause = cause == "tp.kv_heads_not_divisible";
  action.strict_kv_heads = kv_cause || names_any(action.framework, {"megatron", "nemo", "deepspeed",
                                                                    "colossalai", "tgi", "trtllm"});
  rules.replicate_kv_heads = !action.strict_kv_heads;
  rules.vocab_unpadded = cause == "tp.vocab_not_divisible";
  if (kv_cause) action.requirements.push_back("kv-divisible");
  if (rules.vocab_unpadded) action.requirements.push_back("vocab-divisible");
  if (cause == "pp.layers_not_divisible") action.requirements.push_back("layers-divisible");
  for (auto [name, size] : {std::pair{"heads", model.heads}, std::pair{"kv_heads", model.kv_heads},
                            std::pair{"hidden", model.hidden}, std::pair{"ffn", model.ffn},
                            std::pair{"moe_ffn", model.moe_ffn}, std::pair{"vocab", model.vocab}}) {
    if (size) {
      // A derived size rests on the rule's own facts and the job's TP, not on a fact of its own.
      bool derived = find_fact(action.derived, name) != nullptr;
      if (!derived && (std::string_view(name) != "vocab" || rules.vocab_unpadded))
        action.used.push_back(name);
    } else if (std::string_view(name) != "moe_ffn" &&
               (std::string_view(name) != "vocab" || rules.vocab_unpadded)) {
      action.unknown.push_back(name);
    }
  }
  bool any_size = model.heads || model.kv_heads || model.hidden || model.ffn || model.moe_ffn ||
                  (rules.vocab_unpadded && model.vocab);
  auto tp = size_fact(facts, "tp").value_or(1);
  auto pp = size_fact(facts, "pp").value_or(1);
  std::optional<int64_t> gpus = job_gpus(facts, cause, ranks);
  action.gpus = gpus;
  if (cause == "tp.size_exceeds_gpus" && gpus && *gpus >= tp * pp) {
    // The GPUs were enough, so the framework wanted them to fit the layout exactly.
    action.requirements.push_back(*gpus % (tp * pp) != 0 ? "gpus-multiple" : "gpus-exact");
  }
  // Sizes up to 64 (or the GPUs in use, when more): TP 151851 is no use, whatever divides.
  int64_t limit = std::max<int64_t>(gpus.value_or(64), 64);
  if (any_size) action.valid_tp = tp::valid_tp(model, limit, rules);
  if (model.layers) action.valid_pp = tp::valid_pp(model, limit);
  // An expert-parallel or virtual pipeline size at fault is no TP/PP layout to suggest: the
  // remedy changes that size and keeps the rest.
  // EP groups are drawn from the GPUs the job states: a lower bound of them is no pool, and no
  // GPU count for the remedy to keep.
  std::optional<int64_t> stated_gpus = job_gpus(facts, cause, ranks, false);
  action.expert = plan_experts(facts, rules, stated_gpus);
  if (action.expert) action.gpus = stated_gpus;
  if (cause == "pp.layers_not_divisible") action.virtual_pipeline = plan_virtual_pipeline(facts);
  if (action.expert || action.virtual_pipeline) {
    name_parallel_settings(action);
    return action;
  }
  // An expert-parallel size that does not fit the GPUs, the GPUs unknown: no TP/PP layout either.
  bool expert_layout = cause == "tp.size_exceeds_gpus" && size_fact(facts, "ep");
  // A layout that did not fit GPUs the job does not count: any layout suggested would be a guess,
  // and the job's own is the one that crashed.
  if (cause == "tp.size_exceeds_gpus" && !gpus) {
    if (std::find(action.unknown.begin(), action.unknown.end(), "gpus") == action.unknown.end())
      action.unknown.push_back("gpus");
    name_settings(action);
    return action;
  }
  if ((any_size || model.layers || cause == "tp.size_exceeds_gpus") && !expert_layout) {
    action.suggest = tp::suggest_layout(model, gpus, tp, pp, rules);
    // TensorRT-LLM runs exactly TP x PP processes (preflight's --framework trtllm says so too).
    bool exact = action.framework == "trtllm" ||
                 std::find(action.requirements.begin(), action.requirements.end(), "gpus-exact") !=
                     action.requirements.end();
    if (exact && action.suggest && action.suggest->dp > 1) {
      // No data parallelism: TP×PP must use every GPU.
      action.suggest.reset();
      for (int64_t stages : tp::valid_pp(model, *gpus)) {
        if (*gpus % stages == 0 && tp::tp_fits(model, *gpus / stages, rules)) {
          action.suggest = tp::Suggestion{*gpus / stages, stages, 1};
          break;
        }
      }
    }
  }
  name_settings(action);
  return action;
}

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// How the framework that saved a checkpoint converts it to TP `target` ("this job's TP" when the
// job does not say).
std::string converter(const std::string& framework, const std::string& target) {
  if (framework == "nemo")
    return "NeMo's megatron_change_num_partitions.py --target_tensor_model_parallel_size=" + target;
  if (framework == "deepspeed")
    return "DeepSpeed's ds_to_universal.py, then load the universal checkpoint with --universal-checkpoint";
  std::string megatron = "Megatron-LM's tools/checkpoint/convert.py --target-tensor-parallel-size " + target;
  if (framework == "megatron") return megatron;
  return "the converter of the framework that saved it, e.g. " + megatron;
}

}  // namespace

std::string checkpoint_remedy(const Action& action) {
  if (!action.checkpoint) return "";
  const CheckpointLayout& layout = *action.checkpoint;
  const tp::ShardRatio& ratio = layout.ratio;
  std::string factor = std::to_string(ratio.factor);
  std::string shapes = "its " + shape_text(layout.saved_shape) + " tensors are " +
                       (ratio.saved_smaller ? "1/" + factor : factor + "×") + " the model's " +
                       shape_text(layout.current_shape) + " in dimension " + std::to_string(ratio.dimension) +
                       (ratio.padded ? " (off by the vocabulary's padding only)" : "");
  if (layout.loaded_tp && !layout.saved_tp) return "";
  if (!layout.saved_tp) {
    std::string text = "The checkpoint was saved with another TP size: " + shapes + ". ";
    if (ratio.saved_smaller) {
      return text + "It was saved with " + factor + "× the TP this job loads it with (TP " + factor +
             " if the job runs without tensor parallelism): load it with that TP, or convert it to this "
             "job's "
             "TP first with " +
             converter(action.framework, "N") + ".";
    }
    return text + "This job runs " + factor + "× the TP it was saved with: load it with TP ÷ " + factor +
           ", or convert it to this job's TP first with " + converter(action.framework, "N") + ".";
  }
  std::string saved = std::to_string(*layout.saved_tp), loaded = std::to_string(*layout.loaded_tp);
  std::string text = "The checkpoint was saved with TP " + saved + " and this job loads it with TP " +
                     loaded + ": " + shapes + ". Load it with ";
  if (action.suggest) {
    const tp::Suggestion& s = *action.suggest;
    text += "TP " + std::to_string(s.tp) + " × PP " + std::to_string(s.pp) + " × DP " + std::to_string(s.dp);
    if (action.gpus) text += " (keeps the job's " + std::to_string(*action.gpus) + " GPUs)";
    std::vector<std::string> settings;
    for (const auto& [name, value] : action.settings) settings.push_back(name + "=" + std::to_string(value));
    if (!settings.empty()) text += ", set " + join(settings, ", ");
  } else {
    text += "TP " + saved;
    if (action.gpus)
      text += " on GPUs that TP × PP divides (this job has " + std::to_string(*action.gpus) + ")";
  }
  return text + "; or convert it to TP " + loaded + " first with " + converter(action.framework, loaded) +
         ".";
}

std::string parallel_remedy(const Action& action) {
  std::vector<std::string> settings;
  for (const auto& [name, value] : action.settings) settings.push_back(name + "=" + std::to_string(value));
  std::string set = settings.empty() ? "" : "; set " + join(settings, ", ");
  if (const auto& expert = action.expert) {
    std::string text = "Use EP " + std::to_string(expert->suggest_ep);
    if (action.gpus) text += " (keeps the job's " + std::to_string(*action.gpus) + " GPUs)";
    text += " where the job runs EP " + std::to_string(expert->ep);
    std::vector<std::string> from;
    if (expert->experts) from.push_back("the " + std::to_string(*expert->experts) + " experts");
    if (expert->pool)
      from.push_back("the " + std::to_string(*expert->pool) + " GPUs its groups are drawn from");
    if (!expert->valid_ep.empty())
      text += ": EP " + numbers(expert->valid_ep) + " divide " + join(from, " and ");
    if (!expert->pool || !expert->experts) {
      text += std::string(expert->valid_ep.empty() ? ":" : ";") + " with the " +
              (expert->pool ? "experts" : "GPUs") + " unknown, a divisor of EP " +
              std::to_string(expert->ep) + " keeps the fit it had";
    }
    if (action.framework == "vllm") text += " (vLLM's EP is TP × DP with --enable-expert-parallel)";
    return text + set + ".";
  }
  if (const auto& virtual_pipeline = action.virtual_pipeline) {
    std::string text = "Use a virtual pipeline size of " + std::to_string(virtual_pipeline->suggest_vp) +
                       (virtual_pipeline->suggest_vp == 1 ? " (no interleaving)" : "") +
                       " where the job asks for " + std::to_string(virtual_pipeline->vp) + ": a stage's " +
                       std::to_string(virtual_pipeline->layers_per_stage) + " layers split into " +
                       numbers(virtual_pipeline->valid_vp) + " chunks";
    return text + set + ", or change PP so that each stage's layers divide by the virtual size.";
  }
  return "";
}

std::string framework_of(const std::string& rule_id, const Facts& facts) {
  for (std::string_view name :
       {"megatron", "nemo", "deepspeed", "colossalai", "tgi", "trtllm", "sglang", "vllm"}) {
    if (rule_id.find(name) != std::string::npos) return std::string(name);
  }
  if (rule_id.find("colossal") != std::string::npos) return "colossalai";
  if (find_fact(facts, "megatron")) return "megatron";
  return "";
}

namespace {

// The verify command of an expert-parallel or virtual pipeline remedy: the experts and the
// suggested EP (with the GPUs where known), or the layers, PP and the suggested virtual size;
// --tp and --pp where the facts state them. Empty when the virtual size's layers or PP are unknown.
std::string parallel_verify(std::string command, const Facts& facts, const Action& action) {
  auto tp = size_fact(facts, "tp");
  auto pp = size_fact(facts, "pp");
  if (const auto& expert = action.expert) {
    if (expert->experts) command += " --experts " + std::to_string(*expert->experts);
    if (action.gpus) command += " --gpus " + std::to_string(*action.gpus);
    command += " --ep " + std::to_string(expert->suggest_ep);
  } else {
    const VirtualPipeline& virtual_pipeline = *action.virtual_pipeline;
    auto layers = size_fact(facts, "layers");
    if (!layers && pp) layers = virtual_pipeline.layers_per_stage * *pp;
    if (!layers || !pp) return "";
    command += " --layers " + std::to_string(*layers) + " --virtual-pipeline " +
               std::to_string(virtual_pipeline.suggest_vp);
  }
  if (tp) command += " --tp " + std::to_string(*tp);
  if (pp) command += " --pp " + std::to_string(*pp);
  return command;
}

}  // namespace

std::string verify_command(const Facts& facts, const Action& action, int64_t tp, int64_t pp, bool repro) {
  // A real model's heads (at most 256): a larger count is a size the rule took for heads, too big to run.
  bool repro_can_tell = repro && pp == 1 && action.requirements.empty() && action.ffn_multiple == 1 &&
                        action.derived.empty() && size_fact(facts, "heads") &&
                        *size_fact(facts, "heads") <= 256 && !size_fact(facts, "hidden") &&
                        !size_fact(facts, "layers") && !size_fact(facts, "vocab");
  if (repro_can_tell) {
    std::string command = "faultline repro --heads " + std::to_string(*size_fact(facts, "heads"));
    if (auto kv = size_fact(facts, "kv_heads")) command += " --kv-heads " + std::to_string(*kv);
    if (auto ffn = size_fact(facts, "ffn")) command += " --ffn " + std::to_string(*ffn);
    return command + " --tp " + std::to_string(tp);
  }
  std::string command = "faultline preflight";
  if (!action.framework.empty()) command += " --framework " + action.framework;
  if (action.expert || action.virtual_pipeline) return parallel_verify(command, facts, action);
  std::string requirements;
  for (const auto& word : action.requirements) requirements += (requirements.empty() ? "" : ",") + word;
  if (!requirements.empty()) command += " --require " + requirements;
  const std::optional<int64_t>& gpus = action.gpus;
  bool any = false;
  for (auto [fact, option] :
       {std::pair{"heads", "--heads"}, std::pair{"kv_heads", "--kv-heads"}, std::pair{"hidden", "--hidden"},
        std::pair{"ffn", "--ffn"}, std::pair{"vocab", "--vocab"}, std::pair{"layers", "--layers"}}) {
    if (auto value = model_size(facts, action, fact)) {
      command += std::string(" ") + option + " " + std::to_string(*value);
      any = true;
    }
  }
  if (action.ffn_multiple > 1) command += " --ffn-multiple " + std::to_string(action.ffn_multiple);
  if (gpus) {
    command += " --gpus " + std::to_string(*gpus);
    any = true;
  }
  if (!any) return "";
  command += " --tp " + std::to_string(tp) + " --pp " + std::to_string(pp);
  return command;
}

}  // namespace faultline::correlate
