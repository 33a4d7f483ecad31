// correlate (src/correlate/correlate.hpp): folding findings across ranks and naming the
// initiating failure. Findings are built by hand, pointing at rules loaded from YAML.
#include "correlate/correlate.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "correlate/clock_skew.hpp"
#include "correlate/rank_clues.hpp"
#include "report/story.hpp"
#include "rules/rule_set.hpp"

using faultline::make_timestamp;
using faultline::Timestamp;
using faultline::Value;
using faultline::correlate::correlate;
using Reason = faultline::correlate::ConfidenceReason;
using Kind = Reason::Kind;
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
  - id: nccl.watchdog_timeout.status_test
    cause: nccl.watchdog_timeout
    title: Watchdog work status
    role: symptom
    match: 'detected by watchdog at work'
  - id: cuda.hardware_xid_ecc.test
    cause: cuda.hardware_xid_ecc
    title: Xid
    role: root_cause
    match: 'Xid 79'
    fix:
      - 'Drain {host} and run its diagnostics.'
      - 'Replace the GPU.'
  - id: launcher.worker_failed_test
    cause: nccl.remote_rank_failed
    title: Worker failed
    role: symptom
    match: 'local_rank: (?P<local_rank>\d+)'
  - id: unrecognised.test
    cause: unrecognised
    title: An error no rule knows
    role: root_cause
    match: 'KeyError'
  - id: unrecognised.wrapper_test
    cause: unrecognised
    title: Engine failed, see above
    role: symptom
    match: 'see root cause above'
  - id: nccl.remote_rank_failed.test
    cause: nccl.remote_rank_failed
    title: Peer exited
    role: symptom
    reports: peer
    match: 'remote process exited'
)",
                                             "correlate_test.yaml");
    REQUIRE_MESSAGE(rules.is_ok(), rules.status().message());
    RuleSet out;
    out.add_rules(std::move(*rules));
    return out;
  }();
  return set;
}

// The kinds of a diagnosis' confidence reasons, in order.
std::vector<Kind> kinds_of(const JobAnalysis& analysis) {
  std::vector<Kind> kinds;
  for (const auto& reason : analysis.diagnosis->reasons) kinds.push_back(reason.kind);
  return kinds;
}

const Rule* heads_rule() {
  return test_rules().find("tp.heads_not_divisible.test");
}
const Rule* oom_rule() {
  return test_rules().find("cuda.oom.test");
}
const Rule* timeout_rule() {
  return test_rules().find("nccl.watchdog_timeout.test");
}

Timestamp at(int second) {
  return make_timestamp(2026, 11, 29, 10, 22, second, 0);
}

Finding finding(const Rule* rule, int rank, uint64_t sequence, Timestamp time = {},
                std::string matched = "") {
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

JobAnalysis run(std::vector<Finding> findings) {
  return correlate("job", JobShape{}, std::move(findings));
}

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
        Reason(Kind::kSymptomsOnly).set("rule", "nccl.watchdog_timeout.test"));
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
  for (int rank = 0; rank < 12; ++rank)
    findings.push_back(finding(heads_rule(), rank, static_cast<uint64_t>(rank)));
  auto analysis = run(std::move(findings));
  REQUIRE(analysis.findings.size() == 1);
  CHECK(analysis.findings[0].evidence.size() == faultline::correlate::FindingGroup::kMaxEvidence);
  CHECK(analysis.findings[0].ranks.size() == 12);
}

TEST_CASE("one reporting rank is the initiating rank") {
  auto analysis = run({finding(heads_rule(), 3, 0)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(3));
  CHECK(analysis.diagnosis->reasons ==
        std::vector<Reason>{Reason(Kind::kRootCauseRule).set("rule", "tp.heads_not_divisible.test"),
                            Reason(Kind::kOnlyRankReporting).set("rank", 3)});
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.9));
}

