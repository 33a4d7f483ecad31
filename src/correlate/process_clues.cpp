#include "correlate/process_clues.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "base/text.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;

bool allowed(const std::vector<int>& candidates, int rank) {
  return candidates.empty() || std::find(candidates.begin(), candidates.end(), rank) != candidates.end();
}

// Each rank's smallest `fact`, among the findings that report it.
std::map<int, int64_t> lowest_by_rank(const std::vector<const Finding*>& findings, std::string_view fact,
                                      const std::vector<int>& candidates) {
  std::map<int, int64_t> lowest;
  for (const Finding* f : findings) {
    auto value = int_fact(f->facts, fact);
    if (f->rank < 0 || !value || !allowed(candidates, f->rank)) continue;
    auto [slot, inserted] = lowest.try_emplace(f->rank, *value);
    if (!inserted) slot->second = std::min(slot->second, *value);
  }
  return lowest;
}

}  // namespace

std::optional<RankLead> root_cause_entry(const job::ProcessTable& processes,
                                         const std::vector<int>& candidates) {
  const job::ProcessTable::WorkerFailure* named = nullptr;
  for (const auto& failure : processes.worker_failures()) {
    if (!failure.first_observed || failure.exitcode <= 0) continue;
    if (named && named->rank != failure.rank) return std::nullopt;  // agents disagree
    if (!named) named = &failure;
  }
  if (!named || !allowed(candidates, named->rank)) return std::nullopt;
  // The agent orders failures by whole seconds, the lowest local rank first within one: another
  // worker that exited with an error of its own in the same second (or at no stated time) may as
  // well have been first.
  for (const auto& failure : processes.worker_failures()) {
    if (failure.first_observed || failure.exitcode <= 0 || failure.rank == named->rank) continue;
    if (failure.time.empty() || named->time.empty() || failure.time == named->time) return std::nullopt;
  }
  ConfidenceReason reason(ConfidenceReason::Kind::kRootCauseEntry);
  reason.set("rank", named->rank);
  if (named->local_rank >= 0) reason.set("local_rank", named->local_rank);
  if (!named->host.empty()) reason.set("host", named->host);
  reason.set("exit_code", named->exitcode).set("line", named->line);
  return RankLead{named->rank, reason};
}

std::optional<RankLead> behind_in_work(const std::vector<const Finding*>& findings,
                                       const std::vector<int>& candidates) {
  for (const char* counter : {"last_enqueued", "outstanding_works"}) {
    auto lowest = lowest_by_rank(findings, counter, candidates);
    if (lowest.size() < 2) continue;
    auto least = std::min_element(lowest.begin(), lowest.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<int> others;
    std::set<int64_t> other_values;
    for (const auto& [rank, value] : lowest) {
      if (rank == least->first) continue;
      if (value == least->second) return std::nullopt;  // a tie names no one
      others.push_back(rank);
      other_values.insert(value);
    }
    ConfidenceReason reason(ConfidenceReason::Kind::kBehindInWork);
    reason.set("rank", least->first).set("counter", counter).set("work", least->second);
    reason.set("other_work", std::vector<int64_t>(other_values.begin(), other_values.end()));
    reason.set("other_ranks", others);
    return RankLead{least->first, reason};
  }
  return std::nullopt;
}

std::optional<ConfidenceReason> engine_rank_reason(int rank, const std::vector<const Finding*>& members,
                                                   const job::ProcessTable& processes) {
  const job::ProcessTable::PidFacts* taught = nullptr;
  int64_t pid = 0;
  for (const Finding* f : members) {
    if (f->rank != rank) continue;
    const auto* facts = processes.pid_facts(f->pid);
    if (!facts || facts->rank != rank || facts->origin != job::ProcessTable::RankOrigin::kEngine)
      return std::nullopt;
    if (!taught) {
      taught = facts;
      pid = f->pid;
    }
  }
  if (!taught) return std::nullopt;
  ConfidenceReason reason(ConfidenceReason::Kind::kEngineRankLine);
  reason.set("rank", rank).set("pid", pid);
  if (!taught->host.empty()) reason.set("host", taught->host);
  reason.set("world_size", taught->communicator_size).set("line", taught->rank_line);
  return reason;
}

}  // namespace faultline::correlate
