// correlate (src/correlate/correlate.hpp): folding findings across ranks and naming the
// initiating failure. Findings are built by hand, pointing at rules loaded from YAML.
#include <doctest/doctest.h>

#include "correlate/correlate.hpp"
#include "rules/rule_set.hpp"

using faultline::make_timestamp;
using faultline::Timestamp;
using faultline::Value;
using faultline::correlate::correlate;
using faultline::correlate::JobAnalysis;
using faultline::correlate::JobShape;
using faultline::rules::Finding;
using faultline::rules::Rule;
using faultline::rules::RuleSet;

namespace {

const RuleSet& test_rules() {
  static const RuleSet set = [] {
    auto rules = faultline::rules::load_pack(R"(rules:
  - id: tp.heads_not_divisible.test
    cause: tp.heads_not_divisible
    title: Heads not divisible
    role: root_cause
    match: 'heads \((?P<heads>\d+)\) by tp \((?P<tp>\d+)\)(?: with (?P<layers>\d+) layers)?'
    explain: '{heads} heads over {tp} ranks'
    fix:
      - 'Use one of {divisors(heads)}.'
      - 'Needs {layers}.'
    verify: 'preflight --tp {largest_divisor_le(heads, tp)}'
  - id: cuda.oom.test
    cause: cuda.oom
    title: Out of memory
    role: root_cause
    match: 'CUDA out of memory'
  - id: nccl.watchdog_timeout.test
    cause: nccl.watchdog_timeout
    title: Watchdog timeout
    role: symptom
    match: 'Watchdog caught collective operation timeout'
)",
                                             "correlate_test.yaml");
    REQUIRE_MESSAGE(rules.is_ok(), rules.status().message());
    RuleSet out;
    out.add_rules(std::move(*rules));
    return out;
  }();
  return set;
}

const Rule* heads_rule() { return test_rules().find("tp.heads_not_divisible.test"); }
const Rule* oom_rule() { return test_rules().find("cuda.oom.test"); }
const Rule* timeout_rule() { return test_rules().find("nccl.watchdog_timeout.test"); }

Timestamp at(int second) { return make_timestamp(2026, 11, 29, 10, 22, second, 0); }

Finding finding(const Rule* rule, int rank, uint64_t sequence, Timestamp time = {}, std::string matched = "") {
  Finding out;
  out.rule = rule;
  out.rank = rank;
  out.sequence = sequence;
  out.time = time;
  if (rule == heads_rule()) {
    out.matched = matched.empty() ? "heads (32) by tp (6)" : matched;
    out.facts = {{"heads", Value(int64_t{32})}, {"tp", Value(int64_t{6})}};
  } else if (rule == oom_rule()) {
    out.matched = matched.empty() ? "CUDA out of memory" : matched;
  } else {
    out.matched = matched.empty() ? "Watchdog caught collective operation timeout" : matched;
  }
  out.evidence.push_back({0, sequence + 1, rank, out.matched});
  return out;
}

JobAnalysis run(std::vector<Finding> findings) { return correlate("job", JobShape{}, std::move(findings)); }

}  // namespace

TEST_CASE("no findings, no diagnosis") {
  auto analysis = run({});
  CHECK(analysis.job == "job");
  CHECK_FALSE(analysis.diagnosis.has_value());
  CHECK(analysis.findings.empty());
}

TEST_CASE("a root cause beats a symptom even when the symptom came first") {
  auto analysis = run({finding(timeout_rule(), 0, 0, at(1)), finding(heads_rule(), 3, 5, at(30))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "tp.heads_not_divisible");
  CHECK(analysis.diagnosis->rule == heads_rule());
  REQUIRE(analysis.findings.size() == 2);
  CHECK(analysis.findings[0].rule == heads_rule());
  CHECK(analysis.findings[1].rule == timeout_rule());
}

TEST_CASE("symptoms after a root cause are collateral of it") {
  auto analysis = run({finding(timeout_rule(), 0, 0, at(1)), finding(heads_rule(), 3, 5, at(30))});
  REQUIRE(analysis.findings.size() == 2);
  CHECK(analysis.findings[0].collateral_of == "");
  CHECK(analysis.findings[1].collateral_of == "tp.heads_not_divisible");
}

TEST_CASE("with only symptoms, the earliest symptom is the diagnosis and nothing is collateral") {
  auto analysis = run({finding(timeout_rule(), 2, 0, at(5))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "nccl.watchdog_timeout");
  CHECK(analysis.diagnosis->reasons.front() ==
        "only symptoms were found (nccl.watchdog_timeout.test); the cause may be outside these logs");
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.6));
  REQUIRE(analysis.findings.size() == 1);
  CHECK(analysis.findings[0].collateral_of == "");
}

