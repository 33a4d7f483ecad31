// The commands behind `faultline ...`. Each returns the process exit code: 0 no failure
// found, 1 failure diagnosed (or a test failed), 2 usage or input error.
#pragma once

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "rules/rule_set.hpp"

namespace faultline::cli {

// Parses, runs, and maps to an exit code: all that main does.
int run(int argc, const char* const* argv);

int run_diagnose(const Options& options, const rules::RuleSet& rules, Output& out);
int run_explain(const Options& options, const rules::RuleSet& rules, Output& out);
int run_rules_list(const rules::RuleSet& rules, Output& out);
int run_rules_test(const rules::RuleSet& rules, Output& out);
int run_rules_check(const Options& options, Output& out);
int run_rules_patterns(const rules::RuleSet& rules, Output& out);
int run_preflight(const Options& options, Output& out);

}  // namespace faultline::cli
