// ModelShape: the sizes of a model that tensor and pipeline parallelism must divide, read
// from a Hugging Face config.json with simdjson. Multimodal configs nest the language model
// under text_config / llm_config / language_config; alias names of other model families are
// accepted (n_head, n_embd, num_query_groups, multi_query_group_num, n_routed_experts, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.hpp"

namespace faultline::preflight {

struct ModelShape {
  std::optional<int64_t> heads;
  std::optional<int64_t> kv_heads;
  std::optional<int64_t> hidden;
  std::optional<int64_t> ffn;
  std::optional<int64_t> moe_ffn;
  std::optional<int64_t> experts;
  std::optional<int64_t> vocab;
  std::optional<int64_t> layers;
  std::optional<int64_t> vision_heads;  // the vision tower's heads (vision_config), which TP shards too
  std::string model_type;
  std::string section;  // "" or the nested object the sizes came from ("text_config")
};

// Errors name the file: "config.json: not a JSON object".
Result<ModelShape> read_model_config(const std::string& path);
Result<ModelShape> parse_model_config(std::string_view json, const std::string& name);

}  // namespace faultline::preflight
