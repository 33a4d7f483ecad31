#include "base/json_writer.hpp"
#include "base/text.hpp"
#include "report/report.hpp"

namespace faultline::report {
namespace {

using preflight::Verdict;

const char* verdict_word(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kNote:
      return "note";
    case Verdict::kError:
      return "FAIL";
  }
  return "?";
}

std::string shape_summary(const preflight::ModelShape& shape) {
  std::vector<std::string> parts;
  auto add = [&](const std::optional<int64_t>& value, const char* what) {
    if (value) parts.push_back(std::to_string(*value) + " " + what);
  };
  add(shape.heads, "heads");
  add(shape.kv_heads, "KV heads");
  add(shape.hidden, "hidden");
  add(shape.ffn, "FFN");
  add(shape.moe_ffn, "MoE FFN");
  add(shape.experts, "experts");
  add(shape.vocab, "vocab");
  add(shape.layers, "layers");
  std::string out = shape.model_type.empty() ? "" : shape.model_type + ": ";
  out += join(parts, ", ");
  if (!shape.section.empty()) out += " (from " + shape.section + ")";
  return out;
}

std::string join_numbers(const std::vector<int64_t>& values) {
  std::vector<std::string> parts;
  for (auto value : values) parts.push_back(std::to_string(value));
  return join(parts, ", ");
}

}  // namespace

std::string render_preflight_text(const PreflightReport& report, bool color) {
  auto paint = [color](std::string_view code, const std::string& text) {
    return color ? "\x1b[" + std::string(code) + "m" + text + "\x1b[0m" : text;
  };
  std::string from = report.config.empty() ? "of the sizes given" : report.config;
  std::string out = "preflight " + from + "\n  model: " + shape_summary(report.shape) + "\n  plan:  TP " +
                    std::to_string(report.plan.tp) + " × PP " + std::to_string(report.plan.pp);
  if (report.plan.gpus) out += " on " + std::to_string(*report.plan.gpus) + " GPUs";
  out += "\n\n";
  for (const auto& check : report.result.checks) {
    std::string word = verdict_word(check.verdict);
    word.resize(5, ' ');
    if (check.verdict == Verdict::kError) word = paint("1;31", word);
    if (check.verdict == Verdict::kNote) word = paint("33", word);
    std::string name = check.name;
    name.resize(11, ' ');
    out += "  " + word + name + check.message;
    if (!check.cause.empty()) out += "  [" + check.cause + "]";
    out += "\n";
  }
  out += "\n  TP sizes this model accepts: " + join_numbers(report.result.valid_tp) + "\n";
  if (report.plan.gpus) {
    out += "  layouts of " + std::to_string(*report.plan.gpus) +
           " GPUs that fit: " + (report.result.layouts.empty() ? "none" : join(report.result.layouts, ", ")) +
           "\n";
  }
  out += report.result.ok() ? paint("32", "\ncompatible\n") : paint("1;31", "\nincompatible\n");
  return out;
}

std::string render_preflight_json(const PreflightReport& report) {
  JsonWriter json(true);
  json.begin_object();
  json.key("schema").string("faultline.preflight/1");
  json.key("config");
  if (report.config.empty())
    json.null();
  else
    json.string(report.config);
  json.key("model").begin_object();
  auto size = [&](const char* name, const std::optional<int64_t>& value) {
    json.key(name);
    if (value)
      json.number(*value);
    else
      json.null();
  };
  json.key("model_type").string(report.shape.model_type);
  size("heads", report.shape.heads);
  size("kv_heads", report.shape.kv_heads);
  size("hidden", report.shape.hidden);
  size("ffn", report.shape.ffn);
  size("moe_ffn", report.shape.moe_ffn);
  size("experts", report.shape.experts);
  size("vocab", report.shape.vocab);
  size("layers", report.shape.layers);
  json.end_object();
  json.key("tp").number(report.plan.tp);
  json.key("pp").number(report.plan.pp);
  size("gpus", report.plan.gpus);
  json.key("compatible").boolean(report.result.ok());
  json.key("checks").begin_array();
  for (const auto& check : report.result.checks) {
    json.begin_object();
    json.key("name").string(check.name);
    json.key("verdict").string(check.verdict == Verdict::kOk     ? "ok"
                               : check.verdict == Verdict::kNote ? "note"
                                                                 : "error");
    json.key("message").string(check.message);
    json.key("cause");
    if (check.cause.empty())
      json.null();
    else
      json.string(check.cause);
    json.end_object();
  }
  json.end_array();
  json.key("valid_tp").value(Value(report.result.valid_tp));
  json.key("layouts").value(Value(report.result.layouts));
  json.end_object();
  return json.take() + "\n";
}

}  // namespace faultline::report
