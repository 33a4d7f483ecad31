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

}  // namespace faultline::testing
