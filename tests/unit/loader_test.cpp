// Rule packs (src/rules/rule_set.hpp, loader.cpp): validation with FILE:LINE:COL messages,
// and the shipped packs.
#include <doctest/doctest.h>
#include <re2/re2.h>

#include "rules/rule_set.hpp"

using faultline::rules::load_pack;
using faultline::rules::Role;
using faultline::rules::Rule;
using faultline::rules::RuleSet;
using faultline::rules::Scope;

namespace {

std::string load_error(std::string_view yaml) {
  auto rules = load_pack(yaml, "x.yaml");
  if (rules) return "(loaded)";
  return rules.status().message();
}

std::vector<Rule> load_ok(std::string_view yaml) {
  auto rules = load_pack(yaml, "x.yaml");
  REQUIRE_MESSAGE(rules.is_ok(), rules.status().message());
  return std::move(*rules);
}

}  // namespace

TEST_CASE("a complete rule loads with every field") {
  auto rules = load_ok(R"(rules:
  - id: tp.heads_not_divisible.test
    cause: tp.heads_not_divisible
    title: Heads not divisible
    category: tensor-parallel
    role: root_cause
    severity: warning
    scope: event
    match:
      - 'heads \((?P<heads>\d+)\) by tp \((?P<tp>\d+)\)'
    unless: ['healthy']
    when: heads % tp != 0
    derive:
      valid: divisors(heads)
    explain: '{heads} heads over {tp}'
    symptoms: ['s']
    confirm: ['c {tp}']
    fix:
      - 'use {valid}'
    verify: 'faultline preflight --tp {largest_divisor_le(heads, tp)}'
    refs: ['https://example.com']
    examples:
      match:
        - text: 'heads (32) by tp (6)'
          facts: {heads: 32, tp: 6}
        - 'heads (12) by tp (8)'
      no_match:
        - 'heads (32) by tp (8)'
)");
  REQUIRE(rules.size() == 1);
  const Rule& rule = rules[0];
  CHECK(rule.id == "tp.heads_not_divisible.test");
  CHECK(rule.cause == "tp.heads_not_divisible");
  CHECK(rule.title == "Heads not divisible");
  CHECK(rule.category == "tensor-parallel");
  CHECK(rule.role == Role::kRootCause);
  CHECK(rule.severity == "warning");
  CHECK(rule.scope == Scope::kEvent);
  REQUIRE(rule.match.size() == 1);
  CHECK(rule.match[0].captures == std::vector<std::pair<std::string, int>>{{"heads", 1}, {"tp", 2}});
  CHECK(rule.unless.size() == 1);
  REQUIRE(rule.when.has_value());
  CHECK(rule.when->text() == "heads % tp != 0");
  REQUIRE(rule.derive.size() == 1);
  CHECK(rule.derive[0].first == "valid");
  CHECK(rule.fix.size() == 1);
  CHECK(rule.confirm.size() == 1);
  CHECK(rule.symptoms.size() == 1);
  CHECK(rule.verify.has_value());
  CHECK(rule.refs == std::vector<std::string>{"https://example.com"});
  REQUIRE(rule.match_examples.size() == 2);
  CHECK(rule.match_examples[0].text == "heads (32) by tp (6)");
  CHECK(rule.match_examples[0].facts ==
        std::vector<std::pair<std::string, std::string>>{{"heads", "32"}, {"tp", "6"}});
  CHECK(rule.match_examples[1].text == "heads (12) by tp (8)");
  CHECK(rule.no_match_examples == std::vector<std::string>{"heads (32) by tp (8)"});
  CHECK(rule.origin == "x.yaml:2");
}

TEST_CASE("defaults: cause is the id, role root_cause, severity error, scope message") {
  auto rules = load_ok(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'CUDA out of memory'
)");
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].cause == "cuda.oom");
  CHECK(rules[0].role == Role::kRootCause);
  CHECK(rules[0].severity == "error");
  CHECK(rules[0].scope == Scope::kMessage);
  CHECK_FALSE(rules[0].when.has_value());
}

TEST_CASE("an unknown key names the file, line and column") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    severty: error
    match: 'CUDA out of memory'
)") == "x.yaml:4:5: unknown key 'severty'");
}

TEST_CASE("an unknown key at the top of the pack") {
  CHECK(load_error(R"(rules: []
version: 2
)") == "x.yaml:2:1: unknown key 'version' (a pack holds only 'rules')");
}

TEST_CASE("a pack that is not a mapping with rules is rejected") {
  CHECK(load_error("just text\n") == "x.yaml:1:1: a rule pack is a mapping with a 'rules:' list");
}

TEST_CASE("a bad regular expression names where it is and what RE2 says") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match:
      - 'fine'
      - '(unclosed'
)") == "x.yaml:6:9: bad regex in 'match': missing ): (unclosed");
}

TEST_CASE("a bad regular expression in unless is reported too") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'oom'
    unless: 'a**'
)") == "x.yaml:5:13: bad regex in 'unless': bad repetition operator: **");
}

TEST_CASE("an unknown cause is rejected") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom.test
    cause: cuda.oops
    title: Out of memory
    match: 'oom'
)") == "x.yaml:3:12: unknown cause 'cuda.oops' (causes are the ids of causes.md)");
}

