#include "correlate/grouping.hpp"

#include <algorithm>
#include <iterator>
#include <map>

#include "correlate/fingerprint.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;
using rules::Role;

int severity_rank(const rules::Rule& rule) {
  if (rule.severity == "error") return 0;
  if (rule.severity == "warning") return 1;
  return 2;
}

bool is_unrecognised(const Finding& finding) {
  return finding.rule->cause == kUnrecognisedCause;
}

// An error no rule knows is told apart by its template, not by the text the rule matched.
std::string template_of(const Finding& finding) {
  if (!is_unrecognised(finding)) return "";
  const Facts& facts = finding.facts;
  return failure_template(fact_text(facts, "exception"), fact_text(facts, "message"),
                          fact_text(facts, "frame_file"), fact_text(facts, "frame_function"));
}

// The three tiers before folding: root causes rules know, errors no rule knows that the job did
// not handle, symptoms. (Where another rule knew an error's line, its priority has set the
// catch-all aside: keep_highest_priority.)
struct Split {
  std::vector<const Finding*> roots, unknown, symptoms;
};

Split split_tiers(const std::vector<Finding>& findings) {
  // A recovery (a retry, a skip, a completed run) after an error no rule knows, on its rank,
  // says the job handled that error.
  std::vector<const Finding*> recoveries;
  for (const auto& finding : findings) {
    if (finding.rule->role == Role::kRecovery) recoveries.push_back(&finding);
  }
  // So does a watchdog that later times out on the same rank: an exception that ended the rank
  // would have ended its watchdog thread too.
  for (const auto& finding : findings) {
    if (finding.rule->cause == "nccl.watchdog_timeout" && finding.rank >= 0) recoveries.push_back(&finding);
  }
  auto recovered = [&](const Finding& error) {
    return std::any_of(recoveries.begin(), recoveries.end(), [&](const Finding* recovery) {
      return recovery->sequence > error.sequence && recovery->rank == error.rank;
    });
  };
  Split split;
  for (const auto& finding : findings) {
    if (finding.rule->role == Role::kRecovery || finding.rule->role == Role::kFact) continue;
    // An error no rule knows is weighed below the known root causes; a wrapper that only says
    // another process failed ("see root cause above") is a symptom, whatever its cause.
    if (is_unrecognised(finding) && finding.rule->role != Role::kSymptom) {
      // A traceback a logger printed as a warning or as information was handled.
      bool handled = finding.logged_at == 'W' || finding.logged_at == 'I' || finding.logged_at == 'D';
      if (!recovered(finding) && !handled) split.unknown.push_back(&finding);
    } else {
      (finding.rule->role == Role::kRootCause ? split.roots : split.symptoms).push_back(&finding);
    }
  }
  return split;
}

// An error no rule knows that came after a collective had already timed out is the hang's
// collateral (an abort, a broken connection), not its cause; but not an error of ranks none of
// which timed out: those are the ranks the others waited for, whose output came late.
bool after_hang(const std::vector<FindingGroup>& symptom_groups,
                const std::vector<FindingGroup>& unknown_groups) {
  return std::any_of(symptom_groups.begin(), symptom_groups.end(), [&](const FindingGroup& symptom) {
    if (symptom.rule->cause != "nccl.watchdog_timeout" || unknown_groups.empty()) return false;
    const FindingGroup& error = unknown_groups.front();
    bool waited_for =
        !error.ranks.empty() && !symptom.ranks.empty() &&
        std::none_of(error.ranks.begin(), error.ranks.end(), [&](int rank) {
          return std::binary_search(symptom.ranks.begin(), symptom.ranks.end(), rank);  // sorted
        });
    if (waited_for) return false;
    if (symptom.first_time.valid && error.first_time.valid) {
      return compare(symptom.first_time, error.first_time).value_or(1) < 0;
    }
    return symptom.first_sequence <= error.first_sequence;
  });
}

}  // namespace

