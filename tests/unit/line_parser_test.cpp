// LineParser (src/parse/line_parser.hpp): launcher prefixes, log headers, timestamps, ANSI.
#include "parse/line_parser.hpp"

#include <doctest/doctest.h>

#include <string>

#include "ingest/envelope_time.hpp"
#include "parse_helpers.hpp"

using faultline::make_timestamp;
using faultline::Timestamp;
using faultline::parse::LineParser;
using faultline::testing::copy;
using faultline::testing::Parsed;

namespace {

Parsed parse_with(LineParser& parser, const std::string& text, std::optional<int> rank_hint = std::nullopt,
                  uint32_t source = 0, uint64_t number = 1) {
  faultline::ingest::Record record{text, source, number, {}, 0, {}};
  return copy(parser.parse(record, rank_hint));
}

Parsed parse_one(const std::string& text, std::optional<int> rank_hint = std::nullopt) {
  LineParser parser;
  return parse_with(parser, text, rank_hint);
}

std::string time_of(const Parsed& line) {
  return line.time.to_string();
}

}  // namespace

TEST_CASE("a line with no prefix is its own text, with no rank, time or severity") {
  auto line = parse_one("hello world");
  CHECK(line.text == "hello world");
  CHECK(line.display == "hello world");
  CHECK(line.rank == -1);
  CHECK(line.local_rank == -1);
  CHECK_FALSE(line.rank_from_prefix);
  CHECK_FALSE(line.time.valid);
  CHECK(line.severity == 0);
}

