// Assembler (src/assemble/assembler.hpp): lines of a log, through LineReader and LineParser,
// into Events.
#include "assemble/assembler.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/line_reader.hpp"
#include "parse/line_parser.hpp"
#include "parse_helpers.hpp"

using faultline::assemble::Event;
using faultline::assemble::EventKind;

namespace {

std::vector<Event> assemble(std::string_view text, std::optional<int> rank_hint = std::nullopt) {
  return faultline::testing::assemble_text(text, rank_hint);
}

std::vector<std::string> texts(const Event& event) {
  std::vector<std::string> out;
  for (const auto& line : event.lines) out.push_back(line.text);
  return out;
}

const Event* find_rank(const std::vector<Event>& events, int rank) {
  for (const auto& event : events) {
    if (event.rank == rank) return &event;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a traceback becomes one event with the exception as its message") {
  auto events = assemble(
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "    main()\n"
      "ValueError: heads must divide\n");
  REQUIRE(events.size() == 1);
  const Event& event = events[0];
  CHECK(event.kind == EventKind::kTraceback);
  CHECK(event.exception_type == "ValueError");
  CHECK(event.message == "ValueError: heads must divide");
  CHECK(event.message_line == 3);
  CHECK(event.lines.size() == 4);
  CHECK(event.lines[3].number == 4);
  CHECK(event.sequence == 0);
}

TEST_CASE("an exception line that ends at its colon takes the next line as its message") {
  auto events = assemble(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"train.py\", line 9, in main\n"
      "[rank0]:     raise ValueError(\n"
      "[rank0]: ValueError:\n"
      "[rank0]: the checkpoint holds no config.json\n"
      "[rank0]: next record\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].exception_type == "ValueError");
  CHECK(events[0].message == "ValueError: the checkpoint holds no config.json");
  CHECK(events[0].lines.size() == 5);

  auto bare = assemble("ValueError:   \n  tensor_parallel_size exceeds the GPUs\n");
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].kind == EventKind::kException);
  CHECK(bare[0].message == "ValueError: tensor_parallel_size exceeds the GPUs");
}

TEST_CASE(
    "a paste indented as a whole: a bare exception line, one at its frames' indentation, a rank prefix") {
  auto bare = assemble("    RuntimeError: boom in the widget\n");
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].kind == EventKind::kException);
  CHECK(bare[0].message == "RuntimeError: boom in the widget");
  auto level = assemble(
      "  File \"/opt/app/serve.py\", line 33, in __init__\n"
      "      assert heads % tp == 0\n"
      "  AssertionError\n"
      "next\n");
  REQUIRE(level.size() == 1);
  CHECK(level[0].exception_type == "AssertionError");
  CHECK(level[0].lines.size() == 3);
  auto ranked = assemble("    [rank2]: ZeroDivisionError: integer division or modulo by zero\n");
  REQUIRE(ranked.size() == 1);
  CHECK(ranked[0].rank == 2);
  CHECK(ranked[0].message == "ZeroDivisionError: integer division or modulo by zero");
  // A code line indented deeper than a quoted paste would be is not an exception.
  CHECK(assemble("            ValueError: not raised here\n").empty());
}

TEST_CASE("an exception line padded with spaces to a terminal's width still ends its traceback") {
  auto events = assemble(
      "Traceback (most recent call last):\n"
      "  File \"load.py\", line 4, in load\n"
      "    assert metadata is not None\n"
      "AssertionError                    \n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].exception_type == "AssertionError");
  CHECK(events[0].message_line == 3);
}

TEST_CASE("an exception line that ends at its colon does not take a traceback or another exception") {
  auto events = assemble(
      "RuntimeError:\n"
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "KeyError: 'x'\n");
  REQUIRE(!events.empty());
  CHECK(events[0].message.find("Traceback") == std::string::npos);
  auto ruled = assemble("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n=======\n");
  REQUIRE(!ruled.empty());
  CHECK(ruled[0].message == "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ");
  auto second = assemble("RuntimeError:\nValueError: another\n");
  REQUIRE(second.size() == 2);
  CHECK(second[0].message == "RuntimeError:");
  CHECK(second[1].message == "ValueError: another");
}

TEST_CASE("a traceback interleaved line by line with another rank's comes out whole") {
  auto events = assemble(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank1]: Traceback (most recent call last):\n"
      "[rank0]:   File \"a.py\", line 1, in f\n"
      "[rank1]:   File \"b.py\", line 2, in g\n"
      "[rank0]:     f()\n"
      "[rank1]:     g()\n"
      "[rank0]: ValueError: zero\n"
      "[rank1]: RuntimeError: one\n");
  REQUIRE(events.size() == 2);
  const Event* zero = find_rank(events, 0);
  const Event* one = find_rank(events, 1);
  REQUIRE(zero);
  REQUIRE(one);
  CHECK(zero->message == "ValueError: zero");
  CHECK(zero->exception_type == "ValueError");
  CHECK(texts(*zero) ==
        std::vector<std::string>{"Traceback (most recent call last):", "  File \"a.py\", line 1, in f",
                                 "    f()", "ValueError: zero"});
  CHECK(one->message == "RuntimeError: one");
  CHECK(one->exception_type == "RuntimeError");
  CHECK(texts(*one) ==
        std::vector<std::string>{"Traceback (most recent call last):", "  File \"b.py\", line 2, in g",
                                 "    g()", "RuntimeError: one"});
  CHECK(zero->sequence == 0);
  CHECK(one->sequence == 1);
}

