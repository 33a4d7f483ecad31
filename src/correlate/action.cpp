#include "correlate/action.hpp"

#include <algorithm>
#include <map>

#include "base/text.hpp"

namespace faultline::correlate {
namespace {

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
std::optional<int64_t> job_gpus(const Facts& facts, const std::string& cause, int64_t ranks) {
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
  if (!gpus && cause != "tp.size_exceeds_gpus" && size_fact(facts, "tp")) {
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

  tp::Geometry model;
  model.heads = size_fact(facts, "heads");
  model.kv_heads = size_fact(facts, "kv_heads");
  model.hidden = size_fact(facts, "hidden");
  model.ffn = size_fact(facts, "ffn");
  model.moe_ffn = size_fact(facts, "moe_ffn");
  model.experts = size_fact(facts, "experts");
  model.vocab = size_fact(facts, "vocab");
  model.layers = size_fact(facts, "layers");
  model.vision_heads = size_fact(facts, "vision_heads");
  tp::SplitRules rules;
  action.framework = framework_of(rule_id, facts);
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
      if (std::string_view(name) != "vocab" || rules.vocab_unpadded) action.used.push_back(name);
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
  // An expert-parallel size that does not fit the GPUs (an `ep` fact) is no TP/PP layout to
  // suggest: the rule's own fix says which EP sizes do.
  bool expert_layout = cause == "tp.size_exceeds_gpus" && size_fact(facts, "ep");
  if ((any_size || model.layers || cause == "tp.size_exceeds_gpus") && !expert_layout) {
    action.suggest = tp::suggest_layout(model, gpus, tp, pp, rules);
    bool exact = std::find(action.requirements.begin(), action.requirements.end(), "gpus-exact") !=
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

std::string framework_of(const std::string& rule_id, const Facts& facts) {
  for (std::string_view name :
       {"megatron", "nemo", "deepspeed", "colossalai", "tgi", "trtllm", "sglang", "vllm"}) {
    if (rule_id.find(name) != std::string::npos) return std::string(name);
  }
  if (rule_id.find("colossal") != std::string::npos) return "colossalai";
  if (find_fact(facts, "megatron")) return "megatron";
  return "";
}

std::string verify_command(const Facts& facts, const Action& action, int64_t tp, int64_t pp, bool repro) {
  // A real model's heads (at most 256): a larger count is a size the rule took for heads, too big to run.
  bool repro_can_tell = repro && pp == 1 && action.requirements.empty() && size_fact(facts, "heads") &&
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
  std::string requirements;
  for (const auto& word : action.requirements) requirements += (requirements.empty() ? "" : ",") + word;
  if (!requirements.empty()) command += " --require " + requirements;
  const std::optional<int64_t>& gpus = action.gpus;
  bool any = false;
  for (auto [fact, option] :
       {std::pair{"heads", "--heads"}, std::pair{"kv_heads", "--kv-heads"}, std::pair{"hidden", "--hidden"},
        std::pair{"ffn", "--ffn"}, std::pair{"vocab", "--vocab"}, std::pair{"layers", "--layers"}}) {
    if (auto value = size_fact(facts, fact)) {
      command += std::string(" ") + option + " " + std::to_string(*value);
      any = true;
    }
  }
  if (gpus) {
    command += " --gpus " + std::to_string(*gpus);
    any = true;
  }
  if (!any) return "";
  command += " --tp " + std::to_string(tp) + " --pp " + std::to_string(pp);
  return command;
}

}  // namespace faultline::correlate
