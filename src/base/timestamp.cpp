#include "base/timestamp.hpp"

#include <cstdio>

namespace faultline {
namespace {
constexpr int kDaysBeforeMonth[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
}

int64_t Timestamp::seconds_in_year() const {
  int64_t days = kDaysBeforeMonth[(month >= 1 && month <= 12) ? month - 1 : 0] + day - 1;
  return ((days * 24 + hour) * 60 + minute) * 60 + second;
}

std::string Timestamp::to_string() const {
  if (!valid) return {};
  char buffer[64];
  if (year) {
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute,
                  second);
  } else {
    std::snprintf(buffer, sizeof buffer, "%02d-%02dT%02d:%02d:%02d", month, day, hour, minute, second);
  }
  std::string out = buffer;
  if (fraction_is_wall_clock && nanos) {
    std::snprintf(buffer, sizeof buffer, ".%03lld", static_cast<long long>(nanos / 1000000));
    out += buffer;
  }
  if (year) out += 'Z';
  return out;
}

std::optional<int> compare(const Timestamp& a, const Timestamp& b) {
  if (!a.valid || !b.valid) return std::nullopt;
  auto sign = [](int64_t d) { return d < 0 ? -1 : (d > 0 ? 1 : 0); };
  if (a.year && b.year && a.year != b.year) return sign(a.year - b.year);
  if (int64_t d = a.seconds_in_year() - b.seconds_in_year()) return sign(d);
  if (a.fraction_is_wall_clock && b.fraction_is_wall_clock) return sign(a.nanos - b.nanos);
  return 0;
}

Timestamp make_timestamp(int year, int month, int day, int hour, int minute, int second, int64_t nanos,
                         bool fraction_is_wall_clock) {
  Timestamp t;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 ||
      nanos < 0 || nanos >= 1000000000) {
    return t;
  }
  t = {year, month, day, hour, minute, second, nanos, true, fraction_is_wall_clock};
  return t;
}

}  // namespace faultline
