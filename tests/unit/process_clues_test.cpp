// Process clues (src/correlate/process_clues.hpp) and the lines that teach them
// (src/parse/process_lessons.hpp): vLLM's rank lines under Ray and multiprocessing prefixes,
// torchelastic's Root Cause entry, NCCL work counters. Each clue alone, then through the whole
// pipeline with the shipped rules.
#include "correlate/process_clues.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "parse/line_parser.hpp"
#include "pipeline_helpers.hpp"

using faultline::Value;
using faultline::correlate::behind_in_work;
using Reason = faultline::correlate::ConfidenceReason;
using Kind = Reason::Kind;
using faultline::correlate::root_cause_entry;
using faultline::job::ProcessTable;
using faultline::parse::LineParser;
using faultline::rules::Finding;

namespace {

struct ParsedRank {
  int rank;
  bool from_pid;
};

// Parses `lines` into `table`; the rank and its origin of each line.
std::vector<ParsedRank> parse_lines(ProcessTable& table, const std::vector<std::string>& lines) {
  LineParser parser(table);
  std::vector<ParsedRank> out;
  uint64_t number = 0;
  for (const auto& text : lines) {
    faultline::ingest::Record record{text, 0, ++number, {}, 0, {}};
    auto line = parser.parse(record, std::nullopt);
    out.push_back({line.rank, line.rank_from_pid});
    while (parser.next_piece(line)) {
    }
  }
  return out;
}

Finding counted(int rank, const char* fact, int64_t value) {
  Finding out;
  out.rank = rank;
  out.facts = {{fact, Value(value)}};
  return out;
}

std::vector<const Finding*> pointers(const std::vector<Finding>& findings) {
  std::vector<const Finding*> out;
  for (const auto& finding : findings) out.push_back(&finding);
  return out;
}

const std::vector<std::string> kRootCauseSummary = {
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "train.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "[1]:",
    "  time      : 2026-03-02_19:50:41",
    "  host      : node-b",
    "  rank      : 6 (local_rank: 2)",
    "  exitcode  : -6 (pid: 5012)",
    "  error_file: <N/A>",
    "  traceback : Signal 6 (SIGABRT) received by PID 5012",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2026-03-02_19:50:12",
    "  host      : node-b",
    "  rank      : 5 (local_rank: 1)",
    "  exitcode  : 1 (pid: 5011)",
    "  error_file: /tmp/torchelastic_k2/none_x1/attempt_0/1/error.json",
    "  traceback : Traceback (most recent call last):",
    "============================================================",
};

}  // namespace

TEST_CASE("vLLM's rank line under a Ray worker's prefix gives that worker's later lines their rank") {
  ProcessTable table;
  auto ranks = parse_lines(
      table,
      {"(RayWorkerWrapper pid=3562, ip=10.0.0.2) INFO 05-06 10:00:01 [parallel_state.py:957] rank 3 in world "
       "size 4 is assigned as DP rank 0, PP rank 0, TP rank 3",
       "(RayWorkerWrapper pid=3562, ip=10.0.0.2) ERROR 05-06 10:00:09 [worker_base.py:467] Error executing "
       "method 'determine_num_available_blocks'. This might cause a deadlock in distributed execution."});
  CHECK(ranks[1].rank == 3);
  CHECK(ranks[1].from_pid);
  const auto* facts = table.pid_facts(3562);
  REQUIRE(facts != nullptr);
  CHECK(facts->origin == ProcessTable::RankOrigin::kEngine);
  CHECK(facts->rank_line == 1);
  CHECK(facts->host == "10.0.0.2");
}

TEST_CASE("vLLM's distributed init line names a worker's rank and local rank") {
  ProcessTable table;
  parse_lines(table,
              {"(VllmWorkerProcess pid=195296) DEBUG 03-02 19:49:12 [parallel_state.py:946] world_size=2 "
               "rank=1 local_rank=1 distributed_init_method=tcp://127.0.0.1:41721 backend=nccl"});
  const auto* facts = table.pid_facts(195296);
  REQUIRE(facts != nullptr);
  CHECK(facts->rank == 1);
  CHECK(facts->local_rank == 1);
}

TEST_CASE("a rank line of a process with no pid, or of a world it does not fit, teaches nothing") {
  ProcessTable table;
  parse_lines(table,
              {"INFO 05-06 10:00:01 [parallel_state.py:957] rank 0 in world size 4 is assigned as DP rank 0",
               "(RayWorkerWrapper pid=77, ip=10.0.0.3) rank 4 in world size 4 is assigned as DP rank 0"});
  CHECK(table.pid_facts(77) == nullptr);
  CHECK(table.ranks_seen().empty());
}

