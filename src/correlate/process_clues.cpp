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
  std::string where;
  if (named->local_rank >= 0) where += "local rank " + std::to_string(named->local_rank);
  if (!named->host.empty()) where += (where.empty() ? "on " : " on ") + named->host;
  if (!where.empty()) where = " (" + where + ")";
  return RankLead{named->rank,
                  "torchelastic's failure summary names rank " + std::to_string(named->rank) + where +
                      ", exit code " + std::to_string(named->exitcode) +
                      ", as its Root Cause (first observed failure) (line " + std::to_string(named->line) +
                      "): the agent's view, weaker than a rank's own error (it orders failures by "
                      "the whole-second times of their error files)"};
}

std::optional<RankLead> behind_in_work(const std::vector<const Finding*>& findings,
                                       const std::vector<int>& candidates) {
  struct Counter {
    const char* fact;
    const char* what;
  };
  for (Counter counter :
       {Counter{"last_enqueued", "enqueued the least NCCL work (last enqueued work"},
        Counter{"outstanding_works", "had the fewest NCCL works outstanding (workMetaList_.size()"}}) {
    auto lowest = lowest_by_rank(findings, counter.fact, candidates);
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
    std::string values;
    for (int64_t value : other_values) values += (values.empty() ? "" : ", ") + std::to_string(value);
    return RankLead{least->first, "rank " + std::to_string(least->first) + " " + counter.what + " " +
                                      std::to_string(least->second) + ", against " + values + " on " +
                                      ranks_phrase(others, "no rank") +
                                      "): it is behind, and the others wait for it (weaker than a rank's own "
                                      "error)"};
  }
  return std::nullopt;
}

std::optional<std::string> engine_rank_reason(int rank, const std::vector<const Finding*>& members,
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
  std::string host = taught->host.empty() ? "" : " on " + taught->host;
  return "rank " + std::to_string(rank) + " by its worker's pid: process " + std::to_string(pid) + host +
         " printed the engine's own rank line, rank " + std::to_string(rank) + " in a world of " +
         std::to_string(taught->communicator_size) + " (line " + std::to_string(taught->rank_line) +
         "); its lines' prefix names no rank (weaker than a rank prefix)";
}

}  // namespace faultline::correlate
