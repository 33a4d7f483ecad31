// Timestamps as logs print them. Some headers carry no year (c10 `E1129 10:22:33`, vLLM
// `11-29 10:22:33`), and c10's fractional seconds come from a monotonic clock, so two
// timestamps are compared only as far as both are meaningful.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace faultline {

struct Timestamp {
  int year = 0;  // 0 when the header has no year
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t nanos = 0;
  bool valid = false;
  bool fraction_is_wall_clock = true;  // false for c10 headers (monotonic nanoseconds)

  // Seconds since the start of the year, ignoring the year itself.
  int64_t seconds_in_year() const;
  // ISO-8601, "2026-11-29T10:22:33.123Z", or "11-29T10:22:33" without a year.
  std::string to_string() const;
};

// <0, 0, >0 like strcmp, or nothing when either is invalid. Compares years only when both
// have one, and fractions only when both are wall-clock.
std::optional<int> compare(const Timestamp& a, const Timestamp& b);

// Builds a validated timestamp; returns an invalid one on out-of-range fields.
Timestamp make_timestamp(int year, int month, int day, int hour, int minute, int second, int64_t nanos,
                         bool fraction_is_wall_clock = true);

// The UTC time `seconds` + `nanos` after 1970-01-01T00:00:00Z (invalid outside years 1-9999).
Timestamp from_unix_time(int64_t seconds, int64_t nanos = 0);

// The one ISO-8601 / RFC 3339 reader: at the front of `text`, YYYY-MM-DD, then 'T', 't', ' ' or
// '_', HH:MM:SS, a fraction after '.' or ',', then 'Z', 'z', ±HH:MM, ±HHMM or ±HH. A time with a
// zone is turned into UTC by its offset (so times written in two zones compare); one without is
// taken as it stands. On success the
// text moves past what was read, and `separator` (when given) receives the date-time separator.
std::optional<Timestamp> take_iso8601(std::string_view& text, char* separator = nullptr);

}  // namespace faultline
