// Compiled rule packs (src/rules/pack_codec.hpp): every shipped pack's rules come back from
// encode_rules/decode_rules field for field, with patterns that match as the YAML-loaded
// ones do; RuleSet::shipped holds the rules of rules/*.yaml; bad bytes are errors.
#include "rules/pack_codec.hpp"

#include <doctest/doctest.h>
#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "base/text.hpp"
#include "rules/rule_set.hpp"

using faultline::rules::decode_rules;
using faultline::rules::encode_rules;
using faultline::rules::load_pack;
using faultline::rules::Pattern;
using faultline::rules::Rule;
using faultline::rules::RuleSet;
using faultline::rules::Template;

namespace {

struct YamlPack {
  std::string name;  // "rules/nccl.yaml", as faultline-packc names it
  std::string text;
};

std::vector<YamlPack> shipped_yaml() {
  std::vector<YamlPack> packs;
  for (const auto& entry : std::filesystem::directory_iterator(FAULTLINE_TEST_SOURCE_DIR "/rules")) {
    if (entry.path().extension() != ".yaml") continue;
    auto file = faultline::read_small_file(entry.path().string());
    REQUIRE_MESSAGE(file.ok, file.text);
    packs.push_back({"rules/" + entry.path().filename().string(), std::move(file.text)});
  }
  std::sort(packs.begin(), packs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  REQUIRE_FALSE(packs.empty());
  return packs;
}

std::vector<Rule> load_ok(std::string_view yaml, const std::string& origin = "x.yaml") {
  auto rules = load_pack(yaml, origin);
  REQUIRE_MESSAGE(rules.is_ok(), rules.status().message());
  return std::move(*rules);
}

std::string decode_error(std::string_view bytes) {
  auto rules = decode_rules(bytes);
  if (rules) return "(decoded)";
  return rules.status().message();
}

// What a pattern makes of `text`: nothing, or every group's text (unset groups as "<unset>").
std::optional<std::vector<std::string>> match_groups(const Pattern& pattern, std::string_view text) {
  int groups = pattern.regex().NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> found(static_cast<size_t>(groups));
  re2::StringPiece input(text.data(), text.size());
  if (!pattern.regex().Match(input, 0, input.size(), RE2::UNANCHORED, found.data(), groups)) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (auto group : found) out.push_back(group.data() ? std::string(group.data(), group.size()) : "<unset>");
  return out;
}

void check_same_patterns(const std::vector<Pattern>& decoded, const std::vector<Pattern>& loaded,
                         const std::vector<std::string>& texts) {
  REQUIRE(decoded.size() == loaded.size());
  for (size_t i = 0; i < loaded.size(); ++i) {
    CAPTURE(loaded[i].text);
    CHECK(decoded[i].text == loaded[i].text);
    CHECK(decoded[i].captures == loaded[i].captures);
    REQUIRE(decoded[i].compiled != nullptr);
    CHECK(decoded[i].regex().ok());
    CHECK(decoded[i].regex().pattern() == loaded[i].regex().pattern());
    CHECK(decoded[i].regex().options().log_errors() == loaded[i].regex().options().log_errors());
    CHECK(decoded[i].regex().options().encoding() == loaded[i].regex().options().encoding());
    CHECK(decoded[i].regex().options().case_sensitive() == loaded[i].regex().options().case_sensitive());
    CHECK(decoded[i].regex().options().longest_match() == loaded[i].regex().options().longest_match());
    CHECK(decoded[i].regex().options().max_mem() == loaded[i].regex().options().max_mem());
    for (const auto& text : texts) {
      CAPTURE(text);
      CHECK(match_groups(decoded[i], text) == match_groups(loaded[i], text));
    }
  }
}

template <typename T>
void check_same_templates(const std::vector<T>& decoded, const std::vector<T>& loaded) {
  REQUIRE(decoded.size() == loaded.size());
  for (size_t i = 0; i < loaded.size(); ++i) {
    CHECK(decoded[i].source() == loaded[i].source());
    CHECK(decoded[i].fact_names() == loaded[i].fact_names());
  }
}

void check_same_template(const std::optional<Template>& decoded, const std::optional<Template>& loaded) {
  REQUIRE(decoded.has_value() == loaded.has_value());
  if (loaded) check_same_templates(std::vector{*decoded}, std::vector{*loaded});
}

// Facts as the engine would capture them from an example, for rendering templates.
faultline::Facts example_facts(const Rule& rule, std::string_view text) {
  faultline::Facts facts;
  for (const auto& pattern : rule.match) {
    auto groups = match_groups(pattern, text);
    if (!groups) continue;
    for (const auto& [name, index] : pattern.captures) {
      const auto& value = (*groups)[static_cast<size_t>(index)];
      if (value != "<unset>") faultline::set_fact(facts, name, faultline::value_from_capture(value));
    }
    break;
  }
  for (const auto& [name, expression] : rule.derive) {
    if (auto value = expression.evaluate(facts)) faultline::set_fact(facts, name, std::move(*value));
  }
  return facts;
}

void check_same_rule(const Rule& decoded, const Rule& loaded) {
  CAPTURE(loaded.id);
  CHECK(decoded.id == loaded.id);
  CHECK(decoded.cause == loaded.cause);
  CHECK(decoded.title == loaded.title);
  CHECK(decoded.category == loaded.category);
  CHECK(decoded.role == loaded.role);
  CHECK(decoded.reports_peer == loaded.reports_peer);
  CHECK(decoded.logged_error == loaded.logged_error);
  CHECK(decoded.severity == loaded.severity);
  CHECK(decoded.scope == loaded.scope);
  CHECK(decoded.origin == loaded.origin);
  CHECK(decoded.refs == loaded.refs);
  CHECK(decoded.no_match_examples == loaded.no_match_examples);
  REQUIRE(decoded.match_examples.size() == loaded.match_examples.size());
  std::vector<std::string> examples = loaded.no_match_examples;
  for (size_t i = 0; i < loaded.match_examples.size(); ++i) {
    CHECK(decoded.match_examples[i].text == loaded.match_examples[i].text);
    CHECK(decoded.match_examples[i].facts == loaded.match_examples[i].facts);
    examples.push_back(loaded.match_examples[i].text);
  }
  check_same_patterns(decoded.match, loaded.match, examples);
  check_same_patterns(decoded.unless, loaded.unless, examples);
  check_same_patterns(decoded.frames, loaded.frames, examples);
  check_same_patterns(decoded.skip_frames, loaded.skip_frames, examples);
  CHECK(decoded.priority == loaded.priority);

  REQUIRE(decoded.when.has_value() == loaded.when.has_value());
  if (loaded.when) {
    CHECK(decoded.when->text() == loaded.when->text());
    CHECK(decoded.when->fact_names() == loaded.when->fact_names());
  }
  REQUIRE(decoded.derive.size() == loaded.derive.size());
  for (size_t i = 0; i < loaded.derive.size(); ++i) {
    CHECK(decoded.derive[i].first == loaded.derive[i].first);
    CHECK(decoded.derive[i].second.text() == loaded.derive[i].second.text());
  }
  check_same_template(decoded.explain, loaded.explain);
  check_same_templates(decoded.symptoms, loaded.symptoms);
  check_same_templates(decoded.confirm, loaded.confirm);
  check_same_templates(decoded.fix, loaded.fix);
  check_same_template(decoded.verify, loaded.verify);
  check_same_template(decoded.narrative, loaded.narrative);

  // What the parsed expressions and templates make of each example's facts.
  for (const auto& example : loaded.match_examples) {
    CAPTURE(example.text);
    auto facts = example_facts(loaded, example.text);
    CHECK(example_facts(decoded, example.text) == facts);
    if (loaded.when) {
      auto decoded_when = decoded.when->evaluate(facts);
      auto loaded_when = loaded.when->evaluate(facts);
      REQUIRE(decoded_when.is_ok() == loaded_when.is_ok());
      if (loaded_when) CHECK(*decoded_when == *loaded_when);
    }
    if (loaded.explain) CHECK(decoded.explain->render(facts) == loaded.explain->render(facts));
    for (size_t i = 0; i < loaded.fix.size(); ++i) {
      CHECK(decoded.fix[i].render(facts) == loaded.fix[i].render(facts));
    }
    if (loaded.verify) CHECK(decoded.verify->render(facts) == loaded.verify->render(facts));
  }
}

void check_same_rules(const std::vector<Rule>& decoded, const std::vector<Rule>& loaded) {
  REQUIRE(decoded.size() == loaded.size());
  for (size_t i = 0; i < loaded.size(); ++i) check_same_rule(decoded[i], loaded[i]);
}

constexpr std::string_view kSmallPack = R"(rules:
  - id: tp.heads_not_divisible.test
    cause: tp.heads_not_divisible
    title: Heads not divisible
    category: tensor-parallel
    role: symptom
    reports: peer
    severity: warning
    scope: line
    match:
      - 'heads \((?P<heads>\d+)\) by tp \((?P<tp>\d+)\)'
    unless: ['healthy']
    when: heads % tp != 0
    derive:
      valid: divisors(heads)
    explain: '{heads} heads over {tp}, {{literally}}'
    symptoms: ['s']
    confirm: ['c {tp}']
    fix:
      - 'use {valid}'
    verify: 'faultline preflight --tp {largest_divisor_le(heads, tp)}'
    narrative: 'rank waited'
    refs: ['https://example.com']
    examples:
      match:
        - text: 'heads (32) by tp (6)'
          facts: {heads: 32, tp: 6}
      no_match:
        - 'heads (32) by tp (8)'
  - id: cuda.oom
    title: Out of memory
    match: 'CUDA out of memory'
  - id: tp.vocab_not_divisible.test
    cause: tp.vocab_not_divisible
    title: Vocabulary not divisible
    priority: -2
    logged: error
    match: 'AssertionError: (?P<vocab>\d+) is not divisible by (?P<tp>\d+)'
    frames: ['VocabParallelEmbedding|vocab_size']
    skip_frames: ['in divide$']
)";

}  // namespace

