// Envelope readers (src/ingest/record_reader.hpp, envelope_reader.hpp): detection from the
// content, docker json-file, CRI, journald, JSON lines and torchelastic error.json, with the
// lines they split joined again and damaged records counted and skipped.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/envelope_time.hpp"
#include "ingest/record_reader.hpp"

using faultline::ingest::Record;

namespace {

struct Decoded {
  std::string text;
  uint64_t line = 0;
  std::string time;  // ISO-8601, "" when none
  std::string host;
  int64_t pid = 0;
  bool operator==(const Decoded&) const = default;
};

struct ReadResult {
  std::string format;
  std::vector<Decoded> records;
  std::vector<std::string> texts;
  uint64_t bad_lines = 0;
  std::string first_bad_line;
  uint64_t lines = 0;
};

ReadResult read_all(std::string_view bytes) {
  auto source = faultline::ingest::memory_source(bytes);
  auto reader = faultline::ingest::open_records(*source, 4);
  ReadResult result;
  Record record;
  while (reader->next(record)) {
    CHECK(record.source == 4);
    result.records.push_back({std::string(record.text), record.line, record.time.to_string(),
                              std::string(record.host), record.pid});
    result.texts.emplace_back(record.text);
  }
  CHECK(reader->status().is_ok());
  result.format = reader->format();
  result.bad_lines = reader->bad_lines();
  result.first_bad_line = reader->first_bad_line();
  result.lines = reader->lines();
  return result;
}

using Texts = std::vector<std::string>;

}  // namespace

TEST_CASE("envelope: plain text stays text, even when a line later looks like JSON") {
  auto result =
      read_all("[rank3]: Traceback (most recent call last):\n{\"log\":\"x\\n\",\"stream\":\"stderr\"}\n");
  CHECK(result.format == "text");
  CHECK(result.texts ==
        Texts{"[rank3]: Traceback (most recent call last):", "{\"log\":\"x\\n\",\"stream\":\"stderr\"}"});
}

TEST_CASE("envelope: docker json-file: log text without its newline, stream time as UTC") {
  auto result = read_all(
      "\n"
      "{\"log\":\"[rank3]: ValueError: Total number of attention heads (32) must be divisible by tensor "
      "parallel "
      "size (6).\\n\",\"stream\":\"stderr\",\"time\":\"2021-10-20T02:35:38.970719033Z\"}\n");
  CHECK(result.format == "docker-json");
  REQUIRE(result.records.size() == 1);
  CHECK(result.records[0] == Decoded{"[rank3]: ValueError: Total number of attention heads (32) must be "
                                     "divisible by tensor parallel size (6).",
                                     2, "2021-10-20T02:35:38.970Z", "", 0});
}

TEST_CASE("envelope: docker json-file: a line split at 16 KiB is joined, per stream") {
  std::string first(16384, 'a');
  std::string bytes =
      "{\"log\":\"" + first + "\",\"stream\":\"stdout\",\"time\":\"2021-10-20T02:35:38.1Z\"}\n" +
      "{\"log\":\"error on stderr\\n\",\"stream\":\"stderr\",\"time\":\"2021-10-20T02:35:38.2Z\"}\n" +
      "{\"log\":\"the another parts\\n\",\"stream\":\"stdout\",\"time\":\"2021-10-20T02:35:38.3Z\"}\n";
  auto result = read_all(bytes);
  CHECK(result.texts == Texts{"error on stderr", first + "the another parts"});
  CHECK(result.records[1].line == 1);  // numbered from the record the line started in
  CHECK(result.records[1].time == "2021-10-20T02:35:38.100Z");
}

TEST_CASE("envelope: docker json-file: a log with several lines and a TTY's CRLF gives one Record per line") {
  auto result =
      read_all("{\"log\":\"one\\r\\ntwo\\r\\n\",\"stream\":\"stdout\",\"time\":\"2021-10-20T02:35:38Z\"}\n");
  CHECK(result.texts == Texts{"one", "two"});
  CHECK(result.records[1].line == 1);
}

