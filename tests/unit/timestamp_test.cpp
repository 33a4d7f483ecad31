// Timestamps (src/base/timestamp.hpp): comparison across headers with and without a year,
// and with c10's monotonic fractions.
#include "base/timestamp.hpp"

#include <doctest/doctest.h>

using namespace faultline;

TEST_CASE("make_timestamp accepts valid fields and rejects out-of-range ones") {
  CHECK(make_timestamp(2026, 11, 29, 10, 22, 33, 0).valid);
  CHECK_FALSE(make_timestamp(2026, 13, 29, 10, 22, 33, 0).valid);
  CHECK_FALSE(make_timestamp(2026, 0, 29, 10, 22, 33, 0).valid);
  CHECK_FALSE(make_timestamp(2026, 11, 32, 10, 22, 33, 0).valid);
  CHECK_FALSE(make_timestamp(2026, 11, 29, 24, 22, 33, 0).valid);
  CHECK_FALSE(make_timestamp(2026, 11, 29, 10, 60, 33, 0).valid);
  CHECK_FALSE(make_timestamp(2026, 11, 29, 10, 22, 33, 1000000000).valid);
  CHECK_FALSE(make_timestamp(2026, 11, 29, 10, 22, 33, -1).valid);
}

TEST_CASE("compare orders by date and time") {
  auto earlier = make_timestamp(2026, 11, 29, 10, 22, 33, 0);
  auto later = make_timestamp(2026, 11, 29, 10, 22, 34, 0);
  CHECK(compare(earlier, later) == -1);
  CHECK(compare(later, earlier) == 1);
  CHECK(compare(earlier, earlier) == 0);
  CHECK(compare(make_timestamp(2026, 1, 31, 23, 59, 59, 0), make_timestamp(2026, 2, 1, 0, 0, 0, 0)) == -1);
}

TEST_CASE("compare uses the year only when both timestamps have one") {
  auto dated = make_timestamp(2025, 11, 29, 10, 22, 34, 0);
  auto no_year = make_timestamp(0, 11, 29, 10, 22, 33, 0);
  // Without a year on one side, the month/day/time decide: 10:22:34 is after 10:22:33.
  CHECK(compare(dated, no_year) == 1);
  CHECK(compare(no_year, dated) == -1);
  // With years on both sides, the year decides even though the time of day is earlier.
  CHECK(compare(make_timestamp(2026, 1, 1, 0, 0, 0, 0), make_timestamp(2025, 12, 31, 23, 0, 0, 0)) == 1);
}

TEST_CASE("compare uses fractions when both are wall-clock") {
  auto a = make_timestamp(2026, 11, 29, 10, 22, 33, 100000000);
  auto b = make_timestamp(2026, 11, 29, 10, 22, 33, 200000000);
  CHECK(compare(a, b) == -1);
  CHECK(compare(b, a) == 1);
}

TEST_CASE("compare ignores a monotonic fraction within the same second") {
  auto c10 = make_timestamp(0, 11, 29, 10, 22, 33, 900000000, false);
  auto wall = make_timestamp(0, 11, 29, 10, 22, 33, 100000000);
  CHECK(compare(c10, wall) == 0);
  CHECK(compare(wall, c10) == 0);
  auto other_c10 = make_timestamp(0, 11, 29, 10, 22, 33, 100000000, false);
  CHECK(compare(c10, other_c10) == 0);
}

TEST_CASE("compare still orders monotonic-fraction timestamps by whole seconds") {
  auto c10 = make_timestamp(0, 11, 29, 10, 22, 33, 900000000, false);
  auto later = make_timestamp(0, 11, 29, 10, 22, 34, 0, false);
  CHECK(compare(c10, later) == -1);
}

TEST_CASE("compare of an invalid timestamp is nothing") {
  Timestamp invalid;
  auto valid = make_timestamp(2026, 11, 29, 10, 22, 33, 0);
  CHECK_FALSE(compare(invalid, valid).has_value());
  CHECK_FALSE(compare(valid, invalid).has_value());
}

