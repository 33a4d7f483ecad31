// ANSI escape removal (src/parse/ansi.hpp) in every spelling that reaches logs.
#include "parse/ansi.hpp"

#include <doctest/doctest.h>

#include <string>

using faultline::parse::has_ansi;

namespace {
std::string stripped(std::string_view text) {
  std::string out;
  faultline::parse::strip_ansi(text, out);
  return out;
}
}  // namespace

TEST_CASE("raw ESC sequences are removed") {
  CHECK(stripped("\x1b[36mINFO\x1b[0m text") == "INFO text");
  CHECK(stripped("\x1b[1;31mERROR\x1b[0m") == "ERROR");
  CHECK(has_ansi("\x1b[36mINFO"));
}

TEST_CASE("raw ESC sequences with a non-colour final letter are removed") {
  CHECK(stripped("progress\x1b[K done") == "progress done");
  CHECK(stripped("\x1b[2Jclear") == "clear");
}

TEST_CASE("caret-escaped sequences ^[[ are removed") {
  CHECK(stripped("^[[36mINFO^[[0m text") == "INFO text");
  CHECK(has_ansi("^[[36mINFO"));
}

TEST_CASE("spelled-out ESC[ sequences are removed") {
  CHECK(stripped("ESC[36mINFOESC[0m text") == "INFO text");
}

TEST_CASE("syslog-escaped #033[ sequences are removed") {
  CHECK(stripped("#033[36mINFO#033[0m text") == "INFO text");
}

TEST_CASE("bare colour residue is removed at the start and after non-word characters") {
  CHECK(stripped("[36mINFO [0m text") == "INFO  text");
  CHECK(stripped("[1;31m[0mERROR") == "ERROR");  // right after another residue's 'm' still counts
  CHECK(has_ansi("[36mINFO"));
}

TEST_CASE("bare residue right after a word character is left as text") {
  CHECK(stripped("x[36m") == "x[36m");
  CHECK_FALSE(has_ansi("x[36m"));
}

TEST_CASE("bare brackets that are not colour codes are left alone") {
  CHECK(stripped("[3] rank") == "[3] rank");
  CHECK(stripped("[1,3]<stderr>:") == "[1,3]<stderr>:");
  CHECK(stripped("[rank3]:") == "[rank3]:");
  CHECK_FALSE(has_ansi("[3] rank [rank3]: a[0]"));
}

TEST_CASE("a bare [m before a word is text; before a space or another code it is residue") {
  CHECK(stripped("INFO 12-01 10:00:00 [multiproc_executor.py:470] x") ==
        "INFO 12-01 10:00:00 [multiproc_executor.py:470] x");
  CHECK_FALSE(has_ansi("[multiproc_executor.py:470]"));
  CHECK(stripped("ERROR [m x") == "ERROR  x");
  CHECK(stripped("[1;36m(VllmWorker pid=9)[m [1;36m") == "(VllmWorker pid=9) ");
  CHECK(stripped("\x1b[mfoo") == "foo");
}

TEST_CASE("bare residue with a non-colour final letter is left alone") {
  CHECK(stripped("[2K text") == "[2K text");
}

TEST_CASE("a stray ESC byte with no sequence is dropped") {
  CHECK(stripped("a\x1b"
                 "b") == "ab");
  CHECK(
      has_ansi("a\x1b"
               "b"));
}

TEST_CASE("text without escapes is copied unchanged and appended") {
  std::string out = "keep:";
  faultline::parse::strip_ansi("plain text", out);
  CHECK(out == "keep:plain text");
  CHECK_FALSE(has_ansi("plain text"));
  CHECK_FALSE(has_ansi(""));
}
