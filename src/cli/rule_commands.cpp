// `faultline rules list|test|check|patterns` and `faultline explain`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/text.hpp"
#include "cli/commands.hpp"
#include "job/job_runner.hpp"
#include "report/report.hpp"

namespace faultline::cli {
namespace {

// Why one example failed, or nothing when it passed.
std::optional<std::string> check_match_example(const rules::Engine& engine, const rules::Rule& rule,
                                               const rules::MatchExample& example) {
  auto findings = job::findings_for_text(engine, example.text);
  std::string last_mismatch = "the rule did not fire";
  for (const auto& finding : findings) {
    if (finding.rule->id != rule.id) continue;
    bool facts_match = true;
    for (const auto& [name, expected] : example.facts) {
      const Value* actual = find_fact(finding.facts, name);
      std::string got = actual ? to_display(*actual) : "nothing";
      if (got != expected) {
        last_mismatch = "fact '" + name + "' expected " + expected + ", got " + got;
        facts_match = false;
        break;
      }
    }
    if (facts_match) return std::nullopt;
  }
  return last_mismatch;
}

std::string first_line(std::string_view text) {
  return std::string(trim(text.substr(0, text.find('\n'))));
}

}  // namespace

int run_rules_list(const rules::RuleSet& rules, Output& out) {
  for (const rules::Rule* rule : rules.rules()) {
    std::string id = rule->id;
    id.resize(std::max<size_t>(id.size() + 1, 48), ' ');
    std::string role = rules::to_string(rule->role);
    role.resize(11, ' ');
    out.out(id + role + rule->title + "\n");
  }
  out.out(std::to_string(rules.rules().size()) + " rules\n");
  return rules.errors().empty() ? 0 : 2;
}

std::vector<ExampleResult> run_examples(const rules::RuleSet& rules, const rules::Engine& engine) {
  std::vector<ExampleResult> results;
  for (const rules::Rule* rule : rules.rules()) {
    ExampleResult result{rule, 0, 0, {}};
    if (rule->match_examples.empty()) result.failures.push_back("no match example");
    for (size_t i = 0; i < rule->match_examples.size(); ++i) {
      ++result.total;
      if (auto why = check_match_example(engine, *rule, rule->match_examples[i])) {
        result.failures.push_back("match example " + std::to_string(i + 1) + ": " + *why +
                                  "\n        text: " + first_line(rule->match_examples[i].text));
      } else {
        ++result.passed;
      }
    }
    for (size_t i = 0; i < rule->no_match_examples.size(); ++i) {
      ++result.total;
      auto findings = job::findings_for_text(engine, rule->no_match_examples[i]);
      bool fired =
          std::any_of(findings.begin(), findings.end(), [&](const auto& f) { return f.rule == rule; });
      if (fired) {
        result.failures.push_back("no_match example " + std::to_string(i + 1) +
                                  " fired\n        text: " + first_line(rule->no_match_examples[i]));
      } else {
        ++result.passed;
      }
    }
    results.push_back(std::move(result));
  }
  return results;
}

int run_rules_test(const Options& options, const rules::RuleSet& rules, Output& out) {
  rules::Engine engine(rules);
  auto results = run_examples(rules, engine);
  size_t passed = 0, failed = 0;
  for (const auto& result : results) {
    if (result.failures.empty()) {
      ++passed;
      out.out("ok    " + result.rule->id + " (" + std::to_string(result.total) + " examples)\n");
    } else {
      ++failed;
      out.out("FAIL  " + result.rule->id + " (" + result.rule->origin + ")\n");
      for (const auto& failure : result.failures) out.out("      " + failure + "\n");
    }
  }
  out.out("rules: " + std::to_string(passed) + " passed, " + std::to_string(failed) + " failed\n");
  int exit_code = !rules.errors().empty() ? 2 : (failed ? 1 : 0);
  if (!options.corpus.empty()) {
    int corpus_exit = run_corpus_score(options.corpus, engine, results, out);
    exit_code = std::max(exit_code, corpus_exit);
  }
  return exit_code;
}

int run_rules_check(const Options& options, Output& out) {
  int exit_code = 0;
  for (const auto& path : options.inputs) {
    auto loaded = rules::load_pack_file(path);
    if (!loaded) {
      out.err(loaded.status().message() + "\n");
      exit_code = 2;
      continue;
    }
    out.out(path + ": " + std::to_string(loaded->size()) + " rules, valid\n");
  }
  return exit_code;
}

// A pattern as grep tools take it: named groups made plain (`rg -f` joins every pattern into
// one regex, where two groups of the same name collide), and without the (?s) that lets an
// event pattern span lines, since grep tools match line by line.
static std::string for_grep_tools(std::string pattern) {
  for (size_t at = pattern.find("(?s)"); at != std::string::npos; at = pattern.find("(?s)", at))
    pattern.erase(at, 4);
  for (size_t at = pattern.find("(?is)"); at != std::string::npos; at = pattern.find("(?is)", at))
    pattern.replace(at, 5, "(?i)");
  for (size_t at = pattern.find("(?P<"); at != std::string::npos; at = pattern.find("(?P<", at)) {
    size_t close = pattern.find('>', at);
    if (close == std::string::npos) break;
    pattern.erase(at + 1, close - at);
  }
  return pattern;
}

int run_rules_patterns(const rules::RuleSet& rules, Output& out) {
  rules::Engine engine(rules);
  for (const auto& pattern : engine.patterns()) out.out(for_grep_tools(pattern) + "\n");
  return rules.errors().empty() ? 0 : 2;
}

// Where a rule is defined, as a user can find it: a rule from --rules keeps its path; a shipped
// rule is compiled into the binary, and its source path ("rules/cuda.yaml:30") exists only in
// faultline's source tree, so it is named by its pack ("cuda.yaml:30, shipped pack cuda").
static std::string origin_for_users(const std::string& origin, const std::vector<std::string>& rule_dirs) {
  for (const auto& directory : rule_dirs) {
    if (origin.starts_with(directory)) return origin;
  }
  if (!origin.starts_with("rules/")) return origin;
  std::string file = origin.substr(6);
  std::string pack = file.substr(0, file.find(".yaml"));
  return file + " (shipped pack " + pack + ", compiled into faultline)";
}

int run_explain(const Options& options, const rules::RuleSet& rules, Output& out) {
  const std::string& wanted = options.inputs.front();
  std::vector<const rules::Rule*> entries;
  if (const rules::Rule* exact = rules.find(wanted)) {
    entries.push_back(exact);
  } else {
    for (const rules::Rule* rule : rules.rules()) {
      if (rule->cause == wanted) entries.push_back(rule);
    }
  }
  if (entries.empty()) {
    out.err("faultline: unknown rule or cause '" + wanted + "' (see `faultline rules list`)\n");
    return 2;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out.out("\n");
    rules::Rule entry = *entries[i];
    entry.origin = origin_for_users(entry.origin, options.rule_dirs);
    out.out(report::render_rule_text(entry));
  }
  return 0;
}

}  // namespace faultline::cli