TEST_CASE("every shipped pack's rules survive encoding and decoding, field for field") {
  for (const auto& pack : shipped_yaml()) {
    CAPTURE(pack.name);
    auto loaded = load_ok(pack.text, pack.name);
    auto decoded = decode_rules(encode_rules(loaded));
    REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
    check_same_rules(*decoded, loaded);
  }
}

TEST_CASE("a rule with every field set survives encoding and decoding") {
  auto loaded = load_ok(kSmallPack);
  REQUIRE(loaded.size() == 3);
  auto decoded = decode_rules(encode_rules(loaded));
  REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
  check_same_rules(*decoded, loaded);
  const Rule& rule = (*decoded)[0];
  CHECK(rule.role == faultline::rules::Role::kSymptom);
  CHECK(rule.reports_peer);
  CHECK(rule.scope == faultline::rules::Scope::kLine);
  CHECK(rule.explain->render({{"heads", int64_t{32}}, {"tp", int64_t{6}}}) == "32 heads over 6, {literally}");
  CHECK(rule.narrative->source() == "rank waited");
  const Rule& framed = (*decoded)[2];
  CHECK(framed.priority == -2);
  CHECK(framed.logged_error);
  CHECK_FALSE(rule.logged_error);
  REQUIRE(framed.frames.size() == 1);
  CHECK(framed.frames[0].text == "VocabParallelEmbedding|vocab_size");
  REQUIRE(framed.skip_frames.size() == 1);
  CHECK(framed.skip_frames[0].text == "in divide$");
  CHECK(rule.match[0].captures == std::vector<std::pair<std::string, int>>{{"heads", 1}, {"tp", 2}});
}

