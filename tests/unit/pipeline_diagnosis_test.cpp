// Diagnoses through the whole pipeline: the facts of the diagnosis (src/correlate/job_facts.hpp,
// diagnosis_facts), which take a fact their group lacks from another group of the same cause but
// never, for an error no rule knows, its class or message; the last-resort rank
// (src/correlate/rank_fallbacks.hpp); an error after a hang (src/correlate/grouping.cpp).
#include <doctest/doctest.h>

#include <string>

#include "pipeline_helpers.hpp"

using faultline::find_fact;
using faultline::to_display;

TEST_CASE("an error no rule knows keeps its own message, not another error's") {
  auto analysis = faultline::testing::diagnose_log(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"/opt/a/driver.py\", line 10, in run\n"
      "[rank0]:     go()\n"
      "[rank0]: mypkg.ShardError\n"
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/opt/a/other.py\", line 20, in step\n"
      "[rank1]:     load()\n"
      "[rank1]: mypkg.ShardError: weights_a missing\n");
  REQUIRE(analysis.diagnosis);
  REQUIRE(analysis.diagnosis->initiating_rank == 0);
  const auto& facts = analysis.diagnosis->facts;
  const auto* exception = find_fact(facts, "exception");
  REQUIRE(exception != nullptr);
  CHECK(to_display(*exception) == "mypkg.ShardError");
  CHECK(find_fact(facts, "message") == nullptr);  // rank 1's message is not rank 0's
}

TEST_CASE("the one rank in a log is not named for an error with no rank when it only reported a peer") {
  const std::string watchdog =
      "[rank9]:[E0611 04:51:18.552911026 ProcessGroupNCCL.cpp:2068] [PG ID 0 PG GUID 0(default_pg) Rank 9] "
      "Process group watchdog thread terminated with exception: [Rank 9] Watchdog caught collective "
      "operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
      "ran for 600042 milliseconds before timing out.\n";
  auto witness = faultline::testing::diagnose_log(
      "RuntimeError: NCCL Error 3: internal error - please report this issue to the NCCL developers\n" +
      watchdog);
  REQUIRE(witness.diagnosis);
  CHECK(witness.diagnosis->initiating_rank == std::nullopt);
  // The same error in a log whose one rank reported nothing of a peer: the fallback holds.
  auto own = faultline::testing::diagnose_log(
      "RuntimeError: NCCL Error 3: internal error - please report this issue to the NCCL developers\n"
      "[rank9]: loading checkpoint shards\n");
  REQUIRE(own.diagnosis);
  CHECK(own.diagnosis->initiating_rank == std::optional<int>(9));
}

namespace {

// Ranks 1 and 4 time out; then `rank` prints a traceback of an error no rule knows.
std::string hang_then_error(int rank) {
  std::string watchdog;
  for (int timed_out : {1, 4}) {
    watchdog += "[2024-02-27 21:35:28] [rank" + std::to_string(timed_out) +
                "]:[E ProcessGroupNCCL.cpp:828] [Rank " + std::to_string(timed_out) +
                "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, "
                "Timeout(ms)=1800000) ran for 1800571 milliseconds before timing out.\n";
  }
  std::string prefix = "[2024-02-27 21:35:29] [rank" + std::to_string(rank) + "]: ";
  return watchdog + prefix + "Traceback (most recent call last):\n" + prefix +
         "  File \"/srv/train.py\", line 46, in build\n" + prefix + "    model = wrap(model)\n" + prefix +
         "ValueError: hidden size 100 is not supported\n";
}

}  // namespace

TEST_CASE("after a hang, an error of a rank that did not time out is the failure the others waited for") {
  auto waited_for = faultline::testing::diagnose_log(hang_then_error(2));
  REQUIRE(waited_for.diagnosis);
  CHECK(waited_for.diagnosis->cause == "unrecognised");
  CHECK(waited_for.diagnosis->initiating_rank == std::optional<int>(2));
  // The same error on a rank that timed out itself is the hang's collateral.
  auto collateral = faultline::testing::diagnose_log(hang_then_error(1));
  REQUIRE(collateral.diagnosis);
  CHECK(collateral.diagnosis->cause == "nccl.watchdog_timeout");
}
