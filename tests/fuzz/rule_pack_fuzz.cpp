// Fuzz target: the rule-pack loader (YAML through yaml-cpp, validation, RE2 patterns,
// expressions, templates), and the pack codec over what it accepts.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rules/pack_codec.hpp"
#include "rules/rule_set.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace faultline::rules;
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  auto rules = load_pack(yaml, "fuzz.yaml");
  if (rules) decode_rules(encode_rules(*rules));
  return 0;
}
