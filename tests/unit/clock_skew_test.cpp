// Host clock offsets from a collective's watchdog timeouts (src/correlate/clock_skew): which
// collective is used, which lines are left out, the median host as the reference, and the
// corrected times and whole-second offsets that correlate reads.
#include "correlate/clock_skew.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using faultline::make_timestamp;
using faultline::Timestamp;
using faultline::Value;
using faultline::correlate::estimate_host_offsets;
using faultline::correlate::HostOffsets;
using faultline::rules::Finding;

namespace {

Timestamp at(int second) {
  return make_timestamp(2026, 11, 29, 10, 22, second, 0);
}

// Rank `rank` on `host` printed at `second` that collective `op` SeqNum `seq` ran for `ran_for_ms`
// against a 600000 ms timeout.
Finding timed_out(int rank, const std::string& host, int second, int64_t seq = 1580,
                  const std::string& op = "ALLREDUCE", int64_t ran_for_ms = 600000) {
  Finding finding;
  finding.rank = rank;
  finding.host = host;
  finding.time = at(second);
  finding.facts = {{"seq_num", Value(seq)},
                   {"op", Value(op)},
                   {"timeout_ms", Value(int64_t{600000})},
                   {"ran_for_ms", Value(ran_for_ms)}};
  return finding;
}

}  // namespace

TEST_CASE("clock skew: the reference is the median host, and each host's offset is against it") {
  // node-c prints 4 s after node-a, node-b 2 s after: node-b is the median.
  auto offsets = estimate_host_offsets(
      {timed_out(0, "node-a", 10), timed_out(1, "node-b", 12), timed_out(2, "node-c", 14)});
  REQUIRE_FALSE(offsets.empty());
  CHECK(offsets.of("node-a") == doctest::Approx(-2));
  CHECK(offsets.of("node-b") == doctest::Approx(0));
  CHECK(offsets.of("node-c") == doctest::Approx(2));
  CHECK(offsets.whole_offset("node-a") == std::optional<int64_t>(-2));
  CHECK(offsets.whole_offset("node-c") == std::optional<int64_t>(2));
  CHECK_FALSE(offsets.whole_offset("node-b").has_value());
  CHECK(offsets.basis == HostOffsets::Basis{"ALLREDUCE", 1580, 3, 3});
}

TEST_CASE("clock skew: ran-for is taken off each line's time, so ranks that waited longer agree") {
  // Same clock on both hosts: rank 1 printed 3 s later because its watchdog fired 3 s later.
  auto offsets = estimate_host_offsets({timed_out(0, "node-a", 10, 7, "BROADCAST", 600000),
                                        timed_out(1, "node-b", 13, 7, "BROADCAST", 603000)});
  CHECK(offsets.empty());
}

TEST_CASE("clock skew: a watchdog that stalled (ran for over 1.5 × the timeout) gives no timing") {
  std::vector<Finding> findings = {timed_out(0, "node-a", 10),
                                   timed_out(1, "node-b", 40, 1580, "ALLREDUCE", 1000000)};
  CHECK(estimate_host_offsets(findings).empty());  // only one host left: nothing to compare
}

TEST_CASE("clock skew: lines without a time, a host, a rank or the timeout facts are left out") {
  Finding no_time = timed_out(1, "node-b", 20);
  no_time.time = Timestamp{};
  Finding no_host = timed_out(2, "", 20);
  Finding no_rank = timed_out(-1, "node-c", 20);
  Finding no_facts = timed_out(3, "node-d", 20);
  no_facts.facts.pop_back();  // no ran_for_ms
  CHECK(estimate_host_offsets({timed_out(0, "node-a", 10), no_time, no_host, no_rank, no_facts}).empty());
}

TEST_CASE("clock skew: the collective seen on the most hosts is used, then the one with the most ranks") {
  std::vector<Finding> findings = {
      // SeqNum 5 on two hosts, 3 s apart.
      timed_out(0, "node-a", 10, 5), timed_out(1, "node-b", 13, 5),
      // SeqNum 9 on three hosts: node-c is 6 s ahead of the others.
      timed_out(2, "node-a", 30, 9), timed_out(3, "node-b", 30, 9), timed_out(4, "node-c", 36, 9),
      // SeqNum 9 of another op is another collective.
      timed_out(5, "node-a", 50, 9, "BROADCAST"), timed_out(6, "node-b", 59, 9, "BROADCAST")};
  auto offsets = estimate_host_offsets(findings);
  REQUIRE_FALSE(offsets.empty());
  CHECK(offsets.basis == HostOffsets::Basis{"ALLREDUCE", 9, 3, 3});
  CHECK(offsets.of("node-c") == doctest::Approx(6));
  CHECK(offsets.of("node-b") == doctest::Approx(0));
}

TEST_CASE("clock skew: a rank's first report of a collective counts, not its repeats") {
  // Rank 1 repeats its timeout 20 s later; counted, it would move node-b's median.
  auto offsets = estimate_host_offsets({timed_out(0, "node-a", 10), timed_out(1, "node-b", 15),
                                        timed_out(1, "node-b", 35), timed_out(2, "node-b", 15)});
  REQUIRE_FALSE(offsets.empty());
  CHECK(offsets.of("node-b") - offsets.of("node-a") == doctest::Approx(5));
  CHECK(offsets.basis.ranks == 3);
}

TEST_CASE("clock skew: corrected times are on the common clock; unknown hosts are not moved") {
  auto offsets = estimate_host_offsets({timed_out(0, "node-a", 10), timed_out(1, "node-b", 15)});
  REQUIRE_FALSE(offsets.empty());
  Finding failure;
  failure.host = "node-b";
  failure.time = at(30);
  Finding elsewhere = failure;
  elsewhere.host = "node-z";
  double shift = offsets.of("node-b");
  CHECK(shift != doctest::Approx(0));
  CHECK(offsets.corrected(failure) == doctest::Approx(static_cast<double>(at(30).seconds_in_year()) - shift));
  CHECK(offsets.corrected(elsewhere) == doctest::Approx(static_cast<double>(at(30).seconds_in_year())));
  CHECK(offsets.of("node-z") == 0.0);
  CHECK_FALSE(offsets.whole_offset("node-z").has_value());
  Finding untimed;
  untimed.host = "node-b";
  CHECK_FALSE(offsets.corrected(untimed).has_value());
}
