#include "correlate/initiating_rank.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "correlate/process_clues.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;
using Reason = ConfidenceReason;
using Kind = ConfidenceReason::Kind;

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
// `symptoms`: every symptom of the job; a rank whose other symptom (a watchdog's work status
// line) names the same collective waited in it too, and is not silent.
std::optional<InitiatingRank> straggler(const FindingGroup& group, const std::vector<const Finding*>& members,
                                        const std::vector<int>& ranks_seen, const Coverage& coverage,
                                        const std::vector<const Finding*>& symptoms) {
  if (group.ranks.empty()) return std::nullopt;
  auto seq = int_fact(group.facts, "seq_num");
  if (seq && ranks_seen.size() > group.ranks.size()) {
    std::set<int> waited(group.ranks.begin(), group.ranks.end());
    for (const Finding* f : symptoms) {
      if (f->rank >= 0 && int_fact(f->facts, "seq_num") == seq) waited.insert(f->rank);
    }
    std::vector<int> silent;
    std::set_difference(ranks_seen.begin(), ranks_seen.end(), waited.begin(), waited.end(),
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

InitiatingRank first_reporter(const FindingGroup& group, const std::vector<const Finding*>& members,
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

}  // namespace

InitiatingRank initiating_rank_of(const FindingGroup& group, const std::vector<const Finding*>& members,
                                  const std::vector<int>& ranks_seen, const Coverage& coverage,
                                  const HostOffsets& offsets, const std::vector<const Finding*>& symptoms) {
  using rules::Role;
  std::optional<InitiatingRank> behind;
  if (group.rule->role == Role::kSymptom) behind = straggler(group, members, ranks_seen, coverage, symptoms);
  // Only symptoms, and no rank stands apart in the collective: the work counters of every
  // symptom (watchdog and heartbeat lines of other groups too) may show the rank that is behind.
  if (group.rule->role == Role::kSymptom && !behind) {
    if (auto lead = behind_in_work(symptoms, {})) behind = InitiatingRank{lead->rank, {lead->reason}};
  }
  // Ranks that only report a peer's failure (a timeout, a lost peer) are witnesses: which of them
  // reported first says nothing about the peer that failed.
  if (!behind && group.rule->reports_peer)
    behind = InitiatingRank{std::nullopt, {Reason(Kind::kOnlyWitnesses).set("ranks", group.ranks)}};
  auto initiating = behind ? *behind : first_reporter(group, members, offsets);
  std::optional<InitiatingRank> watchdog;
  if (group.rule->role == Role::kRootCause && group.ranks.size() > 1)
    watchdog = behind_in_watchdog(group.ranks, symptoms);
  if (group.rule->role == Role::kRootCause && group.ranks.size() > 1 && !watchdog) {
    if (auto lead = behind_in_work(symptoms, group.ranks))
      watchdog = InitiatingRank{lead->rank, {lead->reason}};
  }
  if (!initiating.rank && watchdog) {
    initiating.reasons.insert(initiating.reasons.end(), watchdog->reasons.begin(), watchdog->reasons.end());
    initiating.rank = watchdog->rank;
  } else if (initiating.rank && watchdog && watchdog->rank != initiating.rank) {
    for (auto reason : watchdog->reasons) initiating.reasons.push_back(reason.set("contrary", true));
    initiating.contradicted = true;
  }
  return initiating;
}

}  // namespace faultline::correlate