TEST_CASE("an empty list of rules survives encoding and decoding") {
  auto decoded = decode_rules(encode_rules({}));
  REQUIRE(decoded.is_ok());
  CHECK(decoded->empty());
}

TEST_CASE("RuleSet::shipped holds the rules of rules/*.yaml, in pack order, later ids replacing earlier") {
  RuleSet from_yaml;
  for (const auto& pack : shipped_yaml()) from_yaml.add_rules(load_ok(pack.text, pack.name));
  auto shipped = RuleSet::shipped();
  CHECK(shipped.errors() == std::vector<std::string>{});
  REQUIRE(shipped.rules().size() == from_yaml.rules().size());
  for (size_t i = 0; i < from_yaml.rules().size(); ++i) {
    check_same_rule(*shipped.rules()[i], *from_yaml.rules()[i]);
  }
}

TEST_CASE("every truncation of a compiled pack is an error") {
  std::string bytes = encode_rules(load_ok(kSmallPack));
  for (size_t size = 0; size < bytes.size(); ++size) {
    CAPTURE(size);
    CHECK_FALSE(decode_rules(std::string_view(bytes).substr(0, size)).is_ok());
  }
}

TEST_CASE("truncations of a shipped pack are errors") {
  auto packs = shipped_yaml();
  std::string bytes = encode_rules(load_ok(packs[0].text, packs[0].name));
  for (size_t size = 0; size < bytes.size(); size += 1 + bytes.size() / 64) {
    CAPTURE(size);
    CHECK_FALSE(decode_rules(std::string_view(bytes).substr(0, size)).is_ok());
  }
}

