#include "correlate/correlate.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "base/text.hpp"
#include "correlate/clock_skew.hpp"
#include "correlate/grouping.hpp"
#include "correlate/initiating_rank.hpp"
#include "correlate/job_facts.hpp"
#include "correlate/rank_clues.hpp"
#include "correlate/rank_fallbacks.hpp"
#include "correlate/story.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;
using rules::Role;
using Reason = ConfidenceReason;
using Kind = ConfidenceReason::Kind;

std::vector<std::string> render_all(const std::vector<rules::Template>& templates, const Facts& facts) {
  std::vector<std::string> out;
  for (const auto& item : templates) {
    if (auto text = item.render(facts)) out.push_back(std::move(*text));
  }
  return out;
}

Diagnosis diagnose(const FindingGroup& group, const Facts& facts, const std::vector<const Finding*>& members,
                   size_t root_cause_groups, const std::vector<int>& ranks_seen, const Coverage& coverage,
                   const HostOffsets& offsets, const std::vector<const Finding*>& symptoms) {
  const rules::Rule& rule = *group.rule;
  Diagnosis diagnosis;
  diagnosis.rule = &rule;
  diagnosis.cause = rule.cause;
  diagnosis.title = rule.title;
  diagnosis.fingerprint = group.fingerprint;
  diagnosis.failure_template = group.failure_template;
  diagnosis.first_seen = group.first_time;
  diagnosis.facts = facts;
  // Templates may name the host that reported it (a node to drain), when the logs name one.
  Facts words = facts;
  if (group.hosts.size() == 1 && !find_fact(words, "host"))
    set_fact(words, "host", Value(group.hosts.front()));
  if (rule.explain) {
    diagnosis.explain = std::string(trim(rule.explain->render_prose(words)));
  }
  diagnosis.symptoms = render_all(rule.symptoms, words);
  diagnosis.confirm = render_all(rule.confirm, words);
  diagnosis.fix = render_all(rule.fix, words);
  if (rule.verify) diagnosis.verify = rule.verify->render(words).value_or("");

  double confidence = 0.5;
  if (rule.cause == kUnrecognisedCause) {
    diagnosis.reasons.push_back(Reason(Kind::kUnrecognisedError).set("rule", rule.id));
  } else if (rule.role == Role::kRootCause) {
    confidence += 0.3;
    diagnosis.reasons.push_back(Reason(Kind::kRootCauseRule).set("rule", rule.id));
  } else {
    diagnosis.reasons.push_back(Reason(Kind::kSymptomsOnly).set("rule", rule.id));
  }
  InitiatingRank initiating = initiating_rank_of(group, members, ranks_seen, coverage, offsets, symptoms);
  if (initiating.contradicted) confidence -= 0.1;
  diagnosis.initiating_rank = initiating.rank;
  diagnosis.reasons.insert(diagnosis.reasons.end(), initiating.reasons.begin(), initiating.reasons.end());
  if (initiating.skew_note) diagnosis.reasons.push_back(*initiating.skew_note);
  if (initiating.rank) confidence += 0.1;
  if (root_cause_groups > 1) {
    confidence -= 0.1;
    diagnosis.reasons.push_back(Reason(Kind::kOtherRootCauses).set("count", root_cause_groups - 1));
  }
  diagnosis.confidence = std::clamp(confidence, 0.0, 1.0);
  return diagnosis;
}

ConfidenceReason::Field field_of(const Value& value) {
  return std::visit([](const auto& held) { return ConfidenceReason::Field(held); }, value);
}

