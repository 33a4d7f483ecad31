// One compressed stream decoded with its own library (src/ingest/stream_decoder): the bytes come
// out whole for every compression, concatenated streams read as one, NUL padding is passed over,
// and damage fails only the read after the bytes decoded before it, naming the byte.
#include "ingest/stream_decoder.hpp"

#include <bzlib.h>
#include <doctest/doctest.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <string>
#include <vector>

#include "ingest/byte_source.hpp"

using faultline::ingest::compression_of;
using faultline::ingest::decoding_source;
using faultline::ingest::memory_source;

namespace {

std::string gzip(const std::string& text) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t size = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(size));
  out.resize(size);
  return out;
}

std::string xz(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  size_t size = 0;
  REQUIRE(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()),
                                  text.size(), reinterpret_cast<uint8_t*>(out.data()), &size,
                                  out.size()) == LZMA_OK);
  out.resize(size);
  return out;
}

std::string bzip2(const std::string& text) {
  std::string out(text.size() + text.size() / 100 + 600, '\0');
  auto size = static_cast<unsigned int>(out.size());
  REQUIRE(BZ2_bzBuffToBuffCompress(out.data(), &size, const_cast<char*>(text.data()),
                                   static_cast<unsigned int>(text.size()), 1, 0, 0) == BZ_OK);
  out.resize(size);
  return out;
}

std::string log_lines(int count) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out += "[rank3]: iteration " + std::to_string(i) + " | loss 2.31 | grad norm 0.8\n";
  return out;
}

struct Decoded {
  std::string bytes;
  std::string error;  // "" when the stream ended cleanly
  std::optional<uint64_t> damage;
  std::string format;
};

// Reads the decoder to its end (or its error) in reads of `chunk` bytes.
Decoded decode_all(const std::string& compressed, const std::string& compression, size_t chunk = 4096) {
  auto source = decoding_source(memory_source(compressed, false), compression);
  Decoded out;
  std::vector<char> buffer(chunk);
  for (;;) {
    auto n = source->read(buffer);
    if (!n) {
      out.error = n.status().message();
      break;
    }
    if (*n == 0) break;
    out.bytes.append(buffer.data(), *n);
  }
  out.damage = source->damage_offset();
  out.format = source->format();
  return out;
}

}  // namespace

TEST_CASE("stream decoder: each compression decodes to the bytes it holds, in small and large reads") {
  const std::string log = log_lines(20000);  // about 1 MB: many input and output blocks
  for (const auto& [name, compressed] : std::vector<std::pair<std::string, std::string>>{
           {"gzip", gzip(log)}, {"zstd", zstd(log)}, {"xz", xz(log)}, {"bzip2", bzip2(log)}}) {
    CAPTURE(name);
    CHECK(compression_of(compressed) == name);
    for (size_t chunk : {size_t{1} << 7, size_t{1} << 20}) {
      Decoded decoded = decode_all(compressed, name, chunk);
      CHECK(decoded.error == "");
      CHECK_FALSE(decoded.damage.has_value());
      CHECK(decoded.format == name);
      CHECK(decoded.bytes == log);
    }
  }
}

TEST_CASE("stream decoder: concatenated streams read as one, NUL padding between and after passed over") {
  const std::string a = log_lines(300), b = "[rank5]: CUDA out of memory\n";
  CHECK(decode_all(gzip(a) + gzip(b), "gzip").bytes == a + b);
  Decoded padded = decode_all(gzip(a) + std::string(512, '\0') + gzip(b) + std::string(100, '\0'), "gzip");
  CHECK(padded.error == "");
  CHECK(padded.bytes == a + b);
  CHECK(decode_all(zstd(a) + zstd(b), "zstd").bytes == a + b);
  CHECK(decode_all(bzip2(a) + bzip2(b), "bzip2").bytes == a + b);
}

TEST_CASE("stream decoder: a truncated stream gives what it decoded, then names the cut") {
  const std::string log = log_lines(3000);
  std::string compressed = gzip(log);
  std::string cut = compressed.substr(0, compressed.size() - 12);  // the trailer and the last block's end
  Decoded decoded = decode_all(cut, "gzip");
  CHECK(decoded.error == "gzip stream truncated at byte " + std::to_string(cut.size()));
  CHECK(decoded.damage == std::optional<uint64_t>(cut.size()));
  CHECK(log.starts_with(decoded.bytes));
  CHECK(decoded.bytes.size() + 1024 > log.size());  // deflate hands on what it has as it goes
}

TEST_CASE("stream decoder: other bytes after a stream are named with their offset, the stream kept") {
  const std::string log = log_lines(100);
  std::string compressed = gzip(log);
  Decoded decoded = decode_all(compressed + "trailing text, not gzip\n", "gzip");
  CHECK(decoded.bytes == log);
  CHECK(decoded.error == "gzip stream damaged at byte " + std::to_string(compressed.size()) +
                             ": what follows the end of a stream is not gzip, not read");
  CHECK(decoded.damage == std::optional<uint64_t>(compressed.size()));
}

TEST_CASE("stream decoder: corrupt data fails with the library's reason at the byte it was found") {
  const std::string log = log_lines(2000);
  std::string compressed = zstd(log);
  compressed[compressed.size() / 2] = static_cast<char>(compressed[compressed.size() / 2] ^ 0xff);
  Decoded decoded = decode_all(compressed, "zstd");
  const std::string start = "zstd stream damaged at byte ";
  REQUIRE(decoded.error.starts_with(start));
  REQUIRE(decoded.damage.has_value());
  CHECK(decoded.error.starts_with(start + std::to_string(*decoded.damage) + ": "));
  CHECK(*decoded.damage <= compressed.size());
  CHECK(log.starts_with(decoded.bytes));
}

TEST_CASE("compression_of names each stream by its magic bytes, and nothing else") {
  CHECK(compression_of("\x1f\x8b\x08\x00\x00\x00") == "gzip");
  CHECK(compression_of("\x28\xb5\x2f\xfd\x00\x58") == "zstd");
  CHECK(compression_of("\xfd"
                       "7zXZ\x00") == "xz");
  CHECK(compression_of("BZh91AY") == "bzip2");
  CHECK(compression_of("BZh0") == "");  // block size 0 is no bzip2 stream
  CHECK(compression_of("BZh") == "");
  CHECK(compression_of("[rank0]: hello") == "");
  CHECK(compression_of("") == "");
}
