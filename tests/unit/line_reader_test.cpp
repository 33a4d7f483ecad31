// LineReader (src/ingest/line_reader.hpp) over memory sources: line ends, carriage-return
// segments, cut lines, binary input, and lines spanning blocks.
#include "ingest/line_reader.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../e2e/scratch.hpp"
#include "ingest/byte_source.hpp"
#include "ingest/mapped_file.hpp"

using faultline::ingest::LineReader;
using faultline::ingest::Record;

namespace {

using Lines = std::vector<std::pair<std::string, uint64_t>>;  // text, line number

struct ReadResult {
  Lines lines;
  std::string status;  // empty when ok
  uint64_t lines_cut = 0;
  uint64_t line_count = 0;
  uint64_t bytes = 0;
};

ReadResult read_with(std::string_view bytes, size_t block_bytes, bool lend) {
  auto source = faultline::ingest::memory_source(bytes, lend);
  LineReader reader(*source, 5, block_bytes);
  ReadResult result;
  Record record;
  while (reader.next(record)) {
    CHECK(record.source == 5);
    result.lines.emplace_back(std::string(record.text), record.line);
  }
  if (!reader.status()) result.status = reader.status().message();
  result.lines_cut = reader.lines_cut();
  result.line_count = reader.lines();
  result.bytes = reader.bytes();
  return result;
}

// Read twice, taking views of the bytes (as of a mapped file) and copying them (as from a pipe):
// both must give the same.
ReadResult read_all(std::string_view bytes, size_t block_bytes = LineReader::kBlockBytes) {
  ReadResult lent = read_with(bytes, block_bytes, true);
  ReadResult copied = read_with(bytes, block_bytes, false);
  CHECK(lent.lines == copied.lines);
  CHECK(lent.status == copied.status);
  CHECK(lent.lines_cut == copied.lines_cut);
  CHECK(lent.line_count == copied.line_count);
  CHECK(lent.bytes == copied.bytes);
  return lent;
}

}  // namespace

TEST_CASE("lines come out without their newline, numbered from 1") {
  auto result = read_all("first\nsecond\n");
  CHECK(result.lines == Lines{{"first", 1}, {"second", 2}});
  CHECK(result.status == "");
  CHECK(result.line_count == 2);
  CHECK(result.bytes == 13);
}

TEST_CASE("CRLF line ends lose the carriage return") {
  auto result = read_all("a\r\nb\r\n");
  CHECK(result.lines == Lines{{"a", 1}, {"b", 2}});
}

TEST_CASE("a single line without a newline is read") {
  auto result = read_all("only");
  CHECK(result.lines == Lines{{"only", 1}});
  CHECK(result.line_count == 1);
}

TEST_CASE("the last line without a newline is read after a longer line") {
  auto result = read_all("first line\nlast");
  CHECK(result.lines == Lines{{"first line", 1}, {"last", 2}});
}

TEST_CASE("the last line without a newline is read after a shorter line") {
  auto result = read_all("a\nlast");
  CHECK(result.lines == Lines{{"a", 1}, {"last", 2}});
  CHECK(result.line_count == 2);
}

TEST_CASE("the last line without a newline loses a trailing carriage return") {
  auto result = read_all("a\r\nlast\r");
  CHECK(result.lines == Lines{{"a", 1}, {"last", 2}});
}

TEST_CASE("the last line without a newline loses a trailing carriage return after a longer line") {
  auto result = read_all("first line\r\nlast\r");
  CHECK(result.lines == Lines{{"first line", 1}, {"last", 2}});
}

TEST_CASE("blank lines are records too") {
  auto result = read_all("a\n\nb\n");
  CHECK(result.lines == Lines{{"a", 1}, {"", 2}, {"b", 3}});
}

TEST_CASE("empty input gives no records and no error") {
  auto result = read_all("");
  CHECK(result.lines.empty());
  CHECK(result.status == "");
  CHECK(result.line_count == 0);
}

TEST_CASE("a lone carriage return splits a line into segments with the same line number") {
  auto result = read_all("start\n 10%\r 50%\r100%\nend\n");
  CHECK(result.lines == Lines{{"start", 1}, {" 10%", 2}, {" 50%", 2}, {"100%", 2}, {"end", 3}});
  CHECK(result.line_count == 3);
}

TEST_CASE("empty carriage-return segments are skipped") {
  auto result = read_all("\r\rprogress\r\rdone\n");
  CHECK(result.lines == Lines{{"progress", 1}, {"done", 1}});
}

