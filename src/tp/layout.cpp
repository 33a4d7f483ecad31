#include "tp/layout.hpp"

#include <algorithm>

namespace faultline::tp {
namespace {

bool divides(const std::optional<int64_t>& size, int64_t by) {
  return !size || *size <= 0 || *size % by == 0;
}

// The shard of `size` over TP is a multiple of `multiple` (where TP divides it).
bool shard_multiple(const std::optional<int64_t>& size, int64_t tp, int64_t multiple) {
  return multiple <= 1 || !size || *size <= 0 || *size % tp != 0 || (*size / tp) % multiple == 0;
}

}  // namespace

bool tp_fits(const Geometry& model, int64_t tp, const SplitRules& rules) {
  if (tp < 1) return false;
  if (!shard_multiple(model.ffn, tp, rules.ffn_multiple) ||
      !shard_multiple(model.moe_ffn, tp, rules.ffn_multiple))
    return false;
  if (model.heads && *model.heads > 0 && tp > *model.heads) return false;
  bool kv_ok = divides(model.kv_heads, tp) || (rules.replicate_kv_heads && model.kv_heads &&
                                               *model.kv_heads > 0 && tp % *model.kv_heads == 0);
  return divides(model.heads, tp) && kv_ok && divides(model.hidden, tp) && divides(model.ffn, tp) &&
         divides(model.vision_heads, tp) && divides(model.moe_ffn, tp) &&
         (!rules.vocab_unpadded || divides(model.vocab, tp));
}

std::vector<int64_t> valid_tp(const Geometry& model, int64_t limit, const SplitRules& rules) {
  std::vector<int64_t> sizes;
  for (int64_t tp = 1; tp <= std::min<int64_t>(limit, 4096); ++tp) {
    if (tp_fits(model, tp, rules)) sizes.push_back(tp);
  }
  return sizes;
}

std::vector<int64_t> valid_pp(const Geometry& model, int64_t limit) {
  std::vector<int64_t> sizes;
  for (int64_t pp = 1; pp <= std::min<int64_t>(limit, 4096); ++pp) {
    if (divides(model.layers, pp) && (!model.layers || pp <= *model.layers)) sizes.push_back(pp);
  }
  return sizes;
}

std::optional<int64_t> expert_pool(const SplitRules& rules, std::optional<int64_t> gpus, int64_t tp,
                                   int64_t pp) {
  tp = std::max<int64_t>(tp, 1);
  pp = std::max<int64_t>(pp, 1);
  if (rules.expert_groups == SplitRules::ExpertGroups::kWithinTp) return tp;
  int64_t beside = rules.expert_groups == SplitRules::ExpertGroups::kBesideTp ? tp * pp : pp;
  if (!gpus || *gpus < 1 || *gpus % beside != 0) return std::nullopt;
  return *gpus / beside;
}

std::vector<int64_t> valid_ep(std::optional<int64_t> experts, std::optional<int64_t> pool, int64_t limit) {
  std::vector<int64_t> sizes;
  for (int64_t ep = 1; ep <= std::min<int64_t>(limit, 4096); ++ep) {
    if (divides(experts, ep) && divides(pool, ep)) sizes.push_back(ep);
  }
  return sizes;
}

std::optional<Suggestion> suggest_layout(const Geometry& model, std::optional<int64_t> gpus, int64_t tp,
                                         int64_t pp, const SplitRules& rules) {
  pp = std::max<int64_t>(pp, 1);
  if (!gpus || *gpus < 1) {
    auto sizes = valid_tp(model, std::max<int64_t>(tp, 1), rules);
    if (sizes.empty() || !divides(model.layers, pp)) return std::nullopt;
    return Suggestion{sizes.back(), pp, 1};
  }
  // The job's PP first, then every other PP that divides the GPUs, smallest first.
  std::vector<int64_t> pps = {pp};
  for (int64_t other : valid_pp(model, *gpus)) {
    if (other != pp) pps.push_back(other);
  }
  for (int64_t stages : pps) {
    if (*gpus % stages != 0 || !divides(model.layers, stages)) continue;
    int64_t per_stage = *gpus / stages;
    for (int64_t size = per_stage; size >= 1; --size) {
      if (per_stage % size == 0 && tp_fits(model, size, rules))
        return Suggestion{size, stages, per_stage / size};
    }
  }
  return std::nullopt;
}

}  // namespace faultline::tp