TEST_CASE("ranks that only report a peer's failure are witnesses, never the initiating rank") {
  const Rule* witness = test_rules().find("nccl.remote_rank_failed.test");
  REQUIRE(witness != nullptr);
  auto one = run({finding(witness, 4, 0, at(1), "remote process exited")});
  REQUIRE(one.diagnosis.has_value());
  CHECK_FALSE(one.diagnosis->initiating_rank.has_value());
  CHECK(one.diagnosis->reasons ==
        std::vector<Reason>{Reason(Kind::kSymptomsOnly).set("rule", "nccl.remote_rank_failed.test"),
                            Reason(Kind::kOnlyWitnesses).set("ranks", std::vector<int>{4})});
  // The earliest of several witnesses is no more the culprit than the others.
  auto two = run({finding(witness, 2, 0, at(1), "remote process exited"),
                  finding(witness, 6, 1, at(9), "remote process exited")});
  CHECK_FALSE(two.diagnosis->initiating_rank.has_value());
  CHECK(two.diagnosis->reasons.at(1) == Reason(Kind::kOnlyWitnesses).set("ranks", std::vector<int>{2, 6}));
}

TEST_CASE("a root cause that names no process borrows the one local rank the launcher says failed") {
  const Rule* launcher = test_rules().find("launcher.worker_failed_test");
  REQUIRE(launcher != nullptr);
  Finding failed = finding(launcher, -1, 1, {}, "failed (exitcode: 1) local_rank: 2");
  failed.facts = {{"local_rank", Value(int64_t{2})}};
  auto analysis = run({finding(oom_rule(), -1, 0), failed});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->rule == oom_rule());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  CHECK(std::find(analysis.diagnosis->reasons.begin(), analysis.diagnosis->reasons.end(),
                  Reason(Kind::kLauncherLocalRank).set("local_rank", 2)) !=
        analysis.diagnosis->reasons.end());
  // Two workers failed: the launcher does not say which printed the error.
  Finding other = failed;
  other.sequence = 2;
  other.facts = {{"local_rank", Value(int64_t{5})}};
  CHECK_FALSE(run({finding(oom_rule(), -1, 0), failed, other}).diagnosis->initiating_rank.has_value());
}

TEST_CASE("a wrapper of cause unrecognised with role symptom gives way to the error it wraps") {
  const Rule* wrapper = test_rules().find("unrecognised.wrapper_test");
  const Rule* error = test_rules().find("unrecognised.test");
  REQUIRE(wrapper != nullptr);
  REQUIRE(error != nullptr);
  // The front process's wrapper is printed first; the worker's own error after it.
  auto analysis = run({finding(wrapper, -1, 0, {}, "Engine core initialization failed. See root cause above"),
                       finding(error, 1, 1, {}, "KeyError: 3")});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->rule == error);
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  // Alone, the wrapper is still reported: a failure is never called healthy.
  auto alone = run({finding(wrapper, -1, 0, {}, "Engine core initialization failed. See root cause above")});
  REQUIRE(alone.diagnosis.has_value());
  CHECK(alone.diagnosis->rule == wrapper);
}

TEST_CASE("a template may name the one host that reported the failure; without one the item is left out") {
  const Rule* xid = test_rules().find("cuda.hardware_xid_ecc.test");
  REQUIRE(xid != nullptr);
  Finding on_host = finding(xid, -1, 0, at(1), "Xid 79");
  on_host.host = "gpu-node-17";
  auto named = run({on_host});
  REQUIRE(named.diagnosis.has_value());
  CHECK(named.diagnosis->fix ==
        std::vector<std::string>{"Drain gpu-node-17 and run its diagnostics.", "Replace the GPU."});
  // The host stands in the words only: it is no fact the match captured.
  CHECK_FALSE(faultline::find_fact(named.diagnosis->facts, "host"));
  auto unnamed = run({finding(xid, -1, 0, at(1), "Xid 79")});
  CHECK(unnamed.diagnosis->fix == std::vector<std::string>{"Replace the GPU."});
}