TEST_CASE("envelope: docker json-file: a damaged record is counted and skipped, the file goes on") {
  auto result = read_all(
      "{\"log\":\"before\\n\",\"stream\":\"stderr\",\"time\":\"2021-10-20T02:35:38Z\"}\n"
      "{\"log\":\"cut off in the mid\n"
      "{\"log\":\"after\\n\",\"stream\":\"stderr\",\"time\":\"2021-10-20T02:35:39Z\"}\n"
      "not json at all\n");
  CHECK(result.texts == Texts{"before", "after"});
  CHECK(result.bad_lines == 2);
  CHECK(result.first_bad_line == "2: not valid JSON, line skipped");
}

TEST_CASE("envelope: docker json-file: a dangling partial line at the end is still read") {
  auto result =
      read_all("{\"log\":\"no newline\",\"stream\":\"stderr\",\"time\":\"2021-10-20T02:35:38Z\"}\n");
  CHECK(result.texts == Texts{"no newline"});
}

TEST_CASE("envelope: CRI: P partials are joined until F, +00:00 zones accepted") {
  auto result = read_all(
      "2020-12-07T15:32:38.994574754Z stdout P Hello from \n"
      "2020-12-07T15:32:38.994574755Z stderr F [rank3]: ValueError: boom\n"
      "2020-12-07T15:32:38.994574756Z stdout F init container!\n"
      "2020-01-26T03:17:29.346494690+00:00 stderr F 2020/01/26 03:17:29 provider.go:117: Defaulting "
      "client-id\n"
      "2020-01-26T05:17:29.346494690+02:00 stderr F zoned\n");
  CHECK(result.format == "cri");
  CHECK(result.texts == Texts{"[rank3]: ValueError: boom", "Hello from init container!",
                              "2020/01/26 03:17:29 provider.go:117: Defaulting client-id", "zoned"});
  CHECK(result.records[1].line == 1);
  CHECK(result.records[1].time == "2020-12-07T15:32:38.994Z");
  CHECK(result.records[3].time == "2020-01-26T03:17:29.346Z");
}

TEST_CASE("envelope: CRI: an empty F line, a dangling P, and a line that is not CRI") {
  auto result = read_all(
      "2020-12-07T15:32:38.1Z stdout F\n"
      "garbage in the middle\n"
      "2020-12-07T15:32:38.2Z stderr P dangling\n");
  CHECK(result.texts == Texts{"", "dangling"});
  CHECK(result.first_bad_line == "2: not a CRI log line, line skipped");
}

TEST_CASE("envelope: CRI: a carriage return inside the text separates segments of one line") {
  auto result = read_all("2020-12-07T15:32:38.1Z stderr F 50%\r100%\r\n");
  CHECK(result.texts == Texts{"50%", "100%"});
  CHECK(result.records[0].line == result.records[1].line);
}

TEST_CASE("envelope: journald: MESSAGE, _PID, _HOSTNAME and the microsecond realtime stamp") {
  auto result = read_all(
      "{\"__CURSOR\":\"s=1\",\"__REALTIME_TIMESTAMP\":\"1700000000123456\",\"_HOSTNAME\":\"node3\","
      "\"_PID\":\"4242\",\"_COMM\":\"python\",\"MESSAGE\":\"[rank3]: Traceback (most recent call last):\"}\n"
      "{\"__REALTIME_TIMESTAMP\":\"1700000000200000\",\"_HOSTNAME\":\"node3\",\"_PID\":\"4242\","
      "\"MESSAGE\":[91,114,97,110,107,51,93,58,32,255]}\n"
      "{\"__REALTIME_TIMESTAMP\":\"1700000000300000\",\"MESSAGE\":null}\n");
  CHECK(result.format == "journald");
  REQUIRE(result.records.size() == 2);
  CHECK(result.records[0] ==
        Decoded{"[rank3]: Traceback (most recent call last):", 1, "2023-11-14T22:13:20.123Z", "node3", 4242});
  CHECK(result.records[1].text == "[rank3]: \xff");
}

