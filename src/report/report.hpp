// Report: JobAnalysis ─▶ text for people, JSON for tools. Renderers only: nothing here
// decides anything, and nothing prints; each returns the text and the caller writes it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "correlate/diagnosis.hpp"
#include "ingest/inputs.hpp"
#include "ingest/record.hpp"
#include "preflight/checks.hpp"

namespace faultline::report {

// What `diagnose --verify` did with a diagnosis' verify command (src/cli/verify_command.hpp).
struct Verification {
  std::string command;
  bool ran = false;    // false: faultline does not run this command itself; `output` says why
  int exit_code = 0;   // the command's own exit code, when it ran
  std::string output;  // what it printed (stdout, then stderr), or why it did not run
  bool passed() const { return ran && exit_code == 0; }
};

struct RunReport {
  std::vector<correlate::JobAnalysis> jobs;
  std::vector<ingest::SourceInfo> sources;  // indexed by Evidence::source
  std::vector<ingest::Skipped> skipped;
  std::vector<std::optional<Verification>> verifications;  // indexed like jobs; empty without --verify
  std::string tool_version;  // faultline's own, for reports that name their tool (SARIF)
};

// The verification of jobs[job]'s diagnosis, or nullptr when none was asked for.
inline const Verification* verification_of(const RunReport& report, size_t job) {
  return job < report.verifications.size() && report.verifications[job] ? &*report.verifications[job]
                                                                        : nullptr;
}
// The verification as text: a "verify: COMMAND" heading, the output indented, the result.
std::string render_verification_text(const Verification& verification);

// The name of the source an Evidence points at ("?" if out of range).
inline std::string source_name(const RunReport& report, uint32_t source) {
  return source < report.sources.size() ? report.sources[source].name : "?";
}

struct TextOptions {
  bool color = false;
  bool quiet = false;  // the diagnosis only
  // The terminal's width: prose is wrapped and evidence cut to it. 0 when the output is not a
  // terminal: no wrapping, and evidence is cut at kPipedEvidenceWidth columns.
  size_t width = 0;
};
inline constexpr size_t kPipedEvidenceWidth = 100;

std::string render_text(const RunReport& report, const TextOptions& options);
// Durations in a story line as people write them ("600000 ms" -> "10 min"), and a timestamp in
// full ("2026-11-29 10:22:33.123", or "Nov 29 10:22:33" without a year): the text and HTML reports.
std::string human_durations(std::string_view text);
std::string display_time(const Timestamp& time);
// design.md's "faultline.report/1". `pretty` indents; jsonl writes one job per line.
std::string render_json(const RunReport& report, bool pretty);
std::string render_jsonl(const RunReport& report);
// Markdown for an issue thread: the diagnosis, evidence, story, fix; other findings folded.
std::string render_markdown(const RunReport& report);
// One self-contained HTML file with a rank × time timeline (SVG).
std::string render_html(const RunReport& report);
// SARIF 2.1.0: a result per finding at its log file and line, and the rules that fired.
std::string render_sarif(const RunReport& report);

// `faultline preflight`: the checks of one model against one parallel plan.
struct PreflightReport {
  std::string config;  // the config.json path; empty when the sizes came from options only
  preflight::ModelShape shape;
  preflight::Plan plan;
  preflight::PreflightResult result;
};
std::string render_preflight_text(const PreflightReport& report, bool color);
std::string render_preflight_json(const PreflightReport& report);

// A rule's full entry: `faultline explain` (text) and docs/rules/ (Markdown).
std::string render_rule_text(const rules::Rule& rule);
std::string render_rule_markdown(const rules::Rule& rule);

}  // namespace faultline::report
