// `faultline preflight`: reject an incompatible TP/PP size before launch. The model's sizes come
// from its config.json, from options (--heads, --hidden, ...: what a log told a rule), or both,
// the options winning.
#include <algorithm>
#include <charconv>

#include "base/text.hpp"
#include "cli/commands.hpp"
#include "preflight/gpu_inventory.hpp"
#include "report/report.hpp"
#include "tp/model_catalogue.hpp"

namespace faultline::cli {
namespace {

// --gpus N, --gpus FILE (nvidia-smi CSV) or --gpus auto.
Result<std::vector<preflight::Gpu>> gpu_inventory(const std::string& spec) {
  if (spec == "auto") return preflight::query_gpu_inventory();
  if (auto count = parse_integer(spec)) {
    if (*count < 1) return Status::error("--gpus must be at least 1");
    return std::vector<preflight::Gpu>(static_cast<size_t>(*count));
  }
  return preflight::read_gpu_inventory(spec);
}

}  // namespace

int run_preflight(const Options& options, Output& out) {
  preflight::ModelShape shape;
  if (!options.model.empty()) {
    const tp::CatalogueModel* model = tp::find_model(options.model);
    if (!model) {
      out.err("faultline: model '" + options.model +
              "' is not in the catalogue (rules/models/catalogue.yaml): give its config.json with --config, "
              "or its "
              "sizes (--heads, --kv-heads, ...)\n");
      return 2;
    }
    static_cast<tp::Geometry&>(shape) = model->geometry;
    shape.model_type = model->id;
  }
  if (!options.config.empty()) {
    auto read = preflight::read_model_config(options.config);
    if (!read) {
      out.err("faultline: " + read.status().message() + "\n");
      return 2;
    }
    shape = *read;
  }
  auto given = [](std::optional<int64_t>& size, int64_t option) {
    if (option > 0) size = option;
  };
  given(shape.heads, options.heads);
  given(shape.kv_heads, options.kv_heads);
  given(shape.hidden, options.hidden);
  given(shape.ffn, options.ffn);
  given(shape.vocab, options.vocab);
  given(shape.layers, options.layers);
  given(shape.experts, options.experts);
  preflight::Plan plan;
  plan.tp = options.tp;
  plan.pp = options.pp;
  if (options.ep > 0) plan.ep = options.ep;
  if (options.virtual_pipeline > 0) plan.virtual_pipeline = options.virtual_pipeline;
  report::PreflightReport report{options.config.empty() ? options.model : options.config, shape, plan, {}};
  preflight::apply_framework(options.framework, report.plan);
  if (options.ffn_multiple > 0) report.plan.rules.ffn_multiple = options.ffn_multiple;
  if (auto required = preflight::apply_requirements(options.require, report.plan); !required) {
    out.err("faultline: " + required.message() + "\n");
    return 2;
  }
  if (!options.gpus.empty()) {
    auto gpus = gpu_inventory(options.gpus);
    if (!gpus) {
      out.err("faultline: " + gpus.status().message() + "\n");
      return 2;
    }
    report.plan.gpus = static_cast<int64_t>(gpus->size());
    report.plan.gpu_mix = preflight::heterogeneity(*gpus);
    for (const auto& gpu : *gpus) {  // "81559 MiB": the smallest sets the limit
      int64_t mib = 0;
      auto [end, failure] = std::from_chars(gpu.memory.data(), gpu.memory.data() + gpu.memory.size(), mib);
      if (failure == std::errc() && mib > 0 && std::string_view(end).find("MiB") != std::string_view::npos) {
        report.plan.gpu_memory_mib = std::min(report.plan.gpu_memory_mib.value_or(mib), mib);
      }
    }
  }
  report.result = preflight::run_checks(report.shape, report.plan);
  if (options.format == Format::kText) {
    bool color = options.color == Color::kAlways || (options.color == Color::kAuto && out.out_is_terminal());
    out.out(report::render_preflight_text(report, color));
  } else {
    out.out(report::render_preflight_json(report));
  }
  return report.result.ok() ? 0 : 1;
}

}  // namespace faultline::cli
