// A model's sizes from its Hugging Face config.json (src/preflight/model_config): the usual
// names and other families' aliases, multimodal configs' nested language model and vision
// tower, and errors that name the file.
#include "preflight/model_config.hpp"

#include <doctest/doctest.h>

#include <string>

using faultline::preflight::ModelShape;
using faultline::preflight::parse_model_config;

namespace {

ModelShape parsed(const std::string& json) {
  auto shape = parse_model_config(json, "config.json");
  REQUIRE_MESSAGE(shape, shape.status().message());
  return *shape;
}

}  // namespace

TEST_CASE("model config: a Llama-style config gives every size and the model type") {
  ModelShape shape = parsed(R"({"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 8,
      "hidden_size": 4096, "intermediate_size": 14336, "vocab_size": 128256, "num_hidden_layers": 32})");
  CHECK(shape.model_type == "llama");
  CHECK(shape.heads == std::optional<int64_t>(32));
  CHECK(shape.kv_heads == std::optional<int64_t>(8));
  CHECK(shape.hidden == std::optional<int64_t>(4096));
  CHECK(shape.ffn == std::optional<int64_t>(14336));
  CHECK(shape.vocab == std::optional<int64_t>(128256));
  CHECK(shape.layers == std::optional<int64_t>(32));
  CHECK_FALSE(shape.experts.has_value());
  CHECK_FALSE(shape.moe_ffn.has_value());
  CHECK_FALSE(shape.vision_heads.has_value());
  CHECK(shape.section == "");
}

TEST_CASE("model config: other families' names (GPT-2, ChatGLM, Mixtral, DeepSeek) are read") {
  ModelShape gpt2 =
      parsed(R"({"n_head": 25, "n_embd": 1600, "n_layer": 48, "n_inner": 6400, "vocab_size": 50257})");
  CHECK(gpt2.heads == std::optional<int64_t>(25));
  CHECK(gpt2.hidden == std::optional<int64_t>(1600));
  CHECK(gpt2.layers == std::optional<int64_t>(48));
  CHECK(gpt2.ffn == std::optional<int64_t>(6400));
  ModelShape glm = parsed(R"({"num_attention_heads": 32, "multi_query_group_num": 2, "ffn_hidden_size": 13696,
      "padded_vocab_size": 65024, "num_layers": 28, "hidden_size": 4096})");
  CHECK(glm.kv_heads == std::optional<int64_t>(2));
  CHECK(glm.ffn == std::optional<int64_t>(13696));
  CHECK(glm.vocab == std::optional<int64_t>(65024));
  CHECK(glm.layers == std::optional<int64_t>(28));
  ModelShape moe = parsed(R"({"num_attention_heads": 128, "hidden_size": 7168, "n_routed_experts": 256,
      "moe_intermediate_size": 2048, "intermediate_size": 18432, "num_hidden_layers": 61})");
  CHECK(moe.experts == std::optional<int64_t>(256));
  CHECK(moe.moe_ffn == std::optional<int64_t>(2048));
  CHECK(moe.ffn == std::optional<int64_t>(18432));
}

TEST_CASE("model config: the first name present wins, and a value that is no integer is passed over") {
  ModelShape shape = parsed(R"({"num_attention_heads": 40, "n_head": 8, "hidden_size": "5120", "n_embd": 5120,
      "num_hidden_layers": 40.0, "n_layer": 40})");
  CHECK(shape.heads == std::optional<int64_t>(40));
  CHECK(shape.hidden == std::optional<int64_t>(5120));  // from n_embd: the string is no size
  CHECK(shape.layers == std::optional<int64_t>(40));    // from n_layer: 40.0 is no integer
}

TEST_CASE("model config: a multimodal config's nested language model comes first, with its section") {
  ModelShape shape = parsed(R"({"model_type": "llava", "hidden_size": 1024, "vocab_size": 32064,
      "text_config": {"model_type": "llama", "num_attention_heads": 32, "hidden_size": 4096, "num_hidden_layers": 32},
      "vision_config": {"num_attention_heads": 16, "hidden_size": 1024}})");
  CHECK(shape.section == "text_config");
  CHECK(shape.model_type == "llama");
  CHECK(shape.heads == std::optional<int64_t>(32));
  CHECK(shape.hidden == std::optional<int64_t>(4096));  // the language model's, not the top level's
  CHECK(shape.vocab == std::optional<int64_t>(32064));  // what the nested section lacks comes from the top
  CHECK(shape.vision_heads == std::optional<int64_t>(16));
}

TEST_CASE("model config: a nested section without heads is not the language model's") {
  ModelShape shape = parsed(R"({"num_attention_heads": 28, "hidden_size": 3584, "num_hidden_layers": 28,
      "llm_config": {"vocab_size": 152064}, "visual": {"num_heads": 16}})");
  CHECK(shape.section == "");
  CHECK(shape.heads == std::optional<int64_t>(28));
  CHECK(shape.vocab == std::optional<int64_t>(152064));
  CHECK(shape.vision_heads == std::optional<int64_t>(16));
}

TEST_CASE("model config: errors name the file") {
  auto broken = parse_model_config("{not json", "models/x/config.json");
  REQUIRE_FALSE(broken);
  CHECK(broken.status().message() ==
        "models/x/config.json: not valid JSON (The JSON document has an improper structure: missing or "
        "superfluous "
        "commas, braces, missing keys, etc.)");
  auto list = parse_model_config("[1, 2]", "config.json");
  REQUIRE_FALSE(list);
  CHECK(list.status().message() == "config.json: not a JSON object");
  auto sizeless = parse_model_config(R"({"model_type": "bert", "vocab_size": 30522})", "config.json");
  REQUIRE_FALSE(sizeless);
  CHECK(sizeless.status().message() ==
        "config.json: no model sizes found (num_attention_heads, hidden_size, num_hidden_layers)");
}
