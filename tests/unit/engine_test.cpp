// Engine (src/rules/engine.hpp): rules against events and lines, by scope.
#include "rules/engine.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "rules/rule_set.hpp"

using faultline::Facts;
using faultline::Value;
using faultline::assemble::Event;
using faultline::assemble::EventKind;
using faultline::rules::Engine;
using faultline::rules::Finding;
using faultline::rules::RuleSet;

namespace {

RuleSet rules_from(std::string_view yaml) {
  auto rules = faultline::rules::load_pack(yaml, "test.yaml");
  REQUIRE_MESSAGE(rules.is_ok(), rules.status().message());
  RuleSet set;
  set.add_rules(std::move(*rules));
  return set;
}

// An event as the assembler would make it from `lines` (message on the last line).
Event event_of(std::vector<std::string> lines, int rank = -1) {
  Event event;
  event.kind = EventKind::kTraceback;
  event.rank = rank;
  event.sequence = 42;
  for (size_t i = 0; i < lines.size(); ++i) {
    event.lines.push_back({0, i + 10, lines[i], "[rank] " + lines[i]});
  }
  event.message = lines.back();
  event.message_line = lines.size() - 1;
  event.exception_type = lines.back().substr(0, lines.back().find(':'));
  return event;
}

std::vector<Finding> match_event(const RuleSet& set, const Event& event) {
  Engine engine(set);
  std::vector<Finding> findings;
  engine.match_event(event, findings);
  return findings;
}

std::vector<Finding> match_line(const RuleSet& set, std::string_view text, int rank = -1) {
  Engine engine(set);
  std::vector<Finding> findings;
  faultline::parse::Line line;
  line.text = text;
  line.display = text;
  line.rank = rank;
  line.source = 2;
  line.number = 7;
  line.time = faultline::make_timestamp(2026, 11, 29, 10, 22, 33, 0);
  engine.match_line(line, 99, findings);
  return findings;
}

const Value* fact(const Finding& finding, std::string_view name) {
  return faultline::find_fact(finding.facts, name);
}

const char* kHeadsRule = R"(rules:
  - id: tp.heads_not_divisible.test
    cause: tp.heads_not_divisible
    title: Heads
    scope: SCOPE
    match: 'heads \((?P<heads>\d+)\) by tp \((?P<tp>\d+)\)'
    when: heads % tp != 0
    derive:
      valid: divisors(heads)
)";

RuleSet heads_rule(std::string scope) {
  std::string yaml = kHeadsRule;
  yaml.replace(yaml.find("SCOPE"), 5, scope);
  return rules_from(yaml);
}

}  // namespace

TEST_CASE("a line rule matches a line and records where") {
  auto set = heads_rule("line");
  auto findings = match_line(set, "ValueError: heads (32) by tp (6)", 3);
  REQUIRE(findings.size() == 1);
  const Finding& finding = findings[0];
  CHECK(finding.rule == set.find("tp.heads_not_divisible.test"));
  CHECK(finding.rank == 3);
  CHECK(finding.sequence == 99);
  CHECK(finding.time.to_string() == "2026-11-29T10:22:33Z");
  CHECK(finding.matched == "heads (32) by tp (6)");
  REQUIRE(finding.evidence.size() == 1);
  CHECK(finding.evidence[0].source == 2);
  CHECK(finding.evidence[0].line == 7);
  CHECK(finding.evidence[0].rank == 3);
  CHECK(finding.evidence[0].text == "ValueError: heads (32) by tp (6)");
}

TEST_CASE("captured digits become integers, other captures stay strings") {
  auto set = rules_from(R"(rules:
  - id: nccl.watchdog_timeout
    title: T
    scope: line
    match: 'OpType=(?P<op>\w+), Timeout\(ms\)=(?P<timeout_ms>\d+)'
)");
  auto findings = match_line(set, "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=600000)");
  REQUIRE(findings.size() == 1);
  REQUIRE(fact(findings[0], "timeout_ms"));
  CHECK(*fact(findings[0], "timeout_ms") == Value(int64_t{600000}));
  CHECK(*fact(findings[0], "op") == Value(std::string("ALLREDUCE")));
}

