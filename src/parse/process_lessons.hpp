// ProcessLessons: the lines that say which rank a process is, read into the job's table of
// processes (job/process_table.hpp), so that lines whose prefix names no rank (NCCL's own
// lines, `terminate called…`, Ray actors) take their rank from their pid:
//   - NCCL `host:pid:tid [dev] NCCL INFO … comm 0x… rank R nranks N …` (the largest
//     communicator a pid joins is the world; smaller ones are TP/PP groups with their own ranks);
//   - vLLM process prefixes that name a rank and a pid (`(VllmWorker rank=2 pid=161)`);
//   - vLLM's own rank lines, printed by each worker under its process prefix (`(RayWorkerWrapper
//     pid=P, ip=H)`, `(VllmWorkerProcess pid=P)`): `rank R in world size N is assigned as DP rank
//     …, TP rank …` and `world_size=N rank=R local_rank=L distributed_init_method=…`;
//   - torchrun's `failed (exitcode: 1) local_rank: 3 (pid: 12345)`: a LOCAL rank only;
//   - torchrun's ChildFailedError block: `host :`, `rank : R (local_rank: L)`, `exitcode : C (pid: P)`,
//     each entry also kept as a worker failure, its "Root Cause (first observed failure)" marked.
// A pid learned late only helps the lines after it: this is a stream. One per parser; not
// thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "job/process_table.hpp"
#include "parse/line.hpp"

namespace faultline::parse {

// Literals (case-sensitive), one of which every line holds that ProcessLessons learns from. A
// reader that skips lines still parses these (the job runner's sparse read).
inline constexpr std::array<std::string_view, 8> kPidRankSources = {"comm 0x",
                                                                    "failed (exitcode: ",
                                                                    "local_rank",
                                                                    "exitcode",
                                                                    " in world size ",
                                                                    "distributed_init_method=",
                                                                    "first observed failure",
                                                                    " Pid "};

// For a reader that skips lines: what a line holding one of kPidRankSources can teach, as the
// stretch of it to remember, where `before` runs from the line's start to the literal's end and
// `after` from there to the line's end (the two adjacent). A line whose stretch was read already
// teaches nothing new. An NCCL line teaches what its prefix says (host, pid and device:
// `[default3]:node5:9279:9533 [3] NCCL INFO AllGather: ... comm 0x...`, its thread id aside; the
// view lasts until the next call on the thread), unless it names a rank or
// an address (`comm 0x... rank 3 nranks 8`, `NET/IB : Using ...`), which it always teaches:
// nullopt, and what it teaches may give the prefixes seen a rank. Any other line teaches what the
// 96 bytes before the literal's end and the 64 after it say.
std::optional<std::string_view> lesson_stretch(std::string_view before, std::string_view after);

class ProcessLessons {
 public:
  // `text` is the line's message (prefixes removed); `line.pid` its pid, if any.
  void learn(const Line& line, std::string_view text, job::ProcessTable& table);
  // Gives `line` the rank, local rank and host the table knows for its pid, where its prefixes
  // named none.
  static void apply(Line& line, const job::ProcessTable& table);

 private:
  void learn_summary(const Line& line, std::string_view text, job::ProcessTable& table);
  void learn_summary_field(const Line& line, std::string_view text, job::ProcessTable& table);
  void learn_test_table_row(int64_t rank, int64_t pid, std::string_view host, int64_t device,
                            job::ProcessTable& table);

  // nccl-tests' table rows by pid: the rank of a pid that drives one GPU, or -1 for a pid that
  // drives several (`-g 4`: one process, four ranks), whose rank only its device tells.
  std::map<int64_t, int> test_table_pids_;

  // A ChildFailedError block being read: its host and rank lines come before the pid.
  std::string summary_host_;
  std::string summary_time_;
  int summary_rank_ = -1;
  int summary_local_rank_ = -1;
  uint64_t summary_rank_line_ = 0;
  bool root_cause_ = false;  // the entry being read is the Root Cause (first observed failure)
};

}  // namespace faultline::parse
