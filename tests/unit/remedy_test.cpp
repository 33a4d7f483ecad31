// The remedy of a layout diagnosis (src/correlate/action.hpp, src/tp/layout.hpp): valid sizes
// from every known fact, a suggestion that keeps the job's GPU count, and a verify command that
// fails on the layout that crashed and passes on the suggested one.
#include <doctest/doctest.h>

#include <regex>

#include "cli/verify_command.hpp"
#include "correlate/action.hpp"
#include "ingest/byte_source.hpp"
#include "job/job_runner.hpp"
#include "rules/rule_set.hpp"
#include "tp/arithmetic.hpp"
#include "tp/layout.hpp"
#include "tp/model_catalogue.hpp"

using faultline::Facts;
using faultline::Value;
using faultline::correlate::ActionKind;
using faultline::correlate::plan_action;
using faultline::rules::RuleSet;

namespace {

const RuleSet& shipped() {
  static const RuleSet set = RuleSet::shipped();
  return set;
}

faultline::correlate::JobAnalysis analyse(std::string_view text) {
  static const faultline::rules::Engine engine(shipped());
  faultline::job::JobRunner runner(engine);
  auto source = faultline::ingest::memory_source(text);
  faultline::ingest::SourceInfo info;
  info.name = "example.log";
  runner.add_source(*source, std::move(info));
  return runner.finish("example");
}

std::optional<int64_t> int_fact(const Facts& facts, std::string_view name) {
  const Value* value = faultline::find_fact(facts, name);
  if (!value || !std::holds_alternative<int64_t>(*value)) return std::nullopt;
  return std::get<int64_t>(*value);
}

// A layout as a verify command states it: TP and PP, and the expert-parallel and virtual pipeline
// sizes where the remedy changes them.
struct Layout {
  int64_t tp = 1, pp = 1, ep = 1, vp = 1;
};

// `command` with each of --tp, --pp, --ep and --virtual-pipeline it has set to the layout given.
std::string with_layout(std::string command, const Layout& layout) {
  for (auto [option, size] : {std::pair{"--tp", layout.tp}, std::pair{"--pp", layout.pp},
                              std::pair{"--ep", layout.ep}, std::pair{"--virtual-pipeline", layout.vp}}) {
    command = std::regex_replace(command, std::regex(std::string(option) + " \\d+"),
                                 std::string(option) + " " + std::to_string(size));
  }
  return command;
}

Facts facts_of(std::initializer_list<std::pair<const char*, int64_t>> items) {
  Facts facts;
  for (const auto& [name, value] : items) faultline::set_fact(facts, name, Value(value));
  return facts;
}

}  // namespace

TEST_CASE("Qwen2.5-7B at TP 8: the KV heads and the FFN leave TP 1, 2 and 4, and TP 4 keeps 8 GPUs") {
  const auto* model = faultline::tp::find_model("Qwen/Qwen2.5-7B-Instruct");
  REQUIRE(model != nullptr);
  Facts facts = facts_of({{"heads", *model->geometry.heads},
                          {"kv_heads", *model->geometry.kv_heads},
                          {"ffn", *model->geometry.ffn},
                          {"tp", 8},
                          {"pp", 1}});
  auto action = plan_action("tp.heads_not_divisible", "tp.heads_not_divisible.vllm", facts, {});
  CHECK(action.kind == ActionKind::kFixConfig);
  CHECK_FALSE(action.retryable);
  CHECK(action.valid_tp == std::vector<int64_t>{1, 2, 4});
  REQUIRE(action.suggest);
  CHECK(action.suggest->tp * action.suggest->pp * action.suggest->dp == 8);
  CHECK(action.suggest->tp == 4);
}

TEST_CASE("Megatron with 40 heads, 8 query groups and 12 GPUs at TP 6: no KV replication, and 12 GPUs kept") {
  Facts facts = facts_of({{"heads", 40}, {"kv_heads", 8}, {"world_size", 12}, {"tp", 6}, {"pp", 1}});
  auto action = plan_action("tp.heads_not_divisible", "tp.heads_not_divisible.megatron", facts, {});
  CHECK(action.strict_kv_heads);
  CHECK(action.valid_tp == std::vector<int64_t>{1, 2, 4, 8});
  REQUIRE(action.suggest);
  CHECK(action.suggest->tp * action.suggest->pp * action.suggest->dp == 12);
  CHECK(action.suggest->tp == 4);
  CHECK(action.settings.front() == std::pair<std::string, int64_t>{"tensor_model_parallel_size", 4});
}

