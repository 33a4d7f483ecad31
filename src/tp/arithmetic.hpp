// Tensor-parallel arithmetic, with no I/O. The rules' fix templates, `faultline preflight`
// and `faultline repro` all call these functions, so the three never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace faultline::tp {

// Every positive divisor of n, ascending; empty for n <= 0.
std::vector<int64_t> divisors(int64_t n);
// The divisors of n that are at most limit.
std::vector<int64_t> divisors_le(int64_t n, int64_t limit);
// The divisors of both a and b.
std::vector<int64_t> common_divisors(int64_t a, int64_t b);
// The largest divisor of n that is at most limit (1 when limit < 1 or n <= 0).
int64_t largest_divisor_le(int64_t n, int64_t limit);
// TP sizes that divide heads and either divide kv_heads or are a multiple of it, which
// frameworks handle by replicating KV heads (vLLM). kv_heads <= 0 means "same as heads".
std::vector<int64_t> valid_tp_sizes(int64_t heads, int64_t kv_heads);
// The smallest multiple of m that is at least n (vocabulary padding).
int64_t next_multiple(int64_t n, int64_t m);
int64_t gcd(int64_t a, int64_t b);
int64_t lcm(int64_t a, int64_t b);

struct Layout {
  int64_t tp = 1;
  int64_t pp = 1;
  std::string to_string() const;  // "TP=2×PP=4"
};
// Every TP×PP split whose product is gpus, TP ascending.
std::vector<Layout> layouts(int64_t gpus);
// The splits whose TP divides heads and whose PP divides layers.
std::vector<Layout> layouts_for(int64_t gpus, int64_t heads, int64_t layers);

}  // namespace faultline::tp