TEST_CASE("torchelastic's failure summary is kept entry by entry, its Root Cause marked") {
  ProcessTable table;
  parse_lines(table, kRootCauseSummary);
  const auto& failures = table.worker_failures();
  REQUIRE(failures.size() == 2);
  CHECK(failures[0].rank == 6);
  CHECK(failures[0].exitcode == -6);
  CHECK_FALSE(failures[0].first_observed);
  CHECK(failures[1].rank == 5);
  CHECK(failures[1].local_rank == 1);
  CHECK(failures[1].host == "node-b");
  CHECK(failures[1].pid == 5011);
  CHECK(failures[1].exitcode == 1);
  CHECK(failures[1].time == "2026-03-02_19:50:12");
  CHECK(failures[1].first_observed);
  CHECK(failures[1].line == 18);
}

TEST_CASE("a Root Cause entry flattened onto one line is read field by field") {
  ProcessTable table;
  parse_lines(table,
              {"Root Cause (first observed failure): [0]: time : 2026-03-02_19:50:12 host : node-b rank : 5 "
               "(local_rank: 1) exitcode : 1 (pid: 5011) error_file: <N/A>"});
  REQUIRE(table.worker_failures().size() == 1);
  const auto& failure = table.worker_failures().front();
  CHECK(failure.first_observed);
  CHECK(failure.rank == 5);
  CHECK(failure.local_rank == 1);
  CHECK(failure.pid == 5011);
  CHECK(failure.host == "node-b");
}

TEST_CASE("the Root Cause entry names the rank that exited with an error of its own, as the agent's view") {
  ProcessTable table;
  parse_lines(table, kRootCauseSummary);
  auto lead = root_cause_entry(table, {});
  REQUIRE(lead.has_value());
  CHECK(lead->rank == 5);
  CHECK(lead->reason == Reason(Kind::kRootCauseEntry)
                            .set("rank", 5)
                            .set("local_rank", 1)
                            .set("host", "node-b")
                            .set("exit_code", 1)
                            .set("line", 18));
  CHECK(root_cause_entry(table, {5, 6}).has_value());
  CHECK_FALSE(root_cause_entry(table, {6, 7}).has_value());
}

TEST_CASE("a Root Cause entry that ties in its second with another error, or names a signal, names no rank") {
  SUBCASE("another worker's error in the same second") {
    auto lines = kRootCauseSummary;
    lines[6] = "  time      : 2026-03-02_19:50:12";
    lines[9] = "  exitcode  : 1 (pid: 5012)";
    ProcessTable table;
    parse_lines(table, lines);
    CHECK_FALSE(root_cause_entry(table, {}).has_value());
  }
  SUBCASE("the root cause was a signal") {
    auto lines = kRootCauseSummary;
    lines[18] = "  exitcode  : -6 (pid: 5011)";
    ProcessTable table;
    parse_lines(table, lines);
    CHECK_FALSE(root_cause_entry(table, {}).has_value());
  }
}

TEST_CASE("the rank that enqueued the least NCCL work is the one behind") {
  std::vector<Finding> findings = {counted(0, "last_enqueued", 4490), counted(1, "last_enqueued", 4490),
                                   counted(2, "last_enqueued", 4486), counted(3, "last_enqueued", 4490)};
  auto lead = behind_in_work(pointers(findings), {});
  REQUIRE(lead.has_value());
  CHECK(lead->rank == 2);
  CHECK(lead->reason == Reason(Kind::kBehindInWork)
                            .set("rank", 2)
                            .set("counter", "last_enqueued")
                            .set("work", 4486)
                            .set("other_work", std::vector<int64_t>{4490})
                            .set("other_ranks", std::vector<int>{0, 1, 3}));
  CHECK(behind_in_work(pointers(findings), {0, 1}) == std::nullopt);  // a tie among the candidates
}

TEST_CASE("the rank with the fewest works outstanding at its heartbeat timeout is the one behind") {
  std::vector<Finding> findings = {counted(1, "outstanding_works", 103), counted(0, "outstanding_works", 84),
                                   counted(2, "outstanding_works", 103), counted(0, "outstanding_works", 90)};
  auto lead = behind_in_work(pointers(findings), {});
  REQUIRE(lead.has_value());
  CHECK(lead->rank == 0);
  CHECK(lead->reason == Reason(Kind::kBehindInWork)
                            .set("rank", 0)
                            .set("counter", "outstanding_works")
                            .set("work", 84)
                            .set("other_work", std::vector<int64_t>{103})
                            .set("other_ranks", std::vector<int>{1, 2}));
  findings[1].facts = {{"outstanding_works", Value(int64_t{103})}};
  findings[3].facts = {{"outstanding_works", Value(int64_t{103})}};
  CHECK_FALSE(behind_in_work(pointers(findings), {}).has_value());  // every rank alike
}