TEST_CASE("derived facts are added after the captured ones") {
  auto findings = match_line(heads_rule("line"), "heads (32) by tp (6)");
  REQUIRE(findings.size() == 1);
  REQUIRE(findings[0].facts.size() == 3);
  CHECK(findings[0].facts[0].first == "heads");
  CHECK(findings[0].facts[1].first == "tp");
  CHECK(findings[0].facts[2].first == "valid");
  CHECK(findings[0].facts[2].second == Value(faultline::IntList{1, 2, 4, 8, 16, 32}));
}

TEST_CASE("a false when gives no finding") {
  CHECK(match_line(heads_rule("line"), "heads (32) by tp (8)").empty());
}

TEST_CASE("a when over a fact the match did not capture does not veto") {
  auto set = rules_from(R"(rules:
  - id: tp.heads_not_divisible
    title: T
    scope: line
    match: 'heads (?P<heads>\d+)(?: tp (?P<tp>\d+))?'
    when: heads % tp != 0
)");
  CHECK(match_line(set, "heads 32").size() == 1);
  CHECK(match_line(set, "heads 32 tp 8").empty());
  CHECK(match_line(set, "heads 32 tp 6").size() == 1);
}

TEST_CASE("an unless pattern vetoes the match") {
  auto set = rules_from(R"(rules:
  - id: cuda.oom
    title: T
    scope: line
    match: 'CUDA out of memory'
    unless: ['retrying', 'expected']
)");
  CHECK(match_line(set, "CUDA out of memory. Tried to allocate 2 GiB").size() == 1);
  CHECK(match_line(set, "CUDA out of memory, retrying with a smaller batch").empty());
  CHECK(match_line(set, "expected: CUDA out of memory").empty());
}

TEST_CASE("any one of several patterns matches") {
  auto set = rules_from(R"(rules:
  - id: cuda.oom
    title: T
    scope: line
    match: ['CUDA out of memory', 'CUDA error: out of memory']
)");
  CHECK(match_line(set, "RuntimeError: CUDA error: out of memory").size() == 1);
  CHECK(match_line(set, "torch.OutOfMemoryError: CUDA out of memory.").size() == 1);
  CHECK(match_line(set, "out of memory").empty());
}

TEST_CASE("(?i) makes a pattern case-insensitive") {
  auto set = rules_from(R"(rules:
  - id: cuda.oom
    title: T
    scope: line
    match: '(?i)cuda out of memory'
)");
  CHECK(match_line(set, "CUDA Out Of Memory").size() == 1);
}

TEST_CASE("a named rank fact gives an unranked finding its rank") {
  auto set = rules_from(R"(rules:
  - id: nccl.watchdog_timeout
    title: T
    scope: line
    match: '\[Rank (?P<rank>\d+)\] Watchdog caught collective operation timeout'
)");
  auto unranked = match_line(set, "[Rank 5] Watchdog caught collective operation timeout");
  REQUIRE(unranked.size() == 1);
  CHECK(unranked[0].rank == 5);
}

TEST_CASE("a named rank fact does not override the rank the line already has") {
  auto set = rules_from(R"(rules:
  - id: nccl.watchdog_timeout
    title: T
    scope: line
    match: '\[Rank (?P<rank>\d+)\] Watchdog caught collective operation timeout'
)");
  auto ranked = match_line(set, "[Rank 5] Watchdog caught collective operation timeout", 2);
  REQUIRE(ranked.size() == 1);
  CHECK(ranked[0].rank == 2);
}

TEST_CASE("a line rule does not run on events, and an event rule not on lines") {
  auto line_rule = heads_rule("line");
  CHECK(match_event(line_rule, event_of({"ValueError: heads (32) by tp (6)"})).empty());
  auto message_rule = heads_rule("message");
  CHECK(match_line(message_rule, "ValueError: heads (32) by tp (6)").empty());
}

