// Which parallel layouts a model accepts, from whatever sizes are known of it: the TP sizes
// that its heads, KV heads, hidden, FFN (and the multiple its shard must be) and (unpadded)
// vocabulary allow, the PP sizes its layers allow, the expert-parallel sizes its experts and
// the GPUs allow, and a layout that keeps a job's GPU count. The diagnosis' remedy and
// `faultline preflight` use the same functions. Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace faultline::tp {

// A model's sizes; any may be unknown.
struct Geometry {
  std::optional<int64_t> heads;
  std::optional<int64_t> kv_heads;  // query groups; = heads for multi-head attention
  std::optional<int64_t> hidden;
  std::optional<int64_t> ffn;
  std::optional<int64_t> moe_ffn;  // each expert's intermediate size
  std::optional<int64_t> experts;
  std::optional<int64_t> vocab;
  std::optional<int64_t> layers;
  std::optional<int64_t> vision_heads;  // a vision tower's heads, which TP shards as well
};

// How a framework splits what a layout must divide.
struct SplitRules {
  // vLLM, SGLang, TGI: a TP size that is a multiple of the KV heads replicates them. Megatron,
  // NeMo and DeepSpeed require the KV heads (query groups) to be divisible by TP.
  bool replicate_kv_heads = true;
  // Loaders that shard the embedding without padding it (TGI) need TP to divide the vocabulary;
  // Megatron and vLLM pad it.
  bool vocab_unpadded = false;
  // A kernel tile, row multiple or quantization group that each rank's FFN shard (FFN / TP, and
  // the MoE intermediate size / TP) must be a multiple of (Marlin's tile_n_size 64, a GPTQ
  // group_size 128, an FP8 block_n 128); 1 when none.
  int64_t ffn_multiple = 1;
  // Which GPUs an expert-parallel (EP) group is drawn from, which its size must divide:
  // kStage, those of one pipeline stage (GPUs / PP: DeepSpeed's world size over the EP size,
  // vLLM's EP = TP x DP); kBesideTp, those of a stage over the expert TP size, which is TP unless
  // set (Megatron-Core: TP x EP x PP divides the world size); kWithinTp, the TP group (SGLang:
  // tp_size divisible by ep_size).
  enum class ExpertGroups { kStage, kBesideTp, kWithinTp } expert_groups = ExpertGroups::kStage;
};

// Whether TP `tp` divides every known size as the rules require.
bool tp_fits(const Geometry& model, int64_t tp, const SplitRules& rules = {});
// The TP sizes from 1 to `limit` (inclusive) that fit, ascending.
std::vector<int64_t> valid_tp(const Geometry& model, int64_t limit, const SplitRules& rules = {});
// The PP sizes from 1 to `limit` that divide the layers (every size when the layers are unknown).
std::vector<int64_t> valid_pp(const Geometry& model, int64_t limit);

// The ranks an expert-parallel group is drawn from (see SplitRules::expert_groups), which the
// EP size must divide: nullopt when the GPUs are unknown (or do not split into stages).
std::optional<int64_t> expert_pool(const SplitRules& rules, std::optional<int64_t> gpus, int64_t tp,
                                   int64_t pp);
// The EP sizes from 1 to `limit` that divide the experts and the pool (each where known).
std::vector<int64_t> valid_ep(std::optional<int64_t> experts, std::optional<int64_t> pool, int64_t limit);

struct Suggestion {
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t dp = 1;
};
// A layout for `gpus` GPUs (TP×PP×DP = gpus): the job's PP where it divides the layers and
// leaves a valid TP, else the smallest PP that does; then the largest valid TP that fits.
// Without a GPU count, the largest valid TP no larger than the job's and the job's PP. nullopt
// when nothing fits.
std::optional<Suggestion> suggest_layout(const Geometry& model, std::optional<int64_t> gpus, int64_t tp,
                                         int64_t pp, const SplitRules& rules = {});

}  // namespace faultline::tp
