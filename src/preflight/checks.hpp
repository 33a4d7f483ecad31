// Preflight checks: a model's sizes against the tensor- and pipeline-parallel sizes (and the
// GPU count) before launch, with the same arithmetic (src/tp) that the rules' fixes use.
// Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "preflight/model_config.hpp"
#include "tp/layout.hpp"

namespace faultline::preflight {

enum class Verdict { kOk, kNote, kError };

struct Check {
  // "heads", "kv_heads", "hidden", "ffn", "ffn_shard", "vocab", "layers", "virtual_pp",
  // "experts", "ep_groups", "gpus" ...
  std::string name;
  Verdict verdict = Verdict::kOk;
  std::string message;  // "32 attention heads split over TP 6: not divisible"
  std::string cause;    // the causes.md id a failure would be diagnosed as; empty when ok
};

struct Plan {
  int64_t tp = 1;
  int64_t pp = 1;
  std::optional<int64_t> gpus;
  std::string gpu_mix;  // what differs between the GPUs (gpu_inventory.hpp); empty when alike
  // How the framework splits (tp/layout.hpp): whether KV heads may be replicated, whether the
  // vocabulary is padded.
  tp::SplitRules rules;
  // Megatron, NeMo, DeepSpeed: the GPUs must be a multiple of TP×PP (world size divisible);
  // TensorRT-LLM: exactly TP×PP. Otherwise GPUs left over are a note.
  enum class GpuFit { kAtLeast, kMultiple, kExact } gpu_fit = GpuFit::kAtLeast;
  // vLLM and SGLang give pipeline stages uneven numbers of layers; Megatron, NeMo, DeepSpeed and
  // TensorRT-LLM need PP to divide them.
  bool layers_divisible = false;
  // The smallest GPU's memory in MiB, when the inventory says (--gpus FILE or auto).
  std::optional<int64_t> gpu_memory_mib;
  // The expert-parallel size (--ep): it must divide the experts, and the GPUs its groups are
  // drawn from (rules.expert_groups).
  std::optional<int64_t> ep;
  // Megatron's virtual pipeline size (--virtual-pipeline): with PP > 1 each stage's layers are
  // cut into this many chunks, so it must divide layers / PP.
  std::optional<int64_t> virtual_pipeline;
};

// The split rules and GPU fit of a framework named as `--framework` takes it (vllm, sglang, tgi,
// megatron, nemo, deepspeed, colossalai, trtllm); an empty name gives the defaults.
void apply_framework(const std::string& framework, Plan& plan);
// Adds what `--require` names (kv-divisible, vocab-divisible, layers-divisible, gpus-multiple,
// gpus-exact, comma-separated); the error names the word it does not know.
Status apply_requirements(std::string_view list, Plan& plan);

struct PreflightResult {
  std::vector<Check> checks;
  std::vector<int64_t> valid_tp;     // TP sizes every check accepts for this model
  std::vector<int64_t> valid_ep;     // with --ep: the EP sizes the experts and the GPUs accept
  std::vector<std::string> layouts;  // TP×PP splits of the GPUs that pass, when gpus is known
  bool ok() const;
};

PreflightResult run_checks(const ModelShape& shape, const Plan& plan);

// The model's weights in MiB at 2 bytes a parameter (bf16/fp16), from its sizes: attention (with
// its KV heads), MLP (gated, three matrices; each expert's for MoE) and untied embeddings. nullopt
// without heads, hidden and layers. An estimate: enough to tell 70B on 40 GB GPUs from 7B.
std::optional<int64_t> weights_mib(const ModelShape& shape);

}  // namespace faultline::preflight
