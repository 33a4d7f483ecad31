// Occurrence folding (correlate/occurrence_fold.hpp, issue 16): a job's findings stay bounded by
// distinct findings, and what correlate makes of them is what it makes of every occurrence.
#include "correlate/occurrence_fold.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <sstream>

#include "../skip_unless.hpp"
#include "dense_logs.hpp"
#include "pipeline_helpers.hpp"
#include "report/story.hpp"
#include "screen/literal_screen.hpp"

using faultline::correlate::fold_occurrences;
using faultline::job::JobRunner;
using faultline::rules::Evidence;
using faultline::rules::Finding;
using faultline::rules::Role;
using faultline::rules::Rule;

namespace {

Rule make_rule(std::string id, std::string cause, int priority = 0, Role role = Role::kRootCause) {
  Rule rule;
  rule.id = std::move(id);
  rule.cause = std::move(cause);
  rule.priority = priority;
  rule.role = role;
  return rule;
}

Finding occurrence(const Rule& rule, int rank, uint64_t line, std::string matched = "CUDA out of memory") {
  Finding finding;
  finding.rule = &rule;
  finding.rank = rank;
  finding.sequence = line;
  finding.matched = std::move(matched);
  finding.evidence.push_back(Evidence{0, line, rank, "line " + std::to_string(line)});
  return finding;
}

// Diagnosis, story and every finding group: ranks, occurrences, first evidence line and time.
std::string summary(const faultline::correlate::JobAnalysis& analysis) {
  std::ostringstream out;
  if (analysis.diagnosis) {
    const auto& diagnosis = *analysis.diagnosis;
    out << "diagnosis " << diagnosis.cause << " rank "
        << (diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank) : "none") << " at "
        << diagnosis.first_seen.to_string() << " confidence " << diagnosis.confidence << "\n";
    for (const auto& line : diagnosis.story) out << "  " << faultline::report::story_text(line) << "\n";
  }
  for (const auto& group : analysis.findings) {
    out << group.rule->id << " x" << group.occurrences << " ranks";
    for (int rank : group.ranks) out << " " << rank;
    if (!group.evidence.empty()) out << " line " << group.evidence.front().line;
    out << " at " << group.first_time.to_string() << " first rank " << group.first_rank << "\n";
  }
  return out.str();
}

struct Read {
  std::string summary;
  uint64_t folded = 0;
};

Read read_log(const std::string& log, size_t fold_threshold, uint64_t dense_head_bytes = UINT64_MAX) {
  JobRunner runner(faultline::testing::shipped_engine());
  runner.set_fold_threshold(fold_threshold);
  runner.set_dense_head_bytes(dense_head_bytes);
  runner.set_sampled_screen_bytes(0);
  auto source = faultline::ingest::memory_source(log);
  faultline::ingest::SourceInfo info;
  info.name = "serve.log";
  runner.add_source(*source, std::move(info));
  Read read;
  read.summary = summary(runner.finish("job"));
  read.folded = runner.occurrences_folded();
  return read;
}

}  // namespace

TEST_CASE("folding keeps the first and the last occurrence and counts the rest in the first") {
  Rule oom = make_rule("cuda.oom.pytorch", "cuda.oom");
  std::vector<Finding> findings;
  for (uint64_t line = 1; line <= 20; ++line) findings.push_back(occurrence(oom, 3, line));
  auto fold = fold_occurrences(findings, {}, UINT64_MAX);
  CHECK(fold.folded == 18);
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].evidence.front().line == 1);
  CHECK(findings[0].folded == 18);
  CHECK(findings[0].evidence.size() == faultline::correlate::FindingGroup::kMaxEvidence);  // a sample
  CHECK(findings[1].evidence.front().line == 20);
  CHECK(findings[1].folded == 0);
  // Folding again adds to the count; the occurrences stay 20.
  for (uint64_t line = 21; line <= 25; ++line) findings.push_back(occurrence(oom, 3, line));
  fold_occurrences(findings, {}, UINT64_MAX);
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].folded + findings.size() == 25);
  CHECK(findings[1].evidence.front().line == 25);
}

TEST_CASE("folding keeps ranks, rules and facts that correlate compares apart") {
  Rule oom = make_rule("cuda.oom.pytorch", "cuda.oom");
  Rule timeout = make_rule("nccl.watchdog_timeout.pytorch", "nccl.watchdog_timeout", 0, Role::kSymptom);
  std::vector<Finding> findings;
  for (uint64_t line = 1; line <= 30; ++line) {
    findings.push_back(occurrence(line % 3 ? oom : timeout, static_cast<int>(line % 2), line));
    if (findings.back().rule == &timeout)
      findings.back().facts.push_back({"seq_num", int64_t(line < 15 ? 7 : 8)});
    // A decimal measurement (an OOM's MiB) does not keep occurrences apart.
    if (findings.back().rule == &oom)
      findings.back().facts.push_back({"requested_mib", std::to_string(line) + ".50"});
  }
  fold_occurrences(findings, {}, UINT64_MAX);
  // oom: 2 ranks x (first, last); timeout: 2 ranks x 2 SeqNums x (first, last).
  CHECK(findings.size() == 4 + 8);
  uint64_t occurrences = 0;
  for (const auto& finding : findings) occurrences += 1 + finding.folded;
  CHECK(occurrences == 30);
}