TEST_CASE("an id that is not a cause needs a cause") {
  CHECK(load_error(R"(rules:
  - id: my.rule
    title: Mine
    match: 'oom'
)") == "x.yaml:2:9: unknown cause 'my.rule' (causes are the ids of causes.md)");
}

TEST_CASE("an unknown fact in when lists the known ones") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'heads (?P<heads>\d+) tp (?P<tp>\d+)'
    when: layers % tp != 0
)") == "x.yaml:5:11: unknown fact 'layers' in 'when' (known: heads, tp)");
}

TEST_CASE("an unknown fact in a fix template") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'heads (?P<heads>\d+)'
    fix:
      - 'ok {heads}'
      - 'divide {layers}'
)") == "x.yaml:7:9: unknown fact 'layers' in 'fix' (known: heads)");
}

TEST_CASE("an unknown fact in verify") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'oom'
    verify: 'run --tp {tp}'
)") == "x.yaml:5:13: unknown fact 'tp' in 'verify' (known: none)");
}

TEST_CASE("an unknown function in a template names the template's column") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'heads (?P<heads>\d+)'
    explain: 'pick {divisor(heads)}'
)") == "x.yaml:5:14: in 'explain': column 7: unknown function 'divisor'");
}

TEST_CASE("a syntax error in when") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'heads (?P<heads>\d+)'
    when: heads %
)") == "x.yaml:5:11: in 'when': column 8: expected a value");
}

TEST_CASE("a duplicate id in one pack") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: One
    match: 'a'
  - id: cuda.oom
    title: Two
    match: 'b'
)") == "x.yaml:5:9: duplicate rule id 'cuda.oom'");
}

TEST_CASE("a derived fact is usable in when and in templates") {
  auto rules = load_ok(R"(rules:
  - id: tp.heads_not_divisible
    title: Heads
    match: 'heads (?P<heads>\d+) tp (?P<tp>\d+)'
    derive:
      left: heads % tp
    when: left != 0
    fix: ['{left} left over']
)");
  REQUIRE(rules.size() == 1);
  REQUIRE(rules[0].derive.size() == 1);
  CHECK(rules[0].derive[0].first == "left");
  CHECK(rules[0].when->fact_names() == std::vector<std::string>{"left"});
}

TEST_CASE("a derived fact may use an earlier derived fact") {
  auto rules = load_ok(R"(rules:
  - id: tp.heads_not_divisible
    title: Heads
    match: 'heads (?P<heads>\d+)'
    derive:
      all: divisors(heads)
      twice: heads * 2
      sum: twice + heads
)");
  CHECK(rules[0].derive.size() == 3);
}

TEST_CASE("an invalid role names the choices") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    role: cause
    match: 'oom'
)") == "x.yaml:4:11: 'role' must be one of root_cause, symptom, recovery, fact, not 'cause'");
}

TEST_CASE("an invalid scope names the choices") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    scope: file
    match: 'oom'
)") == "x.yaml:4:12: 'scope' must be one of message, event, line, not 'file'");
}

TEST_CASE("a rule without a title or match patterns") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    match: 'oom'
)") == "x.yaml:2:5: rule 'cuda.oom' needs a 'title'");
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: T
)") == "x.yaml:2:5: rule 'cuda.oom' needs 'match' patterns");
}

TEST_CASE("an unknown fact in a match example's facts") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: T
    match: 'heads (?P<heads>\d+)'
    examples:
      match:
        - text: 'heads 3'
          facts: {tp: 3}
)") == "x.yaml:8:19: unknown fact 'tp' in 'facts' (known: heads)");
}

TEST_CASE("every error of a pack is reported, one per line") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: T
    severty: error
    match: 'a'
  - id: cuda.no_device
    title: T
    colour: red
    match: 'b'
)") == "x.yaml:4:5: unknown key 'severty'\nx.yaml:8:5: unknown key 'colour'");
}

TEST_CASE("a YAML syntax error names the file and position") {
  auto message = load_error("rules:\n  - id: [unclosed\n");
  CHECK(message == "x.yaml:3:1: end of sequence flow not found");  // yaml-cpp's words, at the end of the text
}

TEST_CASE("load_pack_file of a missing file") {
  auto rules = faultline::rules::load_pack_file("/nonexistent/pack.yaml");
  REQUIRE_FALSE(rules.is_ok());
  CHECK(rules.status().message() == "/nonexistent/pack.yaml: No such file or directory");
}

TEST_CASE("every shipped pack loads without errors") {
  auto shipped = RuleSet::shipped();
  CHECK(shipped.errors() == std::vector<std::string>{});
  CHECK_FALSE(shipped.rules().empty());
  CHECK(shipped.find("tp.heads_not_divisible.vllm") != nullptr);
  CHECK(shipped.find("nccl.watchdog_timeout.pytorch") != nullptr);
}

