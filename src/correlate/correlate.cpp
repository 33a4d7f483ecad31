#include "correlate/correlate.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "base/text.hpp"
#include "correlate/clock_skew.hpp"
#include "correlate/fingerprint.hpp"
#include "correlate/process_clues.hpp"
#include "correlate/rank_clues.hpp"
#include "tp/model_catalogue.hpp"

namespace faultline::correlate {
namespace {

constexpr std::string_view kUnrecognisedCause = "unrecognised";

using rules::Finding;
using rules::Role;

int severity_rank(const rules::Rule& rule) {
  if (rule.severity == "error") return 0;
  if (rule.severity == "warning") return 1;
  return 2;
}

// Most severe first, then earliest: by timestamp when every finding has one, otherwise by
// input order. With host clock offsets, times are compared on the job's common clock, in
// whole seconds.
void sort_by_first_seen(std::vector<const Finding*>& findings, const HostOffsets& offsets = {}) {
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

std::string print_of(const Finding& finding) {
  return is_unrecognised(finding) ? fingerprint(finding.rule->cause, template_of(finding))
                                  : fingerprint(finding.rule->cause, finding.matched);
}

std::vector<FindingGroup> fold(const std::vector<const Finding*>& ordered, const HostOffsets& offsets = {}) {
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

std::vector<std::string> render_all(const std::vector<rules::Template>& templates, const Facts& facts) {
  std::vector<std::string> out;
  for (const auto& item : templates) {
    if (auto text = item.render(facts)) out.push_back(std::move(*text));
  }
  return out;
}

using Reason = ConfidenceReason;
using Kind = ConfidenceReason::Kind;

struct InitiatingRank {
  std::optional<int> rank;
  std::vector<Reason> reasons;
  std::optional<Reason> skew_note = {};  // set when correcting host clocks changed who looks first
};

// The reporters of a failure: their ranks, and whether processes with no rank reported it too.
Reason reporters(Kind kind, const std::vector<int>& ranks, bool all_ranked) {
  Reason reason(kind);
  reason.set("ranks", ranks);
  if (!all_ranked) reason.set("unranked", true);
  return reason;
}

// Who started it, among the findings of the diagnosis' group (earliest first). One rank:
// that rank. Several ranks: the earliest by timestamp, when timestamps tell them apart;
// otherwise nobody, said plainly rather than guessed from input order.
// Only symptoms (collective timeouts): the rank that stopped is the one that did NOT time
// out in the collective the others waited in, or the one whose NCCL work is furthest behind.
std::optional<InitiatingRank> straggler(const FindingGroup& group, const std::vector<const Finding*>& members,
                                        const std::vector<int>& ranks_seen, const Coverage& coverage) {
  if (group.ranks.empty()) return std::nullopt;
  auto seq = int_fact(group.facts, "seq_num");
  if (seq && ranks_seen.size() > group.ranks.size()) {
    std::vector<int> silent;
    std::set_difference(ranks_seen.begin(), ranks_seen.end(), group.ranks.begin(), group.ranks.end(),
                        std::back_inserter(silent));
    if (silent.size() == 1) {
      return InitiatingRank{silent.front(),
                            {Reason(Kind::kSilentInCollective)
                                 .set("ranks", group.ranks)
                                 .set("seq", *seq)
                                 .set("rank", silent.front())}};
    }
  }
  // A rank with no line at all, while every rank that logged timed out in the same collective:
  // the suspect, though its log may only be missing.
  if (seq && coverage.missing_ranks.size() == 1 && ranks_seen.size() >= 2) {
    std::set<int> waited;
    for (const Finding* f : members) {
      if (f->rank >= 0 && int_fact(f->facts, "seq_num") == seq) waited.insert(f->rank);
    }
    if (std::vector<int>(waited.begin(), waited.end()) == ranks_seen) {
      int silent = coverage.missing_ranks.front();
      Reason reason(Kind::kSilentMissingRank);
      reason.set("ranks", ranks_seen);
      if (coverage.world_size) reason.set("world_size", *coverage.world_size);
      reason.set("seq", *seq).set("rank", silent);
      return InitiatingRank{silent, {reason}};
    }
  }
  std::map<int, int64_t> completed;  // rank -> lowest "last completed NCCL work"
  for (const Finding* f : members) {
    auto last = int_fact(f->facts, "last_completed");
    if (f->rank < 0 || !last) continue;
    auto [slot, inserted] = completed.try_emplace(f->rank, *last);
    if (!inserted) slot->second = std::min(slot->second, *last);
  }
  if (completed.size() > 1) {
    auto lowest = std::min_element(completed.begin(), completed.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
    bool unique = std::count_if(completed.begin(), completed.end(),
                                [&](const auto& entry) { return entry.second == lowest->second; }) == 1;
    if (unique) {
      return InitiatingRank{
          lowest->first,
          {Reason(Kind::kFewestCompleted).set("rank", lowest->first).set("work", lowest->second)}};
    }
  }
  return std::nullopt;
}

// The earliest of several reporters on different hosts, on the job's common clock. The offsets
// are good to about a second, so reports less than a second apart are not ordered.
InitiatingRank earliest_after_skew(const Finding& first, const Finding& runner_up, bool all_ranked,
                                   const std::vector<int>& ranks, const HostOffsets& offsets) {
  double gap = *offsets.corrected(runner_up) - *offsets.corrected(first);
  if (gap < 1.0) return {std::nullopt, {reporters(Kind::kReportedSameSecondAligned, ranks, all_ranked)}};
  Reason reason(Kind::kReportedFirstAligned);
  reason.set("rank", first.rank).set("at", first.time.to_string());
  if (!first.host.empty()) reason.set("host", first.host);
  if (auto offset = offsets.whole_offset(first.host)) reason.set("clock_offset", *offset);
  reason.set("seconds_before", static_cast<int64_t>(std::llround(gap)));
  if (runner_up.rank >= 0) reason.set("other_rank", runner_up.rank);
  reason.set("other_at", runner_up.time.to_string());
  if (!runner_up.host.empty()) reason.set("other_host", runner_up.host);
  if (first.time_inherited || runner_up.time_inherited) reason.set("inherited", true);
  InitiatingRank out{first.rank, {reason}};
  if (compare(first.time, runner_up.time).value_or(0) >= 0) {
    std::vector<std::string> hosts;
    std::vector<int64_t> skews;
    for (const auto* f : {&first, &runner_up}) {
      if (auto offset = offsets.whole_offset(f->host)) {
        hosts.push_back(f->host);
        skews.push_back(*offset);
      }
    }
    Reason note(Kind::kClockSkewMattered);
    note.set("hosts", hosts).set("offsets", skews);
    note.set("op", offsets.basis.op).set("seq", offsets.basis.seq);
    note.set("basis_ranks", offsets.basis.ranks).set("basis_hosts", offsets.basis.hosts);
    if (runner_up.rank >= 0) note.set("other_rank", runner_up.rank);
    out.skew_note = note;
  }
  return out;
}

InitiatingRank initiating_rank(const FindingGroup& group, const std::vector<const Finding*>& members,
                               const HostOffsets& offsets) {
  if (group.ranks.empty()) return {std::nullopt, {Reason(Kind::kNoRankNamed)}};
  bool all_ranked =
      std::all_of(members.begin(), members.end(), [](const Finding* f) { return f->rank >= 0; });
  // Reports with a pid but no rank may be other processes, or the named rank itself in a
  // form whose pid the logs never mapped (NCCL's host:pid:tid lines echo "Last error:").
  // They are other processes when their pid is not a named rank's, and either the named
  // ranks' pids are known or there are several such pids.
  std::set<int64_t> ranked_pids, unranked_pids;
  for (const Finding* f : members) {
    if (f->pid == 0) continue;
    (f->rank >= 0 ? ranked_pids : unranked_pids).insert(f->pid);
  }
  size_t strangers = 0;
  for (int64_t pid : unranked_pids) strangers += !ranked_pids.contains(pid);
  bool other_processes = strangers >= 2 || (strangers == 1 && !ranked_pids.empty());
  if (group.ranks.size() == 1 && !other_processes) {
    // Reports that name neither a rank nor a process (a launcher echoing the error, an
    // unprefixed copy) cannot contradict the one rank that is named.
    Reason only(Kind::kOnlyRankReporting);
    only.set("rank", group.ranks.front());
    if (!all_ranked) only.set("unranked_copies", true);
    return {group.ranks.front(), {only}};
  }
  const Finding* first = members.front();
  auto runner_up =
      std::find_if(members.begin(), members.end(), [&](const Finding* f) { return f->rank != first->rank; });
  if (runner_up == members.end())
    return {first->rank, {Reason(Kind::kOnlyRankReporting).set("rank", first->rank)}};
  bool all_timed =
      std::all_of(members.begin(), members.end(), [](const Finding* f) { return f->time.valid; });
  if (!all_timed) return {std::nullopt, {reporters(Kind::kReportedUnordered, group.ranks, all_ranked)}};
  if (first->rank < 0) return {std::nullopt, {Reason(Kind::kEarliestNamesNoRank)}};
  bool across_hosts = first->host != (*runner_up)->host;
  if (!offsets.empty() && across_hosts)
    return earliest_after_skew(*first, **runner_up, all_ranked, group.ranks, offsets);
  if (compare(first->time, (*runner_up)->time).value_or(0) >= 0) {
    return {std::nullopt, {reporters(Kind::kReportedSameSecond, group.ranks, all_ranked)}};
  }
  Reason reason(Kind::kReportedFirst);
  reason.set("rank", first->rank).set("at", first->time.to_string());
  if ((*runner_up)->rank >= 0) reason.set("other_rank", (*runner_up)->rank);
  reason.set("other_at", (*runner_up)->time.to_string());
  if (first->time_inherited || (*runner_up)->time_inherited) reason.set("inherited", true);
  return {first->rank, {reason}};
}

// What the watchdog lines say about ranks that reported the same root cause: the one that
// never reached the collective the others timed out in, or whose NCCL work is furthest behind.
std::optional<InitiatingRank> behind_in_watchdog(const std::vector<int>& candidates,
                                                 const std::vector<const Finding*>& symptoms) {
  std::map<int64_t, std::set<int>> waited;     // SeqNum -> ranks whose watchdog stopped there
  std::map<int, int64_t> completed, enqueued;  // rank -> lowest reported
  for (const Finding* f : symptoms) {
    if (f->rank < 0) continue;
    if (auto seq = int_fact(f->facts, "seq_num")) waited[*seq].insert(f->rank);
    for (auto [name, table] :
         {std::pair{"last_completed", &completed}, std::pair{"last_enqueued", &enqueued}}) {
      if (auto value = int_fact(f->facts, name)) {
        auto [slot, inserted] = table->try_emplace(f->rank, *value);
        if (!inserted) slot->second = std::min(slot->second, *value);
      }
    }
  }
  if (!waited.empty()) {
    auto widest = std::max_element(waited.begin(), waited.end(), [](const auto& a, const auto& b) {
      return a.second.size() < b.second.size();
    });
    const std::set<int>& ranks = widest->second;
    std::vector<int> absent, present;
    for (int rank : candidates) (ranks.contains(rank) ? present : absent).push_back(rank);
    if (absent.size() == 1 && !present.empty()) {
      Reason reason(Kind::kNeverReachedCollective);
      reason.set("rank", absent.front()).set("seq", widest->first).set("ranks", present);
      reason.set("others", ranks.size() - present.size());
      return InitiatingRank{absent.front(), {reason}};
    }
  }
  for (auto [name, table] : {std::pair{"completed", &completed}, std::pair{"enqueued", &enqueued}}) {
    std::vector<std::pair<int64_t, int>> known;  // (work, rank) of the candidates that report it
    for (int rank : candidates) {
      if (auto it = table->find(rank); it != table->end()) known.emplace_back(it->second, rank);
    }
    if (known.size() < 2) continue;
    std::sort(known.begin(), known.end());
    if (known[0].first < known[1].first) {
      return InitiatingRank{known[0].second,
                            {Reason(Kind::kLeastWork)
                                 .set("rank", known[0].second)
                                 .set("counter", name)
                                 .set("work", known[0].first)}};
    }
  }
  return std::nullopt;
}

// The facts a diagnosis rests on: its group's, then what the job's other reports of the same
// cause captured that it did not (a generic wording beside the framework's own line, a line
// rule beside an event rule), earliest first.
Facts diagnosis_facts(const FindingGroup& chosen, const std::vector<FindingGroup>& candidates,
                      const std::vector<JobFact>& job_facts) {
  Facts facts = chosen.facts;
  for (const auto& group : candidates) {
    if (&group == &chosen || group.rule->cause != chosen.rule->cause) continue;
    for (const auto& [name, value] : group.facts) {
      if (!find_fact(facts, name)) set_fact(facts, name, value);
    }
  }
  for (const auto& fact : job_facts) {
    if (!find_fact(facts, fact.name)) set_fact(facts, fact.name, fact.value);
  }
  return facts;
}

bool has_job_fact(const std::vector<JobFact>& facts, std::string_view name) {
  return std::any_of(facts.begin(), facts.end(), [name](const JobFact& fact) { return fact.name == name; });
}

// The names of the sizes the catalogue gives, as facts.
void add_catalogue_facts(const tp::CatalogueModel& model, std::vector<JobFact>& out) {
  const tp::Geometry& g = model.geometry;
  for (auto [name, size] :
       {std::pair{"heads", g.heads}, std::pair{"kv_heads", g.kv_heads}, std::pair{"hidden", g.hidden},
        std::pair{"ffn", g.ffn}, std::pair{"moe_ffn", g.moe_ffn}, std::pair{"experts", g.experts},
        std::pair{"vocab", g.vocab}, std::pair{"layers", g.layers}}) {
    if (!size) continue;
    if (!has_job_fact(out, name)) out.push_back({name, Value(*size), {}, model.id});
  }
}

// The job's facts: each name's first statement in input order, then what the catalogue holds
// of a model the job names (a diagnosis' own `model` fact, or a fact rule's).
std::vector<JobFact> collect_job_facts(const std::vector<Finding>& findings) {
  std::vector<const Finding*> stated;
  for (const auto& finding : findings) {
    if (finding.rule->role == Role::kFact) stated.push_back(&finding);
  }
  std::stable_sort(stated.begin(), stated.end(),
                   [](const Finding* a, const Finding* b) { return a->sequence < b->sequence; });
  std::vector<JobFact> out;
  // A GPU table's rows (nvidia-smi) each state one GPU's index: the GPUs of a node are the
  // highest index plus one, stated where that row is.
  std::optional<JobFact> node_gpus;
  for (const Finding* finding : stated) {
    rules::Evidence where = finding->evidence.empty() ? rules::Evidence{} : finding->evidence.front();
    for (const auto& [name, value] : finding->facts) {
      if (name == "gpu_index") {
        auto index = std::get_if<int64_t>(&value);
        if (index && *index >= 0 && (!node_gpus || std::get<int64_t>(node_gpus->value) <= *index))
          node_gpus = JobFact{"node_gpus", Value(*index + 1), where, ""};
        continue;
      }
      if (has_job_fact(out, name)) continue;
      out.push_back({name, value, where, ""});
    }
  }
  if (node_gpus && !has_job_fact(out, "node_gpus")) out.push_back(std::move(*node_gpus));
  std::vector<std::string> models;
  for (const auto& fact : out) {
    if (fact.name == "model" && std::holds_alternative<std::string>(fact.value))
      models.push_back(std::get<std::string>(fact.value));
  }
  for (const auto& finding : findings) {
    const Value* model = find_fact(finding.facts, "model");
    if (model && std::holds_alternative<std::string>(*model)) models.push_back(std::get<std::string>(*model));
  }
  for (const auto& name : models) {
    if (const tp::CatalogueModel* model = tp::find_model(name)) {
      add_catalogue_facts(*model, out);
      break;
    }
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
  if (rule.explain) {
    diagnosis.explain = std::string(trim(rule.explain->render(facts).value_or(rule.explain->source())));
  }
  diagnosis.symptoms = render_all(rule.symptoms, facts);
  diagnosis.confirm = render_all(rule.confirm, facts);
  diagnosis.fix = render_all(rule.fix, facts);
  if (rule.verify) diagnosis.verify = rule.verify->render(facts).value_or("");

  double confidence = 0.5;
  if (rule.cause == kUnrecognisedCause) {
    diagnosis.reasons.push_back(Reason(Kind::kUnrecognisedError).set("rule", rule.id));
  } else if (rule.role == Role::kRootCause) {
    confidence += 0.3;
    diagnosis.reasons.push_back(Reason(Kind::kRootCauseRule).set("rule", rule.id));
  } else {
    diagnosis.reasons.push_back(Reason(Kind::kSymptomsOnly).set("rule", rule.id));
  }
  std::optional<InitiatingRank> behind;
  if (rule.role == Role::kSymptom) behind = straggler(group, members, ranks_seen, coverage);
  // Only symptoms, and no rank stands apart in the collective: the work counters of every
  // symptom (watchdog and heartbeat lines of other groups too) may show the rank that is behind.
  if (rule.role == Role::kSymptom && !behind) {
    if (auto lead = behind_in_work(symptoms, {})) behind = InitiatingRank{lead->rank, {lead->reason}};
  }
  auto initiating = behind ? *behind : initiating_rank(group, members, offsets);
  std::optional<InitiatingRank> watchdog;
  if (rule.role == Role::kRootCause && group.ranks.size() > 1)
    watchdog = behind_in_watchdog(group.ranks, symptoms);
  if (rule.role == Role::kRootCause && group.ranks.size() > 1 && !watchdog) {
    if (auto lead = behind_in_work(symptoms, group.ranks))
      watchdog = InitiatingRank{lead->rank, {lead->reason}};
  }
  if (!initiating.rank && watchdog) {
    initiating.reasons.insert(initiating.reasons.end(), watchdog->reasons.begin(), watchdog->reasons.end());
    initiating.rank = watchdog->rank;
  } else if (initiating.rank && watchdog && watchdog->rank != initiating.rank) {
    for (auto reason : watchdog->reasons) initiating.reasons.push_back(reason.set("contrary", true));
    confidence -= 0.1;
  }
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

// Whole seconds from group a's first report to group b's, on the job's common clock (each
// group's first time less its host's clock offset), when both times can be compared that way.
// `raw` gets the difference of the printed times, to tell when the offsets changed it.
std::optional<int64_t> seconds_between(const FindingGroup& a, const FindingGroup& b, int64_t& raw) {
  if (!a.first_time.valid || !b.first_time.valid) return std::nullopt;
  if (a.first_time.year && b.first_time.year && a.first_time.year != b.first_time.year) return std::nullopt;
  raw = b.first_time.seconds_in_year() - a.first_time.seconds_in_year();
  return raw - std::llround(b.first_clock_offset - a.first_clock_offset);
}

std::string what_they_did(const FindingGroup& group) {
  if (group.rule->narrative) {
    if (auto text = group.rule->narrative->render(group.facts)) return *text;
  }
  return "reported " + group.rule->cause + " (" + group.rule->title + ")";
}

std::vector<StoryItem> tell_story(const Diagnosis& diagnosis, const std::vector<FindingGroup>& groups) {
  std::vector<StoryItem> story;
  const FindingGroup& first = groups.front();
  StoryItem failed;
  failed.kind = StoryItem::Kind::kFailedFirst;
  if (diagnosis.initiating_rank) failed.ranks = {*diagnosis.initiating_rank};
  failed.cause = diagnosis.cause;
  failed.title = diagnosis.title;
  failed.at = diagnosis.first_seen;
  story.push_back(std::move(failed));
  // One item per cause, in the order the groups come (root causes, then symptoms).
  std::vector<std::string> causes;
  for (size_t i = 1; i < groups.size(); ++i) {
    if (std::find(causes.begin(), causes.end(), groups[i].rule->cause) == causes.end())
      causes.push_back(groups[i].rule->cause);
  }
  for (const auto& cause : causes) {
    std::set<int> ranks;
    const FindingGroup* lead = nullptr;  // the first group of the cause; one with a narrative if any
    std::optional<int64_t> delay;        // to the earliest report of the cause
    int64_t raw_delay = 0;
    for (size_t i = 1; i < groups.size(); ++i) {
      if (groups[i].rule->cause != cause) continue;
      ranks.insert(groups[i].ranks.begin(), groups[i].ranks.end());
      if (!lead || (!lead->rule->narrative && groups[i].rule->narrative)) lead = &groups[i];
      int64_t raw = 0;
      if (auto seconds = seconds_between(first, groups[i], raw); seconds && (!delay || *seconds < *delay)) {
        delay = seconds;
        raw_delay = raw;
      }
    }
    StoryItem item;
    item.kind = StoryItem::Kind::kOthers;
    item.ranks.assign(ranks.begin(), ranks.end());
    item.cause = cause;
    item.did = what_they_did(*lead);
    if (delay && *delay > 0) {
      item.seconds_later = delay;
      if (*delay != raw_delay) item.printed_seconds_later = raw_delay;
    }
    item.collateral = !lead->collateral_of.empty();
    story.push_back(std::move(item));
  }
  return story;
}

std::string sizes_phrase(const std::vector<int64_t>& sizes) {
  std::vector<std::string> words;
  for (int64_t size : sizes) words.push_back(std::to_string(size));
  return join(words, ", ");
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

// Last resorts when the failure's lines name no rank: a job whose logs show one rank only,
// or a launcher's local rank on a job with no more than one host (local is global there), or
// the one CUDA device of the one process that reported it, on one host (torchrun and most
// launchers give each process the device of its local rank). Each says what it rests on; none
// adds to the confidence.
void name_rank_from_job(Diagnosis& diagnosis, const FindingGroup& chosen,
                        const std::vector<const Finding*>& members, const JobShape& shape) {
  if (!chosen.ranks.empty()) return;
  if (shape.ranks_seen.size() == 1) {
    diagnosis.initiating_rank = shape.ranks_seen.front();
    diagnosis.reasons.back() = Reason(Kind::kOnlyRankInLogs).set("rank", shape.ranks_seen.front());
    return;
  }
  auto local_rank = int_fact(chosen.facts, "local_rank");
  if (local_rank && shape.hosts.size() <= 1 && shape.ranks_seen.empty()) {
    diagnosis.initiating_rank = static_cast<int>(*local_rank);
    diagnosis.reasons.back() = Reason(Kind::kLauncherLocalRank).set("local_rank", *local_rank);
    return;
  }
  if (!shape.ranks_seen.empty() || shape.hosts.size() > 1 || members.empty()) return;
  std::set<int64_t> devices, pids;
  for (const Finding* f : members) {
    auto device = int_fact(f->facts, "cuda_dev");
    if (!device || f->pid == 0) return;
    devices.insert(*device);
    pids.insert(f->pid);
  }
  if (devices.size() != 1 || pids.size() != 1) return;
  diagnosis.initiating_rank = static_cast<int>(*devices.begin());
  diagnosis.reasons.back() =
      Reason(Kind::kOneProcessDevice).set("pid", *pids.begin()).set("device", *devices.begin());
}

// NCCL peers that other ranks lost point at the rank that went away. Among several ranks that
// reported the root cause, the one on the peers' host; for a diagnosis of symptoms only, the
// one rank on the peers' host that reported no error itself.
void name_rank_from_peers(Diagnosis& diagnosis, const FindingGroup& chosen,
                          const std::vector<PeerReport>& peers, const std::vector<const Finding*>& symptoms) {
  std::set<int> reporting;
  for (const Finding* f : symptoms) {
    if (f->rank >= 0) reporting.insert(f->rank);
  }
  for (const auto& peer : peers) {
    if (peer.ranks.empty()) continue;
    std::vector<int> candidates;
    if (chosen.rule->role == Role::kRootCause) {
      std::set_intersection(chosen.ranks.begin(), chosen.ranks.end(), peer.ranks.begin(), peer.ranks.end(),
                            std::back_inserter(candidates));
    } else {
      for (int rank : peer.ranks) {
        if (!reporting.contains(rank)) candidates.push_back(rank);
      }
    }
    if (candidates.size() != 1) continue;
    diagnosis.initiating_rank = candidates.front();
    Reason reason(Kind::kLostPeer);
    reason.set("reporters", peer.reporters).set("peer", peer.peer).set("host", peer.host);
    reason.set("peer_ranks", peer.ranks).set("rank", candidates.front());
    reason.set("reported_it", chosen.rule->role == Role::kRootCause);
    diagnosis.reasons.push_back(reason);
    return;
  }
}

// The weakest sign, used when nothing else names a rank: the one worker the launcher did not
// stop had already exited (see process_not_signalled). For a root cause, only a rank that
// reported it (or any, when the reports name none).
void name_rank_from_closing_signals(Diagnosis& diagnosis, const FindingGroup& chosen,
                                    const std::vector<Finding>& findings,
                                    const job::ProcessTable& processes) {
  auto process = process_not_signalled(findings, processes);
  if (!process) return;
  int rank = process->process.rank;
  if (chosen.rule->role == Role::kRootCause && !chosen.ranks.empty() &&
      !std::binary_search(chosen.ranks.begin(), chosen.ranks.end(), rank)) {
    return;
  }
  diagnosis.initiating_rank = rank;
  Reason reason(Kind::kNotSignalled);
  reason.set("pids", std::vector<int64_t>(process->signalled.begin(), process->signalled.end()));
  reason.set("host", process->process.host).set("pid", process->process.pid).set("rank", rank);
  diagnosis.reasons.push_back(reason);
}

// A rank that only timed out or was stopped (a victim) is never named while some rank has an
// error of its own; a fallback that named one gives way.
void set_victim_aside(Diagnosis& diagnosis, const std::vector<const Finding*>& roots,
                      const std::vector<const Finding*>& symptoms) {
  if (!diagnosis.initiating_rank || diagnosis.rule->role == Role::kSymptom) return;
  int named = *diagnosis.initiating_rank;
  std::set<int> own_errors;
  for (const Finding* f : roots) {
    if (f->rank >= 0) own_errors.insert(f->rank);
  }
  bool victim =
      std::any_of(symptoms.begin(), symptoms.end(), [&](const Finding* f) { return f->rank == named; });
  if (own_errors.empty() || own_errors.contains(named) || !victim) return;
  diagnosis.initiating_rank.reset();
  diagnosis.reasons.push_back(Reason(Kind::kVictimSetAside)
                                  .set("rank", named)
                                  .set("ranks", std::vector<int>(own_errors.begin(), own_errors.end())));
  diagnosis.confidence = std::max(0.0, diagnosis.confidence - 0.1);
}

// When the initiating rank rests on a clue rather than its own line's rank (rank_clues.hpp),
// the reason says which and how strong; a clue adds nothing to the confidence.
void note_rank_clue(Diagnosis& diagnosis, const std::vector<const Finding*>& members,
                    const std::map<uint64_t, RankClue>& clues, bool rank_added_confidence) {
  if (!diagnosis.initiating_rank || clues.empty()) return;
  const RankClue* clue = nullptr;
  for (const Finding* f : members) {
    if (f->rank != *diagnosis.initiating_rank) continue;
    auto it = clues.find(f->sequence);
    if (it == clues.end()) return;  // a line of its own names that rank
    if (!clue) clue = &it->second;
  }
  if (!clue) return;
  diagnosis.reasons.push_back(clue_reason(*clue));
  if (rank_added_confidence) diagnosis.confidence = std::max(0.0, diagnosis.confidence - 0.1);
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

}  // namespace

namespace {
JobAnalysis correlate_findings(std::string job, JobShape shape, std::vector<Finding> findings);
}  // namespace

const char* to_string(StoryItem::Kind kind) {
  return kind == StoryItem::Kind::kFailedFirst ? "failed_first" : "others";
}

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

namespace {

JobAnalysis correlate_findings(std::string job, JobShape shape, std::vector<Finding> findings) {
  JobAnalysis analysis;
  analysis.job = std::move(job);
  analysis.shape = std::move(shape);
  auto clues = attribute_ranks(findings, analysis.shape);
  analysis.coverage = measure_coverage(analysis.shape, findings);
  if (findings.empty()) return analysis;

  analysis.job_facts = collect_job_facts(findings);
  // Three tiers: the root causes rules know; errors no rule knows; symptoms. (Where another
  // rule knew an error's line, its priority has set the catch-all aside: keep_highest_priority.)
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
  std::vector<const Finding*> roots, unknown, symptoms;
  for (const auto& finding : findings) {
    if (finding.rule->role == Role::kRecovery || finding.rule->role == Role::kFact) continue;
    if (is_unrecognised(finding)) {
      // A traceback a logger printed as a warning or as information was handled.
      bool handled = finding.logged_at == 'W' || finding.logged_at == 'I' || finding.logged_at == 'D';
      if (!recovered(finding) && !handled) unknown.push_back(&finding);
    } else {
      (finding.rule->role == Role::kRootCause ? roots : symptoms).push_back(&finding);
    }
  }
  HostOffsets offsets = estimate_host_offsets(findings);
  sort_by_first_seen(roots, offsets);
  sort_by_first_seen(unknown, offsets);
  sort_by_first_seen(symptoms, offsets);
  auto root_groups = fold(roots, offsets);
  auto unknown_groups = fold(unknown, offsets);
  auto symptom_groups = fold(symptoms, offsets);
  if (root_groups.empty() && unknown_groups.empty() && symptom_groups.empty()) return analysis;

  size_t known_root_groups = root_groups.size();
  // An error no rule knows that came after a collective had already timed out is the hang's
  // collateral (an abort, a broken connection), not its cause.
  bool after_hang =
      std::any_of(symptom_groups.begin(), symptom_groups.end(), [&](const FindingGroup& symptom) {
        if (symptom.rule->cause != "nccl.watchdog_timeout" || unknown_groups.empty()) return false;
        const FindingGroup& error = unknown_groups.front();
        if (symptom.first_time.valid && error.first_time.valid) {
          return compare(symptom.first_time, error.first_time).value_or(1) < 0;
        }
        return symptom.first_sequence <= error.first_sequence;
      });
  if (after_hang) {
    unknown.clear();
    unknown_groups.clear();
  }
  if (root_groups.empty() && unknown_groups.empty() && symptom_groups.empty()) return analysis;
  bool unknown_leads = root_groups.empty() && !unknown_groups.empty();
  roots.insert(roots.end(), unknown.begin(), unknown.end());
  root_groups.insert(root_groups.end(), std::make_move_iterator(unknown_groups.begin()),
                     std::make_move_iterator(unknown_groups.end()));
  const auto& candidates = root_groups.empty() ? symptom_groups : root_groups;
  const auto& candidate_findings = root_groups.empty() ? symptoms : roots;
  const FindingGroup& chosen = candidates.front();
  std::vector<const Finding*> members;
  for (const Finding* finding : candidate_findings) {
    if (finding->rule == chosen.rule && print_of(*finding) == chosen.fingerprint) {
      members.push_back(finding);
    }
  }
  sort_by_first_seen(members, offsets);
  analysis.diagnosis = diagnose(chosen, diagnosis_facts(chosen, candidates, analysis.job_facts), members,
                                unknown_leads ? root_groups.size() : known_root_groups,
                                analysis.shape.ranks_seen, analysis.coverage, offsets, symptoms);
  bool rank_from_group = analysis.diagnosis->initiating_rank.has_value();
  if (!analysis.diagnosis->initiating_rank && chosen.ranks.empty()) {
    // The same failure often appears twice: a bare error line that names no rank, and a
    // relay of it (a watchdog, a launcher) that does. One rank named by the relays is it.
    std::set<int> named;
    for (const auto& group : candidates) {
      if (&group != &chosen && group.rule->cause == chosen.rule->cause)
        named.insert(group.ranks.begin(), group.ranks.end());
    }
    if (named.size() == 1) {
      analysis.diagnosis->initiating_rank = *named.begin();
      analysis.diagnosis->reasons.back() = Reason(Kind::kRelayNamesRank).set("rank", *named.begin());
      analysis.diagnosis->confidence = std::min(1.0, analysis.diagnosis->confidence + 0.05);
    }
  }
  // The launcher's Root Cause entry, when the error's own lines name no rank (among ranks that all
  // report the same error, the agent's order is the order in which it polled them), or when only
  // symptoms were found. Not for a layout error (tp., pp.): every rank computes the same shapes and
  // fails alike, and which one the agent saw first is a race.
  bool layout_error = chosen.rule->cause.starts_with("tp.") || chosen.rule->cause.starts_with("pp.");
  if (!analysis.diagnosis->initiating_rank && !layout_error &&
      (chosen.ranks.empty() || chosen.rule->role == Role::kSymptom)) {
    if (auto lead = root_cause_entry(analysis.shape.processes, {})) {
      analysis.diagnosis->initiating_rank = lead->rank;
      analysis.diagnosis->reasons.push_back(lead->reason);
    }
  }
  if (!analysis.diagnosis->initiating_rank) {
    observe_findings(analysis.shape.processes, findings);
    name_rank_from_peers(*analysis.diagnosis, chosen, peers_named(findings, analysis.shape.processes),
                         symptoms);
  }
  if (!analysis.diagnosis->initiating_rank)
    name_rank_from_job(*analysis.diagnosis, chosen, members, analysis.shape);
  if (!analysis.diagnosis->initiating_rank) {
    name_rank_from_closing_signals(*analysis.diagnosis, chosen, findings, analysis.shape.processes);
  }
  set_victim_aside(*analysis.diagnosis, roots, symptoms);
  note_rank_clue(*analysis.diagnosis, members, clues, rank_from_group);
  if (auto rank = analysis.diagnosis->initiating_rank) {
    if (auto reason = engine_rank_reason(*rank, members, analysis.shape.processes))
      analysis.diagnosis->reasons.push_back(std::move(*reason));
  }
  // The report counts the ranks findings name among the ranks seen (after the diagnosis, which
  // reads only the ranks lines showed), and the initiating rank, unless it is the one that logged
  // nothing (a silent rank, listed as missing).
  size_t lines_showed = analysis.shape.ranks_seen.size();
  add_finding_ranks(analysis.shape, findings);
  if (analysis.shape.ranks_seen.size() != lines_showed)
    analysis.coverage = measure_coverage(analysis.shape, findings);
  if (auto rank = analysis.diagnosis->initiating_rank;
      rank &&
      !std::binary_search(analysis.shape.ranks_seen.begin(), analysis.shape.ranks_seen.end(), *rank) &&
      !std::binary_search(analysis.coverage.missing_ranks.begin(), analysis.coverage.missing_ranks.end(),
                          *rank)) {
    analysis.shape.ranks_seen.insert(
        std::upper_bound(analysis.shape.ranks_seen.begin(), analysis.shape.ranks_seen.end(), *rank), *rank);
    analysis.coverage = measure_coverage(analysis.shape, findings);
  }
  for (auto& group : symptom_groups) {
    if (!root_groups.empty()) group.collateral_of = analysis.diagnosis->cause;
  }
  analysis.findings = std::move(root_groups);
  analysis.findings.insert(analysis.findings.end(), std::make_move_iterator(symptom_groups.begin()),
                           std::make_move_iterator(symptom_groups.end()));
  const FindingGroup& initiating = analysis.findings.front();
  if (initiating.hosts.size() == 1 &&
      (!analysis.diagnosis->initiating_rank || initiating.ranks.size() <= 1)) {
    analysis.diagnosis->initiating_host = initiating.hosts.front();
  } else if (analysis.diagnosis->initiating_rank) {
    analysis.diagnosis->initiating_host =
        analysis.shape.processes.host_of_rank(*analysis.diagnosis->initiating_rank);
  }
  analysis.diagnosis->story = tell_story(*analysis.diagnosis, analysis.findings);
  for (auto& reason : attribution_reasons(analysis.findings.front(), analysis.job_facts)) {
    analysis.diagnosis->reasons.push_back(std::move(reason));
  }
  plan_remedy(*analysis.diagnosis, analysis.findings.front(), analysis.shape);
  return analysis;
}

}  // namespace

}  // namespace faultline::correlate