TEST_CASE("torchrun [rankN]: sets the global rank") {
  auto line = parse_one("[rank3]: ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 3);
  CHECK(line.rank_from_prefix);
  CHECK(line.local_rank == -1);
  CHECK(line.display == "[rank3]: ValueError: x");
}

TEST_CASE("torchrun [defaultN]: sets the local rank only") {
  auto line = parse_one("[default3]:ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.local_rank == 3);
  CHECK(line.rank == -1);
  CHECK_FALSE(line.rank_from_prefix);
}

TEST_CASE("stacked torchrun prefixes [default0]:[rank5]:") {
  auto line = parse_one("[default0]:[rank5]: Traceback (most recent call last):");
  CHECK(line.text == "Traceback (most recent call last):");
  CHECK(line.local_rank == 0);
  CHECK(line.rank == 5);
  CHECK(line.rank_from_prefix);
}

TEST_CASE("srun --label with a space-padded task number") {
  auto line = parse_one(" 3: ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 3);
  CHECK(line.rank_from_prefix);
}

TEST_CASE("srun --label with a zero-padded task number") {
  auto line = parse_one("03: ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 3);
}

TEST_CASE("srun label keeps the leading indentation of the message") {
  auto line = parse_one("1:   File \"x.py\", line 3, in f");
  CHECK(line.rank == 1);
  CHECK(line.text == "  File \"x.py\", line 3, in f");
}

TEST_CASE("a number with a colon inside the message is not an srun label") {
  auto line = parse_one("[rank0]: 3: not a label");
  CHECK(line.rank == 0);
  CHECK(line.text == "3: not a label");
}

TEST_CASE("Open MPI [job,rank]<stderr>: tag") {
  auto line = parse_one("[1,3]<stderr>:ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 3);
  CHECK(line.rank_from_prefix);
}

TEST_CASE("PRRTE [host@job,rank]<stdout>: tag") {
  auto line = parse_one("[prterun-node1-12@1,7]<stdout>: hello");
  CHECK(line.text == "hello");
  CHECK(line.rank == 7);
}

TEST_CASE("Open MPI tag with ctime glued in front sets the time") {
  auto line = parse_one("Sat Nov 29 10:22:33 2026[1,5]<stderr>:ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 5);
  CHECK(time_of(line) == "2026-11-29T10:22:33Z");
  CHECK_FALSE(line.time_inherited);
}

TEST_CASE("Open MPI ctime with a space-padded day") {
  auto line = parse_one("Mon Dec  1 08:00:01 2026[1,0]<stderr>:x");
  CHECK(line.text == "x");
  CHECK(line.rank == 0);
  CHECK(time_of(line) == "2026-12-01T08:00:01Z");
}

TEST_CASE("MPICH [N] prefix at the start of the line") {
  auto line = parse_one("[3] ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 3);
  CHECK(line.rank_from_prefix);
}

TEST_CASE("MPICH-like [N] inside a message is left alone") {
  auto line = parse_one("[rank1]: got [3] items");
  CHECK(line.rank == 1);
  CHECK(line.text == "got [3] items");
}

TEST_CASE("vLLM worker prefix with rank and pid, then the vLLM log header") {
  auto line = parse_one("(VllmWorker rank=2 pid=9) ERROR 11-29 10:22:33 [x.py:1] msg");
  CHECK(line.text == "msg");
  CHECK(line.rank == 2);
  CHECK(line.rank_from_prefix);
  CHECK(line.pid == 9);
  CHECK(line.severity == 'E');
  CHECK(time_of(line) == "11-29T10:22:33");
  CHECK(line.time.year == 0);
}

TEST_CASE("older vLLM header without brackets round the location") {
  auto line = parse_one("INFO 11-29 10:22:33 llm_engine.py:72] Initializing");
  CHECK(line.text == "Initializing");
  CHECK(line.severity == 'I');
}

TEST_CASE("Ray worker prefix gives the pid and host, and no rank") {
  auto line = parse_one("(RayWorkerWrapper pid=4823, ip=10.0.0.1) ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.pid == 4823);
  CHECK(line.host == "10.0.0.1");
  CHECK(line.rank == -1);
  CHECK_FALSE(line.rank_from_prefix);
}

TEST_CASE("vLLM Worker_TPn prefix gives the rank") {
  auto line = parse_one("(Worker_PP0_TP1 pid=9) hello");
  CHECK(line.text == "hello");
  CHECK(line.rank == 1);
  CHECK(line.pid == 9);
}

TEST_CASE("a parenthesis without pid= is message text") {
  auto line = parse_one("(not a prefix) text");
  CHECK(line.text == "(not a prefix) text");
  CHECK(line.pid == 0);
}

TEST_CASE("SGLang [date TPn] prefix gives the rank and time") {
  auto line = parse_one("[2026-11-29 10:22:33 TP3] Scheduler hit an exception");
  CHECK(line.text == "Scheduler hit an exception");
  CHECK(line.rank == 3);
  CHECK(line.rank_from_prefix);
  CHECK(time_of(line) == "2026-11-29T10:22:33Z");
}

TEST_CASE("SGLang prefix with several parallel tags takes the TP one") {
  auto line = parse_one("[2026-11-29 10:22:33.816 DP0 TP2 EP0] msg");
  CHECK(line.text == "msg");
  CHECK(line.rank == 2);
  CHECK(time_of(line) == "2026-11-29T10:22:33.816Z");
}

TEST_CASE("DeepSpeed [date] [LEVEL] [location] header") {
  auto line = parse_one("[2026-11-29 10:22:33,902] [ERROR] [launch.py:78:main] failed");
  CHECK(line.text == "failed");
  CHECK(line.severity == 'E');
  CHECK(time_of(line) == "2026-11-29T10:22:33.902Z");
  CHECK(line.rank == -1);
}

TEST_CASE("c10 header after a torchrun prefix gives severity and a monotonic time") {
  auto line = parse_one("[rank1]:[E1129 10:22:33.123456789 ProcessGroupNCCL.cpp:1664] msg");
  CHECK(line.text == "msg");
  CHECK(line.rank == 1);
  CHECK(line.severity == 'E');
  CHECK(line.time.valid);
  CHECK(line.time.month == 11);
  CHECK(line.time.day == 29);
  CHECK(line.time.hour == 10);
  CHECK(line.time.minute == 22);
  CHECK(line.time.second == 33);
  CHECK(line.time.nanos == 123456789);
  CHECK_FALSE(line.time.fraction_is_wall_clock);
  CHECK(line.time.year == 0);
}

TEST_CASE("old c10 header without a time gives severity only") {
  auto line = parse_one("[W ProcessGroupNCCL.cpp:737] careful");
  CHECK(line.text == "careful");
  CHECK(line.severity == 'W');
  CHECK_FALSE(line.time.valid);
}

TEST_CASE("glog header gives severity and a wall-clock time") {
  auto line = parse_one("E1129 10:22:33.123456 12 f.cc:1] msg");
  CHECK(line.text == "msg");
  CHECK(line.severity == 'E');
  CHECK(line.time.nanos == 123456000);
  CHECK(line.time.fraction_is_wall_clock);
  CHECK(time_of(line) == "11-29T10:22:33.123");
}

TEST_CASE("Python logging with name and level") {
  auto line = parse_one("2026-11-29 10:22:33,123 - name - ERROR - msg");
  CHECK(line.text == "msg");
  CHECK(line.severity == 'E');
  CHECK(time_of(line) == "2026-11-29T10:22:33.123Z");
}

TEST_CASE("Python logging with level only") {
  auto line = parse_one("2026-11-29 10:22:33,123 - WARNING - careful");
  CHECK(line.text == "careful");
  CHECK(line.severity == 'W');
}

TEST_CASE("Python logging with a bare level word") {
  auto line = parse_one("2026-11-29 10:22:33,123 CRITICAL boom");
  CHECK(line.text == "boom");
  CHECK(line.severity == 'F');
}

TEST_CASE("a syslog header gives the time without a year, the host and the program's pid") {
  auto kernel =
      parse_one("Apr 17 04:31:47 dgx-b12 kernel: NVRM: Xid (PCI:0000:b7:00): 48, pid=22, name=python");
  CHECK(kernel.text == "NVRM: Xid (PCI:0000:b7:00): 48, pid=22, name=python");
  CHECK(kernel.host == "dgx-b12");
  CHECK(time_of(kernel) == "04-17T04:31:47");
  auto program = parse_one("Dec  1 09:05:00 node-3 python[4412]: RuntimeError: boom");
  CHECK(program.text == "RuntimeError: boom");
  CHECK(program.host == "node-3");
  CHECK(program.pid == 4412);
  // Not a syslog header: a month name that starts prose, a ctime() stamp.
  CHECK(parse_one("May 3 things went wrong: all of them").host.empty());
  CHECK(parse_one("Sat Nov 29 10:22:33 2026[1,5]<stderr>:hello").rank == 5);
}

TEST_CASE("ISO-8601 timestamp prefix as kubectl --timestamps writes it") {
  auto line = parse_one("2026-11-29T10:22:33.123456789Z [rank2]: hello");
  CHECK(line.text == "hello");
  CHECK(line.rank == 2);
  CHECK(time_of(line) == "2026-11-29T10:22:33.123Z");
}

TEST_CASE("ISO-8601 timestamp with a zone offset is the same instant as an envelope's") {
  auto line = parse_one("2026-11-29T10:22:33+02:00 hello");
  CHECK(line.text == "hello");
  CHECK(time_of(line) == "2026-11-29T08:22:33Z");
  // The line prefix and a container envelope read one parser: the zone counts in both.
  CHECK(time_of(line) == faultline::ingest::parse_rfc3339("2026-11-29T10:22:33+02:00").to_string());
  CHECK(time_of(parse_one("2026-11-29 03:22:33-0500 hello")) == "2026-11-29T08:22:33Z");
}

TEST_CASE("Lightning [rank: N] prefix") {
  auto line = parse_one("[rank: 1] hello");
  CHECK(line.text == "hello");
  CHECK(line.rank == 1);
}

TEST_CASE("raw ANSI escapes are removed from text and display") {
  auto line = parse_one("\x1b[36m(VllmWorker rank=1 pid=5)\x1b[0m ERROR 11-29 10:22:33 [x.py:1] msg");
  CHECK(line.text == "msg");
  CHECK(line.display == "(VllmWorker rank=1 pid=5) ERROR 11-29 10:22:33 [x.py:1] msg");
  CHECK(line.rank == 1);
  CHECK(line.severity == 'E');
}

TEST_CASE("caret-escaped ANSI ^[[36m is removed") {
  auto line = parse_one("^[[36m[rank2]:^[[0m hello");
  CHECK(line.display == "[rank2]: hello");
  CHECK(line.text == "hello");
  CHECK(line.rank == 2);
}

TEST_CASE("spelled-out ANSI ESC[36m is removed") {
  auto line = parse_one("ESC[1;31mValueError: xESC[0m");
  CHECK(line.text == "ValueError: x");
}

TEST_CASE("bare ANSI residue [36m at the start is removed") {
  auto line = parse_one("[36m[rank4]:[0m ValueError: x");
  CHECK(line.display == "[rank4]: ValueError: x");
  CHECK(line.text == "ValueError: x");
  CHECK(line.rank == 4);
}

TEST_CASE("Markdown bold around a pasted message is removed") {
  auto line = parse_one("**ValueError: x**");
  CHECK(line.text == "ValueError: x");
  CHECK(line.display == "**ValueError: x**");
}

TEST_CASE("Markdown bold is removed after a prefix too") {
  auto line = parse_one("[rank0]: **RuntimeError: y**  ");
  CHECK(line.text == "RuntimeError: y");
}

TEST_CASE("stars that are no Markdown bold stay: glibc's *** banner, a rule of stars") {
  CHECK(
      parse_one("*** Error in `python': double free or corruption (fasttop): 0x00007f3a2c000b20 ***").text ==
      "*** Error in `python': double free or corruption (fasttop): 0x00007f3a2c000b20 ***");
  CHECK(parse_one("** done **").text == "** done **");
  CHECK(parse_one("**********").text == "**********");
}

TEST_CASE("the rank hint is used when no prefix names a rank") {
  auto line = parse_one("ValueError: x", 7);
  CHECK(line.rank == 7);
  CHECK_FALSE(line.rank_from_prefix);
}

TEST_CASE("a prefix rank beats the rank hint") {
  auto line = parse_one("[rank2]: ValueError: x", 7);
  CHECK(line.rank == 2);
  CHECK(line.rank_from_prefix);
}

TEST_CASE("the time is carried to later lines of the same rank and source") {
  LineParser parser;
  auto first = parse_with(parser, "[rank1]:[E1129 10:22:33.000000001 ProcessGroupNCCL.cpp:1] oops", {}, 0, 1);
  auto second = parse_with(parser, "[rank1]: Traceback (most recent call last):", {}, 0, 2);
  CHECK_FALSE(first.time_inherited);
  CHECK(second.time_inherited);
  REQUIRE(second.time.valid);
  CHECK(faultline::compare(second.time, first.time) == 0);
  CHECK(second.time.second == 33);
}

TEST_CASE("the time is not carried to another rank") {
  LineParser parser;
  parse_with(parser, "[rank1]:[E1129 10:22:33.000000001 f.cpp:1] oops");
  auto other = parse_with(parser, "[rank2]: Traceback (most recent call last):");
  CHECK_FALSE(other.time.valid);
  CHECK_FALSE(other.time_inherited);
}

TEST_CASE("the time is not carried to another source") {
  LineParser parser;
  parse_with(parser, "[rank1]:[E1129 10:22:33.000000001 f.cpp:1] oops", {}, 0);
  auto other = parse_with(parser, "[rank1]: Traceback (most recent call last):", {}, 1);
  CHECK_FALSE(other.time.valid);
}

TEST_CASE("the carried time is the latest one of the rank") {
  LineParser parser;
  parse_with(parser, "[rank1]: 2026-11-29 10:00:00,000 - x - INFO - a");
  parse_with(parser, "[rank1]: 2026-11-29 10:05:00,000 - x - INFO - b");
  auto carried = parse_with(parser, "[rank1]: c");
  CHECK(carried.time_inherited);
  CHECK(time_of(carried) == "2026-11-29T10:05:00Z");
}

TEST_CASE("the line number and source come from the record") {
  LineParser parser;
  faultline::ingest::Record record{"hello", 4, 17, {}, 0, {}};
  auto line = parser.parse(record, std::nullopt);
  CHECK(line.source == 4);
  CHECK(line.number == 17);
}

TEST_CASE("a line that can date no rank is told from its first bytes") {
  using faultline::parse::cannot_date;
  CHECK(cannot_date("[rank5]: [2026-11-29 10:00:00] step 3", 3));
  CHECK_FALSE(cannot_date("[rank3]: [2026-11-29 10:00:00] step 3", 3));
  CHECK(cannot_date("[default1]:[rank5]: step", 3));
  CHECK_FALSE(cannot_date("[default3]:[rank3]: step", 3));
  CHECK(cannot_date("node5:9279:9533 [3] NCCL INFO AllGather: opCount 1", 3));
  CHECK(cannot_date("[default3]:node5:9279:9533 [3] NCCL INFO Channel 00/0", 3));
  // A time before the NCCL prefix, or no prefix at all: only a parse can tell.
  CHECK_FALSE(cannot_date("2026-11-29 10:00:00 node5:9279:9533 [3] NCCL INFO Init", 3));
  CHECK_FALSE(cannot_date("ERROR worker [rank7] died", 3));
  CHECK_FALSE(cannot_date("", 3));
}
