// The diagnosis's facts (src/correlate/job_facts.hpp, diagnosis_facts): a fact its own group
// lacks comes from another group of the same cause, but never for an error no rule knows, where
// each group is another error.
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
