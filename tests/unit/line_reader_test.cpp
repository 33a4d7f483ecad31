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

#include "../e2e/messages.hpp"
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

TEST_CASE("a 5 MB carriage-return progress line keeps the message glued after it") {
  std::string text = "start\n";
  for (int i = 0; text.size() < (size_t{5} << 20); ++i)
    text += "Loading safetensors checkpoint shards: " + std::to_string(i % 100) + "% |####      |\r";
  const std::string oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB";
  text += oom + "\nend\n";
  for (size_t block : {size_t{4096}, LineReader::kBlockBytes}) {
    CAPTURE(block);
    auto result = read_all(text, block);
    CHECK(result.status == "");
    CHECK(result.lines_cut == 0);
    REQUIRE(result.lines.size() > 3);
    CHECK(result.lines.front() == std::make_pair(std::string("start"), uint64_t{1}));
    CHECK(result.lines[1].first.starts_with("Loading safetensors checkpoint shards: 0% "));
    CHECK(result.lines[result.lines.size() - 2] == std::make_pair(oom, uint64_t{2}));
    CHECK(result.lines.back() == std::make_pair(std::string("end"), uint64_t{3}));
    CHECK(result.line_count == 3);
  }
}

TEST_CASE("an overlong segment is cut, and the segments after it are read") {
  std::string text = std::string(LineReader::kMaxLineBytes + 5000, 'x') + "\rtail one\rtail two\nnext\n";
  for (size_t block : {size_t{4096}, LineReader::kBlockBytes}) {
    CAPTURE(block);
    auto result = read_all(text, block);
    REQUIRE(result.lines.size() == 4);
    CHECK(result.lines[0].first.size() == LineReader::kMaxLineBytes);
    CHECK(result.lines[1] == std::make_pair(std::string("tail one"), uint64_t{1}));
    CHECK(result.lines[2] == std::make_pair(std::string("tail two"), uint64_t{1}));
    CHECK(result.lines[3] == std::make_pair(std::string("next"), uint64_t{2}));
    CHECK(result.lines_cut == 1);
  }
}

TEST_CASE("a line of kMaxLineBytes and a CRLF across blocks gives no extra empty record") {
  std::string text = std::string(LineReader::kMaxLineBytes, 'w') + "\r\nnext\n";
  auto result = read_all(text, 4096);
  REQUIRE(result.lines.size() == 2);
  CHECK(result.lines[0].first.size() == LineReader::kMaxLineBytes);
  CHECK(result.lines[1] == std::make_pair(std::string("next"), uint64_t{2}));
  CHECK(result.lines_cut == 0);
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

TEST_CASE("a NUL byte inside a text log separates segments, as a carriage return does") {
  auto result = read_all(std::string_view("abc\0def\nnext\n", 13));
  CHECK(result.lines == Lines{{"abc", 1}, {"def", 1}, {"next", 2}});
  CHECK(result.status == "");
}

TEST_CASE("a log whose tail is zeros is read to its last message") {
  // A node that hard-crashes leaves the blocks the log had reserved as zeros.
  const std::string oom = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";
  for (size_t zeros : {size_t{10}, size_t{70000}, size_t{3} << 20}) {
    CAPTURE(zeros);
    std::string text = "[rank3]: iteration 9 | lm loss: 2.31\n" + oom + std::string(zeros, '\0');
    for (size_t block : {size_t{4096}, LineReader::kBlockBytes}) {
      auto result = read_all(text, block);
      CHECK(result.status == "");
      CHECK(result.lines == Lines{{"[rank3]: iteration 9 | lm loss: 2.31", 1}, {oom, 2}});
      CHECK(result.lines_cut == 0);
    }
  }
}

TEST_CASE("text after a long run of zeros is read too") {
  std::string text = "before the crash\n" + std::string(size_t{1} << 20, '\0') + "after the reboot\n";
  auto result = read_all(text, 4096);
  CHECK(result.lines == Lines{{"before the crash", 1}, {"after the reboot", 2}});
  CHECK(result.status == "");
}

TEST_CASE("NUL bytes in a text log are counted with the offset of the first") {
  auto source = faultline::ingest::memory_source(std::string_view("ab\n\0\0\0cd\n", 9));
  LineReader reader(*source, 0);
  Record record;
  while (reader.next(record)) {
  }
  CHECK(reader.nul_bytes() == 3);
  CHECK(reader.first_nul_offset() == 3);
}

TEST_CASE("only an input that is binary through and through is refused") {
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 7919 + 13) % 256);
  auto result = read_all(binary);
  CHECK(result.lines.empty());
  CHECK(result.status ==
        "binary file (1968 of the 4080 bytes other than NUL in its first 4096 are control bytes or invalid "
        "UTF-8), not a log");
}

namespace {

// `windows` windows of binary data (a core dump's bytes, newlines among them, but no carriage
// return or NUL, which would split its lines in segments), then text.
std::string binary_then_text(size_t windows, const std::string& text) {
  std::string bytes;
  for (size_t i = 0; bytes.size() < windows * LineReader::kBinaryCheckBytes + 300; ++i) {
    auto byte = static_cast<char>((i * 7919 + 13) % 256);
    bytes += byte == '\r' || byte == '\0' ? '\x01' : byte;
  }
  return bytes + "\n" + text;
}

std::string numbered_text_lines(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += "[rank3]: step " + std::to_string(i) + "\n";
  return out;
}

}  // namespace