TEST_CASE("a message rule matches the event's message") {
  auto set = heads_rule("message");
  auto event = event_of({"Traceback (most recent call last):", "  File \"a.py\", line 1, in f",
                         "ValueError: heads (32) by tp (6)"},
                        4);
  auto findings = match_event(set, event);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rank == 4);
  CHECK(findings[0].sequence == 42);
  CHECK(findings[0].matched == "heads (32) by tp (6)");
  REQUIRE(findings[0].evidence.size() == 1);
  CHECK(findings[0].evidence[0].line == 12);
  CHECK(findings[0].evidence[0].text == "[rank] ValueError: heads (32) by tp (6)");
}

TEST_CASE("a message rule does not see the frames of the traceback") {
  auto set = heads_rule("message");
  auto event =
      event_of({"Traceback (most recent call last):", "  # heads (32) by tp (6)", "ValueError: other"});
  CHECK(match_event(set, event).empty());
}

TEST_CASE("an event rule with (?s) matches across lines") {
  auto set = rules_from(R"(rules:
  - id: tp.heads_not_divisible
    title: T
    scope: event
    match: '(?s)divide\(num_heads.*AssertionError: (?P<heads>\d+) is not divisible by (?P<tp>\d+)'
)");
  auto event = event_of({"Traceback (most recent call last):", "  File \"m.py\", line 3, in init",
                         "    self.heads = divide(num_heads, world_size)",
                         "AssertionError: 14 is not divisible by 4"});
  auto findings = match_event(set, event);
  REQUIRE(findings.size() == 1);
  CHECK(*fact(findings[0], "heads") == Value(int64_t{14}));
  CHECK(*fact(findings[0], "tp") == Value(int64_t{4}));
  // Evidence: the line the match starts on, then the message line.
  REQUIRE(findings[0].evidence.size() == 2);
  CHECK(findings[0].evidence[0].line == 12);
  CHECK(findings[0].evidence[1].line == 13);
}

TEST_CASE("an event rule without (?s) does not cross lines") {
  auto set = rules_from(R"(rules:
  - id: tp.heads_not_divisible
    title: T
    scope: event
    match: 'divide\(num_heads.*AssertionError'
)");
  auto event = event_of(
      {"    self.heads = divide(num_heads, world_size)", "AssertionError: 14 is not divisible by 4"});
  CHECK(match_event(set, event).empty());
}

TEST_CASE("an event with no message runs no message rules") {
  auto set = heads_rule("message");
  auto event = event_of({"heads (32) by tp (6)"});
  event.message.clear();
  CHECK(match_event(set, event).empty());
}

TEST_CASE("match_rule gives the offset and the matched text") {
  auto set = heads_rule("message");
  auto match = faultline::rules::match_rule(*set.rules()[0], "xx heads (12) by tp (8) yy");
  REQUIRE(match.has_value());
  CHECK(match->offset == 3);
  CHECK(match->text == "heads (12) by tp (8)");
}

TEST_CASE("patterns lists every rule's patterns") {
  auto set = rules_from(R"(rules:
  - id: cuda.oom
    title: T
    match: ['a', 'b']
  - id: cuda.no_device
    title: T
    scope: line
    match: 'c'
)");
  Engine engine(set);
  CHECK(engine.patterns() == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("the shipped vLLM rule fires on its message with facts") {
  auto set = RuleSet::shipped();
  auto findings = match_line(
      set, "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).");
  // The generic wording rule matches the line too, at a lower priority: the specific rule stays.
  faultline::rules::keep_highest_priority(findings);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "tp.heads_not_divisible.vllm");
  CHECK(*fact(findings[0], "heads") == Value(int64_t{32}));
  CHECK(*fact(findings[0], "tp") == Value(int64_t{6}));
}

namespace {

constexpr std::string_view kFrameRules = R"(rules:
  - id: tp.vocab_not_divisible.frames
    cause: tp.vocab_not_divisible
    title: Vocabulary
    priority: -1
    match: 'AssertionError: (?P<numerator>\d+) is not divisible by (?P<tp>\d+)'
    frames: ['vocab_size|VocabParallelEmbedding']
  - id: tp.heads_not_divisible.frames
    cause: tp.heads_not_divisible
    title: Heads
    priority: -1
    match: 'AssertionError: (?P<numerator>\d+) is not divisible by (?P<tp>\d+)'
    frames: ['num_attention_heads|num_heads']
  - id: unrecognised.any
    cause: unrecognised
    title: Anything
    priority: -100
    match: '^(?P<exception>\w+Error)'
    frames: ['in (?P<frame_function>\w+)']
    skip_frames: ['/lib/python3\.\d+/\w+\.py"']
)";

// A divide() traceback: the model's layer (`caller`) calls divide, which asserts.
Event divide_traceback(const std::string& caller_file, const std::string& caller_line) {
  return event_of({"Traceback (most recent call last):", "  File \"/srv/model.py\", line 12, in build",
                   "    self.num_heads = num_attention_heads",
                   "  File \"" + caller_file + "\", line 40, in __init__", "    " + caller_line,
                   "  File \"/srv/utils.py\", line 8, in divide", "    assert numerator % denominator == 0",
                   "AssertionError: 151851 is not divisible by 4"});
}

}  // namespace