TEST_CASE("vLLM replicates KV heads: TP 8 over 4 KV heads is valid where the heads allow it") {
  Facts facts = facts_of({{"heads", 32}, {"kv_heads", 4}, {"tp", 6}});
  auto vllm = plan_action("tp.heads_not_divisible", "tp.heads_not_divisible.vllm", facts, {});
  auto megatron = plan_action("tp.heads_not_divisible", "tp.heads_not_divisible.megatron", facts, {});
  CHECK(std::find(vllm.valid_tp.begin(), vllm.valid_tp.end(), 8) != vllm.valid_tp.end());
  CHECK(std::find(megatron.valid_tp.begin(), megatron.valid_tp.end(), 8) == megatron.valid_tp.end());
}

TEST_CASE("a large vocabulary does not list TP sizes beyond the GPUs") {
  Facts facts = facts_of({{"vocab", 151851}, {"tp", 4}});
  auto action = plan_action("tp.vocab_not_divisible", "tp.vocab_not_divisible.tgi", facts, {});
  CHECK(action.valid_tp == faultline::tp::divisors_le(151851, 64));
  REQUIRE(action.suggest);
  CHECK(action.suggest->tp * action.suggest->pp * action.suggest->dp == 4);
}

TEST_CASE("a hardware fault is replace_hardware with its hosts excluded; a host OOM kill may restart") {
  auto xid = plan_action("cuda.hardware_xid_ecc", "cuda.hardware_xid_ecc.xid_fatal", {}, {"node-7"});
  CHECK(xid.kind == ActionKind::kReplaceHardware);
  CHECK(xid.retryable);
  CHECK(xid.exclude_hosts == std::vector<std::string>{"node-7"});
  auto killed = plan_action("dist.host_oom_killed", "dist.host_oom_killed.dmesg", {}, {"node-2"});
  CHECK(killed.kind == ActionKind::kRestart);
  CHECK(killed.retryable);
  CHECK(killed.exclude_hosts.empty());
  CHECK(plan_action("unrecognised", "unrecognised.python_exception", {}, {}).kind ==
        ActionKind::kInvestigate);
}

TEST_CASE("suggest_layout keeps the job's PP where the layers allow it, else takes another") {
  faultline::tp::Geometry model;
  model.heads = 32;
  model.layers = 30;
  auto kept = faultline::tp::suggest_layout(model, 16, 8, 2);
  REQUIRE(kept);
  CHECK((kept->tp == 8 && kept->pp == 2 && kept->dp == 1));
  auto moved = faultline::tp::suggest_layout(model, 16, 8, 4);  // 30 layers do not split in 4
  REQUIRE(moved);
  CHECK(moved->pp != 4);
  CHECK(moved->tp * moved->pp * moved->dp == 16);
}

TEST_CASE("an id the catalogue does not hold is unknown, and a local path finds its model") {
  CHECK(faultline::tp::find_model("acme/not-a-model-7B") == nullptr);
  const auto* by_path = faultline::tp::find_model("/data/models/Qwen2.5-7B-Instruct");
  REQUIRE(by_path != nullptr);
  CHECK(by_path->id == "Qwen/Qwen2.5-7B-Instruct");
  CHECK_FALSE(by_path->source.empty());
}

