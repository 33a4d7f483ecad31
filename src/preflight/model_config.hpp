// ModelShape: the sizes of a model that tensor and pipeline parallelism must divide, read
// from a Hugging Face config.json with simdjson. Multimodal configs nest the language model
// under text_config / llm_config / language_config; alias names of other model families are
// accepted (n_head, n_embd, num_query_groups, multi_query_group_num, n_routed_experts, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.hpp"
#include "tp/layout.hpp"

namespace faultline::preflight {

// The sizes are tp::Geometry's, the one model-shape type that src/tp's arithmetic, the model
// catalogue and the remedy use; the config adds where they came from.
struct ModelShape : tp::Geometry {
  std::string model_type;
  std::string section;  // "" or the nested object the sizes came from ("text_config")
};

// Errors name the file: "config.json: not a JSON object".
Result<ModelShape> read_model_config(const std::string& path);
Result<ModelShape> parse_model_config(std::string_view json, const std::string& name);

}  // namespace faultline::preflight
