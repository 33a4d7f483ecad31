// Expression (src/rules/expression.hpp): the language of `when`, `derive` and template holes.
#include "rules/expression.hpp"

#include <doctest/doctest.h>

using faultline::Facts;
using faultline::IntList;
using faultline::StringList;
using faultline::Value;
using faultline::rules::Expression;

namespace {

// The value of `text` over `facts`; fails the test when parsing or evaluation fails.
Value eval(std::string_view text, const Facts& facts = {}) {
  auto expression = Expression::parse(text);
  REQUIRE_MESSAGE(expression.is_ok(), expression.status().message());
  auto value = expression->evaluate(facts);
  REQUIRE_MESSAGE(value.is_ok(), value.status().message());
  return *value;
}

Value integer(int64_t n) {
  return Value(n);
}

std::string parse_error(std::string_view text) {
  auto expression = Expression::parse(text);
  if (expression) return "(parsed)";
  return expression.status().message();
}

std::string evaluate_error(std::string_view text, const Facts& facts = {}) {
  auto expression = Expression::parse(text);
  REQUIRE(expression.is_ok());
  auto value = expression->evaluate(facts);
  if (value) return "(evaluated)";
  return value.status().message();
}

}  // namespace

TEST_CASE("multiplication binds tighter than addition") {
  CHECK(eval("2 + 3 * 4") == integer(14));
  CHECK(eval("(2 + 3) * 4") == integer(20));
  CHECK(eval("20 / 4 + 1") == integer(6));
}

TEST_CASE("operators of one level associate to the left") {
  CHECK(eval("10 - 4 - 3") == integer(3));
  CHECK(eval("64 / 4 / 2") == integer(8));
}

TEST_CASE("remainder and integer division") {
  CHECK(eval("32 % 6") == integer(2));
  CHECK(eval("32 % 8") == integer(0));
  CHECK(eval("7 / 2") == integer(3));
  CHECK(eval("2 * 7 % 4") == integer(2));
}

TEST_CASE("unary minus and not") {
  CHECK(eval("-3 + 5") == integer(2));
  CHECK(eval("2 - -3") == integer(5));
  CHECK(eval("!0") == integer(1));
  CHECK(eval("!7") == integer(0));
  CHECK(eval("!!7") == integer(1));
}

TEST_CASE("comparisons give 1 or 0") {
  CHECK(eval("3 < 4") == integer(1));
  CHECK(eval("4 < 4") == integer(0));
  CHECK(eval("4 <= 4") == integer(1));
  CHECK(eval("5 > 4") == integer(1));
  CHECK(eval("4 >= 5") == integer(0));
  CHECK(eval("4 == 4") == integer(1));
  CHECK(eval("4 != 4") == integer(0));
  CHECK(eval("3 != 4") == integer(1));
}

TEST_CASE("comparisons bind looser than arithmetic") {
  CHECK(eval("32 % 6 != 0") == integer(1));
  CHECK(eval("1 + 2 == 3") == integer(1));
}

TEST_CASE("&& binds tighter than ||") {
  CHECK(eval("1 || 0 && 0") == integer(1));
  CHECK(eval("(1 || 0) && 0") == integer(0));
  CHECK(eval("0 || 2 > 1 && 3 == 3") == integer(1));
}

TEST_CASE("&& and || short-circuit over a missing fact") {
  CHECK(eval("0 && missing") == integer(0));
  CHECK(eval("1 || missing") == integer(1));
}

TEST_CASE("facts are read by name") {
  Facts facts{{"heads", integer(32)}, {"tp", integer(6)}};
  CHECK(eval("heads % tp", facts) == integer(2));
  CHECK(eval("heads % tp != 0", facts) == integer(1));
  CHECK(eval("heads / tp", facts) == integer(5));
}

TEST_CASE("equality compares strings and lists too") {
  Facts facts{{"op", Value(std::string("ALLREDUCE"))}, {"other", Value(std::string("ALLREDUCE"))}};
  CHECK(eval("op == other", facts) == integer(1));
  CHECK(eval("divisors(4) == divisors(4)") == integer(1));
  CHECK(eval("divisors(4) != divisors(6)") == integer(1));
}

TEST_CASE("fact_names lists each fact once in order of first use") {
  auto expression = Expression::parse("heads % tp != 0 && divisors(heads) && kv_heads");
  REQUIRE(expression.is_ok());
  CHECK(expression->fact_names() == std::vector<std::string>{"heads", "tp", "kv_heads"});
  CHECK(expression->text() == "heads % tp != 0 && divisors(heads) && kv_heads");
}

TEST_CASE("divisors gives a list") {
  CHECK(eval("divisors(12)") == Value(IntList{1, 2, 3, 4, 6, 12}));
  Facts facts{{"heads", integer(32)}};
  CHECK(eval("divisors(heads)", facts) == Value(IntList{1, 2, 4, 8, 16, 32}));
}