TEST_CASE("the initiating rank is the earliest by timestamp, not by input order") {
  auto analysis = run({finding(heads_rule(), 0, 0, at(34)), finding(heads_rule(), 1, 1, at(33))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  CHECK(analysis.diagnosis->reasons.at(1) == Reason(Kind::kReportedFirst)
                                                 .set("rank", 1)
                                                 .set("at", at(33).to_string())
                                                 .set("other_rank", 0)
                                                 .set("other_at", at(34).to_string()));
  CHECK(analysis.diagnosis->first_seen.to_string() == "2026-11-29T10:22:33Z");
  CHECK(analysis.findings[0].first_rank == 1);
}

TEST_CASE("an inherited timestamp is named in the reason") {
  auto first = finding(heads_rule(), 1, 1, at(33));
  first.time_inherited = true;
  auto analysis = run({finding(heads_rule(), 0, 0, at(34)), first});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  CHECK(analysis.diagnosis->reasons.at(1).kind == Kind::kReportedFirst);
  CHECK(analysis.diagnosis->reasons.at(1).flag("inherited"));
}

TEST_CASE("ranks reporting at the same time have no initiating rank") {
  auto analysis = run({finding(heads_rule(), 0, 0, at(33)), finding(heads_rule(), 1, 1, at(33))});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.at(1) ==
        Reason(Kind::kReportedSameSecond).set("ranks", std::vector<int>{0, 1}));
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.8));
}

TEST_CASE("several ranks with no timestamps have no initiating rank") {
  auto analysis =
      run({finding(heads_rule(), 0, 0), finding(heads_rule(), 1, 1), finding(heads_rule(), 2, 2)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.at(1) ==
        Reason(Kind::kReportedUnordered).set("ranks", std::vector<int>{0, 1, 2}));
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
  CHECK(analysis.diagnosis->reasons.at(1) == Reason(Kind::kNoRankNamed));
}

TEST_CASE("an unranked copy with no pid does not contradict the one named rank") {
  auto analysis = run({finding(heads_rule(), -1, 0), finding(heads_rule(), 4, 1)});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(4));
  CHECK(analysis.diagnosis->reasons.at(1) ==
        Reason(Kind::kOnlyRankReporting).set("rank", 4).set("unranked_copies", true));
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
        Reason(Kind::kReportedUnordered).set("ranks", std::vector<int>{4}).set("unranked", true));
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
  CHECK(analysis.diagnosis->reasons.back() == Reason(Kind::kOtherRootCauses).set("count", 1));
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
  // First the remedy from every known fact (here the error line's two), with what it lacks; then
  // the rule's items. The rule's second fix needs a fact the match lacks, so it is left out.
  CHECK(
      analysis.diagnosis->fix ==
      std::vector<std::string>{
          "Use TP 2 × PP 1 × DP 3 (keeps the job's 6 GPUs): the model accepts TP 1, 2, 4, 8, 16, 32 (from "
          "heads "
          "32); set tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=3.",
          "Not known from these logs: kv_heads, ffn; each would narrow the TP sizes above (pass the model's "
          "config.json to faultline preflight).",
          "Use one of 1, 2, 4, 8, 16, 32."});
  // A rule that is not shipped keeps its own verify command.
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
  CHECK(analysis.diagnosis->reasons.at(1) == Reason(Kind::kOnlyRankInLogs).set("rank", 0));
}

namespace {

Finding on_host(Finding finding, std::string host) {
  finding.host = std::move(host);
  return finding;
}

// A watchdog timeout of ALLREDUCE SeqNum 1580, printed at `second` of the host's clock.
Finding timed_out(int rank, std::string host, int second, uint64_t sequence) {
  auto out = on_host(finding(timeout_rule(), rank, sequence, at(second)), std::move(host));
  out.facts = {{"seq_num", Value(int64_t{1580})},
               {"op", Value(std::string("ALLREDUCE"))},
               {"timeout_ms", Value(int64_t{600000})},
               {"ran_for_ms", Value(int64_t{600000})}};
  return out;
}

}  // namespace