// The causes a layout verify decides: each is a size the model or the GPUs must divide or hold,
// which `faultline preflight`/`repro` check from the sizes on their command line. The other tp./pp.
// causes are out of its scope, and their examples are checked only where a remedy comes out:
// tp.checkpoint_shard_mismatch (the checkpoint's saved layout, a file to convert rather than a size
// to check), tp.sequence_not_divisible (a sequence length, not the model's geometry),
// pp.microbatches_insufficient (the batch schedule), tp.pp_schedule_deadlock (ranks waiting on each
// other, no arithmetic fault), tp.heterogeneous_gpus (GPU models and memory, not the layout's sizes).
constexpr std::string_view kLayoutCauses[] = {
    "tp.heads_not_divisible", "tp.kv_heads_not_divisible", "tp.hidden_not_divisible", "tp.ffn_not_divisible",
    "tp.vocab_not_divisible", "tp.size_exceeds_gpus",      "pp.layers_not_divisible",
};

// Examples of layout causes that no verify command can tell apart from the suggestion, each with
// why: the size at fault is one faultline's remedy and preflight do not check, or the job states
// its layout only in lines no job-fact rule reads. Each is checked to stay a gap: one that gives
// a remedy must leave this list and be checked both ways.
struct KnownGap {
  std::string_view rule;
  size_t example;  // from 1, in the rule's examples.match
  std::string_view why;
};
constexpr std::string_view kNoShardTp =
    "the error gives the per-rank shard and the multiple it must be, not the TP it was cut with, and the "
    "log states no TP (with one, the remedy checks --ffn-multiple)";
constexpr std::string_view kNoShardSize =
    "the error gives the multiple the per-rank shard must be, not the shard's size, and the log states no TP";
constexpr std::string_view kNoQuantSize =
    "the message names no size, and the log states neither the FFN nor the TP";
constexpr std::string_view kDistributedLlama =
    "the assertion alone: the log lacks distributed-llama's header (nHeads, nKvHeads, dim, ... and nSlices), "
    "whose lines a job-fact rule reads";
constexpr std::string_view kWorldAsTp =
    "the message names no size, and the log states neither the model's sizes nor the world size, which is "
    "foundation-model-stack's TP size";
constexpr std::string_view kWorldNotTp =
    "the error gives the world size asked for (TP x PP) and the GPUs there, not TP itself: the crashed "
    "layout is not known";
constexpr std::string_view kRequestedOnly =
    "the error gives the GPUs asked for, not those Ray has: no GPU count to fit a layout to";
constexpr std::string_view kVirtualPipeline =
    "the error gives a stage's layers and the virtual size, not PP: a verify command needs the layers and PP "
    "(Megatron's argument dump states them, and with it the remedy checks --virtual-pipeline)";
constexpr std::string_view kMeshOnly =
    "the message gives the mesh's size only: neither the world size nor a TP degree to fit";
constexpr std::string_view kNoDegrees =
    "the message gives the world size only, not the parallel degrees whose product fails to divide it";
constexpr std::string_view kDpAttention =
    "the size at fault is the data-parallel attention size, which divides the TP ranks: preflight checks no "
    "DP "
    "size";
