#include "tp/arithmetic.hpp"

#include <algorithm>
#include <numeric>

namespace faultline::tp {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> small, large;
  if (n <= 0) return small;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

std::vector<int64_t> divisors_le(int64_t n, int64_t limit) {
  auto all = divisors(n);
  all.erase(std::upper_bound(all.begin(), all.end(), limit), all.end());
  return all;
}

int64_t gcd(int64_t a, int64_t b) {
  return std::gcd(a, b);
}

int64_t lcm(int64_t a, int64_t b) {
  return (a == 0 || b == 0) ? 0 : std::lcm(a, b);
}

std::vector<int64_t> common_divisors(int64_t a, int64_t b) {
  return divisors(gcd(a, b));
}

int64_t largest_divisor_le(int64_t n, int64_t limit) {
  auto candidates = divisors_le(n, limit);
  return candidates.empty() ? 1 : candidates.back();
}

std::vector<int64_t> valid_tp_sizes(int64_t heads, int64_t kv_heads) {
  if (kv_heads <= 0) kv_heads = heads;
  std::vector<int64_t> out;
  for (int64_t tp : divisors(heads)) {
    if (kv_heads % tp == 0 || tp % kv_heads == 0) out.push_back(tp);
  }
  return out;
}

int64_t next_multiple(int64_t n, int64_t m) {
  if (m <= 0) return n;
  return ((n + m - 1) / m) * m;
}

std::string Layout::to_string() const {
  return "TP=" + std::to_string(tp) + "\xc3\x97PP=" + std::to_string(pp);
}

std::vector<Layout> layouts(int64_t gpus) {
  std::vector<Layout> out;
  for (int64_t tp : divisors(gpus)) out.push_back({tp, gpus / tp});
  return out;
}

std::vector<Layout> layouts_for(int64_t gpus, int64_t heads, int64_t layers) {
  std::vector<Layout> out;
  for (const Layout& layout : layouts(gpus)) {
    if (heads % layout.tp == 0 && layers % layout.pp == 0) out.push_back(layout);
  }
  return out;
}

}  // namespace faultline::tp