// What the diagnosis' dimension rests on, strongest first after the message's own words: the
// traceback frame that named it (a rule with `frames`), a number the job printed as that size,
// or, weakest, the number's magnitude alone (the generic rules of priority -2 say so).
std::vector<Reason> attribution_reasons(const FindingGroup& chosen, const std::vector<JobFact>& job_facts) {
  std::vector<Reason> reasons;
  const rules::Rule& rule = *chosen.rule;
  if (!rule.frames.empty()) {
    size_t at = chosen.message.rfind(" @ ");
    std::string site = at == std::string::npos ? "" : chosen.message.substr(at + 3);
    Reason frame(Kind::kTracebackFrame);
    if (!site.empty()) frame.set("site", site);
    reasons.push_back(frame);
  }
  for (const auto& [name, value] : chosen.facts) {
    for (const auto& fact : job_facts) {
      if (fact.name != name || fact.value != value || !fact.catalogue.empty()) continue;
      if (name == "tp" || name == "pp" || name == "world_size" || name == "model") continue;
      reasons.push_back(Reason(Kind::kJobPrinted)
                            .set("name", name)
                            .set("value", field_of(value))
                            .set("line", fact.where.line));
    }
  }
  if (rule.priority <= -2 && (rule.cause.starts_with("tp.") || rule.cause.starts_with("pp."))) {
    reasons.push_back(Reason(Kind::kMagnitudePrior));
  }
  return reasons;
}

std::string sizes_phrase(const std::vector<int64_t>& sizes) {
  std::vector<std::string> words;
  for (int64_t size : sizes) words.push_back(std::to_string(size));
  return join(words, ", ");
}

// The action, and for a layout cause the remedy in words and a verify command that tells the
// crashed layout from the suggested one. The rule's own fix lines that list sizes from the
// error line's numbers alone give way to the sizes from every known fact.
void plan_remedy(Diagnosis& diagnosis, const FindingGroup& chosen, const JobShape& shape) {
  // Facts of the job that the rule's own match did not capture: then the rule's sizes, from the
  // error line alone, may be wrong.
  bool beyond_rule = false;
  diagnosis.action = plan_action(diagnosis.cause, diagnosis.rule->id, diagnosis.facts, chosen.hosts,
                                 static_cast<int64_t>(shape.ranks_seen.size()));
  const Action& action = diagnosis.action;
  if (std::string checkpoint = checkpoint_remedy(action); !checkpoint.empty()) {
    diagnosis.fix.insert(diagnosis.fix.begin(), std::move(checkpoint));
    return;
  }
  if (std::string sizes = parallel_remedy(action); !sizes.empty()) {
    // An expert-parallel or virtual pipeline size at fault: that size changes, the layout stays.
    diagnosis.fix.insert(diagnosis.fix.begin(), std::move(sizes));
    std::string verify = verify_command(diagnosis.facts, action, 1, 1);
    bool shipped = diagnosis.rule->origin.starts_with("rules/");
    if ((shipped || !diagnosis.rule->verify) && !verify.empty()) diagnosis.verify = verify;
    return;
  }
  if (!action.suggest) return;
  const tp::Suggestion& suggest = *action.suggest;
  std::vector<std::string> used;
  for (const auto& name : action.used) {
    if (const Value* value = find_fact(diagnosis.facts, name))
      used.push_back(name + " " + to_display(*value));
    if (!find_fact(chosen.facts, name)) beyond_rule = true;
  }
  if (find_fact(diagnosis.facts, "layers") && !find_fact(chosen.facts, "layers")) beyond_rule = true;
  std::string remedy = "Use TP " + std::to_string(suggest.tp) + " × PP " + std::to_string(suggest.pp) +
                       " × DP " + std::to_string(suggest.dp);
  if (action.gpus) remedy += " (keeps the job's " + std::to_string(*action.gpus) + " GPUs)";
  if (!action.valid_tp.empty()) {
    remedy += ": the model accepts TP " + sizes_phrase(action.valid_tp);
    if (!used.empty()) remedy += " (from " + join(used, ", ") + ")";
  }
  if (const Value* layers = find_fact(diagnosis.facts, "layers"); layers && !action.valid_pp.empty()) {
    remedy += ", and PP " + sizes_phrase(action.valid_pp) + " (from layers " + to_display(*layers) + ")";
  }
  std::vector<std::string> settings;
  for (const auto& [name, value] : action.settings) settings.push_back(name + "=" + std::to_string(value));
  remedy += "; set " + join(settings, ", ") + ".";
  std::vector<std::string> fix = {remedy};
  std::vector<std::string> missing;
  for (const auto& name : action.unknown) {
    if (name == "heads" || name == "kv_heads" || name == "ffn") missing.push_back(name);
  }
  if (!missing.empty()) {
    fix.push_back(
        "Not known from these logs: " + join(missing, ", ") +
        "; each would narrow the TP sizes above (pass the model's config.json to faultline preflight).");
  }
  // With facts beyond the rule's, its own items that compute sizes from the error line's numbers
  // alone give way, and so does its verify command.
  for (const auto& item : diagnosis.rule->fix) {
    const std::string& source = item.source();
    bool computes_sizes =
        source.find("divisor") != std::string::npos || source.find("valid_tp") != std::string::npos ||
        source.find("layouts") != std::string::npos || source.find("next_multiple") != std::string::npos;
    if (computes_sizes && beyond_rule) continue;
    if (auto text = item.render(diagnosis.facts)) fix.push_back(std::move(*text));
  }
  diagnosis.fix = std::move(fix);
  // The verify command carries every size, the framework's rules and the GPUs, so that it fails
  // on the layout that crashed and passes on the suggested one. A user's own rule (--rules) keeps
  // the verify command it gives.
  bool shipped = diagnosis.rule->origin.starts_with("rules/");
  if (!shipped && diagnosis.rule->verify) return;
  bool repro = diagnosis.rule->verify && diagnosis.rule->verify->source().starts_with("faultline repro");
  if (std::string verify = verify_command(diagnosis.facts, action, suggest.tp, suggest.pp, repro);
      !verify.empty()) {
    diagnosis.verify = verify;
  }
}

