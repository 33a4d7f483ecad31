// The rule packs of rules/, compiled into the binary by cmake/EmbedRules.cmake.
#pragma once

#include <span>
#include <string_view>

namespace faultline::rules {

struct EmbeddedPack {
  std::string_view name;  // "rules/tensor_parallel.yaml"
  std::string_view text;
};

std::span<const EmbeddedPack> embedded_packs();

}  // namespace faultline::rules
