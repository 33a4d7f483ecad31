#include "report/reasons.hpp"

#include "base/text.hpp"

namespace faultline::report {
namespace {

using Reason = correlate::ConfidenceReason;
using Kind = Reason::Kind;

std::string number(const Reason& reason, std::string_view name) {
  auto value = reason.number(name);
  return value ? std::to_string(*value) : "";
}

std::string rank_of(const Reason& reason) {
  return "rank " + number(reason, "rank");
}

// "ranks 0-3", or "rank(s) 0-3 and processes with no rank" when some reports name none.
std::string reporters(const Reason& reason) {
  std::string ranges = format_ranges(reason.ranks("ranks"));
  return reason.flag("unranked") ? "rank(s) " + ranges + " and processes with no rank" : "ranks " + ranges;
}

std::string other_reporter(const Reason& reason) {
  return reason.has("other_rank") ? "rank " + number(reason, "other_rank") : "a process with no rank";
}

std::string inherited(const Reason& reason) {
  return reason.flag("inherited") ? " (from the timestamps of the lines before the errors)" : "";
}

// "node-4's clock runs 6 s ahead".
std::string clock_phrase(const std::string& host, int64_t offset) {
  return host + "'s clock runs " + std::to_string(offset < 0 ? -offset : offset) + " s " +
         (offset > 0 ? "ahead" : "behind");
}

std::string reported_first_aligned(const Reason& reason) {
  auto where = [&](const char* at, const char* host) {
    std::string text = " at " + reason.text(at);
    if (reason.has(host)) text += " on " + reason.text(host);
    return text;
  };
  std::string skew;
  if (auto offset = reason.number("clock_offset"))
    skew = " (" + clock_phrase(reason.text("host"), *offset) + ")";
  return rank_of(reason) + " reported it first," + where("at", "host") + skew + ", " +
         number(reason, "seconds_before") + " s before " + other_reporter(reason) +
         where("other_at", "other_host") + inherited(reason);
}

std::string clock_skew_mattered(const Reason& reason) {
  std::vector<std::string> skewed;
  std::vector<std::string> hosts = reason.texts("hosts");
  std::vector<int64_t> offsets = reason.numbers("offsets");
  for (size_t i = 0; i < hosts.size() && i < offsets.size(); ++i)
    skewed.push_back(clock_phrase(hosts[i], offsets[i]));
  std::string op = reason.text("op").empty() ? "the collective" : reason.text("op");
  return "clock skew mattered: " + join(skewed, ", ") + " (estimated from the watchdog timeouts of " + op +
         " SeqNum " + number(reason, "seq") + " on " + number(reason, "basis_ranks") + " ranks across " +
         number(reason, "basis_hosts") + " hosts); by the raw timestamps " + other_reporter(reason) +
         " would look first";
}

std::string silent_missing_rank(const Reason& reason) {
  std::string world = reason.has("world_size") ? " of a world of " + number(reason, "world_size") : "";
  return "every rank that logged (" + ranks_phrase(reason.ranks("ranks"), "no rank") + world +
         ") timed out in SeqNum " + number(reason, "seq") + "; " + rank_of(reason) +
         " logged nothing, so it is the suspect: it never reached that collective (weak evidence: its log "
         "may "
         "only be missing)";
}

std::string behind_in_work(const Reason& reason) {
  std::string what = reason.text("counter") == "outstanding_works"
                         ? "had the fewest NCCL works outstanding (workMetaList_.size()"
                         : "enqueued the least NCCL work (last enqueued work";
  std::vector<std::string> values;
  for (int64_t value : reason.numbers("other_work")) values.push_back(std::to_string(value));
  return rank_of(reason) + " " + what + " " + number(reason, "work") + ", against " + join(values, ", ") +
         " on " + ranks_phrase(reason.ranks("other_ranks"), "no rank") +
         "): it is behind, and the others wait for it (weaker than a rank's own error)";
}

std::string root_cause_entry(const Reason& reason) {
  std::string where;
  if (reason.has("local_rank")) where += "local rank " + number(reason, "local_rank");
  if (reason.has("host")) where += (where.empty() ? "on " : " on ") + reason.text("host");
  if (!where.empty()) where = " (" + where + ")";
  return "torchelastic's failure summary names " + rank_of(reason) + where + ", exit code " +
         number(reason, "exit_code") + ", as its Root Cause (first observed failure) (line " +
         number(reason, "line") +
         "): the agent's view, weaker than a rank's own error (it orders failures by the whole-second times "
         "of "
         "their error files)";
}

std::string lost_peer(const Reason& reason) {
  std::vector<int> reporting = reason.ranks("reporters");
  std::string who = reporting.empty() ? "NCCL" : "NCCL on " + ranks_phrase(reporting, "no rank");
  return who + " lost its peer " + reason.text("peer") + " (host " + reason.text("host") +
         ", where the logs show " + ranks_phrase(reason.ranks("peer_ranks"), "no rank") + "), and " +
         rank_of(reason) + " is the only one there " +
         (reason.flag("reported_it") ? "that reported it" : "that reported no error itself");
}

std::string not_signalled(const Reason& reason) {
  std::vector<std::string> pids;
  for (int64_t pid : reason.numbers("pids")) pids.push_back(std::to_string(pid));
  return "the launcher sent its closing signal to pid" + std::string(pids.size() == 1 ? " " : "s ") +
         join(pids, ", ") + " on " + reason.text("host") + " but not to pid " + number(reason, "pid") + ", " +
         rank_of(reason) + " (by its NCCL lines): it had already exited (weak evidence)";
}

std::string engine_rank_line(const Reason& reason) {
  std::string host = reason.has("host") ? " on " + reason.text("host") : "";
  return rank_of(reason) + " by its worker's pid: process " + number(reason, "pid") + host +
         " printed the engine's own rank line, " + rank_of(reason) + " in a world of " +
         number(reason, "world_size") + " (line " + number(reason, "line") +
         "); its lines' prefix names no rank (weaker than a rank prefix)";
}

// A rank clue (correlate/rank_clues.hpp): what the line shows, how that became a global rank,
// and how strong that is.
std::string rank_clue(const Reason& reason) {
  std::string rank = rank_of(reason);
  std::string index = number(reason, "index");
  std::string on_host = reason.has("host") ? " on " + reason.text("host") : "";
  std::string clue = reason.text("clue");
  if (clue == "process") {
    return rank + " by its line's clue: the line is about process " + number(reason, "pid") + on_host +
           ", which the job's table of processes knows as " + rank +
           " (from the logs' own lines for that pid; weaker than a rank prefix)";
  }
  std::string what = clue == "local_rank"     ? "the launcher names local rank " + index + on_host
                     : clue == "error_device" ? "the error names CUDA device " + index + on_host
                                              : "its NCCL line runs on CUDA device [" + index + "]" + on_host;
  std::string mapping = reason.text("mapping");
  std::string how =
      mapping == "one_host"       ? "the logs show one host, where local and global ranks agree"
      : mapping == "device_lines" ? "NCCL lines show " + rank + " on that device"
      : mapping == "host_block"
          ? "that host's ranks are " + format_ranges(reason.ranks("host_ranks")) + ", one block per host"
          : "";
  bool device = clue != "local_rank";
  std::string assumption = device && mapping != "device_lines"
                               ? ", and with one GPU per process the device is the local rank"
                               : "";
  std::string strength = device ? "weak evidence, weaker than a rank prefix" : "weaker than a rank prefix";
  return rank + " by its line's clue: " + what + "; " + how + assumption + " (" + strength + ")";
}

// A field as a fact shows it ("32", "1, 2, 4, 8").
std::string display(const Reason& reason, std::string_view name) {
  const Reason::Field* field = reason.find(name);
  if (!field) return "";
  struct Visitor {
    std::string operator()(bool value) const { return value ? "true" : "false"; }
    std::string operator()(int64_t value) const { return std::to_string(value); }
    std::string operator()(const std::string& value) const { return value; }
    std::string operator()(const std::vector<int64_t>& values) const {
      std::vector<std::string> words;
      for (int64_t value : values) words.push_back(std::to_string(value));
      return join(words, ", ");
    }
    std::string operator()(const std::vector<std::string>& values) const { return join(values, ", "); }
  };
  return std::visit(Visitor{}, *field);
}

// Who reported the failure, and when.
std::string reporter_words(const Reason& reason) {
  switch (reason.kind) {
    case Kind::kNoRankNamed:
      return "no line names the rank that reported it";
    case Kind::kOnlyRankReporting:
      return "only " + rank_of(reason) + " reported it" +
             (reason.flag("unranked_copies") ? " (other copies name no rank)" : "");
    case Kind::kReportedUnordered:
      return reporters(reason) + " all reported it and no timestamps order them";
    case Kind::kReportedSameSecond:
      return reporters(reason) + " all reported it within the same second";
    case Kind::kReportedSameSecondAligned:
      return reporters(reason) +
             " all reported it within a second of each other, once host clocks are aligned";
    case Kind::kEarliestNamesNoRank:
      return "the earliest report names no rank";
    case Kind::kReportedFirst:
      return rank_of(reason) + " reported it first, at " + reason.text("at") + ", before " +
             other_reporter(reason) + " at " + reason.text("other_at") + inherited(reason);
    case Kind::kReportedFirstAligned:
      return reported_first_aligned(reason);
    case Kind::kClockSkewMattered:
      return clock_skew_mattered(reason);
    default:
      return "";
  }
}

// The clues that name a rank when the failure's own lines do not.
std::string clue_words(const Reason& reason) {
  switch (reason.kind) {
    case Kind::kRelayNamesRank:
      return "the error names no rank; the other report of the same cause names only " + rank_of(reason);
    case Kind::kRootCauseEntry:
      return root_cause_entry(reason);
    case Kind::kOnlyRankInLogs:
      return "the error names no rank, and " + rank_of(reason) + " is the only rank in these logs";
    case Kind::kLauncherLocalRank:
      return "the launcher names local rank " + number(reason, "local_rank") +
             ", and the logs show one node at most, where local and global ranks agree";
    case Kind::kOneProcessDevice:
      return "the error names no rank; the one process that reported it (pid " + number(reason, "pid") +
             ") drives CUDA device " + number(reason, "device") +
             " of the one host in these logs, and with one GPU per process that is local rank " +
             number(reason, "device") + ", the global rank on one node";
    case Kind::kLostPeer:
      return lost_peer(reason);
    case Kind::kNotSignalled:
      return not_signalled(reason);
    case Kind::kEngineRankLine:
      return engine_rank_line(reason);
    case Kind::kRankClue:
      return rank_clue(reason);
    case Kind::kVictimSetAside:
      return "but " + rank_of(reason) + " only timed out or was stopped (a victim), while " +
             ranks_phrase(reason.ranks("ranks"), "no rank") +
             " reported errors of their own: no rank is named";
    default:
      return "";
  }
}

std::string words(const Reason& reason) {
  switch (reason.kind) {
    case Kind::kUnrecognisedError:
      return "no rule knows this error; " + reason.text("rule") + " reports it as it stands";
    case Kind::kRootCauseRule:
      return "matched root-cause rule " + reason.text("rule");
    case Kind::kSymptomsOnly:
      return "only symptoms were found (" + reason.text("rule") + "); the cause may be outside these logs";
    case Kind::kOtherRootCauses:
      return number(reason, "count") + " other root-cause finding(s) in the job";
    case Kind::kBaselineSetAside:
      return number(reason, "count") + " report(s) also seen in the baseline run were set aside";
    default:
      return reason.kind <= Kind::kClockSkewMattered ? reporter_words(reason) : clue_words(reason);
    case Kind::kSilentInCollective:
      return "ranks " + format_ranges(reason.ranks("ranks")) + " timed out in SeqNum " +
             number(reason, "seq") + "; " + rank_of(reason) + " did not, so it never reached that collective";
    case Kind::kSilentMissingRank:
      return silent_missing_rank(reason);
    case Kind::kFewestCompleted:
      return rank_of(reason) + " completed the fewest NCCL work items (" + number(reason, "work") +
             "): it fell behind first";
    case Kind::kNeverReachedCollective:
      return rank_of(reason) + " never reached collective SeqNum " + number(reason, "seq") + ", in which " +
             ranks_phrase(reason.ranks("ranks"), "no rank") + " and " + number(reason, "others") +
             " other rank(s) timed out";
    case Kind::kLeastWork:
      return rank_of(reason) + " had " + reason.text("counter") + " the least NCCL work (" +
             number(reason, "work") + ") of the ranks that reported it";
    case Kind::kBehindInWork:
      return behind_in_work(reason);
    case Kind::kOnlyWitnesses:
      return ranks_phrase(reason.ranks("ranks"), "no rank") +
             " only reported that a peer failed: the rank that failed first is not named";
    case Kind::kTracebackFrame:
      return "the traceback's frame" + (reason.has("site") ? " " + reason.text("site") : "") +
             " names what failed";
    case Kind::kJobPrinted:
      return display(reason, "value") + " is the " + reason.text("name") + " the job printed (line " +
             number(reason, "line") + ")";
    case Kind::kMagnitudePrior:
      return "no message or frame named the dimension: it is a prior from the number's size";
  }
  return "";
}

}  // namespace

std::string reason_text(const correlate::ConfidenceReason& reason) {
  // A reason that speaks against the one before it (a watchdog's rank beside the first reporter).
  return (reason.flag("contrary") ? "but " : "") + words(reason);
}

std::string reasons_text(const std::vector<correlate::ConfidenceReason>& reasons) {
  std::vector<std::string> texts;
  for (const auto& reason : reasons) texts.push_back(reason_text(reason));
  return join(texts, "; ");
}

}  // namespace faultline::report
