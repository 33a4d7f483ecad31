// Clock skew between the hosts of one job, for correlate: each host's clock offset, estimated
// from an event every host shares, so that times printed on different hosts can be compared.
//
// The shared event is one collective's watchdog timeout: every rank that waited in collective
// SeqNum N started waiting at about the same instant and prints the timeout `ran for` ms later,
// so (line time - ran for) is the same instant on every host, up to its clock's offset. c10
// headers have no year and a monotonic fraction, so only whole seconds are used; offsets are
// good to about a second. Pure: no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/timestamp.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

struct HostOffsets {
  // Host -> seconds its clock runs ahead of the job's median host (negative: behind). Only
  // hosts whose offset could be measured are listed.
  std::map<std::string, double> seconds;
  std::string basis;  // what the estimate rests on, e.g. "the watchdog timeouts of ALLREDUCE SeqNum 1580"

  bool empty() const { return seconds.empty(); }
  // 0 for a host whose offset is unknown.
  double of(const std::string& host) const;
  // A finding's time on the job's common clock, in seconds of the year; nothing when the
  // finding has no time.
  std::optional<double> corrected(const rules::Finding& finding) const;
  // How a host's clock differs, in words ("node-4's clock runs 6 s ahead"); empty under 1 s.
  std::string describe(const std::string& host) const;
};

// Estimates offsets from the findings of one job. Empty when fewer than two hosts share a
// collective's timeout, or when no host is a second or more off.
HostOffsets estimate_host_offsets(const std::vector<rules::Finding>& findings);

}  // namespace faultline::correlate
