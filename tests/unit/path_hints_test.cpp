// rank_from_path (src/ingest/path_hints.hpp): the rank a per-rank log file's path names.
#include "ingest/path_hints.hpp"

#include <doctest/doctest.h>

using faultline::ingest::rank_from_path;

TEST_CASE("torchrun --log-dir layout attempt_N/RANK/stderr.log") {
  CHECK(rank_from_path("attempt_0/3/stderr.log") == std::optional<int>(3));
  CHECK(rank_from_path("logs/run/attempt_2/12/stdout.log") == std::optional<int>(12));
  CHECK(rank_from_path("/abs/attempt_0/7/error.json") == std::optional<int>(7));
}

TEST_CASE("torchrun layout inside an archive member name") {
  CHECK(rank_from_path("run.tar:attempt_0/5/stderr.log") == std::optional<int>(5));
}

TEST_CASE("torchrun layout needs the attempt_ directory and a known file name") {
  CHECK_FALSE(rank_from_path("0/3/stderr.log").has_value());
  CHECK_FALSE(rank_from_path("attempt_0/3/other.log").has_value());
  CHECK_FALSE(rank_from_path("attempt_0/x3/stderr.log").has_value());
}

TEST_CASE("rankN file names") {
  CHECK(rank_from_path("rank3.log") == std::optional<int>(3));
  CHECK(rank_from_path("logs/rank3.log") == std::optional<int>(3));
  CHECK(rank_from_path("rank_12.out") == std::optional<int>(12));
  CHECK(rank_from_path("worker-rank-03.txt") == std::optional<int>(3));
  CHECK(rank_from_path("train_rank7") == std::optional<int>(7));
}

TEST_CASE("rank inside a longer word is not a rank") {
  CHECK_FALSE(rank_from_path("frank3.log").has_value());
  CHECK_FALSE(rank_from_path("ranking.log").has_value());
  CHECK_FALSE(rank_from_path("rank3x.log").has_value());
}

TEST_CASE("only the file name counts for rankN, not a directory") {
  CHECK_FALSE(rank_from_path("rank3/plain.log").has_value());
}

TEST_CASE("Slurm slurm-JOB-TASK.out") {
  CHECK(rank_from_path("slurm-123-3.out") == std::optional<int>(3));
  CHECK(rank_from_path("out/slurm-98765-15.out") == std::optional<int>(15));
}

TEST_CASE("Slurm slurm-JOB.out names no task") {
  CHECK_FALSE(rank_from_path("slurm-123.out").has_value());
}

TEST_CASE("a plain file name gives no rank") {
  CHECK_FALSE(rank_from_path("plain.log").has_value());
  CHECK_FALSE(rank_from_path("").has_value());
  CHECK_FALSE(rank_from_path("-").has_value());
  CHECK_FALSE(rank_from_path("<example>").has_value());
}

TEST_CASE("torchrun log dirs of two nodes name local ranks, not ranks") {
  using faultline::ingest::torchrun_layouts_span_nodes;
  std::vector<std::string> one_node = {"logs/run_a1/attempt_0/0/stderr.log",
                                       "logs/run_a1/attempt_0/3/stderr.log",
                                       "logs/run_a1/attempt_1/3/stderr.log", "driver.log"};
  CHECK_FALSE(torchrun_layouts_span_nodes(one_node));
  std::vector<std::string> two_nodes = {"node-a/run_x/attempt_0/3/stderr.log",
                                        "node-b/run_x/attempt_0/3/stderr.log"};
  CHECK(torchrun_layouts_span_nodes(two_nodes));
  CHECK(rank_from_path("node-a/run_x/attempt_0/3/stderr.log") == 3);
  CHECK_FALSE(rank_from_path("node-a/run_x/attempt_0/3/stderr.log", false));
  // The other layouts name global ranks whatever the job spans.
  CHECK(rank_from_path("node-a/rank5.log", false) == 5);
  CHECK(rank_from_path("slurm-4412-7.out", false) == 7);
}
