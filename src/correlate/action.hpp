// The remedy a scheduler or a person can apply: what kind of action the diagnosis calls for,
// whether a plain restart would succeed, and for tensor- and pipeline-parallel causes the
// layouts the model accepts, computed from every fact the job gives (its error lines, its
// printed arguments and config, the model catalogue), with a layout that keeps its GPU count.
// Pure: takes the diagnosis' facts and the job's, gives data; report renders it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/value.hpp"
#include "rules/finding.hpp"
#include "tp/layout.hpp"
#include "tp/shard_ratio.hpp"

namespace faultline::correlate {

// A fact the job states about itself, with where it said so.
struct JobFact {
  std::string name;
  Value value;
  rules::Evidence where;  // the line; source 0 and line 0 with `catalogue` set for catalogue facts
  std::string catalogue;  // the catalogue model id the fact came from, when it did
};

// What a checkpoint's shapes say when a job loads it with another TP size than it was saved with
// (tp.checkpoint_shard_mismatch): the two shapes, their ratio, and the two TP sizes where the job
// states its own.
struct CheckpointLayout {
  std::vector<int64_t> saved_shape;
  std::vector<int64_t> current_shape;
  tp::ShardRatio ratio;
  std::optional<int64_t> loaded_tp;  // the job's TP, when a line states it
  std::optional<int64_t> saved_tp;   // then the checkpoint's
};

// An expert-parallel size (EP) that the experts or the GPUs its groups are drawn from do not
// accept (the job's `ep` fact; `experts` where known): the sizes that fit, and the one nearest the
// job's below it that keeps what the job's EP already fitted (a divisor of it, where the experts
// or the GPUs are unknown).
struct ExpertLayout {
  int64_t ep = 1;
  std::optional<int64_t> experts;
  std::optional<int64_t> pool;    // the ranks an EP group is drawn from (tp::expert_pool), if known
  std::vector<int64_t> valid_ep;  // empty when neither the experts nor the pool is known
  int64_t suggest_ep = 1;
};

// Megatron's virtual pipeline size (`vp`) that does not divide a stage's layers
// (`layers_per_stage`, or layers / PP): the sizes that do, and the largest below the job's.
struct VirtualPipeline {
  int64_t layers_per_stage = 1;
  int64_t vp = 1;
  std::vector<int64_t> valid_vp;
  int64_t suggest_vp = 1;
};

enum class ActionKind { kFixConfig, kRestart, kReplaceHardware, kFixEnvironment, kInvestigate };
const char* to_string(ActionKind kind);

struct Action {
  ActionKind kind = ActionKind::kInvestigate;
  bool retryable = false;
  std::vector<int64_t> valid_tp;  // empty when not computed
  std::vector<int64_t> valid_pp;
  std::optional<tp::Suggestion> suggest;
  std::optional<int64_t> gpus;                            // the job's GPU count the suggestion keeps
  std::vector<std::pair<std::string, int64_t>> settings;  // the framework's own option names
  std::vector<std::string> exclude_hosts;
  std::vector<std::string> used;     // the facts the valid TP sizes rest on: "heads", "kv_heads" ...
  std::vector<std::string> unknown;  // facts that would narrow the valid sizes, not known
  bool strict_kv_heads = false;      // the framework does not replicate KV heads (Megatron ...)
  std::string framework;             // as `faultline preflight --framework` takes it; empty if none named
  // What the crash shows the framework demands beyond its defaults, as `preflight --require` takes
  // it: a KV-head failure, no replication (kv-divisible); a vocabulary failure, no padding
  // (vocab-divisible); a layers failure, no uneven stages (layers-divisible); a world-size failure, the GPUs
  // a multiple of (gpus-multiple) or equal to (gpus-exact) TP×PP.
  std::vector<std::string> requirements;
  std::optional<CheckpointLayout> checkpoint;  // for a checkpoint saved with another layout
  // A kernel tile, row multiple or quantization group each rank's FFN shard must be a multiple of
  // (a `multiple` or `group_size` fact beside the shard's `rows`), as `preflight --ffn-multiple`
  // takes it; 1 when none.
  int64_t ffn_multiple = 1;
  // Model sizes no fact states that a rank's share and the job's TP give, which the valid sizes
  // and the verify command use as facts: `ffn` (a shard's rows × TP), `hidden` and `heads` (a
  // rank's hidden size × TP, over the head size), `kv_heads` (TP over the ranks a KV head spans).
  Facts derived;
  std::optional<ExpertLayout> expert;               // when the expert-parallel size is at fault
  std::optional<VirtualPipeline> virtual_pipeline;  // when the virtual pipeline size is at fault
};

// `facts`: the diagnosis' facts with the job's merged in (diagnosis' first). `rule_id` tells the
// framework where it matters (Megatron/NeMo/DeepSpeed do not replicate KV heads; TGI does not pad
// the vocabulary). `hosts`: those of the initiating failure, for hardware faults.
// `ranks`: how many ranks the job's lines show, a floor for its GPU count.
Action plan_action(const std::string& cause, const std::string& rule_id, const Facts& facts,
                   const std::vector<std::string>& hosts, int64_t ranks = 0);

// The framework a diagnosis' rule and facts name, as `faultline preflight --framework` takes it
// ("megatron", "tgi", "trtllm" ...), empty when they name none.
std::string framework_of(const std::string& rule_id, const Facts& facts);

// The Fix's words for a checkpoint saved with another TP size: which TP it was saved with and which
// loads it (where the job states its own), what to load it with and how to convert it. Empty when
// the action has no checkpoint layout, or its shapes are no TP shards of the job's TP.
std::string checkpoint_remedy(const Action& action);

// The Fix's words for an expert-parallel or virtual pipeline size at fault: the sizes that fit,
// the one to use and its setting. Empty when the action has neither.
std::string parallel_remedy(const Action& action);

// `faultline preflight` with every size known, the framework's split rules, the job's GPUs and the
// layout given: a command that fails on the layout that crashed and passes on the suggested one.
// Empty when too little is known. An expert-parallel or virtual pipeline remedy carries --experts
// and --ep (the suggested EP), or --layers, --pp and --virtual-pipeline (the suggested size); its
// --tp and --pp only where the facts state them.
// With `repro`, a `faultline repro` command instead where it can tell the two layouts apart (a
// model of heads, KV heads and FFN on one pipeline stage): it runs a small TP job of that model.
std::string verify_command(const Facts& facts, const Action& action, int64_t tp, int64_t pp,
                           bool repro = false);

}  // namespace faultline::correlate
