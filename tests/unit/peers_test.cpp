// NCCL peers and the launcher's closing signals (src/correlate/peers): the peers symptom lines
// blame, resolved through the job's table to a host and its ranks; the one worker a launcher did
// not signal; and what findings add to the table.
#include "correlate/peers.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using faultline::Value;
using faultline::correlate::observe_findings;
using faultline::correlate::peers_named;
using faultline::correlate::process_not_signalled;
using faultline::job::ProcessTable;
using faultline::rules::Finding;
using faultline::rules::Role;
using faultline::rules::Rule;

namespace {

const Rule& rule_of(Role role) {
  static const Rule symptom = [] {
    Rule rule;
    rule.id = "nccl.remote_rank_failed.test";
    rule.role = Role::kSymptom;
    return rule;
  }();
  static const Rule root = [] {
    Rule rule;
    rule.id = "cuda.oom.test";
    rule.role = Role::kRootCause;
    return rule;
  }();
  return role == Role::kSymptom ? symptom : root;
}

// A finding of `rank` on `host` whose line blames `peer` (fact `fact`: peer_host or peer_ip).
Finding blaming(int rank, const std::string& host, const std::string& fact, const std::string& peer,
                Role role = Role::kSymptom) {
  Finding finding;
  finding.rule = &rule_of(role);
  finding.rank = rank;
  finding.host = host;
  finding.facts = {{fact, Value(peer)}};
  return finding;
}

// torchelastic's "Sending process <pid> closing signal <signal>", as a finding on `host`.
Finding closing_signal(const std::string& host, int64_t pid, const std::string& signal = "SIGTERM") {
  Finding finding;
  finding.rule = &rule_of(Role::kSymptom);
  finding.host = host;
  finding.facts = {{"pid", Value(pid)}, {"signal_name", Value(signal)}};
  return finding;
}

// Two hosts of four ranks each; node-b's NCCL INFO line names its address.
ProcessTable two_hosts() {
  ProcessTable table;
  for (int rank = 0; rank < 8; ++rank) table.observe(rank < 4 ? "node-a" : "node-b", rank, "");
  table.observe("node-b", 4, "node-b:31842:31900 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.5<0>");
  return table;
}

}  // namespace

TEST_CASE("peers: a peer named by address resolves to the host that uses it, with its ranks") {
  ProcessTable table = two_hosts();
  REQUIRE(table.host_of("10.0.0.5") == "node-b");
  auto peers = peers_named({blaming(1, "node-a", "peer_ip", "10.0.0.5")}, table);
  REQUIRE(peers.size() == 1);
  CHECK(peers[0].peer == "10.0.0.5");
  CHECK(peers[0].host == "node-b");
  CHECK(peers[0].ranks == std::vector<int>{4, 5, 6, 7});
  CHECK(peers[0].reporters == std::vector<int>{1});
}

TEST_CASE("peers: one host named by name and by address is one peer; reporters sorted, each once") {
  ProcessTable table = two_hosts();
  auto peers =
      peers_named({blaming(3, "node-a", "peer_host", "node-b"), blaming(1, "node-a", "peer_ip", "10.0.0.5"),
                   blaming(3, "node-a", "peer_host", "Node-B.cluster.local"),
                   blaming(-1, "node-a", "peer_host", "node-b")},  // a line with no rank adds no reporter
                  table);
  REQUIRE(peers.size() == 1);
  CHECK(peers[0].peer == "node-b");  // as the first line printed it
  CHECK(peers[0].reporters == std::vector<int>{1, 3});
}

TEST_CASE("peers: the peer most ranks blame comes first; peer_host is preferred over peer_ip") {
  ProcessTable table = two_hosts();
  Finding both = blaming(6, "node-b", "peer_host", "node-a");
  both.facts.push_back({"peer_ip", Value(std::string("10.0.0.5"))});
  auto peers = peers_named(
      {blaming(0, "node-a", "peer_ip", "10.0.0.5"), both, blaming(7, "node-b", "peer_host", "node-a")},
      table);
  REQUIRE(peers.size() == 2);
  CHECK(peers[0].host == "node-a");
  CHECK(peers[0].reporters == std::vector<int>{6, 7});
  CHECK(peers[0].ranks == std::vector<int>{0, 1, 2, 3});
  CHECK(peers[1].host == "node-b");
  CHECK(peers[1].reporters == std::vector<int>{0});
}

