// Template: text with `{expression}` holes, rendered from a finding's facts
// ("Pick a tensor-parallel size that divides {heads}: {divisors(heads)}."). `{{` and `}}`
// stand for literal braces. Immutable after parsing; thread-safe to share.
#pragma once

#include <memory>
#include <mutex>
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
  // A template the build has parsed and checked already (a compiled pack's): parsed at its first
  // use, so that a run parses only the templates of the rules it reports.
  static Template deferred(std::string text);

  std::vector<std::string> fact_names() const;
  // Nothing when a fact it needs is missing or an expression fails.
  std::optional<std::string> render(const Facts& facts) const;
  // Prose rendered as far as the facts allow: a sentence, or a parenthesis in it, that needs a
  // missing fact is left out (empty when every sentence does).
  std::string render_prose(const Facts& facts) const;
  const std::string& source() const { return source_; }

 private:
  struct Piece {
    std::string literal;
    std::optional<Expression> expression;
  };
  struct Deferred {
    std::once_flag once;
    std::vector<Piece> pieces;
  };
  const std::vector<Piece>& pieces() const;

  std::string source_;
  std::vector<Piece> pieces_;
  std::shared_ptr<Deferred> deferred_;  // set by deferred(): pieces_ stays empty
};

}  // namespace faultline::rules
