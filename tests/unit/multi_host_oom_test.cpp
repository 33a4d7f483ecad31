// The initiating rank of a 64-rank, 8-host job in which one rank runs out of GPU memory and
// every other rank times out in the NCCL watchdog. The log is generated here, per seed: host
// clocks differ by a few seconds, one host's clock runs ahead, and a second rank (on another
// host) hits the same out-of-memory error a few seconds later but catches it, skips its batch
// and goes on to time out with the others. By the raw timestamps that second rank looks first;
// only the clock-skew correction (or, without timestamps, the watchdog fields) names the rank
// that really failed first.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "pipeline_helpers.hpp"
#include "report/reasons.hpp"

namespace {

constexpr int kHosts = 8;
constexpr int kRanksPerHost = 8;
constexpr int kCulprit = 37;
constexpr int kCulpritHost = kCulprit / kRanksPerHost;

struct GeneratedLine {
  double true_time = 0;  // when it was printed, on a perfect clock; orders the merged output
  std::string text;
};

struct GeneratedJob {
  std::string log;
  int second_oom_rank = -1;   // the rank that caught its out-of-memory error later
  int naive_first_rank = -1;  // the earlier of the two by the printed whole seconds
  std::vector<double> skew;   // per host, seconds its clock runs ahead
};

std::string host_name(int host) {
  return "node-" + std::to_string(host);
}

// "1129 10:22:33" plus a fraction, as a host with clock offset `skew` prints `true_time`
// (seconds since midnight of Nov 29).
std::string clock_text(double true_time, double skew, int fraction_digits) {
  double printed = true_time + skew;
  auto whole = static_cast<long long>(std::floor(printed));
  double fraction = printed - static_cast<double>(whole);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "1129 %02lld:%02lld:%02lld.%0*lld", whole / 3600, whole / 60 % 60,
                whole % 60, fraction_digits,
                static_cast<long long>(fraction * std::pow(10.0, fraction_digits)));
  return buffer;
}

long long printed_second(double true_time, double skew) {
  return static_cast<long long>(std::floor(true_time + skew));
}