TEST_CASE("peers: root causes, empty and non-string peer facts, and unknown hosts") {
  ProcessTable table = two_hosts();
  Finding numeric = blaming(2, "node-a", "peer_ip", "");
  numeric.facts = {{"peer_ip", Value(int64_t{5})}};
  CHECK(peers_named({blaming(2, "node-a", "peer_host", "node-b", Role::kRootCause),
                     blaming(2, "node-a", "peer_host", ""), numeric},
                    table)
            .empty());
  auto unknown = peers_named({blaming(2, "node-a", "peer_host", "node-z")}, table);
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].host == "node-z");
  CHECK(unknown[0].ranks.empty());
}

TEST_CASE("closing signals: the one known worker on the host that was not signalled ended first") {
  ProcessTable table;
  for (int rank = 0; rank < 4; ++rank) table.observe_process("gpu-node-07", 140281 + rank, rank);
  std::vector<Finding> findings = {closing_signal("gpu-node-07", 140281),
                                   closing_signal("gpu-node-07", 140282),
                                   closing_signal("gpu-node-07", 140284)};
  auto process = process_not_signalled(findings, table);
  REQUIRE(process.has_value());
  CHECK(process->process.pid == 140283);
  CHECK(process->process.rank == 2);
  CHECK(process->signalled == std::vector<int64_t>{140281, 140282, 140284});
}

TEST_CASE("closing signals: other signals, no signal, and two unsignalled workers name no process") {
  ProcessTable table;
  for (int rank = 0; rank < 4; ++rank) table.observe_process("gpu-node-07", 100 + rank, rank);
  CHECK_FALSE(process_not_signalled({}, table).has_value());
  CHECK_FALSE(process_not_signalled({closing_signal("gpu-node-07", 100, "SIGUSR1"),
                                     closing_signal("gpu-node-07", 101, "SIGUSR1"),
                                     closing_signal("gpu-node-07", 102, "SIGUSR1")},
                                    table)
                  .has_value());
  // Two workers were not signalled: either may have ended first.
  CHECK_FALSE(
      process_not_signalled({closing_signal("gpu-node-07", 100), closing_signal("gpu-node-07", 101)}, table)
          .has_value());
  // SIGINT and SIGKILL count as closing signals too.
  auto mixed = process_not_signalled(
      {closing_signal("gpu-node-07", 100, "SIGINT"), closing_signal("gpu-node-07", 101, "SIGKILL"),
       closing_signal("gpu-node-07", 103)},
      table);
  REQUIRE(mixed.has_value());
  CHECK(mixed->process.rank == 2);
}

TEST_CASE("closing signals: lines without a host stand for the job's one host, not for one of two") {
  ProcessTable one;
  for (int rank = 0; rank < 3; ++rank) one.observe_process("node-a", 200 + rank, rank);
  one.observe("node-a", 0, "");
  auto found = process_not_signalled({closing_signal("", 200), closing_signal("", 202)}, one);
  REQUIRE(found.has_value());
  CHECK(found->process.rank == 1);

  ProcessTable two = one;
  two.observe_process("node-b", 300, 3);
  two.observe("node-b", 3, "");
  CHECK_FALSE(process_not_signalled({closing_signal("", 200), closing_signal("", 202)}, two).has_value());
}

TEST_CASE("closing signals: when two hosts each lost one worker, no process is first") {
  ProcessTable table;
  for (int rank = 0; rank < 2; ++rank) table.observe_process("node-a", 10 + rank, rank);
  for (int rank = 2; rank < 4; ++rank) table.observe_process("node-b", 10 + rank, rank);
  CHECK_FALSE(
      process_not_signalled({closing_signal("node-a", 10), closing_signal("node-b", 12)}, table).has_value());
  // One host alone: its unsignalled worker.
  auto one = process_not_signalled(
      {closing_signal("node-a", 10), closing_signal("node-b", 12), closing_signal("node-b", 13)}, table);
  REQUIRE(one.has_value());
  CHECK(one->process.rank == 1);
}

TEST_CASE("observe_findings teaches the table each finding's host, rank and process") {
  ProcessTable table;
  Finding finding = blaming(5, "node-c", "peer_host", "node-a", Role::kRootCause);
  finding.pid = 4242;
  Finding no_host = blaming(6, "", "peer_host", "node-a", Role::kRootCause);
  no_host.pid = 4343;
  observe_findings(table, {finding, no_host});
  CHECK(table.ranks_of("node-c") == std::vector<int>{5});
  auto processes = table.processes();
  REQUIRE(processes.size() == 1);  // a pid without a host names no process
  CHECK(processes[0].pid == 4242);
  CHECK(processes[0].rank == 5);
  CHECK(processes[0].host == "node-c");
}
