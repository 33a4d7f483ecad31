// `faultline rules test --corpus DIR`: how the rules do on a labelled corpus.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "cli/corpus.hpp"
#include "job/job_runner.hpp"
#include "report/report.hpp"

namespace faultline::cli {
namespace {

struct CaseOutcome {
  const CorpusCase* item = nullptr;
  std::string cause;  // the diagnosis, or "negative"
  std::optional<int> initiating_rank;
  std::set<const rules::Rule*> fired;
  const rules::Rule* diagnosis_rule = nullptr;
  bool wrong_line = false;  // the diagnosis matched, but on none of the expected lines
};

// A case labelled `other` failed for a cause outside the taxonomy. The right answers say that
// they do not know it: cause `unrecognised` (an error no rule knows, shown as it stands), or a
// diagnosis of symptoms only ("the cause may be outside these logs"). A root cause from the
// taxonomy is wrong there, and so is no diagnosis: the log shows a failure.
bool right_cause(const CaseOutcome& outcome) {
  const std::string& expected = outcome.item->cause;
  if (outcome.cause == expected) return true;
  if (expected != "other") return false;
  return outcome.cause == "unrecognised" ||
         (outcome.diagnosis_rule && outcome.diagnosis_rule->role == rules::Role::kSymptom);
}

std::string percent(size_t part, size_t whole) {
  if (whole == 0) return "-";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.0f%%",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buffer;
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text + " ";
}

// Whether an evidence line is one of the case's expected lines ("log.txt:49").
bool evidence_expected(const CorpusCase& item, const report::RunReport& report,
                       const rules::Evidence& evidence) {
  if (evidence.source >= report.sources.size()) return false;
  const std::string& source = report.sources[evidence.source].name;
  for (const auto& expected : item.evidence) {
    size_t colon = expected.rfind(':');
    if (colon == std::string::npos) continue;
    std::string file = "/" + expected.substr(0, colon);
    if (source.ends_with(file) && expected.substr(colon + 1) == std::to_string(evidence.line)) return true;
  }
  return false;
}

CaseOutcome score_case(const CorpusCase& item, const rules::Engine& engine) {
  job::JobRunner runner(engine);
  for (const auto& file : item.files) runner.add_path(file);
  report::RunReport report;
  report.jobs.push_back(runner.finish(item.name));
  report.sources = runner.sources();
  const auto& job = report.jobs.front();
  CaseOutcome outcome;
  outcome.item = &item;
  outcome.cause = job.diagnosis ? job.diagnosis->cause : "negative";
  if (job.diagnosis) {
    outcome.initiating_rank = job.diagnosis->initiating_rank;
    outcome.diagnosis_rule = job.diagnosis->rule;
  }
  for (const auto& group : job.findings) outcome.fired.insert(group.rule);
  if (job.diagnosis && !item.evidence.empty()) {
    const auto& evidence = job.findings.front().evidence;
    outcome.wrong_line = std::none_of(evidence.begin(), evidence.end(), [&](const rules::Evidence& e) {
      return evidence_expected(item, report, e);
    });
  }
  return outcome;
}

// Accuracy over all cases and without the weak labels, and the initiating ranks right.
std::string totals_section(const std::string& directory, const std::vector<CaseOutcome>& outcomes) {
  size_t right = 0, strict_right = 0, strict = 0, ranks_right = 0, ranks = 0;
  for (const auto& outcome : outcomes) {
    bool correct = right_cause(outcome);
    right += correct;
    if (outcome.item->cause != "other" && !outcome.item->low_confidence) {
      ++strict;
      strict_right += correct;
    }
    if (outcome.item->initiating_rank) {
      ++ranks;
      ranks_right += outcome.initiating_rank == outcome.item->initiating_rank;
    }
  }
  size_t scored = outcomes.size();
  return "\ncorpus " + directory + ": " + std::to_string(scored) + " cases\n" +
         "  top cause right: " + std::to_string(right) + "/" + std::to_string(scored) + " (" +
         percent(right, scored) +
         "); without 'other' and low-confidence labels: " + std::to_string(strict_right) + "/" +
         std::to_string(strict) + " (" + percent(strict_right, strict) + ")\n" +
         "  initiating rank right: " + std::to_string(ranks_right) + "/" + std::to_string(ranks) +
         " (cases that name one)\n\n";
}

// Per labelled cause: its cases, how many were right, and the recall of its rules.
std::string causes_section(const std::vector<CaseOutcome>& outcomes) {
  std::map<std::string, std::pair<size_t, size_t>> by_cause;  // cause -> (cases, right)
  for (const auto& outcome : outcomes) {
    auto& [cases, cause_right] = by_cause[outcome.item->cause];
    ++cases;
    cause_right += right_cause(outcome);
  }
  std::string text =
      "  " + pad("cause", 30) + pad("cases", 6) + pad("right", 6) + "recall (any rule of the cause fired)\n";
  for (const auto& entry : by_cause) {
    const std::string& cause = entry.first;  // not a structured binding: the lambda below takes it
    const auto& counts = entry.second;
    size_t fired = 0;
    for (const auto& outcome : outcomes) {
      if (outcome.item->cause != cause) continue;
      fired += std::any_of(outcome.fired.begin(), outcome.fired.end(),
                           [&](const rules::Rule* rule) { return rule->cause == cause; });
    }
    text += "  " + pad(cause, 30) + pad(std::to_string(counts.first), 6) +
            pad(std::to_string(counts.second), 6) +
            (cause == "negative" || cause == "other" ? "-" : percent(fired, counts.first)) + "\n";
  }
  return text;
}

// Per rule: its examples passed, how often it fired, its precision and recall, and the cases it
// diagnosed from a line the label does not point at.
std::string rules_section(const std::vector<CaseOutcome>& outcomes,
                          const std::vector<ExampleResult>& examples) {
  std::string text = "\n  " + pad("rule", 52) + pad("examples", 9) + pad("fired", 6) + pad("precision", 10) +
                     pad("recall", 7) + "wrong-line\n";
  for (const auto& example : examples) {
    const rules::Rule* rule = example.rule;
    size_t fired = 0, fired_right = 0, of_cause = 0, caught = 0, wrong_line = 0;
    for (const auto& outcome : outcomes) {
      bool has = outcome.fired.contains(rule);
      bool of_this_cause = outcome.item->cause == rule->cause;
      fired += has;
      fired_right += has && of_this_cause;
      of_cause += of_this_cause;
      caught += has && of_this_cause;
      wrong_line += outcome.diagnosis_rule == rule && outcome.wrong_line;
    }
    std::string precision = rule->role == rules::Role::kSymptom ? "(symptom)" : percent(fired_right, fired);
    text += "  " + pad(rule->id, 52) +
            pad(std::to_string(example.passed) + "/" + std::to_string(example.total), 9) +
            pad(std::to_string(fired), 6) + pad(precision, 10) + pad(percent(caught, of_cause), 7) +
            std::to_string(wrong_line) + "\n";
  }
  return text;
}

// The cases with the wrong cause or evidence on another line; empty when there are none.
std::string misses_section(const std::vector<CaseOutcome>& outcomes) {
  std::string text;
  for (const auto& outcome : outcomes) {
    if (right_cause(outcome) && !outcome.wrong_line) continue;
    if (text.empty()) text = "\n  misses:\n";
    text += "    " + pad(outcome.item->name, 56) + "expected " + outcome.item->cause + ", got " +
            outcome.cause + (outcome.wrong_line ? " (evidence on another line)" : "") + "\n";
  }
  return text;
}

}  // namespace

int run_corpus_score(const std::string& directory, const rules::Engine& engine,
                     const std::vector<ExampleResult>& examples, Output& out) {
  auto corpus = load_corpus(directory);
  if (!corpus) {
    out.err("faultline: " + corpus.status().message() + "\n");
    return 2;
  }
  std::vector<CaseOutcome> outcomes;
  for (const auto& item : *corpus) outcomes.push_back(score_case(item, engine));
  out.out(totals_section(directory, outcomes));
  out.out(causes_section(outcomes));
  out.out(rules_section(outcomes, examples));
  out.out(misses_section(outcomes));
  return 0;
}

}  // namespace faultline::cli
