#include "correlate/rank_fallbacks.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include "correlate/peers.hpp"
#include "correlate/process_clues.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;
using rules::Role;
using Reason = ConfidenceReason;
using Kind = ConfidenceReason::Kind;

// The reason that said no line names the rank gives way to the one that names it now; the
// reasons after it (other root-cause findings) stay.
void replace_no_rank_reason(Diagnosis& diagnosis, Reason reason) {
  auto it = std::find_if(diagnosis.reasons.begin(), diagnosis.reasons.end(),
                         [](const Reason& held) { return held.kind == Kind::kNoRankNamed; });
  if (it != diagnosis.reasons.end())
    *it = std::move(reason);
  else
    diagnosis.reasons.push_back(std::move(reason));
}

// A layout error (tp., pp.): every rank computes the same shapes and fails alike, so which rank
// a launcher or an agent saw first says nothing of who started it.
bool layout_error(const FindingGroup& chosen) {
  return chosen.rule->cause.starts_with("tp.") || chosen.rule->cause.starts_with("pp.");
}

// The same failure often appears twice: a bare error line that names no rank, and a relay of it
// (a watchdog, a launcher) that does. One rank named by the relays is it.
void name_rank_from_relay(Diagnosis& diagnosis, const FindingGroup& chosen,
                          const std::vector<FindingGroup>& candidates) {
  std::set<int> named;
  for (const auto& group : candidates) {
    if (&group != &chosen && group.rule->cause == chosen.rule->cause)
      named.insert(group.ranks.begin(), group.ranks.end());
  }
  if (named.size() != 1) return;
  diagnosis.initiating_rank = *named.begin();
  replace_no_rank_reason(diagnosis, Reason(Kind::kRelayNamesRank).set("rank", *named.begin()));
  diagnosis.confidence = std::min(1.0, diagnosis.confidence + 0.05);
}

// The launcher's Root Cause entry, when the error's own lines name no rank (among ranks that all
// report the same error, the agent's order is the order in which it polled them), or when only
// symptoms were found. Not for a layout error (tp., pp.): every rank computes the same shapes and
// fails alike, and which one the agent saw first is a race.
void name_rank_from_root_cause_entry(Diagnosis& diagnosis, const FindingGroup& chosen,
                                     const job::ProcessTable& processes) {
  if (layout_error(chosen) || (!chosen.ranks.empty() && chosen.rule->role != Role::kSymptom)) return;
  if (auto lead = root_cause_entry(processes, {})) {
    diagnosis.initiating_rank = lead->rank;
    diagnosis.reasons.push_back(lead->reason);
  }
}

// Last resorts when the failure's lines name no rank: a job whose logs show one rank only,
// or a launcher's local rank on a job with no more than one host (local is global there), or
// the one CUDA device of the one process that reported it, on one host (torchrun and most
// launchers give each process the device of its local rank). Each says what it rests on; none
// adds to the confidence.
void name_rank_from_job(Diagnosis& diagnosis, const FindingGroup& chosen,
                        const std::vector<const Finding*>& members, const JobShape& shape,
                        const std::vector<const Finding*>& symptoms) {
  if (!chosen.ranks.empty()) return;
  // The one rank in the logs is no clue when all it reported was a peer's failure (a watchdog
  // timeout) and the job had other ranks (its number says so, or the world size): a witness is
  // not the rank that failed. A lone rank 0 may be the job's one process.
  int only = shape.ranks_seen.size() == 1 ? shape.ranks_seen.front() : -1;
  bool others = only > 0 || int_fact(diagnosis.facts, "world_size").value_or(1) > 1;
  bool peer = false, own = false;  // what that rank's symptoms report
  for (const Finding* f : symptoms) {
    if (f->rank == only) (f->rule->reports_peer ? peer : own) = true;
  }
  bool witness = only >= 0 && others && peer && !own;
  if (only >= 0 && !witness) {
    diagnosis.initiating_rank = shape.ranks_seen.front();
    replace_no_rank_reason(diagnosis, Reason(Kind::kOnlyRankInLogs).set("rank", shape.ranks_seen.front()));
    return;
  }
  auto local_rank = int_fact(chosen.facts, "local_rank");
  // A root cause whose lines name no process: the one local rank the launcher says failed
  // (torchrun's "failed (exitcode: 1) local_rank: 0") is the process that printed it. Not for a
  // layout error, which every rank hits alike, nor on a job that says it spans several nodes.
  bool several_nodes = int_fact(diagnosis.facts, "nnodes").value_or(1) > 1;
  if (!local_rank && chosen.rule->role == Role::kRootCause && !layout_error(chosen) && !several_nodes) {
    std::set<int64_t> failed;
    for (const Finding* f : symptoms) {
      if (f->rule->reports_peer) continue;
      if (auto named = int_fact(f->facts, "local_rank")) failed.insert(*named);
    }
    if (failed.size() == 1) local_rank = *failed.begin();
  }
  if (local_rank && shape.hosts.size() <= 1 && shape.ranks_seen.empty()) {
    diagnosis.initiating_rank = static_cast<int>(*local_rank);
    replace_no_rank_reason(diagnosis, Reason(Kind::kLauncherLocalRank).set("local_rank", *local_rank));
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
  replace_no_rank_reason(
      diagnosis, Reason(Kind::kOneProcessDevice).set("pid", *pids.begin()).set("device", *devices.begin()));
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

}  // namespace

void name_rank_otherwise(Diagnosis& diagnosis, const FindingGroup& chosen,
                         const std::vector<FindingGroup>& candidates,
                         const std::vector<const Finding*>& members, const std::vector<Finding>& findings,
                         JobShape& shape, const std::map<uint64_t, RankClue>& clues, const Tiers& tiers) {
  bool rank_from_group = diagnosis.initiating_rank.has_value();
  if (!diagnosis.initiating_rank && chosen.ranks.empty()) name_rank_from_relay(diagnosis, chosen, candidates);
  if (!diagnosis.initiating_rank) name_rank_from_root_cause_entry(diagnosis, chosen, shape.processes);
  if (!diagnosis.initiating_rank) {
    observe_findings(shape.processes, findings);
    name_rank_from_peers(diagnosis, chosen, peers_named(findings, shape.processes), tiers.symptoms);
  }
  if (!diagnosis.initiating_rank) name_rank_from_job(diagnosis, chosen, members, shape, tiers.symptoms);
  if (!diagnosis.initiating_rank)
    name_rank_from_closing_signals(diagnosis, chosen, findings, shape.processes);
  set_victim_aside(diagnosis, tiers.roots, tiers.symptoms);
  note_rank_clue(diagnosis, members, clues, rank_from_group);
  if (auto rank = diagnosis.initiating_rank) {
    if (auto reason = engine_rank_reason(*rank, members, shape.processes))
      diagnosis.reasons.push_back(std::move(*reason));
  }
}

}  // namespace faultline::correlate
