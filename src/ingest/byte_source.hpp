// ByteSource: the one interface ingest reads through, so tests can feed memory. Sources
// for files, stdin and memory, and a decompressing source (libarchive filters: gzip, zstd,
// xz, bzip2) chosen by content, never by file name. Not thread-safe; one reader each.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "base/status.hpp"

namespace faultline::ingest {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to buffer.size() bytes; 0 means the end of the input.
  virtual Result<size_t> read(std::span<char> buffer) = 0;
  // "text", "gzip", "zstd", ...: what the bytes were before this source decoded them.
  virtual std::string format() const { return "text"; }
};

// Opens a file, or "-" for stdin, and decodes compression detected from its first bytes.
// Errors say what is wrong ("No such file or directory"); the caller names the input.
Result<std::unique_ptr<ByteSource>> open_path(const std::string& path);
// Opens a file, or "-" for stdin, as it is: no decoding (inputs.cpp sniffs archives first).
Result<std::unique_ptr<ByteSource>> open_file(const std::string& path);
// Wraps a source, decoding compression detected from its first bytes.
Result<std::unique_ptr<ByteSource>> decode(std::unique_ptr<ByteSource> raw);
// A source over bytes the caller keeps alive.
std::unique_ptr<ByteSource> memory_source(std::string_view bytes);
// Gives `prefix` (bytes already taken from `rest` to sniff it), then reads on from `rest`,
// which the caller keeps alive. format() is rest's.
std::unique_ptr<ByteSource> replay_source(std::string prefix, ByteSource& rest);
// "gzip", "zstd", "xz", "bzip2" from a stream's first bytes (6 are enough), or "".
std::string_view compression_of(std::string_view head);

}  // namespace faultline::ingest
