// Fact values (src/base/value): how each kind is shown, when a captured string becomes an
// integer, and the fact list's lookups, which keep capture order and the first of a name.
#include "base/value.hpp"

#include <doctest/doctest.h>

#include <string>

using faultline::Facts;
using faultline::IntList;
using faultline::StringList;
using faultline::Value;

TEST_CASE("value: each kind is displayed as the reports show it") {
  CHECK(faultline::to_display(Value(int64_t{32})) == "32");
  CHECK(faultline::to_display(Value(int64_t{-9})) == "-9");
  CHECK(faultline::to_display(Value(std::string("ALLREDUCE"))) == "ALLREDUCE");
  CHECK(faultline::to_display(Value(IntList{1, 2, 4, 8})) == "1, 2, 4, 8");
  CHECK(faultline::to_display(Value(IntList{})) == "");
  CHECK(faultline::to_display(Value(StringList{"node-a", "node-b"})) == "node-a, node-b");
  CHECK(faultline::to_display(Value(StringList{"one"})) == "one");
}

TEST_CASE("value: a capture of digits, with an optional leading '-', is an integer") {
  CHECK(faultline::value_from_capture("32") == Value(int64_t{32}));
  CHECK(faultline::value_from_capture("-6") == Value(int64_t{-6}));
  CHECK(faultline::value_from_capture("0") == Value(int64_t{0}));
  CHECK(faultline::value_from_capture("007") == Value(int64_t{7}));
  CHECK(faultline::value_from_capture("999999999999999999") ==
        Value(int64_t{999999999999999999}));  // 18 digits
}

TEST_CASE("value: anything else stays the text it was") {
  for (const char* text : {"", "-", "--5", "+5", "12a", "3.5", " 4", "4 ", "0x1f", "1234567890123456789"}) {
    CAPTURE(text);
    CHECK(faultline::value_from_capture(text) == Value(std::string(text)));
  }
}

TEST_CASE("facts: lookups by name, the first of a name, integers only for int_fact") {
  Facts facts = {{"heads", Value(int64_t{32})},
                 {"op", Value(std::string("BROADCAST"))},
                 {"heads", Value(int64_t{40})},
                 {"divisors", Value(IntList{1, 2})}};
  REQUIRE(faultline::find_fact(facts, "heads"));
  CHECK(*faultline::find_fact(facts, "heads") == Value(int64_t{32}));
  CHECK(faultline::find_fact(facts, "tp") == nullptr);
  CHECK(faultline::int_fact(facts, "heads") == std::optional<int64_t>(32));
  CHECK_FALSE(faultline::int_fact(facts, "op").has_value());
  CHECK_FALSE(faultline::int_fact(facts, "divisors").has_value());
  CHECK_FALSE(faultline::int_fact(facts, "tp").has_value());
  CHECK(faultline::fact_text(facts, "divisors") == "1, 2");
  CHECK(faultline::fact_text(facts, "op") == "BROADCAST");
  CHECK(faultline::fact_text(facts, "tp") == "");
}

TEST_CASE("facts: set_fact replaces a fact in its place and appends a new one at the end") {
  Facts facts = {{"heads", Value(int64_t{32})}, {"tp", Value(int64_t{6})}};
  faultline::set_fact(facts, "heads", Value(int64_t{40}));
  faultline::set_fact(facts, "kv_heads", Value(int64_t{8}));
  REQUIRE(facts.size() == 3);
  CHECK(facts[0] == std::pair<std::string, Value>{"heads", Value(int64_t{40})});
  CHECK(facts[1] == std::pair<std::string, Value>{"tp", Value(int64_t{6})});
  CHECK(facts[2] == std::pair<std::string, Value>{"kv_heads", Value(int64_t{8})});
  faultline::set_fact(facts, "tp", Value(std::string("six")));  // another kind replaces it too
  CHECK(faultline::fact_text(facts, "tp") == "six");
  CHECK(facts.size() == 3);
}