TEST_CASE("the traceback frame nearest the exception decides between frame rules") {
  auto set = rules_from(kFrameRules);
  auto findings =
      match_event(set, divide_traceback("/srv/embedding.py", "self.part = divide(self.vocab_size, tp)"));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "tp.vocab_not_divisible.frames");
  CHECK(*fact(findings[0], "numerator") == Value(int64_t{151851}));
  // The heads frame is further out; with the vocabulary frame gone it decides.
  findings = match_event(set, divide_traceback("/srv/layer.py", "self.part = divide(total, tp)"));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "tp.heads_not_divisible.frames");
}

TEST_CASE("a catch-all rule of lower priority yields to any rule that matches the same event") {
  auto set = rules_from(kFrameRules);
  auto findings = match_event(
      set, event_of({"Traceback (most recent call last):", "  File \"/srv/train.py\", line 3, in main",
                     "    x = d['k']", "KeyError: 'k'"}));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "unrecognised.any");
  CHECK(*fact(findings[0], "frame_function") == Value(std::string("main")));
  CHECK(findings[0].matched == "KeyError @ /srv/train.py in main");
  findings =
      match_event(set, divide_traceback("/srv/embedding.py", "self.part = divide(self.vocab_size, tp)"));
  CHECK(std::none_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.rule->id == "unrecognised.any"; }));
}

TEST_CASE("skip_frames passes the standard library by, unless no other frame is left") {
  auto set = rules_from(kFrameRules);
  auto findings = match_event(
      set, event_of({"Traceback (most recent call last):", "  File \"/app/run.py\", line 3, in load_config",
                     "    json.load(f)", "  File \"/usr/lib/python3.10/json.py\", line 9, in loads",
                     "    return decode(s)", "ValueError: Expecting value"}));
  REQUIRE(findings.size() == 1);
  CHECK(*fact(findings[0], "frame_function") == Value(std::string("load_config")));
  findings =
      match_event(set, event_of({"Traceback (most recent call last):",
                                 "  File \"/usr/lib/python3.10/runpy.py\", line 9, in _run_module_as_main",
                                 "ModuleNotFoundError: No module named 'x'"}));
  REQUIRE(findings.size() == 1);
  CHECK(*fact(findings[0], "frame_function") == Value(std::string("_run_module_as_main")));
}

TEST_CASE("keep_highest_priority weighs line rules against event rules on the same line") {
  auto set = rules_from(R"(rules:
  - id: cuda.oom.line
    cause: cuda.oom
    title: OOM
    scope: line
    match: 'CUDA out of memory'
  - id: unrecognised.line
    cause: unrecognised
    title: Anything
    scope: line
    priority: -100
    match: 'Error'
)");
  auto findings = match_line(set, "torch.OutOfMemoryError: CUDA out of memory");
  REQUIRE(findings.size() == 2);
  faultline::rules::keep_highest_priority(findings);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "cuda.oom.line");
  findings = match_line(set, "KeyError: x");
  faultline::rules::keep_highest_priority(findings);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "unrecognised.line");
}