TEST_CASE("a truncated string names its byte and what was left") {
  auto rules = load_ok(kSmallPack);
  rules.resize(2);
  std::string bytes = encode_rules(rules);
  // The header is 12 bytes (magic, version, count); the first rule starts with its origin,
  // "x.yaml:2", and its id.
  CHECK(decode_error(std::string_view(bytes).substr(0, 20)) == "byte 16: a string of 8 bytes with 4 left");
  CHECK(decode_error(std::string_view(bytes).substr(0, 26)) ==
        "byte 24: a string length of 4 bytes with 2 left");
  CHECK(decode_error(std::string_view(bytes).substr(0, 14)) == "byte 8: a count of 2 with 2 bytes left");
}

TEST_CASE("bytes that are not a compiled pack are rejected by their magic") {
  CHECK(decode_error("") == "byte 0: the magic of 4 bytes with 0 left");
  CHECK(decode_error("rules:\n  - id: x\n") == "byte 0: not a compiled rule pack (no 'FLRP' magic)");
}

TEST_CASE("another format version is rejected") {
  std::string bytes = encode_rules({});
  bytes[4] = 9;
  CHECK(decode_error(bytes) == "byte 4: format version 9, this faultline reads version 4");
}

TEST_CASE("a count larger than the bytes left is rejected before reading") {
  std::string bytes = encode_rules({});
  bytes[11] = '\x7f';
  CHECK(decode_error(bytes) == "byte 8: a count of 2130706432 with 0 bytes left");
}

TEST_CASE("bytes after the last rule are rejected") {
  CHECK(decode_error(encode_rules({}) + "xy") == "byte 12: 2 bytes after the last rule");
}

TEST_CASE("a role or scope out of range is rejected") {
  auto rules = load_ok(R"(rules:
  - id: cuda.oom
    title: T
    category: C
    match: 'a'
)");
  std::string bytes = encode_rules(rules);
  // Header 12, then origin "x.yaml:2" (12), id (12), cause (12), title (5), category (5).
  size_t role = 12 + 12 + 12 + 12 + 5 + 5;
  REQUIRE(bytes[role] == 0);
  std::string bad_role = bytes;
  bad_role[role] = 7;
  CHECK(decode_error(bad_role) ==
        "byte 58: role 7 is none of 0 (root_cause), 1 (symptom), 2 (recovery), 3 (fact)");
  size_t scope = role + 1 + 4 + 5;  // role, severity "error"
  REQUIRE(bytes[scope] == 0);
  std::string bad_scope = bytes;
  bad_scope[scope] = 3;
  CHECK(decode_error(bad_scope) == "byte 68: scope 3 is none of 0 (message), 1 (event), 2 (line)");
}

TEST_CASE("a pattern RE2 rejects names its rule") {
  auto rules = load_ok(kSmallPack);
  rules[1].match[0].text = "(unclosed";
  CHECK(decode_error(encode_rules(rules)) ==
        "byte " + std::to_string(encode_rules({rules[0]}).size()) +
            ": rule 'cuda.oom' (x.yaml:30): bad regex in 'match': missing ): (unclosed");
}

TEST_CASE("captures that differ from the compiled pattern's are rejected") {
  auto rules = load_ok(kSmallPack);
  rules[0].match[0].captures[1].first = "pp";
  CHECK(decode_error(encode_rules(rules)) ==
        "byte 12: rule 'tp.heads_not_divisible.test' (x.yaml:2): the captures of 'match' pattern "
        "'heads \\((?P<heads>\\d+)\\) by tp \\((?P<tp>\\d+)\\)' differ from those it was compiled with");
}

TEST_CASE("a template that does not parse names its rule") {
  auto rules = load_ok(kSmallPack);
  rules[0].fix.push_back(*Template::parse("plain"));
  std::string bytes = encode_rules(rules);
  auto at = bytes.find("plain");
  REQUIRE(at != std::string::npos);
  bytes[at] = '{';
  CHECK(decode_error(bytes) ==
        "byte 12: rule 'tp.heads_not_divisible.test' (x.yaml:2): in 'fix': column 1: unclosed '{'");
}

TEST_CASE("corrupt bytes anywhere in a shipped pack give rules or an error, never a crash") {
  auto packs = shipped_yaml();
  std::string bytes = encode_rules(load_ok(packs.back().text, packs.back().name));
  std::mt19937 random(42);
  std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  int errors = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::string corrupt = bytes;
    for (int flip = 0; flip < 3; ++flip) corrupt[position(random)] = static_cast<char>(value(random));
    if (!decode_rules(corrupt)) ++errors;
  }
  CHECK(errors > 0);
}
