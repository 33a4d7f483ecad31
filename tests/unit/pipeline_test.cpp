// The job runner (src/job/job_runner.hpp): text through every stage to findings, and
// JobRunner over memory sources.
#include <doctest/doctest.h>

#include <algorithm>

#include "job/job_runner.hpp"
#include "rules/rule_set.hpp"

using faultline::Value;
using faultline::job::findings_for_text;
using faultline::job::JobRunner;
using faultline::rules::Engine;
using faultline::rules::Finding;
using faultline::rules::RuleSet;

namespace {

const RuleSet& shipped() {
  static const RuleSet set = RuleSet::shipped();
  return set;
}

const Engine& engine() {
  static const Engine instance(shipped());
  return instance;
}

bool fired(const std::vector<Finding>& findings, std::string_view id) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule->id == id; });
}

faultline::ingest::SourceInfo source_info(std::string name) {
  faultline::ingest::SourceInfo info;
  info.name = std::move(name);
  return info;
}

const char* kVllmError =
    "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).";

}  // namespace

TEST_CASE("findings_for_text finds the vLLM heads error with its facts") {
  auto findings = findings_for_text(engine(), kVllmError);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule->id == "tp.heads_not_divisible.vllm");
  REQUIRE(faultline::find_fact(findings[0].facts, "heads"));
  CHECK(*faultline::find_fact(findings[0].facts, "heads") == Value(int64_t{32}));
  CHECK(*faultline::find_fact(findings[0].facts, "tp") == Value(int64_t{6}));
  CHECK(findings[0].rank == -1);
}

TEST_CASE("findings_for_text takes the rank from a launcher prefix") {
  auto findings = findings_for_text(engine(), std::string("[rank3]: ") + kVllmError + "\n");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rank == 3);
  REQUIRE(findings[0].evidence.size() == 1);
  CHECK(findings[0].evidence[0].text == std::string("[rank3]: ") + kVllmError);
  CHECK(findings[0].evidence[0].line == 1);
}

TEST_CASE("findings_for_text takes the rank from the name it is given") {
  auto findings = findings_for_text(engine(), kVllmError, "logs/rank5.log");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rank == 5);
}

TEST_CASE("findings_for_text finds no TP cause when the sizes divide") {
  // The line is still an exception no other rule explains: only the catch-all reports it.
  auto findings = findings_for_text(engine(),
                                    "ValueError: Total number of attention heads (32) must be divisible by "
                                    "tensor parallel size (8).");
  CHECK(std::all_of(findings.begin(), findings.end(),
                    [](const Finding& f) { return f.rule->cause == "unrecognised"; }));
  CHECK(findings_for_text(engine(), "all good\n").empty());
  CHECK(findings_for_text(engine(), "").empty());
}

TEST_CASE("findings_for_text strips ANSI and prefixes before matching") {
  auto findings =
      findings_for_text(engine(), std::string("\x1b[31m[default0]:[rank1]: ") + kVllmError + "\x1b[0m\n");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rank == 1);
  CHECK(findings[0].local_rank == 0);
}

TEST_CASE("every shipped rule fires on its match examples with the listed facts") {
  for (const auto* rule : shipped().rules()) {
    for (const auto& example : rule->match_examples) {
      CAPTURE(rule->id);
      CAPTURE(example.text);
      auto findings = findings_for_text(engine(), example.text);
      auto hit =
          std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule == rule; });
      REQUIRE(hit != findings.end());
      for (const auto& fact : example.facts) {
        CAPTURE(fact.first);
        const Value* value = faultline::find_fact(hit->facts, fact.first);
        REQUIRE(value != nullptr);
        CHECK(faultline::to_display(*value) == fact.second);
      }
    }
  }
}

TEST_CASE("no shipped rule fires on its no_match examples") {
  for (const auto* rule : shipped().rules()) {
    for (const auto& example : rule->no_match_examples) {
      CAPTURE(rule->id);
      CAPTURE(example);
      CHECK_FALSE(fired(findings_for_text(engine(), example), rule->id));
    }
  }
}

TEST_CASE("JobRunner names the initiating rank across sources by timestamp") {
  JobRunner runner(engine());
  std::string rank0 = std::string("[rank0]: 2026-11-29 10:22:35,000 - x - ERROR - ") + kVllmError + "\n";
  std::string rank1 = std::string("[rank1]: 2026-11-29 10:22:33,000 - x - ERROR - ") + kVllmError + "\n";
  auto source0 = faultline::ingest::memory_source(rank0);
  auto source1 = faultline::ingest::memory_source(rank1);
  runner.add_source(*source0, source_info("rank0.log"));
  runner.add_source(*source1, source_info("rank1.log"));
  auto analysis = runner.finish("job");
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "tp.heads_not_divisible");
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(1));
  CHECK(analysis.shape.ranks_seen == std::vector<int>{0, 1});
  REQUIRE(runner.sources().size() == 2);
  CHECK(runner.sources()[0].lines == 1);
  CHECK(runner.sources()[0].bytes == rank0.size());
  CHECK_FALSE(runner.had_input_errors());
}

TEST_CASE("JobRunner skips a binary source with its reason") {
  JobRunner runner(engine());
  std::string binary(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\x03\x04\x05\x06",
      14);
  auto source = faultline::ingest::memory_source(binary);
  runner.add_source(*source, source_info("core.bin"));
  REQUIRE(runner.skipped().size() == 1);
  CHECK(runner.skipped()[0].source == "core.bin");
  CHECK(runner.skipped()[0].reason ==
        "binary file (8 of the 11 bytes other than NUL in its first 14 are control bytes or invalid UTF-8), "
        "not a log");
  CHECK(runner.sources().empty());
  CHECK(runner.had_input_errors());
}

TEST_CASE("JobRunner skips an empty source") {
  JobRunner runner(engine());
  auto source = faultline::ingest::memory_source("");
  runner.add_source(*source, source_info("empty.log"));
  REQUIRE(runner.skipped().size() == 1);
  CHECK(runner.skipped()[0].reason == "empty file, nothing to analyse");
}

TEST_CASE("JobRunner skips a path that cannot be opened") {
  JobRunner runner(engine());
  runner.add_path("/nonexistent/dir/rank0.log");
  REQUIRE(runner.skipped().size() == 1);
  CHECK(runner.skipped()[0].source == "/nonexistent/dir/rank0.log");
  CHECK(runner.skipped()[0].reason == "No such file or directory");
}

TEST_CASE("a line rule's finding inside a spawned process's traceback takes the process from its header") {
  // torch.multiprocessing.spawn names the process above the traceback, not on its lines.
  std::string text =
      "torch.multiprocessing.spawn.ProcessRaisedException:\n"
      "\n"
      "-- Process 2 terminated with the following error:\n"
      "Traceback (most recent call last):\n"
      "  File \"/srv/train/main.py\", line 55, in worker\n"
      "    loss.backward()\n"
      "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  auto findings = findings_for_text(engine(), text);
  REQUIRE_FALSE(findings.empty());
  for (const auto& finding : findings) {
    CAPTURE(finding.rule->id);
    CHECK(finding.rank == 2);
    for (const auto& evidence : finding.evidence) CHECK(evidence.rank == 2);
  }
}