namespace faultline::cli {

int run_rules_docs(const Options& options, const rules::RuleSet& rules, Output& out) {
  namespace fs = std::filesystem;
  const std::string& directory = options.inputs.front();
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    out.err("faultline: " + directory + ": " + error.message() + "\n");
    return 2;
  }
  std::map<std::string, std::vector<const rules::Rule*>> by_cause;
  for (const rules::Rule* rule : rules.rules()) by_cause[rule->cause].push_back(rule);
  std::string index =
      "# Rules\n\nGenerated by `faultline rules docs docs/rules` from the shipped rule packs; do not edit.\n"
      "`faultline explain ID` prints the same entries.\n\n| cause | meaning | rules |\n|---|---|---|\n";
  for (const auto& cause : rules::known_causes()) {
    auto found = by_cause.find(std::string(cause.id));
    size_t count = found == by_cause.end() ? 0 : found->second.size();
    std::string link = count ? "[`" + std::string(cause.id) + "`](" + std::string(cause.id) + ".md)"
                             : "`" + std::string(cause.id) + "`";
    index += "| " + link + " | " + std::string(cause.meaning) + " | " + std::to_string(count) + " |\n";
  }
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream file(fs::path(directory) / name, std::ios::binary | std::ios::trunc);
    file << text;
    return static_cast<bool>(file);
  };
  bool ok = write("README.md", index);
  for (const auto& [cause, members] : by_cause) {
    const rules::Cause* known = rules::find_cause(cause);
    std::string text = "# `" + cause + "`\n\n" + (known ? std::string(known->meaning) + "\n\n" : "") +
                       "Generated from the rule packs by `faultline rules docs docs/rules`; do not edit.\n\n";
    for (const rules::Rule* rule : members) text += report::render_rule_markdown(*rule);
    ok = write(cause + ".md", text) && ok;
  }
  if (!ok) {
    out.err("faultline: " + directory + ": cannot write the entries\n");
    return 2;
  }
  out.out("wrote " + std::to_string(by_cause.size() + 1) + " files to " + directory + "\n");
  return rules.errors().empty() ? 0 : 2;
}

}  // namespace faultline::cli