void sort_by_first_seen(std::vector<const Finding*>& findings, const HostOffsets& offsets) {
  bool all_timed =
      std::all_of(findings.begin(), findings.end(), [](const Finding* f) { return f->time.valid; });
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding* a, const Finding* b) {
    int severity_order = severity_rank(*a->rule) - severity_rank(*b->rule);
    if (severity_order != 0) return severity_order < 0;
    if (all_timed && !offsets.empty()) {
      double delta = *offsets.corrected(*a) - *offsets.corrected(*b);
      if (delta != 0) return delta < 0;
    } else if (all_timed) {
      int order = compare(a->time, b->time).value_or(0);
      if (order != 0) return order < 0;
    }
    return a->sequence < b->sequence;
  });
}

std::string print_of(const Finding& finding) {
  return is_unrecognised(finding) ? fingerprint(finding.rule->cause, template_of(finding))
                                  : fingerprint(finding.rule->cause, finding.matched);
}

std::vector<FindingGroup> fold(const std::vector<const Finding*>& ordered, const HostOffsets& offsets) {
  std::vector<FindingGroup> groups;
  std::map<std::pair<std::string, std::string>, size_t> index;  // (rule id, fingerprint)
  for (const Finding* finding : ordered) {
    std::string print = print_of(*finding);
    auto [slot, inserted] = index.try_emplace({finding->rule->id, print}, groups.size());
    if (inserted) {
      FindingGroup group;
      group.rule = finding->rule;
      group.fingerprint = print;
      group.first_time = finding->time;
      group.first_clock_offset = offsets.of(finding->host);
      group.first_sequence = finding->sequence;
      group.first_rank = finding->rank;
      group.facts = finding->facts;
      group.message = finding->matched;
      group.failure_template = template_of(*finding);
      groups.push_back(std::move(group));
    }
    FindingGroup& group = groups[slot->second];
    group.occurrences += 1 + finding->folded;
    bool rank_marked = std::any_of(group.marks.begin(), group.marks.end(),
                                   [&](const RankMark& mark) { return mark.rank == finding->rank; });
    if (!rank_marked) {
      group.marks.push_back({finding->rank, finding->time, finding->sequence, offsets.of(finding->host)});
    }
    if (finding->rank >= 0) group.ranks.push_back(finding->rank);
    if (!finding->host.empty()) group.hosts.push_back(finding->host);
    for (const auto& evidence : finding->evidence) {
      if (group.evidence.size() < FindingGroup::kMaxEvidence) group.evidence.push_back(evidence);
    }
  }
  for (auto& group : groups) {
    std::sort(group.ranks.begin(), group.ranks.end());
    group.ranks.erase(std::unique(group.ranks.begin(), group.ranks.end()), group.ranks.end());
    std::sort(group.hosts.begin(), group.hosts.end());
    group.hosts.erase(std::unique(group.hosts.begin(), group.hosts.end()), group.hosts.end());
  }
  return groups;
}

Tiers fold_tiers(const std::vector<Finding>& findings, const HostOffsets& offsets) {
  Split split = split_tiers(findings);
  sort_by_first_seen(split.roots, offsets);
  sort_by_first_seen(split.unknown, offsets);
  sort_by_first_seen(split.symptoms, offsets);
  Tiers tiers;
  tiers.root_groups = fold(split.roots, offsets);
  auto unknown_groups = fold(split.unknown, offsets);
  tiers.symptom_groups = fold(split.symptoms, offsets);
  tiers.rival_groups = tiers.root_groups.size();
  if (after_hang(tiers.symptom_groups, unknown_groups)) {
    split.unknown.clear();
    unknown_groups.clear();
  }
  if (tiers.root_groups.empty()) tiers.rival_groups = unknown_groups.size();
  tiers.roots = std::move(split.roots);
  tiers.roots.insert(tiers.roots.end(), split.unknown.begin(), split.unknown.end());
  tiers.root_groups.insert(tiers.root_groups.end(), std::make_move_iterator(unknown_groups.begin()),
                           std::make_move_iterator(unknown_groups.end()));
  tiers.symptoms = std::move(split.symptoms);
  return tiers;
}

}  // namespace faultline::correlate
