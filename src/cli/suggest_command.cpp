// `faultline rules suggest`: a rule skeleton for each error no rule knows, from logs (read as one
// job) or from a scan's JSONL (each job diagnosed `unrecognised`). The skeleton is a rule pack:
// its pattern is the example's exception line with the tokens the template masks turned into
// named groups, its example is that line, and its cause is left for a person to fill in, so
// that `rules check` rejects it until they do.
#include <fstream>
#include <map>
#include <set>

#include "base/text.hpp"
#include "cli/commands.hpp"
#include "job/job_runner.hpp"
#include "scan/scan_record.hpp"

namespace faultline::cli {
namespace {

struct Unknown {
  std::string failure_template;
  std::string exception;
  std::string function;
  std::string line;  // the exception line as the log shows it, prefixes removed
  size_t count = 0;
};

bool is_regex_special(char c) {
  return std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos;
}

// A token of the message that the template masks, and the group that captures it.
struct Token {
  size_t size = 0;
  std::string group;  // regex text without the name
  std::string name;
};

Token token_at(std::string_view text, size_t i) {
  char c = text[i];
  bool word_before = i > 0 && is_word(text[i - 1]);
  if ((c == '\'' || c == '"') && !word_before) {
    size_t close = text.find(c, i + 1);
    if (close != std::string_view::npos) {
      std::string quote(1, c);
      return {close + 1 - i, quote + "[^" + quote + "]*" + quote, "value"};
    }
  }
  if (c == '/' && !word_before) {
    size_t end = i;
    while (end < text.size() && !is_space(text[end]) && text[end] != '\'' && text[end] != '"') ++end;
    return {end - i, "/\\S*", "path"};
  }
  if (is_digit(c) && !word_before) {
    size_t end = i;
    bool hex = c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X');
    if (hex) end += 2;
    while (end < text.size() &&
           (hex ? std::isxdigit(static_cast<unsigned char>(text[end])) != 0 : is_digit(text[end])))
      ++end;
    if (end == text.size() || !is_word(text[end]))
      return {end - i, hex ? "0[xX][0-9a-fA-F]+" : "\\d+", "number"};
  }
  return {};
}

// The exception line as a pattern: literal text escaped, masked tokens as named groups
// (value, value_2, number, path ...), and the facts each one captures in the example.
std::string pattern_of(std::string_view line, std::vector<std::pair<std::string, std::string>>& facts) {
  std::string pattern = "^";
  std::map<std::string, int> used;
  for (size_t i = 0; i < line.size();) {
    Token token = token_at(line, i);
    if (token.size == 0) {
      if (is_regex_special(line[i])) pattern += '\\';
      pattern += line[i++];
      continue;
    }
    int n = ++used[token.name];
    std::string name = n == 1 ? token.name : token.name + "_" + std::to_string(n);
    std::string_view value = line.substr(i, token.size);
    if (token.name == "value") {
      // The quotes stay outside the group, so the fact is the quoted text itself.
      pattern += std::string(1, value.front()) + "(?P<" + name + ">[^" + std::string(1, value.front()) +
                 "]*)" + std::string(1, value.front());
      value = value.substr(1, value.size() - 2);
    } else {
      pattern += "(?P<" + name + ">" + token.group + ")";
    }
    facts.emplace_back(name, std::string(value));
    i += token.size;
  }
  return pattern;
}

std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string id_part(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (is_alpha(c) || is_digit(c)) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "error" : out;
}

std::string skeleton(const Unknown& unknown, std::set<std::string>& ids) {
  std::string exception = unknown.exception.substr(unknown.exception.rfind('.') + 1);
  std::string id =
      "local." + id_part(exception) + (unknown.function.empty() ? "" : "_" + id_part(unknown.function));
  for (int n = 2; !ids.insert(id).second; ++n) id = id.substr(0, id.rfind('_')) + "_" + std::to_string(n);
  std::vector<std::pair<std::string, std::string>> facts;
  std::string pattern = pattern_of(unknown.line, facts);
  std::string out;
  out += "  # " + std::to_string(unknown.count) +
         " occurrence(s) of the template: " + unknown.failure_template + "\n";
  out += "  - id: " + id + "\n";
  out += "    cause: FILL_IN   # an id from causes.md (faultline rules list shows them in use)\n";
  out +=
      "    title: " + single_quoted(exception + (unknown.function.empty() ? "" : " in " + unknown.function)) +
      "\n";
  out += "    category: local\n    role: root_cause\n    severity: error\n    scope: message\n";
  out += "    match:\n      - " + single_quoted(pattern) + "\n";
  out += "    explain: >\n      FILL_IN: what went wrong, in the words of the facts captured above";
  if (!facts.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, value] : facts) names.push_back("{" + name + "}");
    out += " (" + join(names, ", ") + ")";
  }
  out += ".\n    fix:\n      - 'FILL_IN: what to change'\n";
  out += "    examples:\n      match:\n        - text: " + single_quoted(unknown.line) + "\n";
  if (!facts.empty()) {
    out += "          facts: {";
    for (size_t i = 0; i < facts.size(); ++i) {
      out += (i ? ", " : "") + facts[i].first + ": " + single_quoted(facts[i].second);
    }
    out += "}\n";
  }
  out += "      no_match: []\n";
  return out;
}