TEST_CASE("a binary head is passed over: reading starts at the first line of the first window of text") {
  std::string text = numbered_text_lines(40000);
  std::string bytes = binary_then_text(3, text);
  for (size_t block : {size_t{4096}, LineReader::kBlockBytes}) {
    CAPTURE(block);
    auto result = read_all(bytes, block);  // lent and copied agree
    CHECK(result.status == "");
    REQUIRE(!result.lines.empty());
    // The fourth window holds the binary's last 300 bytes and text: it is the first of text, and
    // the first line read is the one after its first newline.
    size_t window = 3 * LineReader::kBinaryCheckBytes;
    REQUIRE(LineReader::binary_reason(
                bytes.substr(window - LineReader::kBinaryCheckBytes, LineReader::kBinaryCheckBytes)) != "");
    REQUIRE(LineReader::binary_reason(bytes.substr(window, LineReader::kBinaryCheckBytes)) == "");
    size_t first_read = bytes.find('\n', window) + 1;
    CHECK(result.lines.front().first == bytes.substr(first_read, bytes.find('\n', first_read) - first_read));
    CHECK(result.lines.front().second ==
          static_cast<uint64_t>(
              std::count(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(first_read), '\n')) +
              1);
    CHECK(result.lines.back().first == "[rank3]: step 39999");
    CHECK(result.bytes == bytes.size());
  }
  auto source = faultline::ingest::memory_source(bytes, false);
  LineReader reader(*source, 0);
  Record record;
  while (reader.next(record)) {
  }
  auto stretches = reader.binary_stretches()->first();
  REQUIRE(!stretches.empty());
  CHECK(stretches.front().offset < 16);  // the binary head is the first stretch, from its start
  CHECK(stretches.front().length > 3 * LineReader::kBinaryCheckBytes - 16);
}

TEST_CASE(
    "an input binary in all of its first kBinaryHeadWindows windows is refused, text after them or not") {
  auto late = read_all(binary_then_text(LineReader::kBinaryHeadWindows, numbered_text_lines(100)));
  CHECK(late.lines.empty());
  CHECK_MESSAGE(faultline::testing::is_binary_file_reason(late.status), late.status);
  CHECK(late.status.find(" in its first " + std::to_string(LineReader::kBinaryCheckBytes) + " are ") !=
        std::string::npos);  // one window, whole
  CHECK(late.line_count == 0);
  auto early = read_all(binary_then_text(LineReader::kBinaryHeadWindows - 2, numbered_text_lines(10000)));
  CHECK(early.status == "");
  CHECK(!early.lines.empty());
}

TEST_CASE("an input of NUL bytes only is not binary: it holds nothing") {
  auto result = read_all(std::string(100000, '\0'));
  CHECK(result.lines.empty());
  CHECK(result.status == "");
}

TEST_CASE("UTF-8 text, escapes and backspaces are text") {
  CHECK(LineReader::binary_reason("d\xc3\xa9j\xc3\xa0 vu \xe2\x9c\x93 \x1b[31mred\x1b[0m\b\b ok\n") == "");
  CHECK(LineReader::binary_reason(std::string(64, '\x01')) != "");
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
  for (size_t binary_from : {size_t{1000}, size_t{57000}, size_t{60000}, size_t{70014}}) {
    std::string text;
    while (text.size() < 3 * LineReader::kBlockBytes) text += "[rank0]: iteration 1 | lm loss: 2.31\n";
    for (size_t i = binary_from; i < text.size(); ++i) text[i] = '\x01';
    INFO("binary from " << binary_from);
    ReadResult result = read_all(text);  // views and whole-block copies
    TrickleSource trickle(text);
    LineReader reader(trickle, 0);
    Record record;
    while (reader.next(record)) {
    }
    std::string status = reader.status() ? "" : reader.status().message();
    CHECK(status == result.status);
    bool binary = binary_from < LineReader::kBinaryCheckBytes &&
                  (LineReader::kBinaryCheckBytes - binary_from) * 10 > LineReader::kBinaryCheckBytes;
    CHECK(result.status.empty() == !binary);
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
  CHECK(result.lines.back().first == "k");
  CHECK(result.lines[result.lines.size() - 2].first == "ij");
}

TEST_CASE("a mapped log that shrinks while it is read is reported, not a crash") {
  const std::string line = "[rank0]: iteration 1 | lm loss: 2.31 | grad norm: 0.9\n";
  std::string text;
  while (text.size() < 4 * faultline::ingest::MappedFile::kMapFrom) text += line;
  faultline::testing::Scratch scratch;
  const std::string path = scratch.write("shrinks.log", text);
  const std::string reason =
      "the file could not be read to its end (it shrank from " + std::to_string(text.size()) +
      " to 4096 bytes while it was read, or the disk failed); bytes from there on read as zeros";

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
    CHECK(reader.status().message() == reason);
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
    CHECK(n.status().message() == reason);
  }
}