TEST_CASE("identical errors on several ranks fold into one group with the ranks listed") {
  auto analysis = run({finding(heads_rule(), 2, 0), finding(heads_rule(), 0, 1), finding(heads_rule(), 1, 2),
                       finding(heads_rule(), 0, 3)});
  REQUIRE(analysis.findings.size() == 1);
  const auto& group = analysis.findings[0];
  CHECK(group.ranks == std::vector<int>{0, 1, 2});
  CHECK(group.occurrences == 4);
  CHECK(group.first_rank == 2);
  CHECK(group.first_sequence == 0);
  CHECK(group.message == "heads (32) by tp (6)");
  CHECK(group.evidence.size() == 4);
}

TEST_CASE("messages that differ only in numbers fold together") {
  auto analysis = run({finding(oom_rule(), 0, 0, {}, "CUDA out of memory on GPU 0"),
                       finding(oom_rule(), 1, 1, {}, "CUDA out of memory on GPU 1")});
  REQUIRE(analysis.findings.size() == 1);
  CHECK(analysis.findings[0].ranks == std::vector<int>{0, 1});
}

TEST_CASE("different rules never fold together") {
  auto analysis = run({finding(oom_rule(), 0, 0), finding(heads_rule(), 0, 1)});
  CHECK(analysis.findings.size() == 2);
}

TEST_CASE("evidence of a group is capped") {
  std::vector<Finding> findings;
  for (int rank = 0; rank < 12; ++rank) findings.push_back(finding(heads_rule(), rank, static_cast<uint64_t>(rank)));
  auto analysis = run(std::move(findings));
  REQUIRE(analysis.findings.size() == 1);
  CHECK(analysis.findings[0].evidence.size() == faultline::correlate::FindingGroup::kMaxEvidence);
  CHECK(analysis.findings[0].ranks.size() == 12);
}

TEST_CASE("one reporting rank is the initiating rank") {
  auto analysis = run({finding(heads_rule(), 3, 0)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(3));
  CHECK(analysis.diagnosis->reasons == std::vector<std::string>{"matched root-cause rule tp.heads_not_divisible.test",
                                                                "only rank 3 reported it"});
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.9));
}

