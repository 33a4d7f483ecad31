// The job's table of processes (src/job/process_table.hpp), as parse fills it and correlate
// reads it.
#include "job/process_table.hpp"

#include <doctest/doctest.h>

#include <string>

#include "parse/line_parser.hpp"

using faultline::job::ProcessTable;
using faultline::parse::LineParser;

namespace {

void parse_lines(LineParser& parser, const std::vector<std::string>& lines) {
  uint64_t number = 0;
  for (const auto& text : lines) {
    faultline::ingest::Record record{text, 0, ++number, {}, 0, {}};
    auto line = parser.parse(record, std::nullopt);
    while (parser.next_piece(line)) {
    }
  }
}

}  // namespace

TEST_CASE("the world communicator's rank of a pid beats a smaller group's") {
  ProcessTable table;
  table.learn_communicator_rank(4242, 1, 2, "node-b");  // a TP group of two
  table.learn_communicator_rank(4242, 5, 8, "node-c");  // the world
  table.learn_communicator_rank(4242, 0, 4, "node-d");  // a PP group, learned later
  const auto* facts = table.pid_facts(4242);
  REQUIRE(facts != nullptr);
  CHECK(facts->rank == 5);
  CHECK(facts->host == "node-b");  // the first host named stays
  CHECK(table.pid_facts(4243) == nullptr);
}

TEST_CASE("a launcher's word on a pid's rank is final") {
  ProcessTable table;
  table.learn_launcher_rank(77, 3);
  table.learn_communicator_rank(77, 6, 64, "");
  REQUIRE(table.pid_facts(77) != nullptr);
  CHECK(table.pid_facts(77)->rank == 3);
}

TEST_CASE("a communicator rank past its size teaches nothing") {
  ProcessTable table;
  table.learn_communicator_rank(9, 8, 8, "node-a");
  CHECK(table.pid_facts(9) == nullptr);
}

TEST_CASE("the parser notes every line's rank, host, pid and device in the job's table") {
  ProcessTable table;
  LineParser parser(table);
  parse_lines(parser,
              {
                  "node-a:311:402 [3] NCCL INFO comm 0x55d0 rank 3 nranks 16 cudaDev 3 busId 1c000 - Init",
                  "node-a:311:402 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.5<0>",
                  "[rank9]: RuntimeError: boom",
              });
  CHECK(table.ranks_seen() == std::vector<int>{3, 9});
  CHECK(table.hosts() == std::vector<std::string>{"node-a"});
  CHECK(table.ranks_of("10.0.0.5") == std::vector<int>{3});
  REQUIRE(table.processes().size() == 1);
  CHECK(table.processes().front().pid == 311);
  CHECK(table.processes().front().rank == 3);
  CHECK(table.device_ranks().at({"node-a", 3}) == std::set<int>{3});
}

TEST_CASE("a later line of a pid takes the rank the table learned for it") {
  ProcessTable table;
  LineParser parser(table);
  parse_lines(parser,
              {"node-a:311:402 [3] NCCL INFO comm 0x55d0 rank 3 nranks 16 cudaDev 3 busId 1c000 - Init"});
  faultline::ingest::Record record{
      "node-a:311:405 [3] NCCL WARN Cuda failure 'out of memory'", 0, 2, {}, 0, {}};
  auto line = parser.parse(record, std::nullopt);
  CHECK(line.rank == 3);
  CHECK(line.rank_from_pid);
}

TEST_CASE("hosts that prefixes name are kept once each, in the order seen") {
  ProcessTable table;
  for (const char* host : {"worker-1", "worker-0", "worker-1"}) table.learn_prefix_host(host);
  CHECK(table.prefix_hosts() == std::vector<std::string>{"worker-1", "worker-0"});
}

TEST_CASE("host names are compared without case, domain or IPv6 scope") {
  CHECK(faultline::job::normalize_host("Node-B.cluster.local") == "node-b");
  CHECK(faultline::job::normalize_host("10.0.0.5") == "10.0.0.5");
  CHECK(faultline::job::normalize_host("fe80::1%ib0") == "fe80::1");
}

TEST_CASE("the host of a rank is the one host its lines came from, none when several or none") {
  faultline::job::ProcessTable table;
  table.observe("node-a", 0, "");
  table.observe("node-a", 1, "");
  table.observe("node-b", 2, "");
  CHECK(table.host_of_rank(1) == "node-a");
  CHECK(table.host_of_rank(2) == "node-b");
  CHECK(table.host_of_rank(7).empty());
  table.observe("node-c", 2, "");
  CHECK(table.host_of_rank(2).empty());
}