// The ranks that findings name (from their lines or from clues) were seen, whatever the lines'
// prefixes said.
void add_finding_ranks(JobShape& shape, const std::vector<Finding>& findings) {
  std::set<int> seen(shape.ranks_seen.begin(), shape.ranks_seen.end());
  for (const auto& finding : findings) {
    if (finding.rank >= 0) seen.insert(finding.rank);
  }
  shape.ranks_seen.assign(seen.begin(), seen.end());
}

Coverage measure_coverage(const JobShape& shape, const std::vector<Finding>& findings) {
  Coverage coverage;
  for (const auto& finding : findings) {
    for (const char* name : {"world_size", "nranks"}) {
      if (auto stated = int_fact(finding.facts, name); stated && *stated > 0 && *stated <= 1 << 20) {
        coverage.world_size = std::max(coverage.world_size.value_or(0), *stated);
      }
    }
  }
  if (shape.ranks_seen.empty()) return coverage;
  int64_t bound = coverage.world_size.value_or(shape.ranks_seen.back() + 1);
  for (int64_t rank = 0; rank < bound && rank < (1 << 16); ++rank) {
    if (!std::binary_search(shape.ranks_seen.begin(), shape.ranks_seen.end(), static_cast<int>(rank))) {
      coverage.missing_ranks.push_back(static_cast<int>(rank));
    }
  }
  return coverage;
}

// The report counts the ranks findings name among the ranks seen (after the diagnosis, which
// reads only the ranks lines showed), and the initiating rank, unless it is the one that logged
// nothing (a silent rank, listed as missing).
void count_ranks_seen(JobAnalysis& analysis, const std::vector<Finding>& findings) {
  size_t lines_showed = analysis.shape.ranks_seen.size();
  add_finding_ranks(analysis.shape, findings);
  if (analysis.shape.ranks_seen.size() != lines_showed)
    analysis.coverage = measure_coverage(analysis.shape, findings);
  std::vector<int>& seen = analysis.shape.ranks_seen;
  const std::vector<int>& missing = analysis.coverage.missing_ranks;
  if (auto rank = analysis.diagnosis->initiating_rank;
      rank && !std::binary_search(seen.begin(), seen.end(), *rank) &&
      !std::binary_search(missing.begin(), missing.end(), *rank)) {
    seen.insert(std::upper_bound(seen.begin(), seen.end(), *rank), *rank);
    analysis.coverage = measure_coverage(analysis.shape, findings);
  }
}

// Where the initiating failure happened: the one host its lines came from, or the host the job's
// table of processes places the initiating rank on.
std::string initiating_host(const Diagnosis& diagnosis, const FindingGroup& initiating,
                            const job::ProcessTable& processes) {
  if (initiating.hosts.size() == 1 && (!diagnosis.initiating_rank || initiating.ranks.size() <= 1))
    return initiating.hosts.front();
  return diagnosis.initiating_rank ? processes.host_of_rank(*diagnosis.initiating_rank) : "";
}

