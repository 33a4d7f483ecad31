// BinaryStretches (src/ingest/binary_stretches.hpp), as the line reader feeds it: stretches of
// NUL bytes and binary data inside text, with their offsets and lengths, the same whatever the
// block size and whether the bytes are lent or copied.
#include "ingest/binary_stretches.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/line_reader.hpp"

using faultline::ingest::BinaryStretches;
using faultline::ingest::ByteStretch;
using faultline::ingest::LineReader;

namespace {

struct Found {
  std::vector<ByteStretch> first;
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t lines = 0;
};

// Reads `text` to its end through a LineReader with `block_bytes` blocks, its bytes lent or copied.
Found read_all(const std::string& text, size_t block_bytes, bool lend) {
  auto source = faultline::ingest::memory_source(text, lend);
  LineReader reader(*source, 0, block_bytes);
  faultline::ingest::Record record;
  while (reader.next(record)) {
  }
  REQUIRE(reader.status().is_ok());
  const BinaryStretches& stretches = *reader.binary_stretches();
  return {stretches.first(), stretches.count(), stretches.bytes(), reader.lines()};
}

bool same(const std::vector<ByteStretch>& a, const std::vector<ByteStretch>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].offset != b[i].offset || a[i].length != b[i].length || a[i].nul != b[i].nul) return false;
  }
  return true;
}

std::string healthy_lines(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += "[rank3]: step " + std::to_string(i) + " loss 2.1 █▉ 进度\n";
  return out;
}

// Bytes that are neither text nor NUL: control bytes and invalid UTF-8, with a few printable
// ones between them, as in a core dump.
std::string garbage(size_t length) {
  std::string out;
  for (size_t i = 0; out.size() < length; ++i)
    out += i % 3 == 2 ? 'A' : static_cast<char>(i % 2 ? 0x01 : 0xff);
  return out;
}

}  // namespace

TEST_CASE("binary stretches: NUL and binary stretches inside text are found with offset and length") {
  std::string text = healthy_lines(300);
  uint64_t nul_at = text.size();
  text += std::string(100, '\0') + "\n";
  text += healthy_lines(50);
  uint64_t garbage_at = text.size();
  text += garbage(64) + "\n" + healthy_lines(300);
  uint64_t tail_at = text.size();
  text += std::string(size_t{1} << 20, '\0');
  std::vector<ByteStretch> expected = {
      {nul_at, 100, true}, {garbage_at, 64, false}, {tail_at, uint64_t{1} << 20, true}};
  for (size_t block : {size_t{7}, size_t{4096}, LineReader::kBlockBytes}) {
    for (bool lend : {false, true}) {
      CAPTURE(block);
      CAPTURE(lend);
      Found found = read_all(text, block, lend);
      CHECK(same(found.first, expected));
      CHECK(found.count == 3);
      CHECK(found.bytes == 100 + 64 + (uint64_t{1} << 20));
      CHECK(found.lines >= static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n')));  // all read
    }
  }
}

TEST_CASE("binary stretches: text's own bytes make none, a UTF-8 character split over blocks included") {
  // Past the first 64 KiB, which the reader takes in one block whatever its block size.
  std::string text =
      healthy_lines(3000) + "\x1b[31mred\x1b[0m\ttab\r\nbell \x07 in a message\n" + healthy_lines(300);
  for (size_t block : {size_t{1}, size_t{2}, size_t{5}, LineReader::kBlockBytes}) {
    CAPTURE(block);
    Found found = read_all(text, block, false);
    CHECK(found.count == 0);
    CHECK(found.first.empty());
  }
}

TEST_CASE("binary stretches: binary bytes closer than kBridge join one stretch; farther ones make two") {
  std::string near = healthy_lines(20) + garbage(8) + "abcdefg" + garbage(8) + "\n" + healthy_lines(20);
  Found joined = read_all(near, LineReader::kBlockBytes, false);
  REQUIRE(joined.first.size() == 1);
  CHECK(joined.first[0].offset == near.find(garbage(8)));
  CHECK(joined.first[0].length == 8 + 7 + 8);
  std::string far = healthy_lines(20) + garbage(8) + std::string(BinaryStretches::kBridge + 1, 'x') +
                    garbage(8) + "\n" + healthy_lines(20);
  CHECK(read_all(far, LineReader::kBlockBytes, false).count == 2);
}

TEST_CASE("binary stretches: the first kKept are kept with their offsets, the others counted") {
  std::string text;
  std::vector<ByteStretch> expected;
  for (size_t i = 0; i < BinaryStretches::kKept + 5; ++i) {
    text += healthy_lines(3);
    if (expected.size() < BinaryStretches::kKept) expected.push_back({text.size(), 3, true});
    text += std::string(3, '\0') + "\n";
  }
  Found found = read_all(text, 4096, false);
  CHECK(same(found.first, expected));
  CHECK(found.count == BinaryStretches::kKept + 5);
  CHECK(found.bytes == 3 * (BinaryStretches::kKept + 5));
}