// The exception line of an evidence line: from the exception type on (prefixes removed).
std::string exception_line(std::string_view evidence, std::string_view exception) {
  size_t at = exception.empty() ? std::string_view::npos : evidence.find(exception);
  return std::string(trim(at == std::string_view::npos ? evidence : evidence.substr(at)));
}

void add_unknown(std::map<std::string, Unknown>& unknowns, Unknown unknown) {
  auto [slot, inserted] = unknowns.try_emplace(unknown.failure_template, unknown);
  if (!inserted) slot->second.count += unknown.count;
}

bool is_scan_result(const std::string& path) {
  std::ifstream file(path);
  std::string first;
  std::getline(file, first);
  return first.starts_with("{\"type\":");
}

}  // namespace

int run_rules_suggest(const Options& options, const rules::RuleSet& rules, Output& out) {
  std::map<std::string, Unknown> unknowns;  // by template
  std::vector<std::string> logs;
  for (const auto& path : options.inputs) {
    if (!is_scan_result(path)) {
      logs.push_back(path);
      continue;
    }
    std::ifstream file(path);
    std::string text;
    for (uint64_t number = 1; std::getline(file, text); ++number) {
      auto line = scan::parse_line(text);
      if (!line) {
        out.err("faultline: " + path + ":" + std::to_string(number) + ": " + line.status().message() + "\n");
        continue;
      }
      const scan::JobRecord& job = line->job;
      if (line->type != scan::LineType::kJob || job.cause != "unrecognised" || job.failure_template.empty())
        continue;
      std::string exception = job.failure_template.substr(0, job.failure_template.find(':'));
      std::string function;
      if (size_t in = job.failure_template.rfind(" in "); in != std::string::npos)
        function = job.failure_template.substr(in + 4);
      add_unknown(unknowns, {job.failure_template, exception, function,
                             exception_line(job.example_line, exception), 1});
    }
  }
  if (!logs.empty()) {
    rules::Engine engine(rules);
    job::JobRunner runner(engine);
    for (const auto& path : logs) runner.add_path(path);
    correlate::JobAnalysis analysis = runner.finish(join(logs, " "));
    for (const auto& skipped : runner.skipped())
      out.err("faultline: " + skipped.source + ": skipped: " + skipped.reason + "\n");
    for (const auto& group : analysis.findings) {
      if (group.failure_template.empty() || group.evidence.empty()) continue;
      std::string exception = fact_text(group.facts, "exception");
      add_unknown(unknowns, {group.failure_template, exception, fact_text(group.facts, "frame_function"),
                             exception_line(group.evidence.front().text, exception), group.occurrences});
    }
  }
  if (unknowns.empty()) {
    out.err("faultline: no error that no rule knows in these inputs: nothing to suggest\n");
    return 0;
  }
  std::string pack =
      "# Rule skeletons written by `faultline rules suggest`, one for each error no rule knew.\n"
      "# Fill in each FILL_IN (the cause first: `faultline rules check` rejects the pack until then),\n"
      "# narrow the pattern where a group captures too much, add no_match examples, and load the\n"
      "# pack with --rules DIR (see docs/rule-format.md).\n"
      "rules:\n";
  std::set<std::string> ids;
  for (const auto& [key, unknown] : unknowns) pack += skeleton(unknown, ids);
  out.out(pack);
  return 0;
}

}  // namespace faultline::cli