// `timestamps`: false drops every header with a time; only prefixes and watchdog fields remain.
// `oom_rank_prefix`: false prints the culprit's traceback with its host's prefix only, so that
// the only rank clue of its out-of-memory line is `GPU 5` (its earlier lines name its rank).
GeneratedJob generate(unsigned seed, bool timestamps, bool oom_rank_prefix = true) {
  std::mt19937 random(seed);
  auto uniform = [&](double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(random);
  };
  GeneratedJob job;
  for (int host = 0; host < kHosts; ++host) job.skew.push_back(uniform(-3.0, 3.0));
  job.skew[kCulpritHost] = uniform(5.5, 7.5);  // ahead: its errors look later than they were
  do {
    job.second_oom_rank = std::uniform_int_distribution<int>(0, kHosts * kRanksPerHost - 1)(random);
  } while (job.second_oom_rank / kRanksPerHost == kCulpritHost);
  job.skew[static_cast<size_t>(job.second_oom_rank / kRanksPerHost)] = uniform(-2.0, 0.0);

  const int seq_num = std::uniform_int_distribution<int>(1000, 90000)(random);
  const int step = seq_num / 3;
  const double oom_time = 10 * 3600 + 20 * 60 + uniform(0, 600);
  const double second_oom_time = oom_time + uniform(3.0, 4.0);

  std::vector<GeneratedLine> lines;
  for (int rank = 0; rank < kHosts * kRanksPerHost; ++rank) {
    int host = rank / kRanksPerHost;
    double skew = job.skew[static_cast<size_t>(host)];
    std::string prefix = host_name(host) + ": [rank" + std::to_string(rank) + "]:";
    int pid = 40000 + rank * 7;
    auto torch_log = [&](double at, char level, const std::string& where, const std::string& message) {
      std::string header =
          timestamps ? std::string(1, level) + clock_text(at, skew, 6) + " " + std::to_string(pid) + " "
                     : std::string();
      lines.push_back({at, prefix + header + where + "] " + message});
    };
    auto c10_log = [&](double at, const std::string& message) {
      std::string header = timestamps ? "[E" + clock_text(at, skew, 9) + " ProcessGroupNCCL.cpp:1785] "
                                      : "[E ProcessGroupNCCL.cpp:1785] ";
      lines.push_back({at, prefix + header + message});
    };
    std::string gpu = std::to_string(rank % kRanksPerHost);
    double progress_time = (rank == job.second_oom_rank ? second_oom_time : oom_time) - uniform(0.2, 0.8);
    torch_log(progress_time, 'I', "train.py:212", "step " + std::to_string(step) + " loss 2.31");
    if (rank == kCulprit) {
      double at = oom_time;
      for (const std::string& text : std::vector<std::string>{
               "Traceback (most recent call last):", "  File \"/workspace/train.py\", line 241, in <module>",
               "    loss = model(batch).loss",
               "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU " + gpu +
                   " has a total capacity of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch "
                   "memory, this process has 78.11 GiB memory in use. Of the allocated memory 75.40 GiB "
                   "is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated."}) {
        std::string rank_prefix = oom_rank_prefix ? "[rank" + std::to_string(rank) + "]: " : "";
        lines.push_back({at, host_name(host) + ": " + rank_prefix + text});
        at += 0.001;
      }
      continue;  // it exits: no collective, no watchdog
    }
    double start = oom_time + uniform(-0.5, 0.5);
    if (rank == job.second_oom_rank) {
      torch_log(
          second_oom_time, 'W', "train.py:260",
          "step " + std::to_string(step) +
              ": skipping the batch after torch.OutOfMemoryError: CUDA out of "
              "memory. Tried to allocate 1.75 GiB. GPU " +
              gpu +
              " has a total capacity of 79.15 GiB of which "
              "1.31 GiB is free. Including non-PyTorch memory, this process has 77.82 GiB memory in use. Of "
              "the "
              "allocated memory 74.96 GiB is allocated by PyTorch, and 1.44 GiB is reserved by PyTorch but "
              "unallocated.");
      start = second_oom_time + 0.3;
    }
    int ran_for_ms = 600000 + std::uniform_int_distribution<int>(5, 1500)(random);
    double timeout_time = start + ran_for_ms / 1000.0;
    std::string work = "[PG ID 0 PG GUID 0(default_pg) Rank " + std::to_string(rank) + "] ";
    c10_log(timeout_time, work + "Exception (either an error or timeout) detected by watchdog at work: " +
                              std::to_string(seq_num) +
                              ", last enqueued NCCL work: " + std::to_string(seq_num) +
                              ", last completed NCCL work: " + std::to_string(seq_num - 1) + ".");
    c10_log(timeout_time + 0.001, "[Rank " + std::to_string(rank) +
                                      "] Watchdog caught collective operation timeout: "
                                      "WorkNCCL(SeqNum=" +
                                      std::to_string(seq_num) +
                                      ", OpType=ALLREDUCE, NumelIn=1048576, "
                                      "NumelOut=1048576, Timeout(ms)=600000) ran for " +
                                      std::to_string(ran_for_ms) + " milliseconds before timing out.");
  }
  // pdsh merges the hosts' output as it arrives.
  std::stable_sort(lines.begin(), lines.end(),
                   [](const GeneratedLine& a, const GeneratedLine& b) { return a.true_time < b.true_time; });
  for (const auto& line : lines) job.log += line.text + "\n";

  long long culprit_second = printed_second(oom_time, job.skew[kCulpritHost]);
  long long other_second =
      printed_second(second_oom_time, job.skew[static_cast<size_t>(job.second_oom_rank / kRanksPerHost)]);
  job.naive_first_rank = other_second < culprit_second ? job.second_oom_rank : kCulprit;
  return job;
}

