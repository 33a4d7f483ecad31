// RecordReader: ByteSource ─▶ Records. Plain text comes through LineReader; a log envelope
// (docker json-file, CRI, journald JSON, JSON lines), detected from the content and never from
// the file name, comes through a reader that decodes it and rejoins the lines it split.
// One reader per source; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.hpp"
#include "ingest/binary_stretches.hpp"
#include "ingest/byte_source.hpp"
#include "ingest/record.hpp"

namespace faultline::ingest {

class RecordReader {
 public:
  virtual ~RecordReader() = default;

  // False at the end of the input or when reading failed (status() says why). The Record's
  // views stay valid until the next call.
  virtual bool next(Record& record) = 0;
  virtual const Status& status() const = 0;
  virtual uint64_t bytes() const = 0;
  virtual uint64_t lines() const = 0;
  virtual uint64_t lines_cut() const = 0;
  // "text", or the envelope: "docker-json", "cri", "journald", "jsonl", "torchelastic-error".
  virtual std::string format() const = 0;

  // Envelope records that did not decode (a damaged JSON line in a docker log), skipped and
  // counted, and the first of them as "<record number>: <reason>", e.g. "17: not valid JSON,
  // line skipped", for the caller to print after the source's name. 0 and "" for plain text.
  virtual uint64_t bad_lines() const { return 0; }
  virtual std::string first_bad_line() const { return {}; }
  // Where the input holds NUL bytes or binary data, read around (LineReader); null when the
  // reader does not look.
  virtual const BinaryStretches* binary_stretches() const { return nullptr; }

  // Raw bytes that every Record since the last change of refills() is a substring of, for
  // block screening (rules::Engine::screen_block). Readers that decode their records cannot
  // promise that and keep refills() at 0, which leaves every line to be checked.
  virtual std::string_view buffered() const { return {}; }
  virtual uint64_t refills() const { return 0; }
  // Passes over the complete lines before the one that holds byte `offset` of buffered(), all
  // but the last `keep` of them, without returning them (they are counted); returns how many.
  // For a sparse read, which knows from a scan of buffered() that they hold nothing it needs.
  virtual uint64_t skip_lines_before(size_t /*offset*/, size_t /*keep*/) { return 0; }
};

// The reader for whatever `source` holds, chosen from its first non-empty line (never from a
// file name): a JSON object with "log" and "stream" is docker json-file; one with MESSAGE or
// __REALTIME_TIMESTAMP journald; {"message": {...}} or {"message": "...", "timestamp": ...} a
// torchelastic error.json; one with "message", "msg" or "log" JSON lines; a line like
// `2020-12-07T15:32:38.994574754Z stdout P text` CRI; anything else plain text (LineReader).
// Reads ahead up to kSniffBytes to find that line. `source` must outlive the reader.
std::unique_ptr<RecordReader> open_records(ByteSource& source, uint32_t source_index);
inline constexpr size_t kSniffBytes = size_t{1} << 20;

}  // namespace faultline::ingest
