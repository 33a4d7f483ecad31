// The commands behind `faultline ...`, each one row's run function in the command table
// (command_table.cpp). Each returns the process exit code: 0 no failure found, 1 failure
// diagnosed (or a test failed), 2 usage or input error.
#pragma once

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "rules/engine.hpp"
#include "rules/rule_set.hpp"

namespace faultline::cli {

// What a rule's embedded examples gave (`faultline rules test`).
struct ExampleResult {
  const rules::Rule* rule = nullptr;
  size_t passed = 0;
  size_t total = 0;
  std::vector<std::string> failures;
};
std::vector<ExampleResult> run_examples(const rules::RuleSet& rules, const rules::Engine& engine);
// `rules test --corpus DIR`: accuracy, per-cause recall, per-rule precision and wrong-line
// matches over a labelled corpus. 2 when the corpus cannot be read.
int run_corpus_score(const std::string& directory, const rules::Engine& engine,
                     const std::vector<ExampleResult>& examples, Output& out);

// Parses, runs, and maps to an exit code: all that main does.
int run(int argc, const char* const* argv);

int run_diagnose(const Options& options, const rules::RuleSet& rules, Output& out);
// `scan` writes one JSONL line per job and a summary line; `merge` rebuilds the summary
// from such lines (src/scan/scan_record.hpp).
int run_scan(const Options& options, const rules::RuleSet& rules, Output& out);
int run_merge(const Options& options, Output& out);
int run_explain(const Options& options, const rules::RuleSet& rules, Output& out);
int run_rules_list(const rules::RuleSet& rules, Output& out);
int run_rules_test(const Options& options, const rules::RuleSet& rules, Output& out);
int run_rules_check(const Options& options, Output& out);
int run_rules_patterns(const rules::RuleSet& rules, Output& out);
int run_preflight(const Options& options, Output& out);
int run_repro(const Options& options, const rules::RuleSet& rules, Output& out);
int run_rules_docs(const Options& options, const rules::RuleSet& rules, Output& out);
// `rules suggest`: a rule skeleton for each unrecognised error in logs or scan results.
int run_rules_suggest(const Options& options, const rules::RuleSet& rules, Output& out);
// `help [COMMAND]` and `--version` (help.cpp).
int run_help(const Options& options, Output& out);
int run_version(const Options& options, Output& out);

}  // namespace faultline::cli
