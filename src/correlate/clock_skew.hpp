// Clock skew between the hosts of one job, for correlate: each host's clock offset, estimated
// from an event every host shares, so that times printed on different hosts can be compared.
//
// The shared event is one collective's watchdog timeout: every rank that waited in collective
// SeqNum N started waiting at about the same instant and prints the timeout `ran for` ms later,
// so (line time - ran for) is the same instant on every host, up to its clock's offset. c10
// headers have no year and a monotonic fraction, so only whole seconds are used; offsets are
// good to about a second. Pure: no I/O.
#pragma once

#include <cstdint>
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
  // What the estimate rests on: the watchdog timeouts of collective `op` SeqNum `seq` (op empty
  // when the lines do not name it), on `ranks` ranks across `hosts` hosts.
  struct Basis {
    std::string op;
    int64_t seq = 0;
    size_t ranks = 0;
    size_t hosts = 0;
    bool operator==(const Basis&) const = default;
  };
  Basis basis;

  bool empty() const { return seconds.empty(); }
  // 0 for a host whose offset is unknown.
  double of(const std::string& host) const;
  // A finding's time on the job's common clock, in seconds of the year; nothing when the
  // finding has no time.
  std::optional<double> corrected(const rules::Finding& finding) const;
  // Whole seconds a host's clock runs ahead (negative: behind); nothing under 1 s, or when the
  // host's offset is unknown.
  std::optional<int64_t> whole_offset(const std::string& host) const;
};

// Estimates offsets from the findings of one job. Empty when fewer than two hosts share a
// collective's timeout, or when no host is a second or more off.
HostOffsets estimate_host_offsets(const std::vector<rules::Finding>& findings);

}  // namespace faultline::correlate