TEST_CASE("envelope: JSON lines: message, msg or log, and exc_info as further lines") {
  auto result = read_all(
      "{\"message\": \"Got exception on main handler\", \"time\": \"2021-01-22T09:22:46.028294\", "
      "\"exc_info\": "
      "\"Traceback (most recent call last):\\n  File \\\"C:\\\\Users\\\\LLIU82\\\\localtest\\\\test.py\\\", "
      "line 9, "
      "in <module>\\n    run_my_stuff()\\nNameError: name 'run_my_stuff' is not defined\"}\n"
      "{\"msg\": \"second\", \"pid\": 7, \"hostname\": \"gpu-1\"}\n");
  CHECK(result.format == "jsonl");
  CHECK(result.texts == Texts{"Got exception on main handler", "Traceback (most recent call last):",
                              "  File \"C:\\Users\\LLIU82\\localtest\\test.py\", line 9, in <module>",
                              "    run_my_stuff()", "NameError: name 'run_my_stuff' is not defined",
                              "second"});
  CHECK(result.records[4].line == 1);
  CHECK(result.records[0].time == "2021-01-22T09:22:46.028Z");
  CHECK(result.records[5] == Decoded{"second", 2, "", "gpu-1", 7});
}

TEST_CASE("envelope: torchelastic error.json: the nested shape gives the callstack's lines") {
  auto result = read_all(
      "{\"message\": {\"message\": \"ValueError: Total number of attention heads (32) must be divisible by "
      "tensor "
      "parallel size (6).\", \"extraInfo\": {\"py_callstack\": \"Traceback (most recent call last):\\n  File "
      "\\\"/app/train.py\\\", line 12, in <module>\\n    main()\\nValueError: Total number of attention "
      "heads (32) "
      "must be divisible by tensor parallel size (6).\\n\", \"timestamp\": \"1700000000\"}}}\n");
  CHECK(result.format == "torchelastic-error");
  CHECK(result.texts ==
        Texts{"Traceback (most recent call last):", "  File \"/app/train.py\", line 12, in <module>",
              "    main()",
              "ValueError: Total number of attention heads (32) must be divisible by tensor parallel "
              "size (6)."});
  CHECK(result.records[0].time == "2023-11-14T22:13:20Z");
}

TEST_CASE("envelope: torchelastic error.json: the plain shape with a top-level timestamp") {
  auto result =
      read_all("{\"message\": \"RuntimeError: CUDA error: out of memory\", \"timestamp\": 1700000000}\n");
  CHECK(result.format == "torchelastic-error");
  CHECK(result.texts == Texts{"RuntimeError: CUDA error: out of memory"});
  CHECK(result.records[0].time == "2023-11-14T22:13:20Z");
}

TEST_CASE(
    "envelope: a logger's JSON with message and timestamp and more keys is JSON lines, not an error file") {
  auto result = read_all("{\"message\": \"hi\", \"timestamp\": 1700000000, \"level\": \"INFO\"}\n");
  CHECK(result.format == "jsonl");
}

TEST_CASE("envelope: RFC 3339 timestamps: zones become UTC, across midnight and month ends") {
  using faultline::ingest::parse_rfc3339;
  CHECK(parse_rfc3339("2024-03-01T01:30:00+02:00").to_string() == "2024-02-29T23:30:00Z");
  CHECK(parse_rfc3339("2023-12-31T23:30:00-01:00").to_string() == "2024-01-01T00:30:00Z");
  CHECK(parse_rfc3339("2021-01-22 09:22:46,028").to_string() == "2021-01-22T09:22:46.028Z");
  CHECK_FALSE(parse_rfc3339("stdout F text").valid);
  CHECK(faultline::from_unix_time(0).to_string() == "1970-01-01T00:00:00Z");
}

TEST_CASE("envelope: journald: a _PID past int64_t's range is no pid, and its message is kept") {
  // 1e300 as an integer was undefined behaviour (UBSan: float-cast-overflow).
  auto result = read_all(
      "{\"__REALTIME_TIMESTAMP\":\"1700000000123456\",\"_PID\":1e300,\"MESSAGE\":\"torch.OutOfMemoryError: "
      "x\"}\n"
      "{\"__REALTIME_TIMESTAMP\":\"1700000000123456\",\"_PID\":-9.3e18,\"MESSAGE\":\"second\"}\n"
      "{\"__REALTIME_TIMESTAMP\":\"1700000000123456\",\"_PID\":4242.0,\"MESSAGE\":\"third\"}\n");
  CHECK(result.format == "journald");
  CHECK(result.texts == Texts{"torch.OutOfMemoryError: x", "second", "third"});
  REQUIRE(result.records.size() == 3);
  CHECK(result.records[0].pid == 0);
  CHECK(result.records[1].pid == 0);
  CHECK(result.records[2].pid == 4242);
}
