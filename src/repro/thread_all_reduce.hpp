// An all-reduce (sum) across ranks that are threads of one process, as NCCL's ring does across
// GPUs: every rank hands in a buffer of the same size, each rank sums one chunk of the elements
// over all ranks (reduce-scatter), and every rank copies every chunk back (all-gather). The sum
// of an element always runs over ranks 0, 1, ..., tp-1, so the result does not depend on timing.
#pragma once

#include <barrier>
#include <cstdint>
#include <span>
#include <vector>

namespace faultline::repro {

class ThreadAllReduce {
 public:
  explicit ThreadAllReduce(int64_t ranks);
  ThreadAllReduce(const ThreadAllReduce&) = delete;
  ThreadAllReduce& operator=(const ThreadAllReduce&) = delete;

  // Called by every rank, each from its own thread, with buffers of one size; returns when
  // every rank's buffer holds the elementwise sum. A rank that does not call blocks the rest.
  void sum(int64_t rank, std::span<double> buffer);
  int64_t calls() const { return calls_; }  // completed all-reduces

 private:
  int64_t ranks_;
  std::barrier<> barrier_;
  std::vector<std::span<double>> buffers_;  // each rank's, published before the first barrier
  std::vector<double> result_;
  int64_t calls_ = 0;  // written by rank 0 between barriers
};

}  // namespace faultline::repro