TEST_CASE("carriage-return segments in a CRLF line") {
  auto result = read_all("a\rb\r\nc\r\n");
  CHECK(result.lines == Lines{{"a", 1}, {"b", 1}, {"c", 2}});
}

TEST_CASE("lines span blocks when the block is small") {
  std::string text = "first line here\nsecond\nthird one is long enough\nx\n";
  auto result = read_all(text, 7);
  CHECK(result.lines ==
        Lines{{"first line here", 1}, {"second", 2}, {"third one is long enough", 3}, {"x", 4}});
  CHECK(result.bytes == text.size());
}

TEST_CASE("CRLF split across a block boundary") {
  // "abcdef\r" fills the first 7-byte block exactly; its "\n" starts the next one.
  auto result = read_all("abcdef\r\nghijkl\r\nz", 7);
  CHECK(result.lines == Lines{{"abcdef", 1}, {"ghijkl", 2}, {"z", 3}});
}

TEST_CASE("carriage-return segments across block boundaries") {
  auto result = read_all("aaaa\rbbbb\rcccc\ndd\n", 7);
  CHECK(result.lines == Lines{{"aaaa", 1}, {"bbbb", 1}, {"cccc", 1}, {"dd", 2}});
}

TEST_CASE("every block size gives the same records") {
  std::string text = "one\r\ntwo\rthree\n\nfour five six seven\nlast";
  Lines expected{{"one", 1}, {"two", 2}, {"three", 2}, {"", 3}, {"four five six seven", 4}, {"last", 5}};
  for (size_t block = 1; block <= 16; ++block) {
    CAPTURE(block);
    CHECK(read_all(text, block).lines == expected);
  }
}

namespace {
bool all_of_char(const std::string& text, char c) {
  return text.find_first_not_of(c) == std::string::npos;
}
}  // namespace

TEST_CASE("an overlong line is cut at kMaxLineBytes and counted when read in small blocks") {
  std::string text = "before\n" + std::string(LineReader::kMaxLineBytes * 2 + 3, 'x') + "\nafter\n";
  auto result = read_all(text, 4096);
  REQUIRE(result.lines.size() == 3);
  CHECK(result.lines[0] == std::make_pair(std::string("before"), uint64_t{1}));
  CHECK(result.lines[1].first.size() == LineReader::kMaxLineBytes);
  CHECK(all_of_char(result.lines[1].first, 'x'));
  CHECK(result.lines[1].second == 2);
  CHECK(result.lines[2] == std::make_pair(std::string("after"), uint64_t{3}));
  CHECK(result.lines_cut == 1);
  CHECK(result.status == "");
}

TEST_CASE("an overlong line is cut at kMaxLineBytes and counted with the default block") {
  std::string text = "before\n" + std::string(LineReader::kMaxLineBytes + 1000, 'x') + "\nafter\n";
  auto result = read_all(text);
  REQUIRE(result.lines.size() == 3);
  CHECK(result.lines[1].first.size() == LineReader::kMaxLineBytes);
  CHECK(result.lines[2] == std::make_pair(std::string("after"), uint64_t{3}));
  CHECK(result.lines_cut == 1);
}

TEST_CASE("an overlong last line without a newline is cut and counted") {
  std::string text = "a\n" + std::string(LineReader::kMaxLineBytes + 10, 'z');
  auto result = read_all(text);
  REQUIRE(result.lines.size() == 2);
  CHECK(result.lines[1].first.size() == LineReader::kMaxLineBytes);
  CHECK(all_of_char(result.lines[1].first, 'z'));
  CHECK(result.lines_cut == 1);
}

TEST_CASE("a line of exactly kMaxLineBytes is not cut") {
  std::string text = std::string(LineReader::kMaxLineBytes, 'w') + "\nnext\n";
  auto result = read_all(text);
  REQUIRE(result.lines.size() == 2);
  CHECK(result.lines[0].first.size() == LineReader::kMaxLineBytes);
  CHECK(result.lines[1].first == "next");
  CHECK(result.lines_cut == 0);
}

TEST_CASE("a line of exactly kMaxLineBytes read in small blocks is not counted as cut") {
  std::string text = std::string(LineReader::kMaxLineBytes, 'w') + "\nnext\n";
  auto result = read_all(text, 4096);
  REQUIRE(result.lines.size() == 2);
  CHECK(result.lines[0].first.size() == LineReader::kMaxLineBytes);
  CHECK(result.lines[1].first == "next");
  CHECK(result.lines_cut == 0);
}

