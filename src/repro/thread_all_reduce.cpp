#include "repro/thread_all_reduce.hpp"

#include <algorithm>

namespace faultline::repro {

ThreadAllReduce::ThreadAllReduce(int64_t ranks)
    : ranks_(ranks), barrier_(static_cast<std::ptrdiff_t>(ranks)), buffers_(static_cast<size_t>(ranks)) {}

void ThreadAllReduce::sum(int64_t rank, std::span<double> buffer) {
  buffers_[static_cast<size_t>(rank)] = buffer;
  if (rank == 0) result_.assign(buffer.size(), 0.0);
  barrier_.arrive_and_wait();  // every buffer published, result_ sized

  size_t size = result_.size();
  size_t chunk = (size + static_cast<size_t>(ranks_) - 1) / static_cast<size_t>(ranks_);
  size_t begin = std::min(size, chunk * static_cast<size_t>(rank));
  size_t end = std::min(size, begin + chunk);
  for (size_t i = begin; i < end; ++i) {
    double total = 0;
    for (const auto& other : buffers_) total += other[i];
    result_[i] = total;
  }
  barrier_.arrive_and_wait();  // every chunk summed

  std::copy(result_.begin(), result_.end(), buffer.begin());
  if (rank == 0) ++calls_;
  barrier_.arrive_and_wait();  // every rank has its copy; result_ may be reused
}

}  // namespace faultline::repro
