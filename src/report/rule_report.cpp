// A rule's encyclopedia entry, for `faultline explain` (text) and docs/rules/ (Markdown).
#include "base/text.hpp"
#include "report/report.hpp"

namespace faultline::report {
namespace {

std::string cause_line(const rules::Rule& rule) {
  const rules::Cause* cause = rules::find_cause(rule.cause);
  return rule.cause + (cause ? " (" + std::string(cause->meaning) + ")" : "");
}

std::vector<std::string> sources(const std::vector<rules::Template>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(item.source());
  return out;
}

std::string first_line(std::string_view text) {
  return std::string(trim(text.substr(0, text.find('\n'))));
}

}  // namespace

std::string render_rule_text(const rules::Rule& rule) {
  std::string out = rule.id + "\n" + std::string(rule.id.size(), '=') + "\n" + rule.title + "\n\n";
  out += "cause:    " + cause_line(rule) + "\nrole:     " + rules::to_string(rule.role) +
         "\nseverity: " + rule.severity + "\nscope:    " + rules::to_string(rule.scope) +
         "\ndefined:  " + rule.origin + "\n";
  if (!rule.category.empty()) out += "category: " + rule.category + "\n";
  out += "\nmatches (any one):\n";
  for (const auto& pattern : rule.match) out += "  " + pattern.text + "\n";
  if (!rule.unless.empty()) {
    out += "unless:\n";
    for (const auto& pattern : rule.unless) out += "  " + pattern.text + "\n";
  }
  if (!rule.frames.empty()) {
    out += "in a traceback frame (the nearest decides):\n";
    for (const auto& pattern : rule.frames) out += "  " + pattern.text + "\n";
  }
  for (const auto& pattern : rule.skip_frames) out += "passing frames: " + pattern.text + "\n";
  if (rule.priority != 0) out += "priority: " + std::to_string(rule.priority) + "\n";
  if (rule.when) out += "when: " + rule.when->text() + "\n";
  for (const auto& [name, expression] : rule.derive)
    out += "derive: " + name + " = " + expression.text() + "\n";
  if (rule.explain) out += "\nexplain:\n  " + std::string(trim(rule.explain->source())) + "\n";
  auto list = [&out](const char* heading, const std::vector<std::string>& items, const char* bullet) {
    if (items.empty()) return;
    out += std::string("\n") + heading + ":\n";
    for (const auto& item : items) out += std::string("  ") + bullet + item + "\n";
  };
  list("symptoms", sources(rule.symptoms), "- ");
  list("confirm", sources(rule.confirm), "- ");
  list("fix", sources(rule.fix), "- ");
  if (rule.verify) out += "\nverify:\n  $ " + rule.verify->source() + "\n";
  list("refs", rule.refs, "");
  std::vector<std::string> examples;
  for (const auto& example : rule.match_examples) examples.push_back(first_line(example.text));
  list("matches, for example", examples, "");
  return out;
}

std::string render_rule_markdown(const rules::Rule& rule) {
  std::string out = "## `" + rule.id + "`\n\n" + rule.title + "\n\n";
  out += "| | |\n|---|---|\n| cause | `" + rule.cause + "` |\n| role | " + rules::to_string(rule.role) +
         " |\n| severity | " + rule.severity + " |\n| scope | " + rules::to_string(rule.scope) +
         " |\n| defined | `" + rule.origin + "` |\n\n";
  if (rule.explain) out += std::string(trim(rule.explain->source())) + "\n\n";
  out += "Matches any of:\n\n";
  for (const auto& pattern : rule.match) out += "    " + pattern.text + "\n";
  out += "\n";
  if (!rule.unless.empty()) {
    out += "Unless:\n\n";
    for (const auto& pattern : rule.unless) out += "    " + pattern.text + "\n";
    out += "\n";
  }
  if (!rule.frames.empty()) {
    out += "In the traceback frame nearest the exception that matches any of:\n\n";
    for (const auto& pattern : rule.frames) out += "    " + pattern.text + "\n";
    out += "\n";
  }
  if (rule.priority != 0) out += "Priority: " + std::to_string(rule.priority) + "\n\n";
  if (rule.when) out += "When: `" + rule.when->text() + "`\n\n";
  auto list = [&out](const char* heading, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += std::string("**") + heading + "**\n\n";
    for (const auto& item : items) out += "- " + item + "\n";
    out += "\n";
  };
  list("Symptoms", sources(rule.symptoms));
  list("Confirm", sources(rule.confirm));
  list("Fix", sources(rule.fix));
  if (rule.verify) out += "**Verify**\n\n    " + rule.verify->source() + "\n\n";
  list("References", rule.refs);
  if (!rule.match_examples.empty()) {
    out += "**Example**\n\n";
    for (const auto& line : std::vector<std::string>{rule.match_examples.front().text}) {
      std::string text(trim(line));
      size_t start = 0;
      while (start <= text.size()) {
        size_t end = text.find('\n', start);
        out += "    " + text.substr(start, end - start) + "\n";
        if (end == std::string::npos) break;
        start = end + 1;
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace faultline::report
