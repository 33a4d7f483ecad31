// Expression: the small language of `when`, `derive` and the `{...}` of templates
// (docs/rule-format.md): integers, fact names, arithmetic, comparisons, logic, and the
// tensor-parallel functions of src/tp. Parsed once when a rule loads; unknown functions and
// wrong argument counts are load-time errors. Immutable after parsing; thread-safe to share.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "base/value.hpp"

namespace faultline::rules {

class Expression {
 public:
  struct Node;

  // Errors read "column 7: unknown function 'divisor'" (column within `text`, 1-based).
  static Result<Expression> parse(std::string_view text);

  // The fact names the expression reads, in order of first use.
  const std::vector<std::string>& fact_names() const { return fact_names_; }
  // Fails when a fact is missing or a value has the wrong type.
  Result<Value> evaluate(const Facts& facts) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  std::vector<std::string> fact_names_;
};

// Names of the functions expressions may call, for `faultline explain` and error hints.
std::vector<std::string> function_names();

// Truthiness of a `when` result: non-zero integers and non-empty lists and strings.
bool is_true(const Value& value);

}  // namespace faultline::rules