constexpr KnownGap kKnownGaps[] = {
    {"tp.size_exceeds_gpus.dp_attention_assert", 1, kDpAttention},
    {"tp.size_exceeds_gpus.dp_attention_assert", 2, kDpAttention},
    {"tp.size_exceeds_gpus.dp_attention_wording", 1, kDpAttention},
    {"tp.size_exceeds_gpus.dp_attention_wording", 2, kDpAttention},
    {"tp.size_exceeds_gpus.device_mesh_bigger", 2, kMeshOnly},
    {"tp.size_exceeds_gpus.world_size_not_divisible_degrees", 1, kNoDegrees},
    {"tp.size_exceeds_gpus.world_size_not_divisible_degrees", 2, kNoDegrees},
    {"pp.layers_not_divisible.megatron_virtual", 1, kVirtualPipeline},
    {"pp.layers_not_divisible.megatron_virtual", 2, kVirtualPipeline},
    {"tp.ffn_not_divisible.assert_frames", 3,
     "the assert names no numbers, and the log states neither the experts nor the expert-parallel size"},
    {"tp.size_exceeds_gpus.world_size_not_divisible_model_size", 2,
     "the error gives the product ETP x EP x PP only, not which of the three sizes made it"},
    {"tp.ffn_not_divisible.kernel_tile", 1, kNoShardTp},
    {"tp.ffn_not_divisible.kernel_tile", 2, kNoShardTp},
    {"tp.ffn_not_divisible.moe_kernel_multiple", 1, kNoShardSize},
    {"tp.ffn_not_divisible.moe_kernel_multiple", 2, kNoShardSize},
    {"tp.ffn_not_divisible.trtllm_rows", 1, kNoShardTp},
    {"tp.ffn_not_divisible.vllm_quant_aligned", 1, kNoQuantSize},
    {"tp.ffn_not_divisible.vllm_quant_aligned", 2, kNoQuantSize},
    {"tp.ffn_not_divisible.vllm_quant_group", 1, kNoShardTp},
    {"tp.ffn_not_divisible.vllm_quant_partition", 1, kNoShardTp},
    {"tp.ffn_not_divisible.vllm_quant_partition", 2, kNoShardTp},
    {"tp.ffn_not_divisible.vllm_quant_partition", 3, kNoShardTp},
    {"tp.ffn_not_divisible.trtllm_weight_split", 1,
     "TensorRT-LLM names neither the weight nor its size, and the FFN of the models it converts divides TP "
     "8"},
    {"tp.ffn_not_divisible.trtllm_preprocess_bytes", 1, kNoQuantSize},
    {"tp.ffn_not_divisible.weight_loader_group_aligned", 1, kNoQuantSize},
    {"tp.heads_not_divisible.turbomind_split", 3,
     "a vision tower's heads: the log names neither the vision model nor the TP size's origin"},
    {"tp.heads_not_divisible.c_assert", 1, kDistributedLlama},
    {"tp.kv_heads_not_divisible.c_assert", 1, kDistributedLlama},
    {"tp.hidden_not_divisible.c_assert", 1, kDistributedLlama},
    {"tp.vocab_not_divisible.c_assert", 1, kDistributedLlama},
    {"tp.heads_not_divisible.wording", 2, kWorldAsTp},
    {"tp.ffn_not_divisible.wording", 1, kWorldAsTp},
    {"tp.heads_not_divisible.colossalai_divide", 1,
     "the error gives a rank's hidden size and the head size, and the log lacks legacy ColossalAI's config "
     "(tensor=dict(size=8, mode='1d')), whose TP size a job-fact rule reads"},
    {"tp.kv_heads_not_divisible.view_fraction", 2,
     "the error gives the fraction of a KV head a rank holds, and the log states no TP degree (torchtitan's "
     "tensor_parallel_degree, a job fact)"},
    {"tp.heads_not_divisible.view_fraction", 1,
     "its numbers (32 features per rank, head_dim 64) fit only a TP twice the heads, a layout no real job "
     "was found to run"},
    {"tp.kv_heads_not_divisible.gloo_alltoall_empty_shard", 1,
     "the size is the Ulysses sequence-parallel degree, which preflight does not check"},
    {"tp.kv_heads_not_divisible.view_unsharded_count", 1,
     "the layout is valid: the model viewed its sharded values with the unsharded KV-head count"},
    {"tp.size_exceeds_gpus.nccl_comm_init_invalid_argument", 1,
     "the launcher started more processes than the world size: a process count, not a layout"},
    {"tp.size_exceeds_gpus.vllm_local_gpu_count", 2, kWorldNotTp},
    {"tp.size_exceeds_gpus.vllm_ray_placement", 1, kRequestedOnly},
};