TEST_CASE("valid_tp_sizes, divisors_le, common_divisors and largest_divisor_le") {
  CHECK(eval("valid_tp_sizes(32, 8)") == Value(IntList{1, 2, 4, 8, 16, 32}));
  CHECK(eval("divisors_le(32, 6)") == Value(IntList{1, 2, 4}));
  CHECK(eval("common_divisors(12, 18)") == Value(IntList{1, 2, 3, 6}));
  CHECK(eval("largest_divisor_le(32, 6)") == integer(4));
}

TEST_CASE("next_multiple, gcd, lcm, min and max") {
  CHECK(eval("next_multiple(32001, 64)") == integer(32064));
  CHECK(eval("gcd(12, 18)") == integer(6));
  CHECK(eval("lcm(4, 6)") == integer(12));
  CHECK(eval("min(3, 9)") == integer(3));
  CHECK(eval("max(3, 9)") == integer(9));
}

TEST_CASE("layouts and layouts_for give lists of strings") {
  CHECK(eval("layouts(4)") == Value(StringList{"TP=1\xc3\x97PP=4", "TP=2\xc3\x97PP=2", "TP=4\xc3\x97PP=1"}));
  CHECK(eval("layouts_for(8, 12, 30)") == Value(StringList{"TP=4\xc3\x97PP=2"}));
}

TEST_CASE("function arguments are expressions") {
  Facts facts{{"heads", integer(32)}, {"tp", integer(3)}};
  CHECK(eval("largest_divisor_le(heads, tp * 2)", facts) == integer(4));
  CHECK(eval("divisors(gcd(heads, 12))", facts) == Value(IntList{1, 2, 4}));
}

TEST_CASE("function_names lists every function") {
  CHECK(faultline::rules::function_names() ==
        std::vector<std::string>{"common_divisors", "divisors", "divisors_le", "gcd", "largest_divisor_le",
                                 "layouts", "layouts_for", "lcm", "max", "min", "next_multiple",
                                 "valid_tp_sizes"});
}

TEST_CASE("an unknown function is a parse error at its column") {
  CHECK(parse_error("heads % divisor(tp)") == "column 9: unknown function 'divisor'");
  CHECK(parse_error("foo(1)") == "column 1: unknown function 'foo'");
}

TEST_CASE("a wrong number of arguments is a parse error at the function's column") {
  CHECK(parse_error("divisors(1, 2)") == "column 1: divisors() takes 1 argument(s), given 2");
  CHECK(parse_error("1 + gcd(4)") == "column 5: gcd() takes 2 argument(s), given 1");
  CHECK(parse_error("layouts_for()") == "column 1: layouts_for() takes 3 argument(s), given 0");
}

TEST_CASE("syntax errors name the column") {
  CHECK(parse_error("heads %") == "column 8: expected a value");
  CHECK(parse_error("(heads") == "column 7: expected ')'");
  CHECK(parse_error("heads tp") == "column 7: unexpected 't'");
  CHECK(parse_error("heads = 3") == "column 7: unexpected '='");
  CHECK(parse_error("3 $ 4") == "column 3: unexpected '$'");
  CHECK(parse_error("divisors(4") == "column 11: expected ')' after the arguments of divisors");
}

TEST_CASE("a number too large for 64 bits is a parse error") {
  CHECK(parse_error("99999999999999999999") == "column 1: number out of range");
}

TEST_CASE("a missing fact fails at evaluation, not at parsing") {
  CHECK(evaluate_error("heads % tp", {{"heads", integer(32)}}) == "missing fact 'tp'");
}

TEST_CASE("division and remainder by zero fail at evaluation") {
  CHECK(evaluate_error("4 / 0") == "division by zero");
  CHECK(evaluate_error("4 % (2 - 2)") == "division by zero");
}

TEST_CASE("arithmetic on a string or a list fails at evaluation") {
  CHECK(evaluate_error("op + 1", {{"op", Value(std::string("ALLREDUCE"))}}) ==
        "'+' needs an integer, got 'ALLREDUCE'");
  CHECK(evaluate_error("divisors(4) * 2") == "'*' needs an integer, got '1, 2, 4'");
  CHECK(evaluate_error("divisors(op)", {{"op", Value(std::string("x"))}}) ==
        "divisors() needs an integer, got 'x'");
}

TEST_CASE("is_true: non-zero integers and non-empty strings and lists") {
  using faultline::rules::is_true;
  CHECK(is_true(integer(2)));
  CHECK_FALSE(is_true(integer(0)));
  CHECK(is_true(Value(std::string("x"))));
  CHECK_FALSE(is_true(Value(std::string())));
  CHECK(is_true(Value(IntList{1})));
  CHECK_FALSE(is_true(Value(IntList{})));
  CHECK_FALSE(is_true(Value(StringList{})));
}

TEST_CASE("integer overflow is an evaluation error") {
  CHECK_FALSE(Expression::parse("(-9223372036854775807 - 1) / -1")->evaluate({}).is_ok());
  CHECK_FALSE(Expression::parse("999999999999999999 * 999999999999999999")->evaluate({}).is_ok());
}
