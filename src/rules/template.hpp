// Template: text with `{expression}` holes, rendered from a finding's facts
// ("Pick a tensor-parallel size that divides {heads}: {divisors(heads)}."). `{{` and `}}`
// stand for literal braces. Immutable after parsing; thread-safe to share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "rules/expression.hpp"

namespace faultline::rules {

class Template {
 public:
  // Errors read "column 12: unknown function 'divisor'".
  static Result<Template> parse(std::string_view text);

  std::vector<std::string> fact_names() const;
  // Nothing when a fact it needs is missing or an expression fails.
  std::optional<std::string> render(const Facts& facts) const;
  const std::string& source() const { return source_; }

 private:
  struct Piece {
    std::string literal;
    std::optional<Expression> expression;
  };
  std::string source_;
  std::vector<Piece> pieces_;
};

}  // namespace faultline::rules