TEST_CASE("an indented continuation of the exception line joins the message") {
  auto events = assemble(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "RuntimeError: first line\n"
      "    second line\n"
      "next unrelated line\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].message == "RuntimeError: first line\nsecond line");
}

TEST_CASE("chained exceptions form one event whose message is the last exception") {
  auto events = assemble(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "KeyError: 'heads'\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 5, in g\n"
      "ValueError: bad config\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kTraceback);
  CHECK(events[0].message == "ValueError: bad config");
  CHECK(events[0].exception_type == "ValueError");
  CHECK(events[0].lines[events[0].message_line].text == "ValueError: bad config");
}

TEST_CASE("a traceback Python printed and ignored is handled; the next traceback is the program's own") {
  auto events = assemble(
      "Exception ignored in: <function Bar.__del__ at 0x7f00>\n"
      "Traceback (most recent call last):\n"
      "  File \"bar.py\", line 9, in __del__\n"
      "AttributeError: 'Bar' object has no attribute 'fd'\n"
      "Traceback (most recent call last):\n"
      "  File \"main.py\", line 3, in main\n"
      "RuntimeError: real failure\n");
  REQUIRE(events.size() == 2);
  CHECK(events[0].logged_at == 'W');
  CHECK(events[0].message == "AttributeError: 'Bar' object has no attribute 'fd'");
  CHECK(events[1].logged_at == 0);
  CHECK(events[1].message == "RuntimeError: real failure");
}

TEST_CASE("a 'direct cause' chain also keeps the last exception") {
  auto events = assemble(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "OSError: disk\n"
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 9, in g\n"
      "torch.distributed.DistBackendError: NCCL error\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].message == "torch.distributed.DistBackendError: NCCL error");
  CHECK(events[0].exception_type == "torch.distributed.DistBackendError");
}

TEST_CASE("a bare exception line outside a traceback is an exception event") {
  auto events = assemble("some output\nValueError: x\nmore output\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kException);
  CHECK(events[0].message == "ValueError: x");
  CHECK(events[0].exception_type == "ValueError");
  CHECK(events[0].lines.at(events[0].message_line).text == "ValueError: x");
}

TEST_CASE("a bare exception event holds its line once") {
  auto events = assemble("some output\nValueError: x\nmore output\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].lines.size() == 1);
  CHECK(events[0].message_line == 0);
}

TEST_CASE("a name: text line without an exception-like name outside a traceback is no event") {
  auto events = assemble("Loading: 50%\nNote: nothing\n");
  CHECK(events.empty());
}

TEST_CASE("terminate called / what() gives the C++ exception and its text") {
  auto events = assemble(
      "terminate called after throwing an instance of 'c10::DistBackendError'\n"
      "  what():  [PG 0 Rank 3] Watchdog caught collective operation timeout\n"
      "Exception raised from checkTimeout at ProcessGroupNCCL.cpp:1\n"
      "frame #0: c10::Error::Error() + 0x1 (0x7f in libc10.so)\n"
      "after\n");
  REQUIRE(events.size() == 1);
  const Event& event = events[0];
  CHECK(event.kind == EventKind::kTerminate);
  CHECK(event.exception_type == "c10::DistBackendError");
  CHECK(event.message == "c10::DistBackendError: [PG 0 Rank 3] Watchdog caught collective operation timeout");
  CHECK(event.message_line == 1);
  CHECK(event.lines.size() == 4);
}

TEST_CASE("a glog E line is a log error event with the text after the header") {
  auto events = assemble("E1129 10:22:33.123456 12 f.cc:1] CUDA error: out of memory\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kLogError);
  CHECK(events[0].message == "CUDA error: out of memory");
  CHECK(events[0].time.valid);
  CHECK_FALSE(events[0].time_inherited);
}

TEST_CASE("a c10 E line is a log error event with the rank and the text after the header") {
  auto events = assemble(
      "[rank1]:[E1129 10:22:33.123456789 ProcessGroupNCCL.cpp:1664] NCCL communicator was aborted\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kLogError);
  CHECK(events[0].rank == 1);
  CHECK(events[0].message == "NCCL communicator was aborted");
}

TEST_CASE("a logger line below ERROR is no event") {
  auto events =
      assemble("W1129 10:22:33.123456 12 f.cc:1] careful\n2026-11-29 10:22:33,123 - x - INFO - fine\n");
  CHECK(events.empty());
}

TEST_CASE("an NCCL WARN line is a single-line event") {
  auto events = assemble(
      "node1:123:456 [3] NCCL INFO Init\n"
      "node1:123:456 [3] NCCL WARN Cuda failure 'out of memory'\n"
      "node1:123:456 [3] NCCL INFO next\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kNcclWarn);
  CHECK(events[0].message == "Cuda failure 'out of memory'");
  CHECK(events[0].lines.size() == 1);
  CHECK(events[0].lines[0].number == 2);
}

TEST_CASE("an SGLang traceback prefixed on its first line continues on unprefixed lines") {
  auto events = assemble(
      "[2026-11-29 10:22:33 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
      "  File \"scheduler.py\", line 10, in run\n"
      "    self.step()\n"
      "ValueError: bad shard\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].rank == 3);
  CHECK(events[0].message == "ValueError: bad shard");
  CHECK(events[0].lines.size() == 4);
  CHECK(events[0].time.valid);
}

TEST_CASE("TGI's ' rank=N' line after the error sets the rank") {
  auto events = assemble(
      "Traceback (most recent call last):\n"
      "  File \"server.py\", line 1, in serve\n"
      "AssertionError: 32 heads on 3 shards\n"
      " rank=9\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].rank == 9);
  CHECK(events[0].message == "AssertionError: 32 heads on 3 shards");
}

TEST_CASE("'-- Process N terminated with the following error:' sets the rank of the next event") {
  auto events = assemble(
      "-- Process 5 terminated with the following error:\n"
      "Traceback (most recent call last):\n"
      "  File \"spawn.py\", line 1, in _wrap\n"
      "RuntimeError: boom\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].rank == 5);
  CHECK(events[0].message == "RuntimeError: boom");
}

TEST_CASE("a traceback pasted without its header starts at its first frame and keeps the code line before") {
  auto events = assemble(
      "    model = build(cfg)\n"
      "  File \"model.py\", line 7, in build\n"
      "    assert heads % tp == 0\n"
      "AssertionError: heads\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kTraceback);
  CHECK(texts(events[0]) == std::vector<std::string>{"    model = build(cfg)",
                                                     "  File \"model.py\", line 7, in build",
                                                     "    assert heads % tp == 0", "AssertionError: heads"});
  CHECK(events[0].message == "AssertionError: heads");
  CHECK(events[0].lines[events[0].message_line].text == "AssertionError: heads");
}

TEST_CASE("a headerless traceback indented as a whole ends at its exception, indented less than its frames") {
  // torchelastic's error-file block prints the worker's traceback so, without its header.
  auto events = assemble(
      "    File \"/x/train.py\", line 256, in __init__\n"
      "      model = f()\n"
      "  ValueError: Mesh is not available.\n"
      "next step\n");
  REQUIRE_FALSE(events.empty());
  CHECK(events[0].kind == EventKind::kTraceback);
  CHECK(events[0].exception_type == "ValueError");
  CHECK(events[0].message == "ValueError: Mesh is not available.");
}

TEST_CASE("a pasted traceback does not keep an unindented line before it") {
  auto events = assemble(
      "plain text\n"
      "  File \"model.py\", line 7, in build\n"
      "AssertionError: heads\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].lines.size() == 2);
  CHECK(events[0].lines[0].text == "  File \"model.py\", line 7, in build");
}

TEST_CASE("an event keeps at most kMaxLines lines and counts the rest") {
  std::string text = "Traceback (most recent call last):\n";
  for (int i = 0; i < 300; ++i) text += "  File \"a.py\", line " + std::to_string(i) + ", in f\n";
  text += "ValueError: deep\n";
  auto events = assemble(text);
  REQUIRE(events.size() == 1);
  CHECK(events[0].lines.size() == Event::kMaxLines);
  CHECK(events[0].lines_dropped == 302 - Event::kMaxLines);
  CHECK(events[0].message == "ValueError: deep");
}

TEST_CASE("the rank hint gives an unprefixed event its rank") {
  auto events = assemble("ValueError: x\n", 6);
  REQUIRE(events.size() == 1);
  CHECK(events[0].rank == 6);
}

TEST_CASE("an event takes the time carried from the line before it and says so") {
  auto events = assemble(
      "[rank2]: 2026-11-29 10:22:33,000 - x - INFO - starting\n"
      "[rank2]: ValueError: x\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].time.valid);
  CHECK(events[0].time_inherited);
  CHECK(events[0].time.to_string() == "2026-11-29T10:22:33Z");
}

TEST_CASE("full_text joins the lines' text with newlines") {
  auto events = assemble(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"a.py\", line 1, in f\n"
      "[rank0]: ValueError: x\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].full_text() ==
        "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nValueError: x");
  CHECK(events[0].lines[0].display == "[rank0]: Traceback (most recent call last):");
}

TEST_CASE("EventKind names") {
  CHECK(std::string(to_string(EventKind::kTraceback)) == "traceback");
  CHECK(std::string(to_string(EventKind::kException)) == "exception");
  CHECK(std::string(to_string(EventKind::kLogError)) == "log_error");
  CHECK(std::string(to_string(EventKind::kTerminate)) == "terminate");
  CHECK(std::string(to_string(EventKind::kNcclWarn)) == "nccl_warn");
}

TEST_CASE(
    "a traceback torchelastic indents under 'traceback :' in its failure summary ends at its exception") {
  auto events = assemble(
      "  error_file: /tmp/torchelastic_x/attempt_0/2/error.json\n"
      "  traceback : Traceback (most recent call last):\n"
      "    File \"/srv/app/train.py\", line 40, in main\n"
      "      model = build(cfg)\n"
      "    File \"/srv/app/model.py\", line 22, in build\n"
      "      assert cfg.num_heads % cfg.tp == 0\n"
      "  AssertionError\n"
      "============================================================\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kTraceback);
  CHECK(events[0].exception_type == "AssertionError");
  CHECK(events[0].message == "AssertionError");
  CHECK(events[0].lines.size() == 6);
}

TEST_CASE("a frame line cut off at its left by a paste is a frame, and starts a traceback") {
  using faultline::assemble::is_frame_header;
  CHECK(is_frame_header("File \"/srv/model.py\", line 53, in __init__"));
  CHECK(is_frame_header("models/chatglm.py\", line 53, in __init__"));
  CHECK_FALSE(is_frame_header("see models/chatglm.py\", line 53, in __init__"));  // prose before it
  CHECK_FALSE(is_frame_header("chatglm.py\", line fifty, in __init__"));
  CHECK_FALSE(is_frame_header("notes.txt\", line 53, in __init__"));
  auto events = assemble(
      "vllm/model_executor/models/chatglm.py\", line 53, in __init__\n"
      "    assert self.total_num_kv_heads % tp_size == 0\n"
      "AssertionError\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kTraceback);
  CHECK(events[0].exception_type == "AssertionError");
  CHECK(events[0].lines.size() == 3);
}

TEST_CASE("a bare AssertionError keeps the assert statement printed above it") {
  auto events = assemble(
      "    assert in_features % self.tp_world_size == 0\n"
      "AssertionError\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::kException);
  CHECK(texts(events[0]) ==
        std::vector<std::string>{"    assert in_features % self.tp_world_size == 0", "AssertionError"});
  CHECK(events[0].message_line == 1);
  // Another exception keeps no code line: only an assert is the statement that raised it.
  auto other = assemble(
      "    assert ready\n"
      "ValueError: bad size\n");
  REQUIRE(other.size() == 1);
  CHECK(other[0].lines.size() == 1);
}
