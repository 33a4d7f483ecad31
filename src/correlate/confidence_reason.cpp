#include "correlate/confidence_reason.hpp"

#include <algorithm>

namespace faultline::correlate {

ConfidenceReason& ConfidenceReason::put(std::string name, Field value) {
  auto it =
      std::find_if(fields.begin(), fields.end(), [&](const auto& field) { return field.first == name; });
  if (it != fields.end())
    it->second = std::move(value);
  else
    fields.emplace_back(std::move(name), std::move(value));
  return *this;
}

ConfidenceReason& ConfidenceReason::set(std::string name, const std::vector<int>& ranks) {
  return put(std::move(name), Field(std::vector<int64_t>(ranks.begin(), ranks.end())));
}

const ConfidenceReason::Field* ConfidenceReason::find(std::string_view name) const {
  for (const auto& [key, value] : fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::optional<int64_t> ConfidenceReason::number(std::string_view name) const {
  const Field* field = find(name);
  if (!field || !std::holds_alternative<int64_t>(*field)) return std::nullopt;
  return std::get<int64_t>(*field);
}

bool ConfidenceReason::flag(std::string_view name) const {
  const Field* field = find(name);
  return field && std::holds_alternative<bool>(*field) && std::get<bool>(*field);
}

std::string ConfidenceReason::text(std::string_view name) const {
  const Field* field = find(name);
  return field && std::holds_alternative<std::string>(*field) ? std::get<std::string>(*field) : "";
}

std::vector<int64_t> ConfidenceReason::numbers(std::string_view name) const {
  const Field* field = find(name);
  return field && std::holds_alternative<std::vector<int64_t>>(*field)
             ? std::get<std::vector<int64_t>>(*field)
             : std::vector<int64_t>{};
}

std::vector<int> ConfidenceReason::ranks(std::string_view name) const {
  std::vector<int> out;
  for (int64_t value : numbers(name)) out.push_back(static_cast<int>(value));
  return out;
}

std::vector<std::string> ConfidenceReason::texts(std::string_view name) const {
  const Field* field = find(name);
  return field && std::holds_alternative<std::vector<std::string>>(*field)
             ? std::get<std::vector<std::string>>(*field)
             : std::vector<std::string>{};
}

const char* to_string(ConfidenceReason::Kind kind) {
  using Kind = ConfidenceReason::Kind;
  switch (kind) {
    case Kind::kUnrecognisedError:
      return "unrecognised_error";
    case Kind::kRootCauseRule:
      return "root_cause_rule";
    case Kind::kSymptomsOnly:
      return "symptoms_only";
    case Kind::kOtherRootCauses:
      return "other_root_causes";
    case Kind::kBaselineSetAside:
      return "baseline_set_aside";
    case Kind::kNoRankNamed:
      return "no_rank_named";
    case Kind::kOnlyRankReporting:
      return "only_rank_reporting";
    case Kind::kReportedUnordered:
      return "reported_unordered";
    case Kind::kReportedSameSecond:
      return "reported_same_second";
    case Kind::kReportedSameSecondAligned:
      return "reported_same_second_aligned";
    case Kind::kEarliestNamesNoRank:
      return "earliest_names_no_rank";
    case Kind::kReportedFirst:
      return "reported_first";
    case Kind::kReportedFirstAligned:
      return "reported_first_aligned";
    case Kind::kClockSkewMattered:
      return "clock_skew_mattered";
    case Kind::kSilentInCollective:
      return "silent_in_collective";
    case Kind::kSilentMissingRank:
      return "silent_missing_rank";
    case Kind::kFewestCompleted:
      return "fewest_completed";
    case Kind::kOnlyWitnesses:
      return "only_witnesses";
    case Kind::kNeverReachedCollective:
      return "never_reached_collective";
    case Kind::kLeastWork:
      return "least_work";
    case Kind::kBehindInWork:
      return "behind_in_work";
    case Kind::kRelayNamesRank:
      return "relay_names_rank";
    case Kind::kRootCauseEntry:
      return "root_cause_entry";
    case Kind::kOnlyRankInLogs:
      return "only_rank_in_logs";
    case Kind::kLauncherLocalRank:
      return "launcher_local_rank";
    case Kind::kOneProcessDevice:
      return "one_process_device";
    case Kind::kLostPeer:
      return "lost_peer";
    case Kind::kNotSignalled:
      return "not_signalled";
    case Kind::kEngineRankLine:
      return "engine_rank_line";
    case Kind::kRankClue:
      return "rank_clue";
    case Kind::kVictimSetAside:
      return "victim_set_aside";
    case Kind::kTracebackFrame:
      return "traceback_frame";
    case Kind::kJobPrinted:
      return "job_printed";
    case Kind::kMagnitudePrior:
      return "magnitude_prior";
  }
  return "unknown";
}

}  // namespace faultline::correlate
