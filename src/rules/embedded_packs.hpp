// The rule packs of rules/, compiled into the binary: faultline-packc (src/rules/packc.cpp)
// loads each from YAML when faultline is built and writes its rules, encoded by
// rules/pack_codec.hpp, into a generated source file.
#pragma once

#include <span>
#include <string_view>

namespace faultline::rules {

struct EmbeddedPack {
  std::string_view name;     // "rules/tensor_parallel.yaml"
  std::string_view encoded;  // for decode_rules
};

// In the order of their file names, the order in which RuleSet::shipped adds them. The views
// point into static storage.
std::span<const EmbeddedPack> embedded_packs();

// The literals of those rules for the literal screen, planned (rules/rule_literals.hpp); empty
// when some pattern has no literal to stand for it.
std::string_view shipped_rule_literals();

}  // namespace faultline::rules