TEST_CASE("host clock offsets come from the timeout of a collective every host waited in") {
  // node-b prints the shared timeout 5 s after node-a and node-c.
  std::vector<Finding> findings = {timed_out(0, "node-a", 10, 0), timed_out(1, "node-a", 10, 1),
                                   timed_out(2, "node-b", 15, 2), timed_out(3, "node-b", 15, 3),
                                   timed_out(4, "node-c", 10, 4)};
  auto offsets = faultline::correlate::estimate_host_offsets(findings);
  REQUIRE_FALSE(offsets.empty());
  CHECK(offsets.of("node-a") == doctest::Approx(0));
  CHECK(offsets.of("node-b") == doctest::Approx(5));
  CHECK(offsets.whole_offset("node-b") == std::optional<int64_t>(5));
  CHECK_FALSE(offsets.whole_offset("node-a").has_value());
  CHECK(offsets.basis == faultline::correlate::HostOffsets::Basis{"ALLREDUCE", 1580, 5, 3});
}

TEST_CASE("hosts whose clocks agree give no offsets") {
  auto offsets = faultline::correlate::estimate_host_offsets(
      {timed_out(0, "node-a", 10, 0), timed_out(1, "node-b", 10, 1)});
  CHECK(offsets.empty());
}

TEST_CASE("a root cause on two hosts is ordered on the common clock") {
  // Rank 5 (node-b, 5 s ahead) failed at 32 on its clock = 27 on node-a's; rank 1 at 30.
  std::vector<Finding> findings = {timed_out(0, "node-a", 50, 0),
                                   timed_out(2, "node-a", 50, 1),
                                   timed_out(4, "node-b", 55, 2),
                                   timed_out(6, "node-b", 55, 3),
                                   timed_out(8, "node-c", 50, 6),
                                   on_host(finding(oom_rule(), 1, 4, at(30)), "node-a"),
                                   on_host(finding(oom_rule(), 5, 5, at(32)), "node-b")};
  auto analysis = run(findings);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(5));
  CHECK(analysis.diagnosis->reasons.at(1) == Reason(Kind::kReportedFirstAligned)
                                                 .set("rank", 5)
                                                 .set("at", at(32).to_string())
                                                 .set("host", "node-b")
                                                 .set("clock_offset", 5)
                                                 .set("seconds_before", 3)
                                                 .set("other_rank", 1)
                                                 .set("other_at", at(30).to_string())
                                                 .set("other_host", "node-a"));
  CHECK(analysis.diagnosis->reasons.at(2) == Reason(Kind::kClockSkewMattered)
                                                 .set("hosts", std::vector<std::string>{"node-b"})
                                                 .set("offsets", std::vector<int64_t>{5})
                                                 .set("op", "ALLREDUCE")
                                                 .set("seq", 1580)
                                                 .set("basis_ranks", 5)
                                                 .set("basis_hosts", 3)
                                                 .set("other_rank", 1));
}

TEST_CASE("without timestamps, the rank of a root cause that never reached the collective is named") {
  std::vector<Finding> findings = {finding(oom_rule(), 3, 0), finding(oom_rule(), 1, 1)};
  for (int rank : {0, 1, 2}) findings.push_back(timed_out(rank, "", 0, 2 + static_cast<uint64_t>(rank)));
  for (auto& f : findings) f.time = {};
  auto analysis = run(findings);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(3));
  CHECK(kinds_of(analysis) ==
        std::vector<Kind>{Kind::kRootCauseRule, Kind::kReportedUnordered, Kind::kNeverReachedCollective});
  CHECK(analysis.diagnosis->reasons.at(2) == Reason(Kind::kNeverReachedCollective)
                                                 .set("rank", 3)
                                                 .set("seq", 1580)
                                                 .set("ranks", std::vector<int>{1})
                                                 .set("others", 2));
}

