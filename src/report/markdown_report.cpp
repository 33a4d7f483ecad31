// Markdown, for pasting into an issue thread: the diagnosis first, the rest folded.
#include "base/text.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "report/story.hpp"

namespace faultline::report {
namespace {

std::string code_block(const std::vector<std::string>& lines, std::string_view language) {
  // A fence longer than any run of backticks inside, so log text cannot close it.
  size_t longest = 0;
  for (const auto& line : lines) {
    size_t run = 0;
    for (char c : line) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(language) + "\n";
  for (const auto& line : lines) out += line + "\n";
  return out + fence + "\n";
}

std::string escape_cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string evidence_text(const RunReport& report, const rules::Evidence& evidence) {
  std::string source = source_name(report, evidence.source);
  std::string rank = evidence.rank >= 0 ? "rank " + std::to_string(evidence.rank) : "rank ?";
  return source + ":" + std::to_string(evidence.line) + "  [" + rank + "]  " + evidence.text;
}

void render_verification(const Verification& verification, std::string& out) {
  std::string result = !verification.ran ? "not run"
                       : verification.passed()
                           ? "passed (exit code 0)"
                           : "failed (exit code " + std::to_string(verification.exit_code) + ")";
  out += "\n**Verification**: " + result + "\n\n";
  std::vector<std::string> lines = {"$ " + verification.command};
  std::string_view output = trim_right(verification.output);
  while (!output.empty()) {
    size_t end = std::min(output.find('\n'), output.size());
    lines.emplace_back(output.substr(0, end));
    output.remove_prefix(std::min(end + 1, output.size()));
  }
  out += code_block(lines, "text");
}

void render_job(const RunReport& report, const correlate::JobAnalysis& job, const Verification* verification,
                std::string& out) {
  if (!job.diagnosis) {
    out += "### faultline: no failure found\n\n`" + job.job +
           "`: " + std::to_string(job.shape.ranks_seen.size()) + " rank(s) seen, no rule matched.\n";
    return;
  }
  const auto& diagnosis = *job.diagnosis;
  const auto& primary = job.findings.front();
  std::string rank = diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank) : "unknown";
  out += "### faultline: `" + diagnosis.cause + "` on rank " + rank + "\n\n**" + diagnosis.title + "**\n\n";
  char confidence[16];
  std::snprintf(confidence, sizeof confidence, "%.2f", diagnosis.confidence);
  out += "| | |\n|---|---|\n| initiating rank | " + rank + " |\n| confidence | " + confidence +
         " |\n| rule | `" + primary.rule->id + "` |\n";
  if (diagnosis.first_seen.valid) out += "| first seen | " + diagnosis.first_seen.to_string() + " |\n";
  if (!diagnosis.facts.empty()) {
    std::vector<std::string> facts;
    for (const auto& [name, value] : diagnosis.facts)
      facts.push_back("`" + name + "=" + to_display(value) + "`");
    out += "| facts | " + escape_cell(join(facts, " ")) + " |\n";
  }
  std::vector<std::string> evidence;
  for (const auto& item : primary.evidence) evidence.push_back(evidence_text(report, item));
  out += "\n**Evidence**\n\n" + code_block(evidence, "text");
  if (!diagnosis.explain.empty()) out += "\n" + diagnosis.explain + "\n";
  if (diagnosis.story.size() > 1) {
    out += "\n**What happened**\n\n";
    for (const auto& step : diagnosis.story) out += "1. " + story_text(step) + "\n";
  }
  if (!diagnosis.fix.empty()) {
    out += "\n**Fix**\n\n";
    for (const auto& item : diagnosis.fix) out += "- " + item + "\n";
  }
  if (!diagnosis.verify.empty()) out += "\n**Verify**\n\n" + code_block({diagnosis.verify}, "sh");
  if (verification) render_verification(*verification, out);
  if (job.findings.size() > 1) {
    out +=
        "\n<details><summary>Other findings (" + std::to_string(job.findings.size() - 1) + ")</summary>\n\n";
    out += "| cause | role | ranks | rule | first evidence |\n|---|---|---|---|---|\n";
    for (size_t i = 1; i < job.findings.size(); ++i) {
      const auto& group = job.findings[i];
      std::string first = group.evidence.empty() ? "" : evidence_text(report, group.evidence.front());
      if (first.size() > 160) first = first.substr(0, 160) + "…";
      out += "| `" + group.rule->cause + "` | " + rules::to_string(group.rule->role) + " | " +
             (group.ranks.empty() ? "?" : format_ranges(group.ranks)) + " | `" + group.rule->id + "` | `" +
             escape_cell(first) + "` |\n";
    }
    out += "\n</details>\n";
  }
  out += "\n<sub>Confidence rests on: " + escape_cell(reasons_text(diagnosis.reasons)) + ".</sub>\n";
}

}  // namespace

std::string render_markdown(const RunReport& report) {
  std::string out;
  for (size_t i = 0; i < report.jobs.size(); ++i) {
    if (!out.empty()) out += "\n---\n\n";
    render_job(report, report.jobs[i], verification_of(report, i), out);
  }
  return out;
}

}  // namespace faultline::report