TEST_CASE("the initiating rank is the earliest by timestamp, not by input order") {
  auto analysis = run({finding(heads_rule(), 0, 0, at(34)), finding(heads_rule(), 1, 1, at(33))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  CHECK(analysis.diagnosis->reasons.at(1) ==
        "rank 1 reported it first, at 2026-11-29T10:22:33Z, before rank 0 at 2026-11-29T10:22:34Z");
  CHECK(analysis.diagnosis->first_seen.to_string() == "2026-11-29T10:22:33Z");
  CHECK(analysis.findings[0].first_rank == 1);
}

TEST_CASE("an inherited timestamp is named in the reason") {
  auto first = finding(heads_rule(), 1, 1, at(33));
  first.time_inherited = true;
  auto analysis = run({finding(heads_rule(), 0, 0, at(34)), first});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  CHECK(analysis.diagnosis->reasons.at(1) ==
        "rank 1 reported it first, at 2026-11-29T10:22:33Z, before rank 0 at 2026-11-29T10:22:34Z"
        " (from the timestamps of the lines before the errors)");
}

TEST_CASE("ranks reporting at the same time have no initiating rank") {
  auto analysis = run({finding(heads_rule(), 0, 0, at(33)), finding(heads_rule(), 1, 1, at(33))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.at(1) == "ranks 0,1 all reported it within the same second");
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.8));
}

TEST_CASE("several ranks with no timestamps have no initiating rank") {
  auto analysis = run({finding(heads_rule(), 0, 0), finding(heads_rule(), 1, 1), finding(heads_rule(), 2, 2)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.at(1) == "ranks 0-2 all reported it and no timestamps order them");
}

TEST_CASE("several ranks where only some have timestamps have no initiating rank") {
  auto analysis = run({finding(heads_rule(), 0, 0, at(33)), finding(heads_rule(), 1, 1)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
}

TEST_CASE("no rank known means no initiating rank") {
  auto analysis = run({finding(heads_rule(), -1, 0)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.at(1) == "no line names the rank that reported it");
}

TEST_CASE("an unranked copy with no pid does not contradict the one named rank") {
  auto analysis = run({finding(heads_rule(), -1, 0), finding(heads_rule(), 4, 1)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(4));
  CHECK(analysis.diagnosis->reasons.at(1) == "only rank 4 reported it (other copies name no rank)");
}

TEST_CASE("processes named only by pid count as other reporters when there are several") {
  auto first = finding(heads_rule(), -1, 0);
  first.pid = 4823;
  auto second = finding(heads_rule(), -1, 1);
  second.pid = 4824;
  auto analysis = run({first, second, finding(heads_rule(), 4, 2)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.at(1) ==
        "rank(s) 4 and processes with no rank all reported it and no timestamps order them");
}

TEST_CASE("one unmapped pid beside a named rank of unknown pid is taken as that rank's echo") {
  auto echo = finding(heads_rule(), -1, 0);
  echo.pid = 77301;
  auto analysis = run({echo, finding(heads_rule(), 9, 1)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(9));
}

TEST_CASE("an unranked pid that differs from the named rank's pid is another reporter") {
  auto other = finding(heads_rule(), -1, 0);
  other.pid = 4823;
  auto named = finding(heads_rule(), 4, 1);
  named.pid = 5000;
  auto analysis = run({other, named});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
}

TEST_CASE("other root-cause groups lower the confidence and are counted") {
  auto analysis = run({finding(heads_rule(), 3, 0), finding(oom_rule(), 3, 1)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->rule == heads_rule());
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.8));
  CHECK(analysis.diagnosis->reasons.back() == "1 other root-cause finding(s) in the job");
}

TEST_CASE("among root causes, the earliest by timestamp is the diagnosis") {
  auto analysis = run({finding(heads_rule(), 3, 0, at(40)), finding(oom_rule(), 2, 1, at(20))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->rule == oom_rule());
  CHECK(analysis.findings[0].rule == oom_rule());
}

TEST_CASE("among root causes without timestamps, the earliest in input order is the diagnosis") {
  auto analysis = run({finding(heads_rule(), 3, 7), finding(oom_rule(), 2, 1)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->rule == oom_rule());
}

TEST_CASE("the diagnosis renders the rule's templates from the facts") {
  auto analysis = run({finding(heads_rule(), 3, 0)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->title == "Heads not divisible");
  CHECK(analysis.diagnosis->explain == "32 heads over 6 ranks");
  // The second fix needs a fact the match lacks, so it is left out.
  CHECK(analysis.diagnosis->fix == std::vector<std::string>{"Use one of 1, 2, 4, 8, 16, 32."});
  CHECK(analysis.diagnosis->verify == "preflight --tp 4");
  CHECK(analysis.diagnosis->facts.size() == 2);
  CHECK(analysis.diagnosis->fingerprint == analysis.findings[0].fingerprint);
  CHECK(analysis.diagnosis->fingerprint.size() == 16);
}

TEST_CASE("the job shape is passed through") {
  JobShape shape;
  shape.ranks_seen = {0, 1};
  shape.hosts = {"node1"};
  auto analysis = correlate("name", shape, {finding(heads_rule(), 0, 0)});
  CHECK(analysis.shape.ranks_seen == std::vector<int>{0, 1});
  CHECK(analysis.shape.hosts == std::vector<std::string>{"node1"});
}

TEST_CASE("hosts of a group are sorted and unique") {
  auto a = finding(heads_rule(), 0, 0);
  a.host = "node2";
  auto b = finding(heads_rule(), 1, 1);
  b.host = "node1";
  auto c = finding(heads_rule(), 2, 2);
  c.host = "node2";
  auto analysis = run({a, b, c});
  REQUIRE(analysis.findings.size() == 1);
  CHECK(analysis.findings[0].hosts == std::vector<std::string>{"node1", "node2"});
}

TEST_CASE("an error with no rank in a log of one rank is that rank's") {
  faultline::correlate::JobShape shape;
  shape.ranks_seen = {0};
  std::vector<faultline::rules::Finding> findings = {finding(heads_rule(), -1, 0)};
  auto analysis = faultline::correlate::correlate("job", shape, findings);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(0));
  CHECK(analysis.diagnosis->reasons.at(1) == "the error names no rank, and rank 0 is the only rank in these logs");
}