TEST_CASE("an NCCL peer names the host of the rank that went away") {
  // Ranks 0-1 on node-a, 2-3 on node-b; rank 3 died without a word, the others lost it.
  JobShape shape;
  shape.ranks_seen = {0, 1, 2, 3};
  for (auto [host, rank] : {std::pair{"node-a", 0}, {"node-a", 1}, {"node-b.cluster", 2}, {"node-b", 3}}) {
    shape.processes.observe(host, rank, "");
  }
  std::vector<Finding> findings;
  for (int rank : {0, 1, 2}) {
    auto lost =
        finding(timeout_rule(), rank, static_cast<uint64_t>(rank), {}, "Connection closed by remote peer");
    lost.facts = {{"peer_host", Value(std::string("node-b"))}};
    findings.push_back(lost);
  }
  auto analysis = correlate("job", shape, findings);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(3));
  CHECK(analysis.diagnosis->reasons.back() == Reason(Kind::kLostPeer)
                                                  .set("reporters", std::vector<int>{0, 1, 2})
                                                  .set("peer", "node-b")
                                                  .set("host", "node-b")
                                                  .set("peer_ranks", std::vector<int>{2, 3})
                                                  .set("rank", 3)
                                                  .set("reported_it", false));
}

TEST_CASE("NCCL INFO lines map a peer's address to its host") {
  faultline::job::ProcessTable directory;
  directory.observe("node-b", 3, "node-b:311:402 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.5<0>");
  directory.observe("node-c", 4,
                    "node-c:77:80 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:fe80::1%ib0<0>");
  CHECK(directory.host_of("10.0.0.5") == "node-b");
  CHECK(directory.ranks_of("10.0.0.5") == std::vector<int>{3});
  CHECK(directory.ranks_of("fe80::1%ib0") == std::vector<int>{4});
  CHECK(directory.ranks_of("10.0.0.9").empty());
  CHECK(faultline::correlate::normalize_host("Node-B.cluster.local") == "node-b");
  CHECK(faultline::correlate::normalize_host("10.0.0.5") == "10.0.0.5");
}

TEST_CASE("the one CUDA device of the one process on one host stands for its rank") {
  auto report = finding(heads_rule(), -1, 0);
  report.pid = 26024;
  report.facts.push_back({"cuda_dev", Value(int64_t{1})});
  JobShape shape;
  shape.hosts = {"678c7278cb2d"};
  auto analysis = correlate("job", shape, {report});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.8));
}

TEST_CASE("two processes on different CUDA devices name no rank") {
  auto first = finding(heads_rule(), -1, 0);
  first.pid = 100;
  first.facts.push_back({"cuda_dev", Value(int64_t{1})});
  auto second = finding(heads_rule(), -1, 1);
  second.pid = 200;
  second.facts.push_back({"cuda_dev", Value(int64_t{2})});
  auto analysis = correlate("job", JobShape{}, {first, second});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
}

TEST_CASE("the story's delays are on the common clock when host clocks were aligned") {
  // Rank 5 ran out of memory at 32 on node-b's clock, which runs 5 s ahead (27 on the common
  // clock); the others timed out at 50 on the common clock: 23 s later, not 18.
  std::vector<Finding> findings = {
      timed_out(0, "node-a", 50, 0), timed_out(2, "node-a", 50, 1),
      timed_out(4, "node-b", 55, 2), timed_out(6, "node-b", 55, 3),
      timed_out(8, "node-c", 50, 6), on_host(finding(oom_rule(), 5, 5, at(32)), "node-b")};
  auto analysis = run(findings);
  REQUIRE(analysis.diagnosis.has_value());
  REQUIRE(analysis.diagnosis->story.size() == 2);
  const auto& others = analysis.diagnosis->story[1];
  CHECK(others.kind == faultline::correlate::StoryItem::Kind::kOthers);
  CHECK(others.ranks == std::vector<int>{0, 2, 4, 6, 8});
  CHECK(others.cause == "nccl.watchdog_timeout");
  CHECK(others.seconds_later == 50 - (32 - 5));
  CHECK(others.printed_seconds_later == 50 - 32);
  CHECK(others.collateral);
  CHECK(faultline::report::story_text(others) ==
        "ranks 0,2,4,6,8 reported nccl.watchdog_timeout (Watchdog timeout), 23 s later (host clocks aligned; "
        "18 s by the printed times) (collateral)");
}

