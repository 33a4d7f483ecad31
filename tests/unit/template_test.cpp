// Template (src/rules/template.hpp): text with {expression} holes.
#include "rules/template.hpp"

#include <doctest/doctest.h>

using faultline::Facts;
using faultline::Value;
using faultline::rules::Template;

namespace {

std::optional<std::string> render(std::string_view text, const Facts& facts = {}) {
  auto parsed = Template::parse(text);
  REQUIRE_MESSAGE(parsed.is_ok(), parsed.status().message());
  return parsed->render(facts);
}

std::string parse_error(std::string_view text) {
  auto parsed = Template::parse(text);
  if (parsed) return "(parsed)";
  return parsed.status().message();
}

const Facts kFacts{{"heads", Value(int64_t{32})}, {"tp", Value(int64_t{6})}};

}  // namespace

TEST_CASE("text without holes renders as itself") {
  CHECK(render("plain text") == std::optional<std::string>("plain text"));
  CHECK(render("") == std::optional<std::string>(""));
}

TEST_CASE("holes render the value of their expression") {
  CHECK(render("{heads} heads over {tp} ranks, {heads % tp} left", kFacts) ==
        std::optional<std::string>("32 heads over 6 ranks, 2 left"));
}

TEST_CASE("list values render as comma-separated") {
  CHECK(render("Pick a size that divides {heads}: {divisors(heads)}.", kFacts) ==
        std::optional<std::string>("Pick a size that divides 32: 1, 2, 4, 8, 16, 32."));
  CHECK(render("{divisors(4)}") == std::optional<std::string>("1, 2, 4"));
}

TEST_CASE("doubled braces are literal braces") {
  CHECK(render("{{\"tp\": {tp}}}", kFacts) == std::optional<std::string>("{\"tp\": 6}"));
  CHECK(render("a {{b}} c") == std::optional<std::string>("a {b} c"));
}

TEST_CASE("a missing fact renders nothing") {
  CHECK_FALSE(render("{heads} and {kv_heads}", kFacts).has_value());
}

TEST_CASE("a failing expression renders nothing") {
  CHECK_FALSE(render("{heads / 0}", kFacts).has_value());
}

TEST_CASE("fact_names lists the facts of every hole") {
  auto parsed = Template::parse("{heads} over {tp}: {divisors(heads)}");
  REQUIRE(parsed.is_ok());
  CHECK(parsed->fact_names() == std::vector<std::string>{"heads", "tp", "heads"});
  CHECK(parsed->source() == "{heads} over {tp}: {divisors(heads)}");
}

TEST_CASE("an expression error names its column in the template") {
  CHECK(parse_error("Pick {divisor(heads)}") == "column 7: unknown function 'divisor'");
  CHECK(parse_error("ab {heads %}") == "column 12: expected a value");
  CHECK(parse_error("x {gcd(1)}") == "column 4: gcd() takes 2 argument(s), given 1");
}

TEST_CASE("an unclosed brace is an error at its column") {
  CHECK(parse_error("abc {heads") == "column 5: unclosed '{'");
}

TEST_CASE("a lone closing brace is an error at its column") {
  CHECK(parse_error("abc } def") == "column 5: unmatched '}'");
}

TEST_CASE("an empty hole is an error") {
  CHECK(parse_error("a {} b") == "column 4: expected a value");
}

TEST_CASE("a deferred template parses at its first use and renders as a parsed one") {
  std::string text = "Pick one of {divisors(heads)} below {tp}; {{literal}}";
  Template deferred = Template::deferred(text);
  CHECK(deferred.source() == text);
  CHECK(deferred.render(kFacts) == render(text, kFacts));
  CHECK(deferred.fact_names() == std::vector<std::string>{"heads", "tp"});
  // A copy renders alike.
  Template copy = deferred;
  CHECK(copy.render(kFacts) == render(text, kFacts));
  CHECK_FALSE(deferred.render({}).has_value());
}

TEST_CASE("a deferred template whose text does not parse renders as it stands") {
  CHECK(Template::deferred("abc {heads").render(kFacts) == std::optional<std::string>("abc {heads"));
}

TEST_CASE("prose renders what its facts allow: a sentence or parenthesis that needs a missing fact goes") {
  auto prose = [](std::string_view text, const Facts& facts) {
    return Template::parse(text)->render_prose(facts);
  };
  CHECK(prose("{heads} heads. Over {tp} ranks.", kFacts) == "32 heads. Over 6 ranks.");
  CHECK(prose("Ray asked for GPUs ({gpus} in total) and found none. Start the node.", kFacts) ==
        "Ray asked for GPUs and found none. Start the node.");
  CHECK(prose("The {gpus} GPUs were too few. Pick a TP that divides {heads}.", kFacts) ==
        "Pick a TP that divides 32.");
  CHECK(prose("Nothing of {gpus}.", kFacts).empty());
  // A dot inside a hole ends no sentence.
  CHECK(prose("Sizes {divisors(heads)}. Then {gpus}.", kFacts) == "Sizes 1, 2, 4, 8, 16, 32.");
}