TEST_CASE("a NUL byte in the first 64 KiB marks the input as binary") {
  auto result = read_all(std::string_view("abc\0def\n", 8));
  CHECK(result.lines.empty());
  CHECK(result.status == "binary file (NUL byte at offset 3), not a log");
}

TEST_CASE("a NUL byte at the very start is at offset 0") {
  auto result = read_all(std::string_view("\0\x01\x02", 3));
  CHECK(result.lines.empty());
  CHECK(result.status == "binary file (NUL byte at offset 0), not a log");
}

namespace {

// Gives at most 1,000 bytes a read, as a pipe may.
class TrickleSource final : public faultline::ingest::ByteSource {
 public:
  explicit TrickleSource(std::string_view bytes) : bytes_(bytes) {}
  faultline::Result<size_t> read(std::span<char> buffer) override {
    size_t n = std::min({buffer.size(), bytes_.size(), size_t{1000}});
    std::memcpy(buffer.data(), bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view bytes_;
};

}  // namespace

TEST_CASE("whether a log is binary does not depend on how its bytes arrive") {
  for (size_t nul_at : {size_t{1000}, size_t{65535}, size_t{65536}, size_t{70014}}) {
    std::string text;
    while (text.size() < 3 * LineReader::kBlockBytes) text += "[rank0]: iteration 1 | lm loss: 2.31\n";
    text[nul_at] = '\0';
    INFO("NUL at " << nul_at);
    ReadResult result = read_all(text);  // views and whole-block copies
    TrickleSource trickle(text);
    LineReader reader(trickle, 0);
    Record record;
    while (reader.next(record)) {
    }
    std::string status = reader.status() ? "" : reader.status().message();
    CHECK(status == result.status);
    bool binary = nul_at < LineReader::kBinaryCheckBytes;
    CHECK(result.status ==
          (binary ? "binary file (NUL byte at offset " + std::to_string(nul_at) + "), not a log" : ""));
  }
}

TEST_CASE("a NUL byte past the first 64 KiB does not stop reading") {
  std::string text;
  while (text.size() < LineReader::kBinaryCheckBytes) text += "abcdefgh\n";
  text += "ij";
  text += '\0';
  text += "k\n";
  auto result = read_all(text, 4096);
  CHECK(result.status == "");
  REQUIRE(result.lines.size() > 2);
  CHECK(result.lines.front().first == "abcdefgh");
  CHECK(result.lines.back().first == std::string("ij\0k", 4));
}

TEST_CASE("a mapped log that shrinks while it is read is reported, not a crash") {
  const std::string line = "[rank0]: iteration 1 | lm loss: 2.31 | grad norm: 0.9\n";
  std::string text;
  while (text.size() < 4 * faultline::ingest::MappedFile::kMapFrom) text += line;
  faultline::testing::Scratch scratch;
  const std::string path = scratch.write("shrinks.log", text);
  const std::string reason = "the file could not be read to its end (it shrank from ";

  SUBCASE("read as views of the mapping") {
    auto source = faultline::ingest::open_file(path);
    REQUIRE(source);
    REQUIRE_FALSE((*source)->in_memory().empty());  // mapped
    LineReader reader(**source, 0);
    Record record;
    REQUIRE(reader.next(record));
    CHECK(std::string(record.text) + "\n" == line);
    std::filesystem::resize_file(path, 4096);  // as copytruncate would, while the log is read
    uint64_t real_lines = 1;
    while (reader.next(record)) real_lines += record.text.find('\0') == std::string_view::npos;
    CHECK(real_lines >= 4096 / line.size());
    CHECK(real_lines <= 4096 / line.size() + 1);  // the rest read as zeros, not as the old text
    REQUIRE_FALSE(reader.status());
    CHECK(reader.status().message().find(reason) == 0);
  }
  SUBCASE("copied out of the mapping, as archives and compressed files are") {
    auto source = faultline::ingest::open_file(path);
    REQUIRE(source);
    std::vector<char> buffer(65536);
    REQUIRE((*source)->read(buffer));
    std::filesystem::resize_file(path, 4096);
    faultline::Result<size_t> n = size_t{0};
    do {
      n = (*source)->read(buffer);
    } while (n && *n > 0);
    REQUIRE_FALSE(n);
    CHECK(n.status().message().find(reason) == 0);
    CHECK(n.status().message().find(" to 4096 bytes") != std::string::npos);
  }
}