TEST_CASE("the story's delays are the printed times' when no clock offset was estimated") {
  std::vector<Finding> findings = {timed_out(0, "node-a", 50, 0), timed_out(2, "node-b", 50, 1),
                                   on_host(finding(oom_rule(), 1, 2, at(32)), "node-a")};
  auto analysis = run(findings);
  REQUIRE(analysis.diagnosis.has_value());
  REQUIRE(analysis.diagnosis->story.size() == 2);
  const auto& first = analysis.diagnosis->story[0];
  CHECK(first.kind == faultline::correlate::StoryItem::Kind::kFailedFirst);
  CHECK(first.ranks == std::vector<int>{1});
  const auto& others = analysis.diagnosis->story[1];
  CHECK(others.seconds_later == 50 - 32);
  CHECK_FALSE(others.printed_seconds_later);
  CHECK(faultline::report::story_text(others) ==
        "ranks 0,2 reported nccl.watchdog_timeout (Watchdog timeout), 18 s later (collateral)");
}

namespace {

// Ranks 8-15 on node-b and 0-7 on node-a, as their prefixed lines showed them.
JobShape two_hosts_of_eight() {
  JobShape shape;
  shape.hosts = {"node-a", "node-b"};
  for (int rank = 0; rank < 16; ++rank) {
    if (rank == 13) continue;  // its only line is the error
    shape.processes.observe(rank < 8 ? "node-a" : "node-b", rank, "");
    shape.ranks_seen.push_back(rank);
  }
  return shape;
}

}  // namespace

TEST_CASE("the GPU a CUDA error names, on a host whose ranks are known, names the rank") {
  auto oom = on_host(finding(oom_rule(), -1, 0), "node-b");
  oom.matched = "CUDA out of memory. Tried to allocate 2.50 GiB. GPU 5 has a total capacity of 79.15 GiB";
  auto analysis = correlate("job", two_hosts_of_eight(), {oom});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(13));
  CHECK(analysis.diagnosis->reasons.back() ==
        Reason(Kind::kRankClue)
            .set("rank", 13)
            .set("clue", "error_device")
            .set("mapping", "host_block")
            .set("index", 5)
            .set("host", "node-b")
            .set("host_ranks", std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  // Weaker than the rank's own prefix: the rank adds nothing to the confidence.
  CHECK(analysis.diagnosis->confidence == doctest::Approx(0.8));
  CHECK(analysis.findings.at(0).evidence.at(0).rank == 13);
}

TEST_CASE("cuda:N in an error's frame and device N in its message are device clues; two devices are none") {
  auto frame = finding(oom_rule(), -1, 0);
  frame.evidence.push_back({0, 2, -1, "    x = x.to('cuda:3')"});
  CHECK(faultline::correlate::device_named_by(frame) == std::optional<int>(3));
  auto message = finding(oom_rule(), -1, 0, {}, "CUDA error: out of memory on device 6");
  CHECK(faultline::correlate::device_named_by(message) == std::optional<int>(6));
  auto two = finding(oom_rule(), -1, 0, {}, "Expected all tensors on one device, found cuda:0 and cuda:1");
  CHECK_FALSE(faultline::correlate::device_named_by(two).has_value());
  auto size = finding(oom_rule(), -1, 0, {}, "GPU 5.5 GiB; cudaDevice 3");
  CHECK_FALSE(faultline::correlate::device_named_by(size).has_value());
  // A kernel line names the GPU by its PCI address: the domain before the bus is no device.
  auto pci = finding(oom_rule(), -1, 0, {}, "NVRM: GPU 0000:c1:00.0: RmInitAdapter failed! (0x24:0x72:1568)");
  CHECK_FALSE(faultline::correlate::device_named_by(pci).has_value());
  auto index = finding(oom_rule(), -1, 0, {}, "CUDA error on GPU 2: out of memory");
  CHECK(faultline::correlate::device_named_by(index) == std::optional<int>(2));
}

TEST_CASE("a device named by an error that is not a CUDA error is no rank clue") {
  auto warning = on_host(finding(heads_rule(), -1, 0), "node-b");
  warning.evidence.at(0).text = "GPU 5 has less than 75% of the memory or cores of GPU 0";
  auto analysis = correlate("job", two_hosts_of_eight(), {warning});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
}

TEST_CASE("NCCL lines that show a rank on a device map that device, over the host's block") {
  JobShape shape = two_hosts_of_eight();
  shape.processes.observe_device("node-b", 5, 9);  // remapped: device 5 drives rank 9
  auto oom =
      on_host(finding(oom_rule(), -1, 0, {}, "CUDA out of memory. GPU 5 has a total capacity"), "node-b");
  auto analysis = correlate("job", shape, {oom});
  REQUIRE(analysis.diagnosis.has_value());
  // The block no longer holds (device 5 is not local rank 5), but the device line itself names rank 9.
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(9));
  CHECK(analysis.diagnosis->reasons.back().text("mapping") == "device_lines");
  CHECK(analysis.diagnosis->reasons.back().number("rank") == 9);
}

