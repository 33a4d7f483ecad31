#include "preflight/model_config.hpp"

#include <simdjson.h>

#include <initializer_list>

#include "base/text.hpp"

namespace faultline::preflight {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

std::optional<int64_t> first_integer(const object& section, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    element value;
    if (section.at_key(name).get(value) != simdjson::SUCCESS) continue;
    int64_t number = 0;
    if (value.get_int64().get(number) == simdjson::SUCCESS) return number;
    uint64_t unsigned_number = 0;
    if (value.get_uint64().get(unsigned_number) == simdjson::SUCCESS)
      return static_cast<int64_t>(unsigned_number);
  }
  return std::nullopt;
}

void read_section(const object& section, ModelShape& shape) {
  auto fill = [&](std::optional<int64_t>& slot, std::initializer_list<const char*> names) {
    if (!slot) slot = first_integer(section, names);
  };
  fill(shape.heads, {"num_attention_heads", "n_head", "num_heads", "n_heads"});
  fill(shape.kv_heads, {"num_key_value_heads", "num_query_groups", "multi_query_group_num", "n_head_kv",
                        "num_kv_heads", "n_kv_heads"});
  fill(shape.hidden, {"hidden_size", "n_embd", "d_model", "dim"});
  fill(shape.ffn, {"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"});
  fill(shape.moe_ffn, {"moe_intermediate_size"});
  fill(shape.experts, {"num_local_experts", "n_routed_experts", "num_experts"});
  fill(shape.vocab, {"vocab_size", "padded_vocab_size"});
  fill(shape.layers, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  std::string_view type;
  if (shape.model_type.empty() && section.at_key("model_type").get(type) == simdjson::SUCCESS) {
    shape.model_type = std::string(type);
  }
}

}  // namespace

Result<ModelShape> parse_model_config(std::string_view json, const std::string& name) {
  simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    return Status::error(name + ": not valid JSON (" + simdjson::error_message(error) + ")");
  }
  object top;
  if (root.get(top) != simdjson::SUCCESS) return Status::error(name + ": not a JSON object");
  ModelShape shape;
  // The language model's sizes: nested first for multimodal models, then the top level.
  for (const char* nested : {"text_config", "llm_config", "language_config"}) {
    object section;
    if (top.at_key(nested).get(section) == simdjson::SUCCESS) {
      read_section(section, shape);
      if (shape.heads) {
        shape.section = nested;
        break;
      }
    }
  }
  read_section(top, shape);
  for (const char* vision : {"vision_config", "visual"}) {
    object section;
    if (!shape.vision_heads && top.at_key(vision).get(section) == simdjson::SUCCESS) {
      shape.vision_heads = first_integer(section, {"num_heads", "num_attention_heads", "n_heads"});
    }
  }
  if (!shape.heads && !shape.hidden && !shape.layers) {
    return Status::error(name +
                         ": no model sizes found (num_attention_heads, hidden_size, num_hidden_layers)");
  }
  return shape;
}

Result<ModelShape> read_model_config(const std::string& path) {
  auto file = read_small_file(path);
  if (!file.ok) return Status::error(file.text);
  return parse_model_config(file.text, path);
}

}  // namespace faultline::preflight
