// Template matching (src/rules/template_match.hpp): which patterns treat every digit alike, and
// that a result cached on a template is the one RE2 gives on the text itself.
#include "rules/template_match.hpp"

#include <doctest/doctest.h>
#include <re2/re2.h>

#include <string>
#include <vector>

#include "rules/rule_set.hpp"

using faultline::rules::digit_uniform;
using faultline::rules::TemplateCache;

namespace {

// Every digit of `text` moved on by `step` (mod 10).
std::string shift_digits(std::string text, int step) {
  for (char& c : text) {
    if (c >= '0' && c <= '9') c = static_cast<char>('0' + (c - '0' + step) % 10);
  }
  return text;
}

// RE2's match of `pattern` on `text`, as offsets (group 0 first; -1 where a group took no part).
std::vector<std::pair<long, size_t>> spans(const RE2& regex, const std::string& text) {
  std::vector<re2::StringPiece> groups(static_cast<size_t>(regex.NumberOfCapturingGroups()) + 1);
  re2::StringPiece input(text);
  if (!regex.Match(input, 0, input.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size())))
    return {};
  std::vector<std::pair<long, size_t>> out;
  for (const auto& group : groups) {
    out.emplace_back(group.data() ? group.data() - text.data() : -1, group.size());
  }
  return out;
}

}  // namespace

TEST_CASE("a pattern that names no digit and whose classes hold all digits or none is digit-uniform") {
  CHECK(digit_uniform(R"(CUDA out of memory\. Tried to allocate (?P<size>[\d.]+) (?P<unit>[KMG]iB))"));
  CHECK(digit_uniform(R"(rank (?P<rank>\d+) of \w+)"));
  CHECK(digit_uniform(R"(Xid \(PCI:[0-9a-f:.]+\): (?P<xid>\d{2,3}))"));
  CHECK(digit_uniform(R"([^0-9]+ is not divisible by)"));
  CHECK(digit_uniform(R"(x[[:digit:]]+ (?P<gpu0>\S+))"));
  CHECK(digit_uniform(R"(a{2}b{1,}c{1,3} \{literal\})"));
}

TEST_CASE("a pattern with a digit of its own or a class of some digits is not digit-uniform") {
  CHECK_FALSE(digit_uniform(R"(exit code 1\b)"));
  CHECK_FALSE(digit_uniform(R"(Xid (?:79|48))"));
  CHECK_FALSE(digit_uniform(R"(code [1-9]\d*)"));
  CHECK_FALSE(digit_uniform(R"([^0] free)"));
  CHECK_FALSE(digit_uniform(R"(\x41)"));
  CHECK_FALSE(digit_uniform(R"(\pN)"));
  CHECK_FALSE(digit_uniform(R"(\QNCCL 2.18\E)"));
  CHECK_FALSE(digit_uniform(R"(unclosed [class)"));
  CHECK_FALSE(digit_uniform(R"(a{3x})"));  // not a repetition: a literal brace, then a 3
}

TEST_CASE("the cache gives back what was stored for a text with the same template, and nothing else") {
  TemplateCache cache;
  TemplateCache::Result stored;
  stored.matched = true;
  stored.groups = {{2, 5}, {-1, 0}};
  cache.store(7, "a 123 b", stored);
  const TemplateCache::Result* same = cache.find(7, "a 905 b");
  REQUIRE(same != nullptr);
  CHECK(same->matched);
  CHECK(same->groups.size() == 2);
  CHECK(same->groups[0].begin == 2);
  CHECK(same->groups[1].begin == -1);
  CHECK(cache.find(8, "a 905 b") == nullptr);   // another pattern
  CHECK(cache.find(7, "a 9051 b") == nullptr);  // another length
  CHECK(cache.find(7, "a 9x5 b") == nullptr);   // a letter for a digit
  std::string long_text(TemplateCache::kMaxText + 1, 'x');
  cache.store(7, long_text, stored);
  CHECK(cache.find(7, long_text) == nullptr);
}

// The property the cache rests on, for every shipped pattern it serves: moving every digit of a
// line to another digit leaves RE2's match and groups where they were. Lines: every rule's examples.
TEST_CASE("each shipped digit-uniform pattern matches a line with its digits changed at the same offsets") {
  static const faultline::rules::RuleSet rules = faultline::rules::RuleSet::shipped();
  size_t patterns = 0, uniform = 0, compared = 0, matched = 0;
  std::vector<std::string> lines;
  for (const auto* rule : rules.rules()) {
    for (const auto& example : rule->match_examples) lines.push_back(example.text);
    for (const auto& example : rule->no_match_examples) lines.push_back(example);
  }
  for (const auto* rule : rules.rules()) {
    for (const auto& pattern : rule->match) {
      ++patterns;
      if (!pattern.digit_uniform()) continue;
      ++uniform;
      for (const auto& line : lines) {
        if (line.find_first_of("0123456789") == std::string::npos) continue;
        auto original = spans(pattern.regex(), line);
        for (int step : {1, 7}) {
          INFO("rule " << rule->id << " pattern " << pattern.text << " on " << line);
          CHECK(spans(pattern.regex(), shift_digits(line, step)) == original);
          ++compared;
        }
        matched += original.empty() ? 0 : 1;
      }
    }
  }
  MESSAGE(uniform << " of " << patterns << " patterns digit-uniform; " << compared << " comparisons, "
                  << matched << " on lines they match");
  CHECK(uniform * 2 > patterns);  // most patterns are served: the cache is worth its place
  CHECK(matched > 100);
}