TEST_CASE("NCCL's [dev] prefix on a job of one host is the local rank, as weak evidence") {
  JobShape shape;
  shape.hosts = {"gpu-a17"};
  shape.ranks_seen = {0, 1, 2, 3};
  for (int rank : {0, 1, 2, 3}) shape.processes.observe("gpu-a17", rank, "");
  auto warn = on_host(finding(heads_rule(), -1, 0), "gpu-a17");
  warn.pid = 4242;
  warn.device = 2;
  auto analysis = correlate("job", shape, {warn});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  CHECK(analysis.diagnosis->reasons.back() == Reason(Kind::kRankClue)
                                                  .set("rank", 2)
                                                  .set("clue", "nccl_device")
                                                  .set("mapping", "one_host")
                                                  .set("index", 2)
                                                  .set("host", "gpu-a17"));

  SUBCASE("not when a process drives several devices") {
    shape.processes.observe_process_device("gpu-a17", 4242, 0);
    shape.processes.observe_process_device("gpu-a17", 4242, 1);
    auto several = correlate("job", shape, {warn});
    CHECK_FALSE(several.diagnosis->initiating_rank.has_value());
  }
  SUBCASE("not when NCCL lost a peer on another host") {
    auto lost = finding(timeout_rule(), 1, 1, {}, "Got completion from peer 10.12.2.6<50733> with error 5");
    lost.facts = {{"peer_ip", Value(std::string("10.12.2.6"))}};
    auto spans = correlate("job", shape, {warn, lost});
    CHECK_FALSE(spans.diagnosis->initiating_rank.has_value());
  }
  SUBCASE("not on a job of several hosts") {
    auto several = correlate("job", two_hosts_of_eight(), {on_host(warn, "node-b")});
    CHECK_FALSE(several.diagnosis->initiating_rank.has_value());
  }
}

TEST_CASE("a rank that logged nothing while every other rank timed out in one collective is the suspect") {
  JobShape shape;
  shape.ranks_seen = {0, 1, 3};
  std::vector<Finding> findings;
  for (int rank : {3, 0, 1}) findings.push_back(timed_out(rank, "", 0, static_cast<uint64_t>(rank)));
  for (auto& f : findings) f.time = {};
  auto analysis = correlate("job", shape, findings);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  CHECK(analysis.diagnosis->reasons.at(1) == Reason(Kind::kSilentMissingRank)
                                                 .set("ranks", std::vector<int>{0, 1, 3})
                                                 .set("seq", 1580)
                                                 .set("rank", 2));
  // It stays listed as missing: no contradiction with the ranks seen.
  CHECK(analysis.shape.ranks_seen == std::vector<int>{0, 1, 3});
  CHECK(analysis.coverage.missing_ranks == std::vector<int>{2});

  SUBCASE("not when one rank alone logged: that rank is named as the only reporter") {
    shape.ranks_seen = {1};
    auto alone = correlate("job", shape, {timed_out(1, "", 0, 0)});
    CHECK(alone.diagnosis->initiating_rank == std::optional<int>(1));
    CHECK(alone.diagnosis->reasons.at(1) == Reason(Kind::kOnlyRankReporting).set("rank", 1));
  }
}