TEST_CASE(
    "every TP/PP rule's examples: the verify command fails on the crashed layout and passes on the "
    "suggested") {
  size_t checked = 0, known_gaps = 0, out_of_scope = 0;
  std::vector<bool> gap_seen(std::size(kKnownGaps));
  for (const auto* rule : shipped().rules()) {
    if (!rule->cause.starts_with("tp.") && !rule->cause.starts_with("pp.")) continue;
    bool layout_cause =
        std::find(std::begin(kLayoutCauses), std::end(kLayoutCauses), rule->cause) != std::end(kLayoutCauses);
    for (size_t index = 0; index < rule->match_examples.size(); ++index) {
      const auto& example = rule->match_examples[index];
      std::string name = rule->id + " example " + std::to_string(index + 1);
      INFO(std::string(name + ":\n" + example.text));
      auto gap = std::find_if(std::begin(kKnownGaps), std::end(kKnownGaps), [&](const KnownGap& known) {
        return known.rule == rule->id && known.example == index + 1;
      });
      bool known_gap = gap != std::end(kKnownGaps);
      if (known_gap) gap_seen[gap - std::begin(kKnownGaps)] = true;
      auto analysis = analyse(example.text);
      bool diagnosed = analysis.diagnosis && analysis.diagnosis->cause == rule->cause;
      if (layout_cause) CHECK_MESSAGE(diagnosed, name, " is not diagnosed as ", rule->cause);
      if (!diagnosed) continue;
      const auto& diagnosis = *analysis.diagnosis;
      const auto& action = diagnosis.action;
      // The layout that crashed, as its facts state it, and the one the remedy suggests: a TP/PP
      // layout, or the expert-parallel or virtual pipeline size with the rest kept.
      auto tp = int_fact(diagnosis.facts, "tp");
      Layout crashed{tp.value_or(1), int_fact(diagnosis.facts, "pp").value_or(1),
                     int_fact(diagnosis.facts, "ep").value_or(1),
                     int_fact(diagnosis.facts, "vp").value_or(1)};
      std::optional<Layout> suggested;
      if (action.expert) {
        suggested = crashed;
        suggested->ep = action.expert->suggest_ep;
      } else if (action.virtual_pipeline) {
        suggested = crashed;
        suggested->vp = action.virtual_pipeline->suggest_vp;
      } else if (tp && action.suggest) {
        suggested = Layout{action.suggest->tp, action.suggest->pp, crashed.ep, crashed.vp};
      }
      // A command the remedy computed: the rule's own template with a placeholder ($TP) is none.
      bool runnable = (diagnosis.verify.starts_with("faultline preflight") ||
                       diagnosis.verify.starts_with("faultline repro")) &&
                      faultline::cli::split_command(diagnosis.verify).is_ok();
      if (!suggested || !runnable) {
        if (known_gap) {
          ++known_gaps;
        } else if (!layout_cause) {
          ++out_of_scope;
        } else {
          FAIL_CHECK(std::string(name + " gives no remedy to verify (tp " + (tp ? "stated" : "unknown") +
                                 ", " + (suggested ? "a" : "no") + " suggestion, verify '" +
                                 diagnosis.verify + "')"));
        }
        continue;
      }
      if (known_gap) FAIL_CHECK(name, " is listed as a known gap (", gap->why, ") but gives a remedy");
      INFO(std::string("verify: " + diagnosis.verify));
      auto passed = faultline::cli::run_verify(with_layout(diagnosis.verify, *suggested), shipped());
      CHECK_MESSAGE(passed.passed(), passed.output);
      auto failed = faultline::cli::run_verify(with_layout(diagnosis.verify, crashed), shipped());
      CHECK_MESSAGE(!failed.passed(), failed.output);
      ++checked;
    }
  }
  for (size_t index = 0; index < std::size(kKnownGaps); ++index) {
    CHECK_MESSAGE(gap_seen[index], "known gap ", kKnownGaps[index].rule, " example ",
                  kKnownGaps[index].example, " names no example of a TP/PP rule");
  }
  MESSAGE("verify checked both ways on ", checked, " examples; ", known_gaps, " known gaps; ", out_of_scope,
          " examples of causes out of a layout verify's scope give no remedy");
  CHECK(checked >= 90);
}

