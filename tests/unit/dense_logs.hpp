// Dense logs for unit tests (issue 16): most lines match rules, as in genlog's --dense oom-spam.
// Deterministic for a seed; small enough to read in a test, large enough to fold and to pass the
// sparse read's dense head when it is set to 0.
#pragma once

#include <cstdint>
#include <string>

namespace faultline::testing {

// `ranks` ranks of a serving loop retrying a CUDA OOM, `steps` lines-or-tracebacks in all: each
// step a rank logs a retry warning (a recovery), an OOM through its logger, an OOM traceback,
// a KeyError traceback no rule knows, or a step line; some lines carry torchrun's --tee prefix
// as well. Times advance by the step; tracebacks carry none of their own.
inline std::string oom_spam_log(int ranks, int steps, uint64_t seed = 7) {
  uint64_t state = seed;
  auto next = [&state] {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto two = [](uint64_t value) { return (value < 10 ? "0" : "") + std::to_string(value); };
  std::string log;
  for (int step = 0; step < steps; ++step) {
    int rank = static_cast<int>(next() % static_cast<uint64_t>(ranks));
    int seconds = step / 4;
    std::string time = "2026-11-29 10:" + two(seconds / 60 % 60) + ":" + two(seconds % 60) + "," +
                       std::to_string(100 + step % 900);
    std::string prefix = (next() % 8 == 0 ? "[default" + std::to_string(rank % 8) + "]:" : std::string()) +
                         "[rank" + std::to_string(rank) + "]: ";
    std::string oom = "CUDA out of memory. Tried to allocate " + std::to_string(2 + next() % 900) +
                      ".00 MiB. GPU " + std::to_string(rank % 8) +
                      " has a total capacity of 79.15 GiB of which " + std::to_string(1 + next() % 90) +
                      ".25 MiB is free.";
    switch (next() % 10) {
      case 0:
      case 1:
        log += prefix + "WARNING " + time + " [worker.py:412] request req-" +
               std::to_string(next() % 100000) + " failed, retrying batch (attempt " +
               std::to_string(1 + next() % 5) + "/5)\n";
        break;
      case 2:
      case 3:
      case 4:
        log += prefix + "ERROR " + time + " [worker.py:230] batch failed: " + oom + "\n";
        break;
      case 5:
      case 6:
        log += prefix + "Traceback (most recent call last):\n";
        log += prefix + "  File \"/opt/serve/worker.py\", line 218, in run_batch\n";
        log += prefix + "    logits = self.model(**batch)\n";
        log += prefix + "torch.OutOfMemoryError: " + oom + "\n";
        break;
      case 7:
        log += prefix + "Traceback (most recent call last):\n";
        log += prefix + "  File \"/opt/serve/cache.py\", line 40, in lookup\n";
        log += prefix + "    return self.table[key]\n";
        log += prefix + "KeyError: 'req-" + std::to_string(next() % 1000) + "'\n";
        break;
      default:
        log += prefix + "INFO " + time + " [worker.py:100] served " + std::to_string(next() % 64) +
               " requests\n";
        break;
    }
  }
  return log;
}

// An NCCL_DEBUG=INFO dump of `ranks` ranks, `steps` lines: untimed NCCL INFO set-up and
// collective lines from every process (ranks known from their ncclCommInitRank lines), timed
// step lines of the ranks between them; then rank `failing` raises an untimed traceback and the
// others' watchdogs time out.
inline std::string nccl_debug_log(int ranks, int steps, int failing, uint64_t seed = 11) {
  uint64_t state = seed;
  auto next = [&state] {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto two = [](uint64_t value) { return (value < 10 ? "0" : "") + std::to_string(value); };
  auto nccl = [&](int rank) {
    return "node" + std::to_string(rank / 8 + 1) + ":" + std::to_string(4000 + rank * 7) + ":" +
           std::to_string(4200 + rank * 7) + " [" + std::to_string(rank % 8) + "] NCCL INFO ";
  };
  std::string log;
  for (int rank = 0; rank < ranks; ++rank) {
    log += nccl(rank) + "ncclCommInitRank comm 0x55d5c8001000 rank " + std::to_string(rank) + " nranks " +
           std::to_string(ranks) + " cudaDev " + std::to_string(rank % 8) + " busId 18000 - Init COMPLETE\n";
  }
  int seconds = 0;
  for (int step = 0; step < steps; ++step) {
    int rank = static_cast<int>(next() % static_cast<uint64_t>(ranks));
    seconds = step / 16;
    switch (next() % 8) {
      case 0:
        log += "[rank" + std::to_string(rank) + "]: [2026-11-29 10:" + two(seconds / 60 % 60) + ":" +
               two(seconds % 60) + "] iteration " + std::to_string(step) + " | lm loss: 2.31\n";
        break;
      case 1:
        log += nccl(rank) + "Channel " + two(next() % 32) + "/0 : " + std::to_string(rank) + "[" +
               std::to_string(rank % 8) + "] -> " + std::to_string((rank + 1) % ranks) + " via P2P/IPC\n";
        break;
      default:
        log += nccl(rank) + "AllReduce: opCount " + std::to_string(step) + " sendbuff 0x7f" +
               std::to_string(next() % 1000000) + " count " + std::to_string(1 << (next() % 20)) +
               " datatype 7 op 0 root 0 comm 0x55d5c8001000 [nranks=" + std::to_string(ranks) +
               "] stream 0x55\n";
        break;
    }
  }
  std::string at = "[rank" + std::to_string(failing) + "]: ";
  log += at + "Traceback (most recent call last):\n" + at + "  File \"train.py\", line 12, in <module>\n" +
         at +
         "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (6).\n";
  for (int rank = 0; rank < ranks; ++rank) {
    if (rank == failing) continue;
    log +=
        "[rank" + std::to_string(rank) + "]:[E1129 10:" + two((seconds + 600) / 60 % 60) + ":" +
        two(seconds % 60) + ".000000000 ProcessGroupNCCL.cpp:616] [Rank " + std::to_string(rank) +
        "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12047, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n";
  }
  return log;
}

}  // namespace faultline::testing