TEST_CASE("a Ray worker's OOM is named by the engine's rank line of its pid, which the reason cites") {
  std::string log;
  for (int rank = 1; rank < 4; ++rank) {
    log += "(RayWorkerWrapper pid=" + std::to_string(3560 + rank) + ", ip=10.0.0." + std::to_string(rank) +
           ") INFO 05-06 10:00:01 [parallel_state.py:957] rank " + std::to_string(rank) +
           " in world size 4 is assigned as DP rank 0, PP rank 0, TP rank " + std::to_string(rank) + "\n";
  }
  log +=
      "(RayWorkerWrapper pid=3562, ip=10.0.0.2) ERROR 05-06 10:00:09 [worker_base.py:467] Error executing "
      "method "
      "'determine_num_available_blocks'. This might cause a deadlock in distributed execution.\n"
      "(RayWorkerWrapper pid=3562, ip=10.0.0.2) ERROR 05-06 10:00:09 [worker_base.py:467] Traceback (most "
      "recent "
      "call last):\n"
      "(RayWorkerWrapper pid=3562, ip=10.0.0.2) ERROR 05-06 10:00:09 [worker_base.py:467]   File "
      "\"/usr/lib/python3/site-packages/vllm/worker/worker.py\", line 229, in "
      "determine_num_available_blocks\n"
      "(RayWorkerWrapper pid=3562, ip=10.0.0.2) ERROR 05-06 10:00:09 [worker_base.py:467]     "
      "self.model_runner.profile_run()\n"
      "(RayWorkerWrapper pid=3562, ip=10.0.0.2) ERROR 05-06 10:00:09 [worker_base.py:467] "
      "torch.OutOfMemoryError: "
      "CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.02 "
      "GiB "
      "is free.\n";
  auto analysis = faultline::testing::diagnose_log(log);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "cuda.oom");
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  auto& reasons = analysis.diagnosis->reasons;
  CHECK(std::find(reasons.begin(), reasons.end(),
                  Reason(Kind::kEngineRankLine)
                      .set("rank", 2)
                      .set("pid", 3562)
                      .set("host", "10.0.0.2")
                      .set("world_size", 4)
                      .set("line", 2)) != reasons.end());
}

TEST_CASE("the driver's Ray error names the actor whose pid the engine's rank line mapped") {
  std::string log =
      "(RayWorkerWrapper pid=7731, ip=10.20.0.12) INFO 03-02 19:49:16 [parallel_state.py:959] rank 2 in "
      "world size 4 "
      "is assigned as DP rank 0, PP rank 0, TP rank 2\n"
      "Traceback (most recent call last):\n"
      "  File \"/usr/local/lib/python3.12/dist-packages/vllm/executor/ray_distributed_executor.py\", line "
      "583, in "
      "_run_workers\n"
      "    ray_worker_outputs = ray.get(ray_worker_outputs)\n"
      "ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_method() (pid=7731, "
      "ip=10.20.0.12, actor_id=3f1c9e6b40aa8e1d2b7c56e801000000, "
      "repr=<vllm.executor.ray_utils.RayWorkerWrapper "
      "object at 0x7f2b5c1d3e90>)\n";
  auto analysis = faultline::testing::diagnose_log(log);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  CHECK(analysis.findings.front().evidence.front().rank == 2);
  SUBCASE("not when the actor ran on another host than the pid the table knows") {
    log.replace(log.rfind("ip=10.20.0.12"), 13, "ip=10.20.0.13");
    auto other = faultline::testing::diagnose_log(log);
    REQUIRE(other.diagnosis.has_value());
    CHECK(other.findings.front().evidence.front().rank == -1);
  }
}

TEST_CASE("an agent's line about a worker's pid takes the rank the failure summary gives that pid") {
  std::string log =
      "E0907 22:23:42.318000 31790 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: "
      "1) "
      "local_rank: 1 (pid: 31842) of binary: /opt/conda/bin/python\n";
  for (const auto& line : kRootCauseSummary) log += line + "\n";
  auto analysis = faultline::testing::diagnose_log(log);
  const faultline::correlate::FindingGroup* failed = nullptr;
  for (const auto& group : analysis.findings) {
    if (group.rule->id == "launcher.torchrun_worker_failed" && group.evidence.front().line == 1)
      failed = &group;
  }
  REQUIRE(failed != nullptr);
  // Pid 31842 is none the summary names: only the local-rank clue, local 1 on a job of one host.
  CHECK(failed->ranks == std::vector<int>{1});
  log.replace(log.find("31842"), 5, "5011");
  analysis = faultline::testing::diagnose_log(log);
  failed = nullptr;
  for (const auto& group : analysis.findings) {
    if (group.rule->id == "launcher.torchrun_worker_failed" && group.evidence.front().line == 1)
      failed = &group;
  }
  REQUIRE(failed != nullptr);
  CHECK(failed->ranks == std::vector<int>{5});  // not local rank 1 taken as global rank 1
  CHECK(failed->evidence.front().rank == 5);
}