TEST_CASE(
    "a checkpoint saved with another TP: the shapes and the job's TP say which, and loading it keeps the "
    "GPUs") {
  const int64_t hidden = 5120;
  struct Layout {
    int64_t saved, loaded, pp;
  };
  for (Layout layout : {Layout{4, 8, 2}, Layout{2, 1, 1}, Layout{8, 2, 1}, Layout{1, 4, 2}}) {
    CAPTURE(layout.saved);
    CAPTURE(layout.loaded);
    const int64_t gpus = 16;
    std::string log =
        "using world size: " + std::to_string(gpus) +
        ", data-parallel size: " + std::to_string(gpus / (layout.loaded * layout.pp)) +
        ", context-parallel size: 1, tensor-model-parallel size: " + std::to_string(layout.loaded) +
        ", pipeline-model-parallel size: " + std::to_string(layout.pp) +
        "\n[rank0]: RuntimeError: Error(s) in loading state_dict for GPTModel:\n"
        "[rank0]: \tsize mismatch for layers.0.self_attention.query_key_value.weight: copying a param with "
        "shape "
        "torch.Size([" +
        std::to_string(3 * hidden / layout.saved) + ", " + std::to_string(hidden) +
        "]) from checkpoint, the shape in current model is torch.Size([" +
        std::to_string(3 * hidden / layout.loaded) + ", " + std::to_string(hidden) + "]).\n";
    auto analysis = analyse(log);
    REQUIRE(analysis.diagnosis);
    CHECK(analysis.diagnosis->cause == "tp.checkpoint_shard_mismatch");
    const auto& action = analysis.diagnosis->action;
    REQUIRE(action.checkpoint);
    CHECK(action.checkpoint->loaded_tp == layout.loaded);
    CHECK(action.checkpoint->saved_tp == layout.saved);
    REQUIRE(action.suggest);
    CHECK(action.suggest->tp == layout.saved);
    CHECK(action.suggest->tp * action.suggest->pp * action.suggest->dp == gpus);
    REQUIRE_FALSE(analysis.diagnosis->fix.empty());
    CHECK(analysis.diagnosis->fix.front().starts_with(
        "The checkpoint was saved with TP " + std::to_string(layout.saved) +
        " and this job loads it with TP " + std::to_string(layout.loaded)));
  }
}

TEST_CASE("a checkpoint shard with no TP stated: the factor and its direction, and no TP guessed") {
  auto analysis = analyse(
      "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n"
      "\tsize mismatch for model.layers.0.mlp.down_proj.weight: copying a param with shape torch.Size([4096, "
      "2752]) "
      "from checkpoint, the shape in current model is torch.Size([4096, 11008]).\n");
  REQUIRE(analysis.diagnosis);
  const auto& action = analysis.diagnosis->action;
  REQUIRE(action.checkpoint);
  CHECK(action.checkpoint->ratio.factor == 11008 / 2752);
  CHECK(action.checkpoint->ratio.saved_smaller);
  CHECK(action.checkpoint->ratio.dimension == 1);
  CHECK_FALSE(action.checkpoint->saved_tp);
  CHECK_FALSE(action.suggest);
  REQUIRE_FALSE(analysis.diagnosis->fix.empty());
  CHECK(analysis.diagnosis->fix.front().find("saved with " + std::to_string(11008 / 2752) + "× the TP") !=
        std::string::npos);
}

TEST_CASE(
    "a plan_action for a checkpoint whose larger shard the job's TP does not divide names no saved TP") {
  auto facts = facts_of(
      {{"ckpt_rows", 6144}, {"ckpt_cols", 4096}, {"model_rows", 3072}, {"model_cols", 4096}, {"tp", 3}});
  auto action =
      plan_action("tp.checkpoint_shard_mismatch", "tp.checkpoint_shard_mismatch.torch_load_2d", facts, {});
  REQUIRE(action.checkpoint);
  CHECK_FALSE(action.checkpoint->saved_tp);
  CHECK_FALSE(action.suggest);
  CHECK(faultline::correlate::checkpoint_remedy(action).empty());
}

TEST_CASE("a layout that did not fit counts the GPUs there, not the world size it asked for") {
  auto analysis =
      analyse("RuntimeError: please ensure that world_size (16) is less than than max local gpu count (8)\n");
  REQUIRE(analysis.diagnosis);
  CHECK(analysis.diagnosis->action.gpus == 8);
  REQUIRE(analysis.diagnosis->action.suggest);
  const auto& suggest = *analysis.diagnosis->action.suggest;
  CHECK(suggest.tp * suggest.pp * suggest.dp == 8);
}

