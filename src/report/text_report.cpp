#include <algorithm>

#include "base/text.hpp"
#include "report/report.hpp"

namespace faultline::report {
namespace {

class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}
  std::string bold(std::string_view text) const { return wrap("1", text); }
  std::string red(std::string_view text) const { return wrap("1;31", text); }
  std::string yellow(std::string_view text) const { return wrap("33", text); }
  std::string dim(std::string_view text) const { return wrap("2", text); }
  std::string green(std::string_view text) const { return wrap("32", text); }

 private:
  std::string wrap(std::string_view code, std::string_view text) const {
    if (!color_) return std::string(text);
    return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
  }
  bool color_;
};

std::string evidence_line(const RunReport& report, const rules::Evidence& evidence, const Painter& paint) {
  std::string where = source_name(report, evidence.source) + ":" + std::to_string(evidence.line);
  std::string rank = evidence.rank >= 0 ? "rank " + std::to_string(evidence.rank) : "rank ?";
  std::string text = evidence.text.size() > 300 ? evidence.text.substr(0, 300) + "…" : evidence.text;
  return "    " + paint.dim(where) + "  " + paint.yellow("[" + rank + "]") + "  " + text + "\n";
}

std::string ranks_phrase(const std::vector<int>& ranks) {
  if (ranks.empty()) return "rank unknown";
  return (ranks.size() == 1 ? "rank " : "ranks ") + format_ranges(ranks);
}

void render_job(const RunReport& report, const correlate::JobAnalysis& job, const TextOptions& options,
                std::string& out) {
  Painter paint(options.color);
  if (!job.diagnosis) {
    out += paint.green("No failure found") + " in " + job.job + " (" +
           std::to_string(job.shape.ranks_seen.size()) + " rank(s) seen).\n";
    if (!job.findings.empty()) {
      out += "  " + std::to_string(job.findings.size()) +
             " finding(s) also seen in the baseline run were set aside.\n";
    }
    return;
  }
  const auto& diagnosis = *job.diagnosis;
  const auto& primary = job.findings.front();
  out += paint.red("Diagnosis: " + diagnosis.cause) + "  " + paint.bold(diagnosis.title) + "\n";
  std::string rank = diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank)
                                               : std::string("unknown (no line names it)");
  out += "  initiating rank: " + paint.bold(rank);
  if (diagnosis.first_seen.valid) out += "   first seen: " + diagnosis.first_seen.to_string();
  char confidence[16];
  std::snprintf(confidence, sizeof confidence, "%.2f", diagnosis.confidence);
  out += "   confidence: " + std::string(confidence) + "\n";
  out += "  rule: " + primary.rule->id + "   seen on " + ranks_phrase(primary.ranks) + "\n";
  if (!diagnosis.facts.empty()) {
    std::vector<std::string> facts;
    for (const auto& [name, value] : diagnosis.facts) facts.push_back(name + "=" + to_display(value));
    out += "  facts: " + join(facts, "  ") + "\n";
  }
  out += "\n" + paint.bold("Evidence") + "\n";
  for (const auto& evidence : primary.evidence) out += evidence_line(report, evidence, paint);
  if (options.quiet) return;
  if (diagnosis.story.size() > 1) {
    out += "\n" + paint.bold("What happened") + "\n";
    for (const auto& step : diagnosis.story) out += "  - " + step + "\n";
  }
  if (!job.coverage.missing_ranks.empty() || !job.shape.truncated_sources.empty()) {
    out += "\n" + paint.bold("Coverage") +
           "\n  ranks seen: " + (job.shape.ranks_seen.empty() ? "none" : format_ranges(job.shape.ranks_seen));
    if (job.coverage.world_size) out += " of a world of " + std::to_string(*job.coverage.world_size);
    if (!job.coverage.missing_ranks.empty())
      out += "; no lines from rank(s) " + format_ranges(job.coverage.missing_ranks);
    out += "\n";
    for (const auto& source : job.shape.truncated_sources)
      out += "  " + source + " ends inside an error: the log may be cut\n";
  }
  if (!diagnosis.explain.empty())
    out += "\n" + paint.bold("Why") + "\n  " + std::string(trim(diagnosis.explain)) + "\n";
  if (!diagnosis.fix.empty()) {
    out += "\n" + paint.bold("Fix") + "\n";
    for (const auto& item : diagnosis.fix) out += "  - " + item + "\n";
  }
  if (!diagnosis.verify.empty()) out += "\n" + paint.bold("Verify") + "\n  $ " + diagnosis.verify + "\n";
  if (!diagnosis.confirm.empty()) {
    out += "\n" + paint.bold("Confirm") + "\n";
    for (const auto& item : diagnosis.confirm) out += "  - " + item + "\n";
  }
  if (job.findings.size() > 1) {
    out += "\n" + paint.bold("Also seen") + "\n";
    for (size_t i = 1; i < job.findings.size(); ++i) {
      const auto& group = job.findings[i];
      out += "  - " + group.rule->cause + " (" + rules::to_string(group.rule->role) + ", " + group.rule->id +
             ") on " + ranks_phrase(group.ranks);
      if (!group.collateral_of.empty()) out += ", collateral of " + group.collateral_of;
      if (group.in_baseline) out += ", also in the baseline run";
      out += "\n";
      if (!group.evidence.empty()) out += "  " + evidence_line(report, group.evidence.front(), paint);
    }
  }
  out += "\n" + paint.dim("Confidence rests on: " + join(diagnosis.reasons, "; ") + ".") + "\n";
}

}  // namespace

std::string render_verification_text(const Verification& verification) {
  std::string out = "verify: " + verification.command + "\n";
  std::string_view output = verification.output;
  while (!output.empty()) {
    size_t end = output.find('\n');
    std::string_view line = output.substr(0, end);
    out += line.empty() ? "\n" : "  " + std::string(line) + "\n";
    output.remove_prefix(end == std::string_view::npos ? output.size() : end + 1);
  }
  if (!verification.ran) return out + "verify not run\n";
  return out + (verification.passed() ? "verify passed" : "verify failed") + " (exit code " +
         std::to_string(verification.exit_code) + ")\n";
}

std::string render_text(const RunReport& report, const TextOptions& options) {
  std::string out;
  for (size_t i = 0; i < report.jobs.size(); ++i) {
    if (!out.empty()) out += "\n";
    render_job(report, report.jobs[i], options, out);
    if (const Verification* verification = verification_of(report, i)) {
      out += "\n" + render_verification_text(*verification);
    }
  }
  for (const auto& source : report.sources) {
    if (source.lines_cut) {
      out += "note: " + source.name + ": " + std::to_string(source.lines_cut) + " overlong line(s) cut\n";
    }
  }
  return out;
}

}  // namespace faultline::report
