// What torchrun's agent prints, weighed against the workers' own lines (correlate, through the
// whole pipeline with the shipped rules): its ChildFailedError "Root Cause" block with
// `error_file: <N/A>` names the first failure the agent saw on its node, often a victim, and so
// ranks below real error lines and watchdog fields; the pid missing from its "Sending process P
// closing signal SIGTERM" list names, as the weakest sign, the worker that had already exited.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "pipeline_helpers.hpp"
#include "report/reasons.hpp"

using faultline::testing::diagnose_log;

namespace {

std::string watchdog(int rank, int second) {
  return "[rank" + std::to_string(rank) + "]:[E611 14:3" + std::to_string(second / 10) + ":0" +
         std::to_string(second % 10) + ".118000000 ProcessGroupNCCL.cpp:616] [Rank " + std::to_string(rank) +
         "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4217, OpType=ALLREDUCE, "
         "NumelIn=16777216, "
         "NumelOut=16777216, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n";
}

// torch 2.5's ChildFailedError summary: Root Cause is rank 0 (aborted by its watchdog).
const std::string kSummary = R"(torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2025-06-11_14:30:07
  host      : gpu-node-07
  rank      : 2 (local_rank: 2)
  exitcode  : 1 (pid: 140283)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-06-11_14:30:07
  host      : gpu-node-07
  rank      : 0 (local_rank: 0)
  exitcode  : -6 (pid: 140281)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 140281
============================================================
)";

const std::string kSteps =
    "[rank0]: step 200 | loss 2.9874\n[rank1]: step 200 | loss 2.9901\n"
    "[rank2]: step 200 | loss 2.9812\n[rank3]: step 200 | loss 2.9855\n";

}  // namespace

TEST_CASE("a Root Cause block that names a victim loses to the rank that raised the error") {
  std::string log =
      kSteps +
      "[rank2]: Traceback (most recent call last):\n"
      "[rank2]:   File \"/workspace/train.py\", line 212, in <module>\n"
      "[rank2]:     loss.backward()\n"
      "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total "
      "capacity of 79.15 GiB of which 1.12 GiB is free. Process 140283 has 78.02 GiB memory in use.\n";
  for (int rank : {0, 1, 3}) log += watchdog(rank, 6);
  log += kSummary;
  auto analysis = diagnose_log(log);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "cuda.oom");
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  auto summary = std::find_if(analysis.findings.begin(), analysis.findings.end(), [](const auto& group) {
    return group.rule->id == "launcher.torchrun_failure_summary_rank";
  });
  REQUIRE(summary != analysis.findings.end());
  CHECK(summary->collateral_of == "cuda.oom");
}

TEST_CASE("a Root Cause block that names a victim loses to the watchdog fields") {
  // Rank 2 hung without a word; ranks 0, 1 and 3 timed out in ALLREDUCE SeqNum 4217.
  std::string log = kSteps;
  for (int rank : {0, 1, 3}) log += watchdog(rank, 6);
  log += kSummary;
  auto analysis = diagnose_log(log);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "nccl.watchdog_timeout");
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
}

TEST_CASE("the worker left out of torchrun's SIGTERM list is the one that exited first") {
  // One node, four workers; NCCL INFO lines map each pid to its rank. The log ends before the
  // agent's "failed (exitcode: …)" line, so nothing else names the rank.
  std::string log =
      "W0611 14:02:11.204000 140207 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment "
      "variable for "
      "each process to be 1 in default\n";
  const char* bus[] = {"18000", "2a000", "3a000", "5d000"};
  for (int rank = 0; rank < 4; ++rank) {
    std::string pid = std::to_string(140281 + rank), dev = std::to_string(rank);
    log += "gpu-node-07:" + pid + ":" + std::to_string(140350 + rank) + " [" + dev +
           "] NCCL INFO ncclCommInitRank comm 0x55e1c9a" + dev + " rank " + dev + " nranks 4 cudaDev " + dev +
           " nvmlDev " + dev + " busId " + bus[rank] + " commId 0x8f2a61d3c4b9e7a1 - Init COMPLETE\n";
  }
  log += "[rank0]: step 200 | loss 2.9874\n";
  for (int pid : {140281, 140282, 140284}) {
    log +=
        "W0611 14:19:47.913000 140207 torch/distributed/elastic/multiprocessing/api.py:897] Sending "
        "process " +
        std::to_string(pid) + " closing signal SIGTERM\n";
  }
  auto analysis = diagnose_log(log);
  REQUIRE(analysis.diagnosis.has_value());
  CHECK(analysis.diagnosis->cause == "nccl.remote_rank_failed");
  CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(2));
  CHECK(faultline::report::reasons_text(analysis.diagnosis->reasons)
            .ends_with("; the launcher sent its closing signal to pids 140281, 140282, 140284 on gpu-node-07 "
                       "but not to pid "
                       "140283, "
                       "rank 2 (by its NCCL lines): it had already exited (weak evidence)"));
}

TEST_CASE("the SIGTERM list names no rank when the map of pids misses a signalled worker") {
  faultline::job::ProcessTable directory;
  directory.observe_process("gpu-node-07", 100, 0);
  directory.observe_process("gpu-node-07", 102, 2);
  std::vector<faultline::rules::Finding> findings;
  for (int64_t pid : {100, 101}) {  // 101 is unknown: the map of that host is incomplete
    faultline::rules::Finding closing;
    closing.facts = {{"pid", faultline::Value(pid)},
                     {"signal_name", faultline::Value(std::string("SIGTERM"))}};
    findings.push_back(closing);
  }
  CHECK_FALSE(faultline::correlate::process_not_signalled(findings, directory).has_value());
  directory.observe_process("gpu-node-07", 101, 1);
  auto process = faultline::correlate::process_not_signalled(findings, directory);
  REQUIRE(process.has_value());
  CHECK(process->process.rank == 2);
  CHECK(process->process.pid == 102);
}