TEST_CASE("an nvidia-smi table counts the node's GPUs for a layout that does not fit them") {
  for (int64_t node_gpus : {2, 4}) {
    CAPTURE(node_gpus);
    std::string log =
        "INFO 11-29 10:22:31 llm_engine.py:237] Initializing an LLM engine with config: "
        "model='Qwen/Qwen2.5-7B-Instruct', tensor_parallel_size=8, pipeline_parallel_size=1\n"
        "+-----------------------------------------+------------------------+----------------------+\n";
    for (int64_t index = 0; index < node_gpus; ++index) {
      log += "|   " + std::to_string(index) +
             "  NVIDIA A100-SXM4-80GB          On  |   00000000:" + std::to_string(10 + index) +
             ":00.0 Off |                    0 |\n";
      log += "| N/A   34C    P0             70W /  400W |       4MiB /  81920MiB |      0%      Default |\n";
    }
    log += "ValueError: please set tensor_parallel_size to less than max local gpu count\n";
    auto analysis = analyse(log);
    REQUIRE(analysis.diagnosis);
    CHECK(analysis.diagnosis->cause == "tp.size_exceeds_gpus");
    const auto& action = analysis.diagnosis->action;
    CHECK(action.gpus == node_gpus);
    REQUIRE(action.suggest);
    CHECK(action.suggest->tp * action.suggest->pp * action.suggest->dp == node_gpus);
    auto stated = std::find_if(analysis.job_facts.begin(), analysis.job_facts.end(),
                               [](const auto& fact) { return fact.name == "node_gpus"; });
    REQUIRE(stated != analysis.job_facts.end());
    CHECK(stated->where.line == static_cast<uint64_t>(3 + 2 * (node_gpus - 1)));
  }
}

TEST_CASE("an expert-parallel size that does not fit the world gets no TP layout: an EP that fits instead") {
  auto facts = facts_of({{"world_size", 6}, {"ep", 4}});
  auto action = plan_action("tp.size_exceeds_gpus", "tp.size_exceeds_gpus.ep_divide_frames", facts, {});
  CHECK_FALSE(action.suggest);
  REQUIRE(action.expert);
  CHECK(action.expert->pool == 6);
  CHECK(action.expert->valid_ep == std::vector<int64_t>{1, 2, 3, 6});
  // The experts unknown: a divisor of the job's EP 4 divides them as 4 did.
  CHECK(action.expert->suggest_ep == 2);
  CHECK(action.settings == std::vector<std::pair<std::string, int64_t>>{{"expert_parallel_size", 2}});
  auto without_ep = plan_action("tp.size_exceeds_gpus", "tp.size_exceeds_gpus.divide_frames",
                                facts_of({{"world_size", 6}, {"tp", 4}}), {});
  CHECK(without_ep.suggest);
  CHECK_FALSE(without_ep.expert);
}

TEST_CASE("experts over EP: the EP that divides the experts and the GPUs, in the framework's own name") {
  // Megatron draws its expert groups beside TP: TP 2 x EP x PP 2 must divide 24 GPUs, so EP divides 6.
  auto megatron =
      plan_action("tp.ffn_not_divisible", "tp.ffn_not_divisible.megatron_experts",
                  facts_of({{"experts", 60}, {"ep", 8}, {"tp", 2}, {"pp", 2}, {"world_size", 24}}), {});
  REQUIRE(megatron.expert);
  CHECK(megatron.expert->pool == 6);
  CHECK(megatron.expert->valid_ep == std::vector<int64_t>{1, 2, 3, 6});
  CHECK(megatron.expert->suggest_ep == 6);
  CHECK(megatron.settings.front() == std::pair<std::string, int64_t>{"expert_model_parallel_size", 6});
  auto verify = faultline::correlate::verify_command(
      facts_of({{"experts", 60}, {"ep", 8}, {"tp", 2}, {"pp", 2}, {"world_size", 24}}), megatron, 2, 2);
  CHECK(verify == "faultline preflight --framework megatron --experts 60 --gpus 24 --ep 6 --tp 2 --pp 2");
  // The GPUs unknown: a divisor of the job's EP that divides the experts.
  auto unknown_gpus = plan_action("tp.ffn_not_divisible", "tp.ffn_not_divisible.experts_ep",
                                  facts_of({{"experts", 60}, {"ep", 8}}), {});
  REQUIRE(unknown_gpus.expert);
  CHECK(unknown_gpus.expert->suggest_ep == 4);
  // An EP that fits is no remedy of its own.
  CHECK_FALSE(plan_action("tp.heads_not_divisible", "tp.heads_not_divisible.vllm",
                          facts_of({{"experts", 64}, {"ep", 8}, {"heads", 32}, {"tp", 6}}), {})
                  .expert);
}

