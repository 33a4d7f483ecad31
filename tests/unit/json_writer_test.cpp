// JsonWriter (src/base/json_writer.hpp): escaping, layout, inline arrays.
#include "base/json_writer.hpp"

#include <doctest/doctest.h>

#include <limits>

using namespace faultline;

namespace {
std::string escaped(std::string_view text) {
  std::string out;
  append_json_escaped(out, text);
  return out;
}
}  // namespace

TEST_CASE("escaping quotes and backslashes") {
  CHECK(escaped("say \"hi\"") == R"("say \"hi\"")");
  CHECK(escaped("C:\\path") == R"("C:\\path")");
}

TEST_CASE("escaping newline, carriage return and tab as short escapes") {
  CHECK(escaped("a\nb\rc\td") == R"("a\nb\rc\td")");
}

TEST_CASE("escaping other control characters and DEL as \\u00XX") {
  CHECK(escaped(std::string_view("\x01\x1b[0m\x7f", 6)) == R"("\u0001\u001b[0m\u007f")");
  CHECK(escaped(std::string_view("a\0b", 3)) == R"("a\u0000b")");
}

TEST_CASE("valid UTF-8 passes through unchanged") {
  CHECK(escaped("\xc3\xa9t\xc3\xa9") == "\"\xc3\xa9t\xc3\xa9\"");  // 2-byte
  CHECK(escaped("TP=2\xc3\x97PP=4") == "\"TP=2\xc3\x97PP=4\"");
  CHECK(escaped("\xe2\x82\xac") == "\"\xe2\x82\xac\"");          // 3-byte
  CHECK(escaped("\xf0\x9f\x94\xa5") == "\"\xf0\x9f\x94\xa5\"");  // 4-byte
}

TEST_CASE("invalid UTF-8 bytes become \\ufffd") {
  CHECK(escaped("a\xff"
                "b") == R"("a\ufffdb")");
  CHECK(escaped("\x80") == R"("\ufffd")");
  CHECK(escaped("\xc0\xaf") == R"("\ufffd\ufffd")");  // 0xc0 is never a lead byte
  CHECK(escaped("x\xc3") == R"("x\ufffd")");          // sequence cut at the end
  CHECK(escaped("\xe2\x82"
                "A") == R"("\ufffd\ufffdA")");  // continuation missing
}

TEST_CASE("bytes 0xf8 to 0xff never start a sequence") {
  CHECK(escaped("\xff\x80\x80") == R"("\ufffd\ufffd\ufffd")");
  CHECK(escaped("\xf8\x88\x80\x80") == R"("\ufffd\ufffd\ufffd\ufffd")");
}

TEST_CASE("overlong, surrogate and out-of-range sequences become \\ufffd") {
  CHECK(escaped("\xe0\x80\x80").find("\\ufffd") != std::string::npos);
  CHECK(escaped("\xed\xa0\x80").find("\\ufffd") != std::string::npos);
  CHECK(escaped("\xf4\x90\x80\x80").find("\\ufffd") != std::string::npos);
}

TEST_CASE("pretty objects put one key per line, indented by two") {
  JsonWriter writer;
  writer.begin_object().key("a").number(int64_t{1}).key("b").string("x").end_object();
  CHECK(writer.text() == "{\n  \"a\": 1,\n  \"b\": \"x\"\n}");
}

TEST_CASE("empty containers stay on one line") {
  JsonWriter writer;
  writer.begin_object()
      .key("list")
      .begin_array()
      .end_array()
      .key("map")
      .begin_object()
      .end_object()
      .end_object();
  CHECK(writer.text() == "{\n  \"list\": [],\n  \"map\": {}\n}");
}

TEST_CASE("nested containers indent by depth") {
  JsonWriter writer;
  writer.begin_object().key("items").begin_array().number(int64_t{1}).null().end_array().end_object();
  CHECK(writer.text() == "{\n  \"items\": [\n    1,\n    null\n  ]\n}");
}

TEST_CASE("inline arrays print their scalars on one line") {
  JsonWriter writer;
  writer.begin_object().key("ranks").begin_inline_array();
  writer.number(int64_t{0}).number(int64_t{1}).number(int64_t{2});
  writer.end_array().key("next").boolean(true).end_object();
  CHECK(writer.text() == "{\n  \"ranks\": [0, 1, 2],\n  \"next\": true\n}");
}

TEST_CASE("an empty inline array is []") {
  JsonWriter writer;
  writer.begin_object().key("ranks").begin_inline_array().end_array().end_object();
  CHECK(writer.text() == "{\n  \"ranks\": []\n}");
}

TEST_CASE("value writes lists as inline arrays") {
  JsonWriter writer;
  writer.begin_object();
  writer.key("divisors").value(Value(IntList{1, 2, 4}));
  writer.key("layouts").value(Value(StringList{"TP=1", "TP=2"}));
  writer.key("heads").value(Value(int64_t{32}));
  writer.key("op").value(Value(std::string("ALLREDUCE")));
  writer.end_object();
  CHECK(writer.text() ==
        "{\n  \"divisors\": [1, 2, 4],\n  \"layouts\": [\"TP=1\", \"TP=2\"],\n  \"heads\": 32,\n"
        "  \"op\": \"ALLREDUCE\"\n}");
}

TEST_CASE("compact output has no spaces or newlines") {
  JsonWriter writer(false);
  writer.begin_object().key("a").number(int64_t{1}).key("b").begin_inline_array();
  writer.number(int64_t{1}).number(int64_t{2}).end_array().key("c").begin_array().string("x").end_array();
  writer.end_object();
  CHECK(writer.text() == R"({"a":1,"b":[1,2],"c":["x"]})");
}

TEST_CASE("doubles print with three significant digits, non-finite ones as null") {
  JsonWriter writer(false);
  writer.begin_array().number(0.8).number(0.25).number(1.0 / 3).number(
      std::numeric_limits<double>::infinity());
  writer.number(std::numeric_limits<double>::quiet_NaN()).end_array();
  CHECK(writer.text() == "[0.8,0.25,0.333,null,null]");
}

TEST_CASE("keys are escaped like strings") {
  JsonWriter writer(false);
  writer.begin_object().key("a\"b").number(int64_t{1}).end_object();
  CHECK(writer.text() == R"({"a\"b":1})");
}

TEST_CASE("take hands over the text") {
  JsonWriter writer(false);
  writer.begin_array().end_array();
  CHECK(writer.take() == "[]");
}
