// SARIF 2.1.0 for post-mortem and CI tooling: one result per finding, located at the log
// file and line of its first evidence, and the rules that fired with their help text.
#include <map>
#include <optional>

#include "base/json_writer.hpp"
#include "base/text.hpp"
#include "report/report.hpp"

namespace faultline::report {
namespace {

const char* level_of(const correlate::FindingGroup& group) {
  if (group.rule->role == rules::Role::kSymptom) return "note";
  return group.rule->severity == "error" ? "error" : "warning";
}

// A template as SARIF's help shows it: rendered with the facts of the rule's first finding;
// one that needs a fact the finding lacks is left out rather than shown as `{divisors(heads)}`.
std::optional<std::string> rendered(const rules::Template& text, const Facts& facts) {
  if (text.fact_names().empty()) return text.source();
  return text.render(facts);
}

void write_rule(JsonWriter& json, const rules::Rule& rule, const Facts& facts) {
  json.begin_object();
  json.key("id").string(rule.id);
  json.key("name").string(rule.cause);
  json.key("shortDescription").begin_object().key("text").string(rule.title).end_object();
  if (rule.explain) {
    if (auto explain = rendered(*rule.explain, facts))
      json.key("fullDescription").begin_object().key("text").string(trim(*explain)).end_object();
  }
  std::string help;
  for (const auto& fix : rule.fix) {
    if (auto item = rendered(fix, facts)) help += "- " + *item + "\n";
  }
  if (rule.verify) {
    if (auto verify = rendered(*rule.verify, facts)) help += "Verify: " + *verify + "\n";
  }
  json.key("help").begin_object().key("text").string(help.empty() ? rule.title : help).end_object();
  if (!rule.refs.empty()) json.key("helpUri").string(rule.refs.front());
  json.key("properties").begin_object();
  json.key("cause").string(rule.cause);
  json.key("role").string(rules::to_string(rule.role));
  json.end_object();
  json.end_object();
}

// A source name as a SARIF artifact URI (RFC 3986): stdin is "stdin"; an absolute path is a
// file:// URI; characters outside a path's own are percent-encoded (an archive member's
// "run.tar.zst:rank3.log" would otherwise read as a URI scheme).
std::string artifact_uri(const std::string& name) {
  if (name == "<stdin>" || name == "-") return "stdin";
  std::string out = name.starts_with('/') ? "file://" : "";
  const char* hex = "0123456789ABCDEF";
  for (unsigned char c : name) {
    bool plain = is_alpha(static_cast<char>(c)) || is_digit(static_cast<char>(c)) || c == '-' || c == '.' ||
                 c == '_' || c == '~' || c == '/';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::string render_sarif(const RunReport& report) {
  // Every rule that fired, once, in the order first seen.
  std::vector<const rules::Rule*> fired;
  std::vector<const Facts*> facts;  // of each rule's first finding
  std::map<const rules::Rule*, size_t> index;
  for (const auto& job : report.jobs) {
    for (const auto& group : job.findings) {
      if (index.try_emplace(group.rule, fired.size()).second) {
        fired.push_back(group.rule);
        facts.push_back(&group.facts);
      }
    }
  }
  JsonWriter json(true);
  json.begin_object();
  json.key("$schema").string("https://json.schemastore.org/sarif-2.1.0.json");
  json.key("version").string("2.1.0");
  json.key("runs").begin_array().begin_object();
  json.key("tool").begin_object().key("driver").begin_object();
  json.key("name").string("faultline");
  if (!report.tool_version.empty()) json.key("version").string(report.tool_version);
  json.key("informationUri").string("https://github.com/faultline/faultline");
  json.key("rules").begin_array();
  for (size_t i = 0; i < fired.size(); ++i) write_rule(json, *fired[i], *facts[i]);
  json.end_array().end_object().end_object();
  json.key("results").begin_array();
  for (const auto& job : report.jobs) {
    for (size_t i = 0; i < job.findings.size(); ++i) {
      const auto& group = job.findings[i];
      bool is_diagnosis = i == 0 && job.diagnosis;
      json.begin_object();
      json.key("ruleId").string(group.rule->id);
      json.key("ruleIndex").number(static_cast<int64_t>(index[group.rule]));
      json.key("level").string(level_of(group));
      std::string ranks = group.ranks.empty() ? "rank unknown" : "ranks " + format_ranges(group.ranks);
      std::string text = (is_diagnosis ? "Diagnosis: " : "") + group.rule->title + " (" + group.rule->cause +
                         ", " + ranks + ")";
      if (is_diagnosis && job.diagnosis->initiating_rank)
        text += "; initiating rank " + std::to_string(*job.diagnosis->initiating_rank);
      json.key("message").begin_object().key("text").string(text).end_object();
      json.key("locations").begin_array();
      for (const auto& evidence : group.evidence) {
        if (evidence.source >= report.sources.size()) continue;
        json.begin_object().key("physicalLocation").begin_object();
        json.key("artifactLocation")
            .begin_object()
            .key("uri")
            .string(artifact_uri(report.sources[evidence.source].name))
            .end_object();
        json.key("region").begin_object().key("startLine").number(static_cast<int64_t>(evidence.line));
        json.key("snippet").begin_object().key("text").string(evidence.text).end_object();
        json.end_object();
        json.end_object().end_object();
        break;  // the first evidence locates the result; the rest are in relatedLocations
      }
      json.end_array();
      json.key("partialFingerprints")
          .begin_object()
          .key("faultline/v1")
          .string(group.fingerprint)
          .end_object();
      json.key("properties").begin_object();
      json.key("job").string(job.job == "<stdin>" ? "stdin" : job.job);
      json.key("cause").string(group.rule->cause);
      json.key("role").string(rules::to_string(group.rule->role));
      json.key("diagnosis").boolean(is_diagnosis);
      json.key("ranks").begin_inline_array();
      for (int rank : group.ranks) json.number(int64_t{rank});
      json.end_array();
      json.end_object();
      json.end_object();
    }
  }
  json.end_array();
  json.end_object().end_array();
  json.end_object();
  return json.take() + "\n";
}

}  // namespace faultline::report