faultline::correlate::JobAnalysis diagnose(const std::string& log) {
  return faultline::testing::diagnose_log(log, "generated");
}

bool any_reason_contains(const faultline::correlate::Diagnosis& diagnosis, const std::string& part) {
  return faultline::report::reasons_text(diagnosis.reasons).find(part) != std::string::npos;
}

constexpr unsigned kSeeds[] = {1, 7, 42, 1234, 5150, 90210, 31337, 271828};

}  // namespace

TEST_CASE("64 ranks on 8 hosts with skewed clocks: the rank that ran out of memory first is named") {
  for (unsigned seed : kSeeds) {
    CAPTURE(seed);
    GeneratedJob job = generate(seed, true);
    // The case is built so that the raw timestamps point at the wrong rank.
    REQUIRE(job.naive_first_rank == job.second_oom_rank);
    auto analysis = diagnose(job.log);
    CHECK(analysis.shape.ranks_seen.size() == 64);
    CHECK(analysis.shape.hosts.size() == 8);
    REQUIRE(analysis.diagnosis.has_value());
    CHECK(analysis.diagnosis->cause == "cuda.oom");
    CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(kCulprit));
    CHECK(analysis.diagnosis->initiating_host == host_name(kCulpritHost));
    CHECK(any_reason_contains(*analysis.diagnosis,
                              "clock skew mattered: " + host_name(kCulpritHost) + "'s clock runs "));
    CHECK(any_reason_contains(*analysis.diagnosis, "ALLREDUCE SeqNum"));
    REQUIRE(analysis.findings.size() >= 2);
    CHECK(analysis.findings[0].ranks ==
          std::vector<int>{std::min(kCulprit, job.second_oom_rank), std::max(kCulprit, job.second_oom_rank)});
  }
}

TEST_CASE(
    "64 ranks on 8 hosts without timestamps: the watchdog fields name the rank that ran out of memory") {
  for (unsigned seed : kSeeds) {
    CAPTURE(seed);
    GeneratedJob job = generate(seed, false);
    CHECK(job.log.find("1129 ") == std::string::npos);
    auto analysis = diagnose(job.log);
    REQUIRE(analysis.diagnosis.has_value());
    CHECK(analysis.diagnosis->cause == "cuda.oom");
    CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(kCulprit));
    CHECK(any_reason_contains(*analysis.diagnosis,
                              "no timestamps order them; rank 37 never reached collective SeqNum"));
  }
}

TEST_CASE("64 ranks on 8 hosts: an out-of-memory line whose only rank clue is its GPU names that rank") {
  for (bool timestamps : {true, false}) {
    for (unsigned seed : kSeeds) {
      CAPTURE(seed);
      CAPTURE(timestamps);
      GeneratedJob job = generate(seed, timestamps, false);
      REQUIRE(job.log.find(host_name(kCulpritHost) + ": torch.OutOfMemoryError") != std::string::npos);
      auto analysis = diagnose(job.log);
      REQUIRE(analysis.diagnosis.has_value());
      CHECK(analysis.diagnosis->cause == "cuda.oom");
      CHECK(analysis.diagnosis->initiating_rank == std::optional<int>(kCulprit));
      CHECK(analysis.diagnosis->initiating_host == host_name(kCulpritHost));
      CHECK(any_reason_contains(*analysis.diagnosis,
                                "rank 37 by its line's clue: the error names CUDA device 5 on node-4; that "
                                "host's ranks are 32-39, one block per host, and with one GPU per process "
                                "the device is the local rank (weak evidence, weaker than a rank prefix)"));
      REQUIRE_FALSE(analysis.findings.empty());
      CHECK(
          std::binary_search(analysis.findings[0].ranks.begin(), analysis.findings[0].ranks.end(), kCulprit));
      for (const auto& evidence : analysis.findings[0].evidence) CHECK(evidence.rank >= 0);
    }
  }
}
