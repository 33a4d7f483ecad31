// The literals the rules declare for the screen, and their planned form: made once at build time
// for the shipped rules, taken at run time only for those very rules, and the same as planning
// afresh.
#include "rules/rule_literals.hpp"

#include <doctest/doctest.h>

#include "rules/engine.hpp"
#include "rules/rule_set.hpp"

using faultline::rules::decode_rule_literals;
using faultline::rules::encode_rule_literals;
using faultline::rules::plan_rule_literals;
using faultline::rules::Rule;
using faultline::rules::RuleSet;
using faultline::screen::Declarations;
using faultline::screen::Stop;

namespace {

const RuleSet& shipped() {
  static const RuleSet set = RuleSet::shipped();
  return set;
}

bool same(const Declarations& a, const Declarations& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].literal.text != b[i].literal.text || a[i].literal.caseless != b[i].literal.caseless ||
        a[i].stop != b[i].stop || a[i].owners != b[i].owners)
      return false;
  }
  return true;
}

Rule rule_with(std::string id, faultline::rules::Scope scope, std::string pattern) {
  Rule rule;
  rule.id = std::move(id);
  rule.scope = scope;
  rule.match.push_back(faultline::rules::deferred_pattern(std::move(pattern), {}));
  return rule;
}

}  // namespace

TEST_CASE("each rule pattern is covered by literals owned by the rules that need them") {
  Rule oom = rule_with("oom", faultline::rules::Scope::kLine, "CUDA out of memory");
  Rule heads = rule_with("heads", faultline::rules::Scope::kMessage, "heads \\((?P<heads>\\d+)\\) .* memory");
  std::vector<const Rule*> rules = {&oom, &heads};
  auto plan = plan_rule_literals(rules);
  REQUIRE(plan);
  REQUIRE_FALSE(plan->empty());
  std::vector<uint32_t> owners_of_memory;
  for (const auto& declared : *plan) {
    CHECK(declared.literal.caseless);
    CHECK(declared.stop == Stop::kRead);
    if (declared.literal.text.find("memory") != std::string::npos) owners_of_memory = declared.owners;
  }
  // Each pattern needs some literal; the owners name which rule needs which.
  for (uint32_t owner : {0u, 1u}) {
    bool covered = false;
    for (const auto& declared : *plan) {
      for (uint32_t o : declared.owners) covered = covered || o == owner;
    }
    CHECK(covered);
  }
  CHECK_FALSE(owners_of_memory.empty());
}

TEST_CASE("a word only of a rule inside a traceback does not stop the sparse read") {
  Rule framed = rule_with("framed", faultline::rules::Scope::kMessage, "ZeroDivisionError");
  framed.frames.push_back(faultline::rules::deferred_pattern("divide", {}));
  auto plan = plan_rule_literals({&framed});
  REQUIRE(plan);
  REQUIRE(plan->size() == 1);
  CHECK(plan->front().stop == Stop::kPass);
  CHECK(plan->front().owners == std::vector<uint32_t>{0});
}

TEST_CASE("a pattern with no literal every match holds leaves nothing to screen with") {
  Rule loose = rule_with("loose", faultline::rules::Scope::kLine, "\\d+ \\w+");
  CHECK_FALSE(plan_rule_literals({&loose}));
  CHECK(encode_rule_literals({&loose}).empty());
}

TEST_CASE("planned literals decode as the plan made afresh") {
  const auto& rules = shipped().rules();
  auto plan = plan_rule_literals(rules);
  REQUIRE(plan);
  std::string bytes = encode_rule_literals(rules);
  REQUIRE_FALSE(bytes.empty());
  auto decoded = decode_rule_literals(bytes, rules);
  REQUIRE(decoded);
  CHECK(same(*decoded, *plan));
}

TEST_CASE("planned literals are refused for other rules and for damaged bytes") {
  const auto& rules = shipped().rules();
  std::string bytes = encode_rule_literals(rules);
  REQUIRE_FALSE(bytes.empty());
  SUBCASE("a rule fewer") {
    std::vector<const Rule*> fewer(rules.begin(), rules.end() - 1);
    CHECK_FALSE(decode_rule_literals(bytes, fewer));
  }
  SUBCASE("a pattern changed") {
    Rule changed = *rules.front();
    // A pattern of its own: copies share their compiled form, which must stay the shipped one's.
    const auto& first = changed.match.front();
    changed.match.front() = faultline::rules::deferred_pattern(first.text + "x", first.captures);
    std::vector<const Rule*> edited(rules.begin(), rules.end());
    edited.front() = &changed;
    CHECK_FALSE(decode_rule_literals(bytes, edited));
  }
  SUBCASE("truncated anywhere") {
    for (size_t length : {size_t{0}, size_t{5}, size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
      CHECK_FALSE(decode_rule_literals(std::string_view(bytes).substr(0, length), rules));
    }
  }
  SUBCASE("not such a plan") {
    std::string other = bytes;
    other[0] = 'X';
    CHECK_FALSE(decode_rule_literals(other, rules));
  }
}

TEST_CASE("the shipped rules come with their literals planned, and the engine takes them") {
  faultline::rules::Engine engine(shipped());
  CHECK(engine.screen_literals_prebuilt());
  REQUIRE(engine.screen_literals());
  auto plan = plan_rule_literals(shipped().rules());
  REQUIRE(plan);
  CHECK(same(*engine.screen_literals(), *plan));
}

TEST_CASE("an engine of other rules plans their literals afresh") {
  Rule oom = rule_with("oom", faultline::rules::Scope::kLine, "CUDA out of memory");
  RuleSet set;
  set.add_rules({oom});
  faultline::rules::Engine engine(set);
  CHECK_FALSE(engine.screen_literals_prebuilt());
  REQUIRE(engine.screen_literals());
  CHECK(same(*engine.screen_literals(), *plan_rule_literals(set.rules())));
}
