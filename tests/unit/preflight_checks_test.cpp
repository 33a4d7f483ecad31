// Preflight's checks beyond the TP/PP split (src/preflight/checks.hpp): the multiple each rank's
// FFN shard must be (--ffn-multiple), the experts over the expert-parallel size and the GPUs its
// groups are drawn from (--experts, --ep), and Megatron's virtual pipeline size
// (--virtual-pipeline).
#include <doctest/doctest.h>

#include <algorithm>

#include "preflight/checks.hpp"

namespace preflight = faultline::preflight;
using preflight::Verdict;

namespace {

const preflight::Check* find_check(const preflight::PreflightResult& result, std::string_view name) {
  auto it = std::find_if(result.checks.begin(), result.checks.end(),
                         [&](const preflight::Check& check) { return check.name == name; });
  return it == result.checks.end() ? nullptr : &*it;
}

preflight::Plan plan_of(int64_t tp, int64_t pp, std::optional<int64_t> gpus = std::nullopt,
                        const std::string& framework = "") {
  preflight::Plan plan;
  preflight::apply_framework(framework, plan);
  plan.tp = tp;
  plan.pp = pp;
  plan.gpus = gpus;
  return plan;
}

}  // namespace

TEST_CASE("the FFN shard of each rank must fill the kernel tile: TP 4 leaves 2736 of 10944, TP 3 fits") {
  preflight::ModelShape shape;
  shape.ffn = 10944;
  auto plan = plan_of(4, 1);
  plan.rules.ffn_multiple = 64;
  auto crashed = preflight::run_checks(shape, plan);
  const auto* shard = find_check(crashed, "ffn_shard");
  REQUIRE(shard);
  CHECK(shard->verdict == Verdict::kError);
  CHECK(shard->cause == "tp.ffn_not_divisible");
  CHECK(shard->message.find("2736 a rank") != std::string::npos);
  CHECK_FALSE(crashed.ok());
  CHECK(crashed.valid_tp == std::vector<int64_t>{1, 3, 9, 19, 57});
  plan.tp = 3;
  CHECK(preflight::run_checks(shape, plan).ok());
  // No multiple given: no shard check, and TP 4 divides the FFN.
  CHECK(preflight::run_checks(shape, plan_of(4, 1)).ok());
  CHECK_FALSE(find_check(preflight::run_checks(shape, plan_of(4, 1)), "ffn_shard"));
}

TEST_CASE("the experts over EP, and EP over the GPUs its groups are drawn from") {
  preflight::ModelShape shape;
  shape.experts = 60;
  auto plan = plan_of(1, 1);
  plan.ep = 8;
  auto experts = preflight::run_checks(shape, plan);
  REQUIRE(find_check(experts, "experts"));
  CHECK(find_check(experts, "experts")->cause == "tp.ffn_not_divisible");
  CHECK_FALSE(find_check(experts, "ep_groups"));  // no GPUs given
  plan.ep = 4;
  CHECK(preflight::run_checks(shape, plan).ok());

  // DeepSpeed and vLLM: EP divides a stage's GPUs. 6 GPUs do not split into EP groups of 4.
  preflight::ModelShape unknown;
  auto groups = plan_of(1, 1, 6);
  groups.ep = 4;
  auto world = preflight::run_checks(unknown, groups);
  REQUIRE(find_check(world, "ep_groups"));
  CHECK(find_check(world, "ep_groups")->cause == "tp.size_exceeds_gpus");
  CHECK(world.valid_ep == std::vector<int64_t>{1, 2, 3, 6});
  groups.ep = 3;
  CHECK(preflight::run_checks(unknown, groups).ok());

  // Megatron: TP x EP x PP divides the world: TP 2 x EP 4 x PP 2 = 16 of 24 GPUs does not.
  auto megatron = plan_of(2, 2, 24, "megatron");
  megatron.ep = 4;
  CHECK_FALSE(preflight::run_checks(shape, megatron).ok());
  megatron.ep = 6;
  CHECK(preflight::run_checks(shape, megatron).ok());
  // The same plan in a framework that draws EP from a stage's 12 GPUs fits EP 4.
  auto stage = plan_of(2, 2, 24);
  stage.ep = 4;
  CHECK(preflight::run_checks(shape, stage).ok());

  // SGLang: EP within the TP group.
  auto sglang = plan_of(4, 1, std::nullopt, "sglang");
  sglang.ep = 8;
  preflight::ModelShape many;
  many.experts = 64;
  CHECK_FALSE(preflight::run_checks(many, sglang).ok());
  sglang.ep = 4;
  CHECK(preflight::run_checks(many, sglang).ok());
}

TEST_CASE("a virtual pipeline size must divide each stage's layers, at PP above 1") {
  preflight::ModelShape shape;
  shape.layers = 56;
  auto plan = plan_of(1, 4, std::nullopt, "megatron");
  plan.virtual_pipeline = 4;  // 14 layers a stage
  auto crashed = preflight::run_checks(shape, plan);
  REQUIRE(find_check(crashed, "virtual_pp"));
  CHECK(find_check(crashed, "virtual_pp")->cause == "pp.layers_not_divisible");
  CHECK_FALSE(crashed.ok());
  plan.virtual_pipeline = 7;
  CHECK(preflight::run_checks(shape, plan).ok());
  // At PP 1 there is no interleaving: a note, not a failure.
  auto single = plan_of(1, 1, std::nullopt, "megatron");
  single.virtual_pipeline = 3;
  auto note = preflight::run_checks(shape, single);
  REQUIRE(find_check(note, "virtual_pp"));
  CHECK(find_check(note, "virtual_pp")->verdict == Verdict::kNote);
  CHECK(note.ok());
}
