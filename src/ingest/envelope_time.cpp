#include "ingest/envelope_time.hpp"

#include "base/text.hpp"

namespace faultline::ingest {
namespace {

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

// Exactly `digits` digits, then the text moves past them.
std::optional<int> take_fixed(std::string_view& text, size_t digits) {
  if (text.size() < digits) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (!is_digit(text[i])) return std::nullopt;
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

}  // namespace

Timestamp from_unix_time(int64_t seconds, int64_t nanos) {
  int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t in_day = seconds - days * 86400;
  Civil date = civil_from_days(days);
  if (date.year < 1 || date.year > 9999) return {};
  return make_timestamp(static_cast<int>(date.year), static_cast<int>(date.month), static_cast<int>(date.day),
                        static_cast<int>(in_day / 3600), static_cast<int>(in_day / 60 % 60),
                        static_cast<int>(in_day % 60), nanos);
}

Timestamp parse_rfc3339(std::string_view text) {
  auto year = take_fixed(text, 4);
  if (!year || !take_char(text, '-')) return {};
  auto month = take_fixed(text, 2);
  if (!month || !take_char(text, '-')) return {};
  auto day = take_fixed(text, 2);
  if (!day || !(take_char(text, 'T') || take_char(text, ' ') || take_char(text, 't'))) return {};
  auto hour = take_fixed(text, 2);
  if (!hour || !take_char(text, ':')) return {};
  auto minute = take_fixed(text, 2);
  if (!minute || !take_char(text, ':')) return {};
  auto second = take_fixed(text, 2);
  if (!second) return {};
  int64_t nanos = 0;
  if (take_char(text, '.') || take_char(text, ',')) {
    int64_t scale = 100000000;
    size_t digits = 0;
    while (digits < text.size() && is_digit(text[digits])) {
      nanos += (text[digits] - '0') * scale;
      scale /= 10;
      ++digits;
    }
    if (digits == 0) return {};
    text.remove_prefix(digits);
  }
  Timestamp local = make_timestamp(*year, *month, *day, *hour, *minute, *second, nanos);
  if (!local.valid) return {};
  int offset_minutes = 0;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    int sign = text.front() == '-' ? -1 : 1;
    text.remove_prefix(1);
    auto zone_hours = take_fixed(text, 2);
    take_char(text, ':');
    auto zone_minutes = take_fixed(text, 2);
    if (!zone_hours || !zone_minutes) return {};
    offset_minutes = sign * (*zone_hours * 60 + *zone_minutes);
  }
  if (offset_minutes == 0) return local;
  int64_t seconds = days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second;
  return from_unix_time(seconds - int64_t{offset_minutes} * 60, nanos);
}

}  // namespace faultline::ingest
