// Tensor-parallel arithmetic (src/tp): the numbers the rules' fix templates print.
#include <doctest/doctest.h>

#include "tp/arithmetic.hpp"
#include "tp/layout.hpp"

namespace tp = faultline::tp;
using IntList = std::vector<int64_t>;

namespace {
std::vector<std::string> layout_names(const std::vector<tp::Layout>& layouts) {
  std::vector<std::string> out;
  for (const auto& layout : layouts) out.push_back(layout.to_string());
  return out;
}
}  // namespace

TEST_CASE("divisors are every positive divisor in ascending order") {
  CHECK(tp::divisors(12) == IntList{1, 2, 3, 4, 6, 12});
  CHECK(tp::divisors(36) == IntList{1, 2, 3, 4, 6, 9, 12, 18, 36});
  CHECK(tp::divisors(1) == IntList{1});
  CHECK(tp::divisors(13) == IntList{1, 13});
}

TEST_CASE("divisors of zero or a negative number are empty") {
  CHECK(tp::divisors(0).empty());
  CHECK(tp::divisors(-8).empty());
}

TEST_CASE("divisors_le keeps the divisors up to and including the limit") {
  CHECK(tp::divisors_le(32, 6) == IntList{1, 2, 4});
  CHECK(tp::divisors_le(32, 8) == IntList{1, 2, 4, 8});
  CHECK(tp::divisors_le(32, 0).empty());
}

TEST_CASE("common_divisors are the divisors of both numbers") {
  CHECK(tp::common_divisors(32, 8) == IntList{1, 2, 4, 8});
  CHECK(tp::common_divisors(12, 18) == IntList{1, 2, 3, 6});
  CHECK(tp::common_divisors(7, 5) == IntList{1});
}

TEST_CASE("largest_divisor_le picks the biggest divisor not above the limit") {
  CHECK(tp::largest_divisor_le(32, 6) == 4);
  CHECK(tp::largest_divisor_le(12, 8) == 6);
  CHECK(tp::largest_divisor_le(12, 12) == 12);
  CHECK(tp::largest_divisor_le(12, 100) == 12);
}

TEST_CASE("largest_divisor_le falls back to 1 for a limit below 1 or n <= 0") {
  CHECK(tp::largest_divisor_le(32, 0) == 1);
  CHECK(tp::largest_divisor_le(0, 8) == 1);
  CHECK(tp::largest_divisor_le(-4, 8) == 1);
}

TEST_CASE("valid_tp_sizes allow KV-head replication when tp is a multiple of kv_heads") {
  // 32 query heads, 8 KV heads: 16 and 32 replicate KV heads, which vLLM accepts.
  CHECK(tp::valid_tp_sizes(32, 8) == IntList{1, 2, 4, 8, 16, 32});
  // 12 query heads, 8 KV heads: 3 divides neither 8 nor is a multiple of it; 6 and 12 neither.
  CHECK(tp::valid_tp_sizes(12, 8) == IntList{1, 2, 4});
  // 28 heads, 4 KV heads: 7 and 14 fail, 28 is a multiple of 4.
  CHECK(tp::valid_tp_sizes(28, 4) == IntList{1, 2, 4, 28});
}

TEST_CASE("valid_tp_sizes treats kv_heads <= 0 as the same as heads") {
  CHECK(tp::valid_tp_sizes(12, 0) == IntList{1, 2, 3, 4, 6, 12});
  CHECK(tp::valid_tp_sizes(12, -1) == IntList{1, 2, 3, 4, 6, 12});
}

TEST_CASE("next_multiple rounds up to a multiple, and leaves exact multiples alone") {
  CHECK(tp::next_multiple(32001, 64) == 32064);
  CHECK(tp::next_multiple(32000, 64) == 32000);
  CHECK(tp::next_multiple(1, 8) == 8);
  CHECK(tp::next_multiple(0, 8) == 0);
}

