// The scan stage (src/scan): shard hashing, scan lines read back, and a summary that does not
// depend on the order its lines arrive in.
#include <doctest/doctest.h>

#include <algorithm>

#include "base/text.hpp"
#include "scan/scan_record.hpp"
#include "scan/shard.hpp"
#include "scan/summary.hpp"

using namespace faultline::scan;
using faultline::fnv1a;

namespace {

JobRecord job(std::string name, std::string cause, std::string fingerprint,
              std::vector<std::string> hosts = {}) {
  JobRecord record;
  record.job = std::move(name);
  record.key = record.job;
  record.cause = std::move(cause);
  record.fingerprint = std::move(fingerprint);
  record.failing_hosts = std::move(hosts);
  record.files = 2;
  return record;
}

constexpr const char* kReport =
    R"({"schema":"faultline.report/1","jobs":[],"inputs":[{"source":"a/rank0.log","bytes":100,"lines":4,"format":"text"},)"
    R"({"source":"a/rank1.log","bytes":50,"lines":2,"format":"gzip","error":"gzip stream truncated"}],)"
    R"("skipped":[{"source":"a/core.bin","reason":"binary file (NUL byte at offset 7), not a log"}]})";

}  // namespace

TEST_CASE("shards hash with 64-bit FNV-1a") {
  CHECK(fnv1a("") == 14695981039346656037ull);
  CHECK(fnv1a("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("every key lands in exactly one shard") {
  for (std::string key : {"job-0001", "runs/a", ".", "slurm/slurm-77"}) {
    int holders = 0;
    for (uint32_t index = 0; index < 5; ++index) holders += Shard{index, 5}.holds(key);
    CHECK(holders == 1);
  }
}

TEST_CASE("--shard takes I/N with 0 <= I < N") {
  auto shard = parse_shard("3/8");
  REQUIRE(shard);
  CHECK(shard->index == 3);
  CHECK(shard->count == 8);
  for (const char* bad : {"8/8", "-1/8", "1/0", "3", "a/b", "1/"}) CHECK_FALSE(parse_shard(bad));
  CHECK(parse_shard("8/8").status().message() ==
        "--shard '8/8' must be I/N with 0 <= I < N (0-based, as Slurm array and Kubernetes indexes are)");
}

TEST_CASE("a job line reads back, its counts taken from its report") {
  JobRecord record = job("a", "cuda.oom", "f00d", {"node2"});
  record.initiating_rank = 5;
  record.confidence = 0.9;
  record.members = 0;
  std::string line = job_line(record, std::string(kReport) + "\n");
  CHECK(line.back() == '\n');
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  auto parsed = parse_line(line);
  REQUIRE(parsed);
  REQUIRE(parsed->type == LineType::kJob);
  const JobRecord& back = parsed->job;
  CHECK(back.job == "a");
  CHECK(back.cause == "cuda.oom");
  CHECK(back.initiating_rank == 5);
  CHECK(back.failing_hosts == std::vector<std::string>{"node2"});
  CHECK(back.files == 2);
  CHECK(back.inputs == 2);
  CHECK(back.bytes == 150);
  CHECK(back.lines == 6);
  CHECK(back.read_errors == 1);
  REQUIRE(back.skipped.size() == 1);
  CHECK(back.skipped[0].reason == "binary file (NUL byte at offset 7), not a log");
  CHECK(std::string(back.status()) == "diagnosed");
}

TEST_CASE("lines that are not scan lines are refused with the reason") {
  CHECK(parse_line("not json").status().message().rfind("not JSON: ", 0) == 0);
  CHECK(parse_line(R"({"schema":"faultline.report/1"})").status().message() ==
        "not a faultline scan line (\"type\" is not job, skipped or summary)");
  CHECK(parse_line(R"({"type":"job","job":"x"})").status().message() ==
        "job line for 'x' without its \"report\"");
}

TEST_CASE("the summary is the same whatever the order of its jobs") {
  std::vector<JobRecord> jobs = {job("b", "cuda.oom", "f1", {"node1"}), job("a", "cuda.oom", "f1", {"node2"}),
                                 job("c", "tp.heads_not_divisible", "f2", {"node1"}), job("d", "", "")};
  jobs.back().skipped.push_back({"d/core.bin", "binary"});
  Summary forward, backward;
  for (const auto& record : jobs) CHECK(forward.add(record));
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) backward.add(*it);
  CHECK(forward.to_json() == backward.to_json());
  CHECK_FALSE(forward.add(jobs.front()));  // the same job twice counts once
  CHECK(forward.to_json() == backward.to_json());
  std::string json = forward.to_json();
  CHECK(
      json.find(R"("causes":[{"cause":"cuda.oom","jobs":2},{"cause":"tp.heads_not_divisible","jobs":1}])") !=
      std::string::npos);
  CHECK(json.find(R"({"fingerprint":"f1","cause":"cuda.oom","jobs":2,"example":"a"})") != std::string::npos);
  CHECK(json.find(R"("failing_hosts":[{"host":"node1","jobs":2},{"host":"node2","jobs":1}])") !=
        std::string::npos);
  CHECK(json.find(R"("no_diagnosis":["d"])") != std::string::npos);
  CHECK(forward.skipped() == 1);
}
