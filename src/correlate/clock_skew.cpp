#include "correlate/clock_skew.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace faultline::correlate {
namespace {

std::optional<std::string> string_fact(const Facts& facts, std::string_view name) {
  const Value* value = find_fact(facts, name);
  if (!value || !std::holds_alternative<std::string>(*value)) return std::nullopt;
  return std::get<std::string>(*value);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// One rank's start of a collective, on its host's clock: the timeout line's whole second less
// the time it waited.
struct Start {
  std::string host;
  int rank = -1;
  double seconds = 0;
};

}  // namespace

double HostOffsets::of(const std::string& host) const {
  auto it = seconds.find(host);
  return it == seconds.end() ? 0.0 : it->second;
}

std::optional<double> HostOffsets::corrected(const rules::Finding& finding) const {
  if (!finding.time.valid) return std::nullopt;
  return static_cast<double>(finding.time.seconds_in_year()) - of(finding.host);
}

std::optional<int64_t> HostOffsets::whole_offset(const std::string& host) const {
  double offset = of(host);
  if (std::fabs(offset) < 1.0) return std::nullopt;
  auto whole = static_cast<int64_t>(std::llround(std::fabs(offset)));
  return offset > 0 ? whole : -whole;
}

HostOffsets estimate_host_offsets(const std::vector<rules::Finding>& findings) {
  // Collectives that timed out, keyed by (SeqNum, OpType): each rank's first report.
  std::map<std::pair<int64_t, std::string>, std::vector<Start>> collectives;
  for (const auto& finding : findings) {
    if (!finding.time.valid || finding.host.empty() || finding.rank < 0) continue;
    auto seq_num = int_fact(finding.facts, "seq_num");
    auto ran_for = int_fact(finding.facts, "ran_for_ms");
    auto timeout = int_fact(finding.facts, "timeout_ms");
    if (!seq_num || !ran_for || !timeout) continue;
    // A `ran for` far above the timeout means the watchdog itself stalled: no timing signal.
    if (*ran_for > *timeout + *timeout / 2) continue;
    auto& starts = collectives[{*seq_num, string_fact(finding.facts, "op").value_or("")}];
    bool seen =
        std::any_of(starts.begin(), starts.end(), [&](const Start& s) { return s.rank == finding.rank; });
    if (seen) continue;
    starts.push_back(
        {finding.host, finding.rank,
         static_cast<double>(finding.time.seconds_in_year()) - static_cast<double>(*ran_for) / 1000.0});
  }
  // The collective seen on the most hosts.
  const std::pair<int64_t, std::string>* best_key = nullptr;
  size_t best_hosts = 0, best_ranks = 0;
  for (const auto& [key, starts] : collectives) {
    std::set<std::string> hosts;
    for (const auto& start : starts) hosts.insert(start.host);
    if (hosts.size() > best_hosts || (hosts.size() == best_hosts && starts.size() > best_ranks)) {
      best_key = &key;
      best_hosts = hosts.size();
      best_ranks = starts.size();
    }
  }
  HostOffsets offsets;
  if (!best_key || best_hosts < 2) return offsets;
  std::map<std::string, std::vector<double>> by_host;
  for (const auto& start : collectives[*best_key]) by_host[start.host].push_back(start.seconds);
  std::map<std::string, double> host_start;
  std::vector<double> medians;
  for (auto& [host, starts] : by_host) {
    host_start[host] = median(starts);
    medians.push_back(host_start[host]);
  }
  double reference = median(medians);
  bool any_off = false;
  for (const auto& [host, start] : host_start) {
    offsets.seconds[host] = start - reference;
    any_off = any_off || std::fabs(start - reference) >= 1.0;
  }
  if (!any_off) return {};
  offsets.basis = {best_key->second, best_key->first, best_ranks, best_hosts};
  return offsets;
}

}  // namespace faultline::correlate
