// PidRanks: which rank a process id belongs to, learned from lines that say so, for lines
// whose prefix names no rank (NCCL's own lines, `terminate called…`, Ray actors):
//   - NCCL `host:pid:tid [dev] NCCL INFO … comm 0x… rank R nranks N …` (the largest
//     communicator a pid joins is the world; smaller ones are TP/PP groups with their own ranks);
//   - vLLM process prefixes that name a rank and a pid (`(VllmWorker rank=2 pid=161)`);
//   - torchrun's `failed (exitcode: 1) local_rank: 3 (pid: 12345)`: a LOCAL rank only;
//   - torchrun's ChildFailedError block: `host :`, `rank : R (local_rank: L)`, `exitcode : C (pid: P)`.
// A pid learned late only helps the lines after it: this is a stream. One per job; not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "parse/line.hpp"

namespace faultline::parse {

// Literals (case-sensitive), one of which every line holds that PidRanks learns from. A reader
// that skips lines still parses these (cli/pipeline.cpp's sparse read).
inline constexpr std::array<std::string_view, 4> kPidRankSources = {
    "comm 0x", "failed (exitcode: ", "local_rank", "exitcode"};

class PidRanks {
 public:
  // `text` is the line's message (prefixes removed); `line.pid` its pid, if any.
  void learn(const Line& line, std::string_view text);
  void learn_prefix(int64_t pid, int rank);
  // Gives `line` the rank, local rank and host known for its pid, where its prefixes named none.
  void apply(Line& line) const;

 private:
  struct Entry {
    int rank = -1;
    int local_rank = -1;
    int64_t communicator_size = 0;
    std::string host;
  };
  Entry* entry(int64_t pid);
  void learn_summary_line(std::string_view text);

  static constexpr size_t kMaxPids = 65536;
  std::unordered_map<int64_t, Entry> entries_;
  // A ChildFailedError block being read: its host and rank lines come before the pid.
  std::string summary_host_;
  int summary_rank_ = -1;
  int summary_local_rank_ = -1;
};

}  // namespace faultline::parse
