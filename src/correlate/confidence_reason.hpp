// What a diagnosis' confidence rests on, as data: a kind and its named fields, in the order the
// JSON writes them. Correlate makes them; report/reasons.hpp says each in words ("only rank 3
// reported it"), and the JSON carries those words beside the fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace faultline::correlate {

struct ConfidenceReason {
  enum class Kind {
    // Which rule the diagnosis rests on (field `rule`).
    kUnrecognisedError,  // no rule knows the error; the catch-all reports it as it stands
    kRootCauseRule,      // a root-cause rule matched
    kSymptomsOnly,       // only symptoms were found
    kOtherRootCauses,    // `count` other root-cause findings in the job
    kBaselineSetAside,   // `count` reports also seen in the baseline run were set aside
    // Who started it, from the reports of the diagnosis' own failure.
    kNoRankNamed,                // no line names the rank that reported it
    kOnlyRankReporting,          // `rank` alone reported it (`unranked_copies`: other copies name none)
    kReportedUnordered,          // `ranks` (and `unranked` processes) reported it, no timestamps order them
    kReportedSameSecond,         // … within the same second
    kReportedSameSecondAligned,  // … within a second of each other once host clocks are aligned
    kEarliestNamesNoRank,        // the earliest report names no rank
    kReportedFirst,              // `rank` at `at`, before `other_rank` (absent: no rank) at `other_at`
    kReportedFirstAligned,       // the same on the common clock: hosts, `clock_offset`, `seconds_before`
    kClockSkewMattered,  // the raw timestamps would put `other_rank` first (`hosts`, `offsets`, basis)
    // Collective timeouts and NCCL work counters.
    kSilentInCollective,  // `ranks` timed out in SeqNum `seq`; `rank` did not
    kSilentMissingRank,   // every rank that logged (`ranks`, `world_size`) timed out; `rank` logged nothing
    kFewestCompleted,     // `rank` completed the fewest NCCL work items (`work`)
    kNeverReachedCollective,  // `rank` never reached SeqNum `seq`, in which `ranks` and `others` timed out
    kLeastWork,               // `rank` had `counter` the least NCCL work (`work`) of the reporting ranks
    kBehindInWork,            // `rank`'s `counter` is `work`, against `other_work` on `other_ranks`
    kOnlyWitnesses,           // `ranks` only reported that a peer failed; that peer is not named
    // Clues when the failure's own lines name no rank.
    kRelayNamesRank,     // the other report of the same cause names only `rank`
    kRootCauseEntry,     // torchelastic's Root Cause entry names `rank`
    kOnlyRankInLogs,     // `rank` is the only rank in these logs
    kLauncherLocalRank,  // the launcher's `local_rank`, on one node at most
    kOneProcessDevice,   // the one process `pid` drives CUDA `device` of the one host
    kLostPeer,           // NCCL on `reporters` lost `peer` on `host`, where `rank` alone fits
    kNotSignalled,       // the launcher signalled `pids` but not `pid` (`rank`)
    kEngineRankLine,     // `pid` printed the engine's own rank line (`line`)
    kRankClue,           // a line's clue (`clue`, `mapping`) names `rank` (rank_clues.hpp)
    kVictimSetAside,     // `rank` only timed out or was stopped while `ranks` had errors of their own
    // What the failing dimension rests on (layout causes).
    kTracebackFrame,  // the traceback's frame (`site`) names what failed
    kJobPrinted,      // `value` is the `name` the job printed (`line`)
    kMagnitudePrior,  // no message or frame named the dimension: a prior from the number's size
  };
  using Field = std::variant<bool, int64_t, std::string, std::vector<int64_t>, std::vector<std::string>>;

  Kind kind = Kind::kNoRankNamed;
  std::vector<std::pair<std::string, Field>> fields;

  explicit ConfidenceReason(Kind of) : kind(of) {}

  // Builders: reason.set("rank", 3).set("ranks", ranks). A field set twice keeps the last value.
  ConfidenceReason& set(std::string name, bool value) { return put(std::move(name), Field(value)); }
  ConfidenceReason& set(std::string name, int64_t value) { return put(std::move(name), Field(value)); }
  ConfidenceReason& set(std::string name, int value) { return set(std::move(name), int64_t{value}); }
  ConfidenceReason& set(std::string name, size_t value) {
    return set(std::move(name), static_cast<int64_t>(value));
  }
  ConfidenceReason& set(std::string name, std::string value) {
    return put(std::move(name), Field(std::move(value)));
  }
  ConfidenceReason& set(std::string name, const char* value) {
    return set(std::move(name), std::string(value));
  }
  ConfidenceReason& set(std::string name, std::vector<int64_t> values) {
    return put(std::move(name), Field(std::move(values)));
  }
  ConfidenceReason& set(std::string name, const std::vector<int>& ranks);
  ConfidenceReason& set(std::string name, Field value) { return put(std::move(name), std::move(value)); }
  ConfidenceReason& set(std::string name, std::vector<std::string> values) {
    return put(std::move(name), Field(std::move(values)));
  }

  const Field* find(std::string_view name) const;
  bool has(std::string_view name) const { return find(name) != nullptr; }
  // The field as its type; nothing, false or empty when it is missing or of another type.
  std::optional<int64_t> number(std::string_view name) const;
  bool flag(std::string_view name) const;
  std::string text(std::string_view name) const;
  std::vector<int> ranks(std::string_view name) const;
  std::vector<int64_t> numbers(std::string_view name) const;
  std::vector<std::string> texts(std::string_view name) const;

  bool operator==(const ConfidenceReason&) const = default;

 private:
  ConfidenceReason& put(std::string name, Field value);
};

// "only_rank_reporting": the kind as the JSON names it.
const char* to_string(ConfidenceReason::Kind kind);

}  // namespace faultline::correlate
