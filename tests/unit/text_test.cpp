// Text helpers of src/base/text.hpp and the Value helpers of src/base/value.hpp.
#include "base/text.hpp"

#include <doctest/doctest.h>

#include "base/value.hpp"

using namespace faultline;

TEST_CASE("format_ranges collapses runs of three or more into a dash") {
  CHECK(format_ranges({0, 1, 2, 4, 5, 6, 7}) == "0-2,4-7");
  CHECK(format_ranges({3, 4, 5}) == "3-5");
}

TEST_CASE("format_ranges writes a run of two as two values") {
  CHECK(format_ranges({0, 1}) == "0,1");
  CHECK(format_ranges({0, 1, 5, 6, 7}) == "0,1,5-7");
}

TEST_CASE("format_ranges of single values and of nothing") {
  CHECK(format_ranges({}) == "");
  CHECK(format_ranges({3}) == "3");
  CHECK(format_ranges({1, 3, 5}) == "1,3,5");
}

TEST_CASE("take_integer reads leading digits and advances past them") {
  std::string_view text = "123abc";
  auto value = take_integer(text);
  REQUIRE(value);
  CHECK(*value == 123);
  CHECK(text == "abc");
}

TEST_CASE("take_integer leaves the text alone when it does not start with a digit") {
  std::string_view text = "abc";
  CHECK_FALSE(take_integer(text));
  CHECK(text == "abc");
  std::string_view empty;
  CHECK_FALSE(take_integer(empty));
}

TEST_CASE("take_integer refuses a minus sign") {
  std::string_view text = "-5 rest";
  CHECK_FALSE(take_integer(text));
  CHECK(text == "-5 rest");
}

TEST_CASE("take_integer refuses a number out of range") {
  std::string_view text = "99999999999999999999";
  CHECK_FALSE(take_integer(text));
}

TEST_CASE("parse_integer needs the whole text to be digits") {
  CHECK(parse_integer("42") == std::optional<int64_t>(42));
  CHECK(parse_integer("007") == std::optional<int64_t>(7));
  CHECK_FALSE(parse_integer("42x"));
  CHECK_FALSE(parse_integer(" 42"));
  CHECK_FALSE(parse_integer(""));
  CHECK_FALSE(parse_integer("-1"));
}

TEST_CASE("trim removes spaces, tabs, CR and LF at both ends only") {
  CHECK(trim("  \t a b \r\n") == "a b");
  CHECK(trim_left("  a ") == "a ");
  CHECK(trim_right("  a \n") == "  a");
  CHECK(trim("   ") == "");
}

TEST_CASE("starts_with_word needs a word boundary after the word") {
  CHECK(starts_with_word("ERROR - x", "ERROR"));
  CHECK(starts_with_word("ERROR", "ERROR"));
  CHECK(starts_with_word("ERROR:", "ERROR"));
  CHECK_FALSE(starts_with_word("ERRORS", "ERROR"));
  CHECK_FALSE(starts_with_word("ERROR_1", "ERROR"));
  CHECK_FALSE(starts_with_word("WARN", "ERROR"));
}

TEST_CASE("join puts the separator between parts only") {
  CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(join({"a"}, ", ") == "a");
  CHECK(join({}, ", ") == "");
}

TEST_CASE("to_display prints integers, strings and lists with comma-space") {
  CHECK(to_display(Value(int64_t{32})) == "32");
  CHECK(to_display(Value(std::string("text"))) == "text");
  CHECK(to_display(Value(IntList{1, 2, 4, 8})) == "1, 2, 4, 8");
  CHECK(to_display(Value(StringList{"a", "b"})) == "a, b");
  CHECK(to_display(Value(IntList{})) == "");
}

TEST_CASE("value_from_capture turns all-digit captures into integers") {
  CHECK(value_from_capture("32") == Value(int64_t{32}));
  CHECK(value_from_capture("0032") == Value(int64_t{32}));
  CHECK(value_from_capture("32a") == Value(std::string("32a")));
  CHECK(value_from_capture("") == Value(std::string("")));
  // Too long to be a sensible integer: kept as text instead of overflowing.
  CHECK(value_from_capture("1234567890123456789012") == Value(std::string("1234567890123456789012")));
}

TEST_CASE("set_fact replaces an existing fact in place and appends a new one") {
  Facts facts;
  set_fact(facts, "heads", int64_t{32});
  set_fact(facts, "tp", int64_t{6});
  set_fact(facts, "heads", int64_t{12});
  REQUIRE(facts.size() == 2);
  CHECK(facts[0].first == "heads");
  CHECK(facts[0].second == Value(int64_t{12}));
  CHECK(facts[1].first == "tp");
  REQUIRE(find_fact(facts, "tp") != nullptr);
  CHECK(*find_fact(facts, "tp") == Value(int64_t{6}));
  CHECK(find_fact(facts, "layers") == nullptr);
}

TEST_CASE("find_text in a view with no bytes behind it (sanitizer: memmem was given a null pointer)") {
  std::string_view nothing;
  CHECK(find_text(nothing, "Error") == std::string_view::npos);
  CHECK(find_text(nothing, "") == 0);
  CHECK(find_text("Err", "Error") == std::string_view::npos);
  CHECK(find_text("an Error", "Error") == 3);
}
