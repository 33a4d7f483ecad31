#include "base/timestamp.hpp"

#include <cstdio>

namespace faultline {
namespace {

constexpr int kDaysBeforeMonth[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian calendar).
int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2 ? 1 : 0;
  int64_t era = (year >= 0 ? year : year - 399) / 400;
  int64_t year_of_era = year - era * 400;
  int64_t day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

struct Civil {
  int64_t year, month, day;
};

Civil civil_from_days(int64_t days) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t day_of_era = days - era * 146097;
  int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t month_index = (5 * day_of_year + 2) / 153;
  int64_t day = day_of_year - (153 * month_index + 2) / 5 + 1;
  int64_t month = month_index < 10 ? month_index + 3 : month_index - 9;
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

int64_t unix_seconds(const Timestamp& t) {
  return days_from_civil(t.year, t.month, t.day) * 86400 + t.hour * 3600 + t.minute * 60 + t.second;
}

// Exactly `digits` digits, then the text moves past them.
std::optional<int> take_fixed(std::string_view& text, size_t digits) {
  if (text.size() < digits) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  text.remove_prefix(digits);
  return value;
}

bool take_char(std::string_view& text, char expected) {
  if (text.empty() || text.front() != expected) return false;
  text.remove_prefix(1);
  return true;
}

// A fraction of a second after '.' or ','; nanoseconds (digits past the ninth are read and
// dropped). Nothing, and the text unchanged, when no digit follows.
std::optional<int64_t> take_fraction(std::string_view& text) {
  if (text.size() < 2 || (text[0] != '.' && text[0] != ',') || text[1] < '0' || text[1] > '9')
    return std::nullopt;
  size_t count = 1;
  int64_t nanos = 0;
  for (; count < text.size() && text[count] >= '0' && text[count] <= '9'; ++count) {
    if (count <= 9) nanos = nanos * 10 + (text[count] - '0');
  }
  for (size_t i = count; i <= 9; ++i) nanos *= 10;
  text.remove_prefix(count);
  return nanos;
}

// 'Z', 'z', ±HH:MM, ±HHMM or ±HH: minutes east of UTC. Nothing, and the text unchanged, when
// none is there.
std::optional<int> take_zone(std::string_view& text) {
  if (take_char(text, 'Z') || take_char(text, 'z')) return 0;
  if (text.empty() || (text.front() != '+' && text.front() != '-')) return std::nullopt;
  std::string_view rest = text.substr(1);
  auto hours = take_fixed(rest, 2);
  if (!hours || *hours > 23) return std::nullopt;
  int minutes = 0;
  std::string_view after_colon = rest;
  bool colon = take_char(after_colon, ':');
  std::string_view digits = colon ? after_colon : rest;
  if (auto value = take_fixed(digits, 2)) {
    if (*value > 59) return std::nullopt;
    minutes = *value;
    rest = digits;
  }
  int offset = *hours * 60 + minutes;
  if (text.front() == '-') offset = -offset;
  text = rest;
  return offset;
}

}  // namespace

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

Timestamp from_unix_time(int64_t seconds, int64_t nanos) {
  int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t in_day = seconds - days * 86400;
  Civil date = civil_from_days(days);
  if (date.year < 1 || date.year > 9999) return {};
  return make_timestamp(static_cast<int>(date.year), static_cast<int>(date.month), static_cast<int>(date.day),
                        static_cast<int>(in_day / 3600), static_cast<int>(in_day / 60 % 60),
                        static_cast<int>(in_day % 60), nanos);
}

std::optional<Timestamp> take_iso8601(std::string_view& text, char* separator) {
  std::string_view rest = text;
  auto year = take_fixed(rest, 4);
  if (!year || !take_char(rest, '-')) return std::nullopt;
  auto month = take_fixed(rest, 2);
  if (!month || !take_char(rest, '-')) return std::nullopt;
  auto day = take_fixed(rest, 2);
  if (!day || rest.empty()) return std::nullopt;
  char between = rest.front();
  if (between != 'T' && between != 't' && between != ' ' && between != '_') return std::nullopt;
  rest.remove_prefix(1);
  auto hour = take_fixed(rest, 2);
  if (!hour || !take_char(rest, ':')) return std::nullopt;
  auto minute = take_fixed(rest, 2);
  if (!minute || !take_char(rest, ':')) return std::nullopt;
  auto second = take_fixed(rest, 2);
  if (!second) return std::nullopt;
  int64_t nanos = take_fraction(rest).value_or(0);
  Timestamp time = make_timestamp(*year, *month, *day, *hour, *minute, *second, nanos);
  if (!time.valid || *year < 1) return std::nullopt;
  if (auto zone = take_zone(rest)) {
    if (*zone != 0) {
      Timestamp utc = from_unix_time(unix_seconds(time) - int64_t{*zone} * 60, nanos);
      if (!utc.valid) return std::nullopt;
      time = utc;
    }
  }
  if (separator) *separator = between;
  text = rest;
  return time;
}

}  // namespace faultline