TEST_CASE("a virtual pipeline size that does not divide a stage's layers: the largest that does, below it") {
  auto facts = facts_of({{"layers_per_stage", 14}, {"vp", 4}, {"pp", 4}});
  auto action = plan_action("pp.layers_not_divisible", "pp.layers_not_divisible.megatron_virtual", facts, {});
  REQUIRE(action.virtual_pipeline);
  CHECK(action.virtual_pipeline->valid_vp == std::vector<int64_t>{1, 2, 7, 14});
  CHECK(action.virtual_pipeline->suggest_vp == 2);
  CHECK(faultline::correlate::verify_command(facts, action, 1, 4) ==
        "faultline preflight --framework megatron --layers 56 --virtual-pipeline 2 --pp 4");
  // Without PP the layers are unknown: a remedy in words, no verify command.
  auto no_pp = plan_action("pp.layers_not_divisible", "pp.layers_not_divisible.megatron_virtual",
                           facts_of({{"layers_per_stage", 9}, {"vp", 2}}), {});
  REQUIRE(no_pp.virtual_pipeline);
  CHECK(no_pp.virtual_pipeline->suggest_vp == 1);
  CHECK(faultline::correlate::verify_command(facts_of({{"layers_per_stage", 9}, {"vp", 2}}), no_pp, 1, 1)
            .empty());
  // At PP 1 Megatron does not interleave: the virtual size is not at fault.
  CHECK_FALSE(plan_action("pp.layers_not_divisible", "pp.layers_not_divisible.megatron_virtual",
                          facts_of({{"layers", 30}, {"vp", 4}, {"pp", 1}}), {})
                  .virtual_pipeline);
}

TEST_CASE(
    "a per-rank shard short of its kernel tile: the FFN it was cut from and the TP sizes whose shard fills "
    "it") {
  auto facts = facts_of({{"rows", 2736}, {"multiple", 64}, {"tp", 4}});
  auto action = plan_action("tp.ffn_not_divisible", "tp.ffn_not_divisible.kernel_tile", facts, {});
  CHECK(action.ffn_multiple == 64);
  CHECK(faultline::int_fact(action.derived, "ffn") == 2736 * 4);
  for (int64_t size : action.valid_tp) CHECK((2736 * 4 / size) % 64 == 0);
  CHECK(std::find(action.valid_tp.begin(), action.valid_tp.end(), 4) == action.valid_tp.end());
  REQUIRE(action.suggest);
  CHECK(action.suggest->tp * action.suggest->pp * action.suggest->dp == 4);
  std::string verify = faultline::correlate::verify_command(facts, action, action.suggest->tp, 1);
  CHECK(verify.find("--ffn 10944") != std::string::npos);
  CHECK(verify.find("--ffn-multiple 64") != std::string::npos);
}

TEST_CASE("a kernel log's Xid names its host from the syslog header, and the remedy leaves that host out") {
  for (std::string host : {"dgx-b12", "gpu-node-07.cluster"}) {
    CAPTURE(host);
    auto analysis = analyse(
        "Apr 17 04:30:02 " + host + " systemd[1]: Started Session 1188 of User slurm.\n" +
        "Apr 17 04:31:47 " + host +
        " kernel: NVRM: Xid (PCI:0000:b7:00): 79, pid=2214873, name=python, GPU has fallen off the bus.\n");
    REQUIRE(analysis.diagnosis);
    CHECK(analysis.diagnosis->cause == "cuda.hardware_xid_ecc");
    CHECK(analysis.diagnosis->action.exclude_hosts == std::vector<std::string>{host});
  }
}
