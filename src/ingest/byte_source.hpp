// ByteSource: the one interface ingest reads through, so tests can feed memory. Sources
// for files, stdin and memory, and a decompressing source (gzip, zstd, xz, bzip2:
// stream_decoder.hpp) chosen by content, never by file name. Not thread-safe; one reader each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.hpp"

namespace faultline::ingest {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to buffer.size() bytes; 0 means the end of the input.
  virtual Result<size_t> read(std::span<char> buffer) = 0;
  // "text", "gzip", "zstd", ...: what the bytes were before this source decoded them.
  virtual std::string format() const { return "text"; }

  // The whole input from its first byte, when it lies in memory that lives as long as the source
  // (a mapped file, bytes in memory): a reader may take views of it instead of calling read().
  // Empty otherwise.
  virtual std::string_view in_memory() const { return {}; }
  // How many bytes read() has given; a source that never lends need not count (0).
  virtual uint64_t consumed() const { return 0; }
  // A reader of in_memory() is done with the bytes before `offset`.
  virtual void release_before(uint64_t /*offset*/) {}
  // Why the bytes of in_memory() are not the input's (the file shrank under its mapping); empty
  // when they are.
  virtual std::string in_memory_error() const { return {}; }
  // After a read failed on damaged data (a truncated or corrupt compressed stream, a damaged
  // archive member): the byte of the damaged stream where it lies, counted in that stream's
  // own bytes (the compressed file's, the archive's). Empty otherwise; the read error's message
  // names the stream.
  virtual std::optional<uint64_t> damage_offset() const { return std::nullopt; }
};

// Opens a file, or "-" for stdin, and decodes compression detected from its first bytes.
// Errors say what is wrong ("No such file or directory"); the caller names the input.
Result<std::unique_ptr<ByteSource>> open_path(const std::string& path);
// Opens a file, or "-" for stdin, as it is: no decoding (inputs.cpp sniffs archives first).
Result<std::unique_ptr<ByteSource>> open_file(const std::string& path);
// Wraps a source, decoding compression detected from its first bytes. Damage in the stream
// shows only when it is reached: the bytes before it are read first (stream_decoder.hpp).
Result<std::unique_ptr<ByteSource>> decode(std::unique_ptr<ByteSource> raw);
// A source over bytes the caller keeps alive; with `lend`, readers take views of them.
std::unique_ptr<ByteSource> memory_source(std::string_view bytes, bool lend = true);
// Gives `prefix` (bytes already taken from `rest` to sniff it), then reads on from `rest`,
// which the caller keeps alive. format() is rest's.
std::unique_ptr<ByteSource> replay_source(std::string prefix, ByteSource& rest);
// "gzip", "zstd", "xz", "bzip2" from a stream's first bytes (6 are enough), or "".
std::string_view compression_of(std::string_view head);

}  // namespace faultline::ingest