TEST_CASE("next_multiple with a non-positive step returns n") {
  CHECK(tp::next_multiple(17, 0) == 17);
  CHECK(tp::next_multiple(17, -4) == 17);
}

TEST_CASE("gcd and lcm") {
  CHECK(tp::gcd(12, 18) == 6);
  CHECK(tp::gcd(7, 0) == 7);
  CHECK(tp::lcm(4, 6) == 12);
  CHECK(tp::lcm(0, 6) == 0);
  CHECK(tp::lcm(6, 0) == 0);
}

TEST_CASE("Layout prints as TP=a×PP=b") {
  CHECK(tp::Layout{2, 4}.to_string() == "TP=2\xc3\x97PP=4");
}

TEST_CASE("layouts lists every TP x PP split of the GPUs, TP ascending") {
  CHECK(layout_names(tp::layouts(8)) == std::vector<std::string>{"TP=1\xc3\x97PP=8", "TP=2\xc3\x97PP=4",
                                                                 "TP=4\xc3\x97PP=2", "TP=8\xc3\x97PP=1"});
  CHECK(tp::layouts(0).empty());
}

TEST_CASE("layouts_for keeps splits whose TP divides heads and whose PP divides layers") {
  // 8 GPUs, 12 heads, 30 layers: TP=8 fails (12 % 8), PP=8 fails (30 % 8), TP=4 PP=2 passes.
  CHECK(layout_names(tp::layouts_for(8, 12, 30)) == std::vector<std::string>{"TP=4\xc3\x97PP=2"});
  // 4 GPUs, 6 heads, 9 layers: TP=1 PP=4 fails (9 % 4), TP=4 fails (6 % 4), TP=2 PP=2 fails (9 % 2).
  CHECK(tp::layouts_for(4, 6, 9).empty());
  CHECK(tp::layouts_for(8, 32, 32).size() == 4);
}

TEST_CASE("a multiple the FFN shard must be narrows the TP sizes to those whose shard fills it") {
  tp::Geometry model;
  model.ffn = 10944;  // 64 x 171
  tp::SplitRules rules;
  CHECK(tp::valid_tp(model, 8, rules) == IntList{1, 2, 3, 4, 6, 8});
  rules.ffn_multiple = 64;
  CHECK(tp::valid_tp(model, 8, rules) == IntList{1, 3});
  CHECK_FALSE(tp::tp_fits(model, 4, rules));  // 2736 a rank, 48 past a multiple of 64
  // The MoE intermediate size is sharded too, and must fill the multiple as well.
  model.moe_ffn = 1408;  // 64 x 22
  CHECK(tp::valid_tp(model, 8, rules) == IntList{1});
}

TEST_CASE("expert-parallel groups come from a stage's GPUs, from those beside TP, or from the TP group") {
  tp::SplitRules rules;
  CHECK(tp::expert_pool(rules, 16, 2, 2) == 8);
  CHECK_FALSE(tp::expert_pool(rules, std::nullopt, 2, 2));
  CHECK_FALSE(tp::expert_pool(rules, 6, 1, 4));  // the GPUs do not split into 4 stages
  rules.expert_groups = tp::SplitRules::ExpertGroups::kBesideTp;
  CHECK(tp::expert_pool(rules, 16, 2, 2) == 4);
  rules.expert_groups = tp::SplitRules::ExpertGroups::kWithinTp;
  CHECK(tp::expert_pool(rules, std::nullopt, 8, 1) == 8);
}

TEST_CASE("valid EP sizes divide the experts and the pool, each where known") {
  CHECK(tp::valid_ep(60, 8, 8) == IntList{1, 2, 4});
  CHECK(tp::valid_ep(60, std::nullopt, 12) == IntList{1, 2, 3, 4, 5, 6, 10, 12});
  CHECK(tp::valid_ep(std::nullopt, 6, 6) == IntList{1, 2, 3, 6});
  CHECK(tp::valid_ep(256, 3, 3) == IntList{1});
}