TEST_CASE("a victim is not named while a rank has an error of its own") {
  // The launcher stopped pid 100 (rank 0) but not pid 101 (rank 1), which had timed out and exited;
  // rank 0 reported an out-of-memory error of its own. The diagnosis (the earlier error) names no rank.
  JobShape shape;
  shape.hosts = {"node-a"};
  shape.ranks_seen = {0, 1};
  shape.processes.observe_process("node-a", 100, 0);
  shape.processes.observe_process("node-a", 101, 1);
  auto heads = finding(heads_rule(), -1, 0);
  auto oom = on_host(finding(oom_rule(), 0, 1), "node-a");
  auto victim = on_host(timed_out(1, "node-a", 0, 2), "node-a");
  victim.time = {};
  auto stop =
      on_host(finding(timeout_rule(), -1, 3, {}, "Sending process 100 closing signal SIGTERM"), "node-a");
  stop.facts = {{"pid", Value(int64_t{100})}, {"signal_name", Value(std::string("SIGTERM"))}};
  auto analysis = correlate("job", shape, {heads, oom, victim, stop});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "tp.heads_not_divisible");
  CHECK_FALSE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(analysis.diagnosis->reasons.back() ==
        Reason(Kind::kVictimSetAside).set("rank", 1).set("ranks", std::vector<int>{0}));
}

TEST_CASE("the launcher's local rank on a job of one host names the rank, and the rank is seen") {
  auto failed = finding(heads_rule(), -1, 0);
  failed.facts.push_back({"local_rank", Value(int64_t{3})});
  JobShape shape;
  shape.hosts = {"node-a"};
  auto analysis = correlate("job", shape, {failed});
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(3));
  CHECK(analysis.diagnosis->reasons.back() == Reason(Kind::kRankClue)
                                                  .set("rank", 3)
                                                  .set("clue", "local_rank")
                                                  .set("mapping", "one_host")
                                                  .set("index", 3));
  CHECK(analysis.shape.ranks_seen == std::vector<int>{3});
  CHECK(analysis.findings.at(0).ranks == std::vector<int>{3});
  CHECK(analysis.findings.at(0).evidence.at(0).rank == 3);
}

TEST_CASE("the ranks seen include the initiating rank, however it was named") {
  JobShape shape;
  shape.ranks_seen = {};
  auto relay = finding(heads_rule(), 4, 1, {}, "heads (32) by tp (6) relayed");
  auto bare = finding(heads_rule(), -1, 0);
  auto analysis = correlate("job", shape, {bare, relay});
  REQUIRE(analysis.diagnosis.has_value());
  REQUIRE(analysis.diagnosis->initiating_rank.has_value());
  CHECK(std::binary_search(analysis.shape.ranks_seen.begin(), analysis.shape.ranks_seen.end(),
                           *analysis.diagnosis->initiating_rank));
}

TEST_CASE("a rank whose watchdog status line names the collective the others timed out in is not silent") {
  JobShape shape;
  shape.ranks_seen = {0, 1, 2};
  auto status = finding(test_rules().find("nccl.watchdog_timeout.status_test"), 1, 1, at(10),
                        "Exception (either an error or timeout) detected by watchdog at work: 1580");
  status.facts = {{"seq_num", Value(int64_t{1580})}, {"last_completed", Value(int64_t{1579})}};
  auto with_status = correlate("job", shape, {timed_out(0, "", 10, 0), status, timed_out(2, "", 10, 2)});
  REQUIRE(with_status.diagnosis.has_value());
  auto kinds = kinds_of(with_status);
  CHECK(std::find(kinds.begin(), kinds.end(), Kind::kSilentInCollective) == kinds.end());
  CHECK(with_status.diagnosis->initiating_rank != std::optional<int>(1));
  // Rank 1 seen, but with nothing about that collective: it is the one that never reached it.
  auto silent = correlate("job", shape, {timed_out(0, "", 10, 0), timed_out(2, "", 10, 2)});
  REQUIRE(silent.diagnosis.has_value());
  CHECK(silent.diagnosis->initiating_rank == std::optional<int>(1));
}