TEST_CASE("to_string writes ISO-8601 with milliseconds and Z when there is a year") {
  CHECK(make_timestamp(2026, 11, 29, 10, 22, 33, 123456789).to_string() == "2026-11-29T10:22:33.123Z");
  CHECK(make_timestamp(2026, 1, 2, 3, 4, 5, 0).to_string() == "2026-01-02T03:04:05Z");
}

TEST_CASE("to_string without a year has no Z, and drops a monotonic fraction") {
  CHECK(make_timestamp(0, 11, 29, 10, 22, 33, 0).to_string() == "11-29T10:22:33");
  CHECK(make_timestamp(0, 11, 29, 10, 22, 33, 123456789, false).to_string() == "11-29T10:22:33");
  CHECK(Timestamp{}.to_string() == "");
}

TEST_CASE("seconds_in_year counts from January 1st") {
  CHECK(make_timestamp(2026, 1, 1, 0, 0, 0, 0).seconds_in_year() == 0);
  CHECK(make_timestamp(2026, 2, 1, 0, 0, 1, 0).seconds_in_year() == 31 * 86400 + 1);
}

TEST_CASE("take_iso8601 reads the forms logs write and moves past them") {
  struct Case {
    std::string_view text;
    std::string_view utc;
    std::string_view rest;
  };
  for (Case c : {Case{"2026-11-29T10:22:33Z rest", "2026-11-29T10:22:33Z", " rest"},
                 Case{"2026-11-29 10:22:33,123 INFO", "2026-11-29T10:22:33.123Z", " INFO"},
                 Case{"2026-11-29_10:22:33.5 x", "2026-11-29T10:22:33.500Z", " x"},
                 Case{"2026-11-29t10:22:33.123456789123z", "2026-11-29T10:22:33.123Z", ""},
                 Case{"2026-11-29T10:22:33+02:00]", "2026-11-29T08:22:33Z", "]"},
                 Case{"2026-11-29T10:22:33+0530 x", "2026-11-29T04:52:33Z", " x"},
                 Case{"2026-11-29T23:22:33-03 x", "2026-11-30T02:22:33Z", " x"},
                 Case{"2024-03-01T01:30:00+02:00", "2024-02-29T23:30:00Z", ""},
                 Case{"2026-11-29T10:22:33 plain", "2026-11-29T10:22:33Z", " plain"}}) {
    CAPTURE(c.text);
    std::string_view text = c.text;
    auto time = take_iso8601(text);
    REQUIRE(time);
    CHECK(time->to_string() == c.utc);
    CHECK(text == c.rest);
  }
}

TEST_CASE("take_iso8601 leaves text that is no timestamp as it was") {
  for (std::string_view bad : {"2026-11-29", "2026-11-29X10:22:33", "2026-13-29T10:22:33", "2026-11-29T10:22",
                               "26-11-29T10:22:33", "hello", ""}) {
    CAPTURE(bad);
    std::string_view text = bad;
    CHECK_FALSE(take_iso8601(text));
    CHECK(text == bad);
  }
  // An offset that is no zone is not read as one: the time stands without it.
  std::string_view text = "2026-11-29T10:22:33+99:00";
  auto time = take_iso8601(text);
  REQUIRE(time);
  CHECK(time->to_string() == "2026-11-29T10:22:33Z");
  CHECK(text == "+99:00");
}

TEST_CASE("take_iso8601 gives the separator it saw") {
  std::string_view text = "2026-11-29_10:22:33";
  char separator = 0;
  REQUIRE(take_iso8601(text, &separator));
  CHECK(separator == '_');
}

TEST_CASE("from_unix_time counts from the epoch in UTC") {
  CHECK(from_unix_time(0).to_string() == "1970-01-01T00:00:00Z");
  CHECK(from_unix_time(951782400).to_string() == "2000-02-29T00:00:00Z");
  CHECK(from_unix_time(-1).to_string() == "1969-12-31T23:59:59Z");
  CHECK_FALSE(from_unix_time(int64_t{400000} * 366 * 86400).valid);
}