TEST_CASE("a fact stated on an error's line outranks no rule there, and yields to none") {
  auto set = rules_from(R"(rules:
  - id: fact.tp
    cause: negative
    role: fact
    title: TP size
    scope: line
    match: '\btp_size=(?P<tp>\d+)'
  - id: unrecognised.line
    cause: unrecognised
    title: Anything
    scope: line
    priority: -100
    match: 'Error'
)");
  auto findings = match_line(set, "ValueError: got tp_size=4, dp_size=3");
  REQUIRE(findings.size() == 2);
  faultline::rules::keep_highest_priority(findings);
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].rule->id != findings[1].rule->id);
}

TEST_CASE("a line holding no rule's literal gets no candidate rules") {
  static const RuleSet shipped = RuleSet::shipped();
  static const Engine engine(shipped);
  Engine::BlockScreen screen = engine.screen_for_owners({});
  CHECK_FALSE(screen.all);
  CHECK(screen.for_one_line);
  CHECK(screen.rules.empty());
}

TEST_CASE("a line's candidates are the line rules among the owners hit in it") {
  static const RuleSet shipped = RuleSet::shipped();
  static const Engine engine(shipped);
  std::vector<uint32_t> owners;
  std::vector<const faultline::rules::Rule*> line_rules;
  for (uint32_t i = 0; i < engine.rules().size(); ++i) {
    owners.push_back(i);
    if (engine.rules()[i]->scope == faultline::rules::Scope::kLine) line_rules.push_back(engine.rules()[i]);
  }
  std::sort(line_rules.begin(), line_rules.end());
  REQUIRE_FALSE(line_rules.empty());
  Engine::BlockScreen screen = engine.screen_for_owners(owners);
  CHECK(screen.rules == line_rules);
}

TEST_CASE("traceback_frames: the code line of a frame cut off above is a frame of source alone") {
  using faultline::rules::traceback_frames;
  auto bare = event_of({"    assert in_features % self.tp_world_size == 0", "AssertionError"});
  CHECK(traceback_frames(bare) == std::vector<std::string>{"\nassert in_features % self.tp_world_size == 0"});
  auto cut = event_of({"    main()", "  File \"/srv/model.py\", line 12, in build",
                       "    self.part = divide(h, tp)", "AssertionError: 7 is not divisible by 2"});
  CHECK(traceback_frames(cut) ==
        std::vector<std::string>{"File \"/srv/model.py\", line 12, in build\nself.part = divide(h, tp)",
                                 "\nmain()"});
  auto whole = event_of({"Traceback (most recent call last):", "  File \"/srv/model.py\", line 12, in build",
                         "    x = 1", "ValueError: no"});
  CHECK(traceback_frames(whole).size() == 1);
}

TEST_CASE("traceback_frames: more code lines under one frame are frames of source alone, innermost first") {
  using faultline::rules::traceback_frames;
  auto lost =
      event_of({"  File \"/opt/app/serve.py\", line 33, in __init__", "    super().__init__(kvargs)",
                "    ^^^^^^^^^^^^^^^^^^^^^^^^",
                "    assert self.config[\"num_attention_heads\"] % self.world_size_ == 0", "AssertionError"});
  CHECK(
      traceback_frames(lost) ==
      std::vector<std::string>{"\nassert self.config[\"num_attention_heads\"] % self.world_size_ == 0",
                               "File \"/opt/app/serve.py\", line 33, in __init__\nsuper().__init__(kvargs)"});
  // A source line that lost its indentation is still its frame's; the next header ends the run.
  auto flat =
      event_of({"File \"/a.py\", line 1, in f", "g()", "File \"/b.py\", line 2, in g", "h()", "KeyError: 1"});
  CHECK(traceback_frames(flat) ==
        std::vector<std::string>{"File \"/b.py\", line 2, in g\nh()", "File \"/a.py\", line 1, in f\ng()"});
}