TEST_CASE("every shipped rule's cause is a known cause and its patterns compile") {
  auto shipped = RuleSet::shipped();
  for (const Rule* rule : shipped.rules()) {
    CAPTURE(rule->id);
    CHECK(faultline::rules::is_known_cause(rule->cause));
    CHECK_FALSE(rule->match.empty());
    for (const auto& pattern : rule->match) CHECK(pattern.regex().ok());
  }
}

TEST_CASE("add_rules replaces a rule with the same id and keeps its place") {
  RuleSet set;
  set.add_rules(
      load_ok("rules:\n  - id: cuda.oom\n    title: First\n    match: 'a'\n"
              "  - id: cuda.no_device\n    title: Other\n    match: 'b'\n"));
  set.add_rules(load_ok("rules:\n  - id: cuda.oom\n    title: Second\n    match: 'c'\n"));
  REQUIRE(set.rules().size() == 2);
  CHECK(set.rules()[0]->title == "Second");
  CHECK(set.rules()[1]->id == "cuda.no_device");
  CHECK(set.find("cuda.oom")->title == "Second");
  CHECK(set.find("nope") == nullptr);
}

TEST_CASE("add_directory of a missing directory records an error") {
  RuleSet set;
  set.add_directory("/nonexistent/rules");
  CHECK(set.errors() == std::vector<std::string>{"/nonexistent/rules: no such rule directory or file"});
}

TEST_CASE("Role and Scope names") {
  using faultline::rules::to_string;
  CHECK(std::string(to_string(Role::kRootCause)) == "root_cause");
  CHECK(std::string(to_string(Role::kSymptom)) == "symptom");
  CHECK(std::string(to_string(Scope::kMessage)) == "message");
  CHECK(std::string(to_string(Scope::kEvent)) == "event");
  CHECK(std::string(to_string(Scope::kLine)) == "line");
}

TEST_CASE("every rule's templates may name the host that reported the failure") {
  auto rules = load_ok(R"(rules:
  - id: cuda.hardware_xid_ecc
    title: Xid
    match: 'Xid (?P<xid>\d+)'
    fix: ['Drain {host}: Xid {xid}.']
)");
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].fix.size() == 1);
}

TEST_CASE("reports: peer marks a symptom's reporter as a witness, and needs role symptom") {
  auto rules = load_ok(R"(rules:
  - id: nccl.watchdog_timeout
    title: Timeout
    role: symptom
    reports: peer
    match: 'timed out'
)");
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].reports_peer);
  CHECK_FALSE(load_ok(R"(rules:
  - id: nccl.watchdog_timeout
    title: Timeout
    role: symptom
    match: 'timed out'
)")[0]
                  .reports_peer);
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    reports: peer
    match: 'oom'
)") == "x.yaml:4:14: 'reports: peer' needs 'role: symptom'");
  CHECK(load_error(R"(rules:
  - id: nccl.watchdog_timeout
    title: Timeout
    role: symptom
    reports: others
    match: 'timed out'
)") == "x.yaml:5:14: 'reports' must be one of self, peer, not 'others'");
}

TEST_CASE("logged: error keeps a message rule to error records; it needs scope message") {
  auto rules = load_ok(R"(rules:
  - id: unrecognised.logged_error
    cause: unrecognised
    title: Logged
    logged: error
    match: 'failed'
)");
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].logged_error);
  CHECK_FALSE(load_ok(R"(rules:
  - id: unrecognised.logged_error
    cause: unrecognised
    title: Logged
    match: 'failed'
)")[0]
                  .logged_error);
  CHECK(load_error(R"(rules:
  - id: unrecognised.logged_error
    cause: unrecognised
    title: Logged
    scope: line
    logged: error
    match: 'failed'
)") == "x.yaml:6:13: 'logged: error' needs 'scope: message'");
}

TEST_CASE("frames need scope message, and priority an integer in range") {
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    scope: line
    match: 'oom'
    frames: ['alloc']
)") == "x.yaml:6:13: 'frames' needs 'scope: message'");
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    priority: high
    match: 'oom'
)") == "x.yaml:4:15: 'priority' must be an integer from -1000 to 1000");
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: Out of memory
    match: 'oom'
    skip_frames: ['json']
)") == "x.yaml:5:18: 'skip_frames' needs 'frames'");
}

// The loader held a `const YAML::Node&` to an iterator's `it->second`, which lives in a temporary
// of the iterator: every pack with examples read freed stack memory (ASan: stack-use-after-scope).
TEST_CASE("examples: no_match and match are read from the examples mapping's values") {
  auto rules = load_ok(R"(rules:
  - id: cuda.oom
    title: T
    match: 'heads (?P<heads>\d+)'
    examples:
      no_match: ['heads x', 'tails 3']
      match:
        - text: 'heads 3'
          facts: {heads: 3}
        - 'heads 4'
)");
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].no_match_examples == std::vector<std::string>{"heads x", "tails 3"});
  REQUIRE(rules[0].match_examples.size() == 2);
  CHECK(rules[0].match_examples[0].text == "heads 3");
  CHECK(rules[0].match_examples[1].text == "heads 4");
  CHECK(load_error(R"(rules:
  - id: cuda.oom
    title: T
    match: 'a'
    examples:
      match: 'a'
)") == "x.yaml:6:14: 'match' examples must be a list");
}