// The findings of the diagnosis' group, earliest first.
std::vector<const Finding*> members_of(const FindingGroup& chosen, const std::vector<const Finding*>& tier,
                                       const HostOffsets& offsets) {
  std::vector<const Finding*> members;
  for (const Finding* finding : tier) {
    if (finding->rule == chosen.rule && print_of(*finding) == chosen.fingerprint) members.push_back(finding);
  }
  sort_by_first_seen(members, offsets);
  return members;
}

JobAnalysis correlate_findings(std::string job, JobShape shape, std::vector<Finding> findings) {
  JobAnalysis analysis;
  analysis.job = std::move(job);
  analysis.shape = std::move(shape);
  auto clues = attribute_ranks(findings, analysis.shape);
  analysis.coverage = measure_coverage(analysis.shape, findings);
  if (findings.empty()) return analysis;
  analysis.job_facts = collect_job_facts(findings);
  HostOffsets offsets = estimate_host_offsets(findings);
  Tiers tiers = fold_tiers(findings, offsets);
  if (tiers.empty()) return analysis;

  // Root causes beat symptoms: the diagnosis is the first group of the first tier that has any.
  bool from_roots = !tiers.root_groups.empty();
  const auto& candidates = from_roots ? tiers.root_groups : tiers.symptom_groups;
  const FindingGroup& chosen = candidates.front();
  auto members = members_of(chosen, from_roots ? tiers.roots : tiers.symptoms, offsets);
  analysis.diagnosis =
      diagnose(chosen, diagnosis_facts(chosen, candidates, analysis.job_facts), members, tiers.rival_groups,
               analysis.shape.ranks_seen, analysis.coverage, offsets, tiers.symptoms);
  Diagnosis& diagnosis = *analysis.diagnosis;
  name_rank_otherwise(diagnosis, chosen, candidates, members, findings, analysis.shape, clues, tiers);
  count_ranks_seen(analysis, findings);

  for (auto& group : tiers.symptom_groups) {
    if (from_roots) group.collateral_of = diagnosis.cause;
  }
  analysis.findings = std::move(tiers.root_groups);
  analysis.findings.insert(analysis.findings.end(), std::make_move_iterator(tiers.symptom_groups.begin()),
                           std::make_move_iterator(tiers.symptom_groups.end()));
  const FindingGroup& initiating = analysis.findings.front();
  diagnosis.initiating_host = initiating_host(diagnosis, initiating, analysis.shape.processes);
  diagnosis.story = tell_story(diagnosis, analysis.findings);
  for (auto& reason : attribution_reasons(initiating, analysis.job_facts))
    diagnosis.reasons.push_back(std::move(reason));
  plan_remedy(diagnosis, initiating, analysis.shape);
  return analysis;
}

}  // namespace

JobAnalysis correlate(std::string job, JobShape shape, std::vector<Finding> findings,
                      const std::set<std::string>& baseline) {
  // Findings a healthy run of the same job shows too are set aside before anything else.
  std::vector<Finding> known;
  if (!baseline.empty()) {
    auto in_baseline = [&](const Finding& f) { return baseline.contains(print_of(f)); };
    auto split = std::stable_partition(findings.begin(), findings.end(),
                                       [&](const Finding& f) { return !in_baseline(f); });
    known.assign(std::make_move_iterator(split), std::make_move_iterator(findings.end()));
    findings.erase(split, findings.end());
  }
  JobAnalysis analysis = correlate_findings(std::move(job), std::move(shape), std::move(findings));
  if (known.empty()) return analysis;
  std::vector<const Finding*> ordered;
  for (const auto& finding : known) ordered.push_back(&finding);
  sort_by_first_seen(ordered);
  for (auto& group : fold(ordered)) {
    group.in_baseline = true;
    analysis.findings.push_back(std::move(group));
  }
  if (analysis.diagnosis) {
    analysis.diagnosis->reasons.push_back(Reason(Kind::kBaselineSetAside).set("count", known.size()));
  }
  return analysis;
}

}  // namespace faultline::correlate