TEST_CASE("folding leaves a finding on a line of an open event, and what shares a line with it") {
  Rule oom = make_rule("cuda.oom.pytorch", "cuda.oom", 10);
  Rule catch_all = make_rule("unrecognised.python_exception", "unrecognised", 0);
  std::vector<Finding> findings;
  for (uint64_t line = 1; line <= 10; ++line) findings.push_back(occurrence(oom, 0, line));
  // Lines 9 and 10 are in an event still open: their findings (and line 8's, which shares a line
  // with a finding of line 9's event) wait.
  Finding event = occurrence(catch_all, 0, 8, "Traceback ...");
  event.evidence.push_back(Evidence{0, 9, 0, "line 9"});
  findings.push_back(event);
  fold_occurrences(findings, {{0, 9}, {0, 10}}, 9);
  // Lines 1..7: first and last kept; 8, 9, 10 and the event untouched.
  CHECK(findings.size() == 2 + 3 + 1);
}

TEST_CASE(
    "a finding that yields to a rule of higher priority on its line is dropped as keep_highest_priority "
    "would") {
  Rule oom = make_rule("cuda.oom.pytorch", "cuda.oom", 10);
  Rule catch_all = make_rule("unrecognised.python_exception", "unrecognised", 0);
  std::vector<Finding> findings;
  Finding event = occurrence(catch_all, 0, 4, "Traceback ...");
  event.evidence.push_back(Evidence{0, 7, 0, "line 7"});
  findings.push_back(event);
  findings.push_back(occurrence(oom, 0, 7));
  auto fold = fold_occurrences(findings, {}, UINT64_MAX);
  CHECK(fold.yielded == 1);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == &oom);
}

TEST_CASE("an error no rule knows folds only with occurrences no recovery of its rank separates") {
  Rule catch_all = make_rule("unrecognised.python_exception", "unrecognised");
  Rule retry = make_rule("recovery.retry", "recovery", 0, Role::kRecovery);
  std::vector<Finding> findings;
  for (uint64_t line = 1; line <= 12; ++line)
    findings.push_back(occurrence(catch_all, 0, line, "KeyError: 'a'"));
  findings.push_back(occurrence(retry, 0, 6, "retrying"));  // (a finding of its own line 6 too)
  findings[5].evidence.front().line = 106;                  // keep line 6 to the recovery
  fold_occurrences(findings, {}, UINT64_MAX);
  // Lines 1-5 (before the recovery) and 7-12 (after it) fold apart: 2 + 2 kept, and the recovery.
  size_t errors = 0;
  uint64_t occurrences = 0;
  for (const auto& finding : findings) {
    if (finding.rule != &catch_all) continue;
    ++errors;
    occurrences += 1 + finding.folded;
  }
  CHECK(errors == 4);
  CHECK(occurrences == 12);
}

TEST_CASE("a dense log read with folding gives the same diagnosis and counts as without") {
  std::string log = faultline::testing::oom_spam_log(64, 6000);
  Read unfolded = read_log(log, std::numeric_limits<size_t>::max());
  Read folded = read_log(log, 256);
  CHECK(unfolded.folded == 0);
  CHECK(folded.folded > 1000);
  CHECK(folded.summary == unfolded.summary);
  CHECK(folded.summary.find("diagnosis cuda.oom") != std::string::npos);
}

TEST_CASE("a dense log read sparsely with folding gives what a full read without folding gives" *
          faultline::testing::skip_unless(faultline::screen::LiteralScreen::built_in(),
                                          "built without Hyperscan")) {
  REQUIRE(faultline::job::make_screens(faultline::testing::shipped_engine())->literals());
  for (uint64_t seed : {1, 2, 3}) {
    std::string log = faultline::testing::oom_spam_log(16, 4000, seed);
    Read full = read_log(log, std::numeric_limits<size_t>::max());
    Read sparse = read_log(log, 128, 0);
    INFO("seed " << seed);
    CHECK(sparse.summary == full.summary);
  }
}

TEST_CASE("a dense NCCL debug dump read sparsely gives what a full read gives" *
          faultline::testing::skip_unless(faultline::screen::LiteralScreen::built_in(),
                                          "built without Hyperscan")) {
  REQUIRE(faultline::job::make_screens(faultline::testing::shipped_engine())->literals());
  for (uint64_t seed : {1, 2}) {
    std::string log = faultline::testing::nccl_debug_log(32, 12000, 5, seed);
    Read full = read_log(log, std::numeric_limits<size_t>::max());
    Read sparse = read_log(log, 4096, 0);
    INFO("seed " << seed);
    CHECK(sparse.summary == full.summary);
    CHECK(full.summary.find("diagnosis tp.heads_not_divisible rank 5") != std::string::npos);
  }
}
