// EnvelopeReader: the RecordReader for logs wrapped in an envelope (docker json-file, CRI,
// journald JSON, JSON lines, torchelastic error.json). It splits the input into envelope
// records (physical lines, through LineReader), lets a subclass decode each one, and hands out
// the decoded log lines: one Record per line of the decoded text, numbered with the envelope
// record it came from. Records own their text here (decoding copies), and stay valid until
// the next call to next().
//
// A record that does not decode is counted and skipped (bad_lines(), first_bad_line()); it
// never stops the file. Not thread-safe; one reader per source.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/byte_source.hpp"
#include "ingest/line_reader.hpp"
#include "ingest/record_reader.hpp"

namespace faultline::ingest {

class EnvelopeReader : public RecordReader {
 public:
  // The longest envelope record (physical line) decoded whole; a longer one is cut there and
  // fails to decode. A message inside a record is cut at LineReader::kMaxLineBytes.
  static constexpr size_t kMaxRecordBytes = size_t{8} << 20;

  EnvelopeReader(std::unique_ptr<ByteSource> source, uint32_t source_index, std::string format);

  bool next(Record& record) final;
  const Status& status() const final { return physical_.status(); }
  uint64_t bytes() const final { return physical_.bytes(); }
  uint64_t lines() const final { return lines_; }
  uint64_t lines_cut() const final { return physical_.lines_cut() + lines_cut_; }
  std::string format() const final { return format_; }
  uint64_t bad_lines() const final { return bad_lines_; }
  std::string first_bad_line() const final { return first_bad_line_; }
  const BinaryStretches* binary_stretches() const final { return physical_.binary_stretches(); }

 protected:
  // What the envelope said about a line; views need to live only until emit() returns.
  struct LineInfo {
    uint64_t record = 0;  // envelope record (physical line) number
    Timestamp time;
    std::string_view host;
    int64_t pid = 0;
  };

  // Decodes one envelope record (never empty or blank), calling emit() and bad_record().
  virtual void decode(std::string_view text, uint64_t record_number) = 0;
  // At the end of the input: emit whatever partial line is still held.
  virtual void finish() {}

  // Emits `text` (without its final newline) as one Record per line: a newline ends a line; a
  // carriage return inside one separates segments of the same line, as in LineReader. Lines
  // over LineReader::kMaxLineBytes are cut and counted.
  void emit(std::string_view text, const LineInfo& info);
  // Counts a record that did not decode: "17: not valid JSON, line skipped".
  void bad_record(uint64_t record_number, std::string_view reason);

  // A line that arrives in pieces (docker's 16 KiB chunks, CRI's P records), one per stream.
  // It keeps the first piece's LineInfo, and at most LineReader::kMaxLineBytes of text.
  struct PartialLine {
    std::string text;
    LineInfo info;
    bool open = false;
    bool cut = false;
  };
  void add_piece(PartialLine& partial, std::string_view piece, const LineInfo& info);
  // Emits the joined line, if any piece is held.
  void end_line(PartialLine& partial);

 private:
  struct Pending {
    std::string text;
    std::string host;
    uint64_t line = 0;
    int64_t pid = 0;
    Timestamp time;
  };
  void push(std::string_view text, const LineInfo& info);
  bool refill();

  std::unique_ptr<ByteSource> source_;
  uint32_t source_index_;
  LineReader physical_;
  std::string format_;
  std::string held_;      // the physical line read last, its CR segments joined again
  std::string decoding_;  // the one being decoded
  uint64_t held_number_ = 0;
  bool holding_ = false;
  bool held_cut_ = false;  // segments of the held line past kMaxRecordBytes were dropped
  bool finished_ = false;
  std::vector<Pending> pending_;  // reused: only the first pending_count_ are live
  size_t pending_count_ = 0;
  size_t pending_next_ = 0;
  uint64_t lines_ = 0;
  uint64_t lines_cut_ = 0;
  uint64_t bad_lines_ = 0;
  std::string first_bad_line_;
};

// The envelope readers; `source` is positioned at the start of the input.
std::unique_ptr<RecordReader> make_cri_reader(std::unique_ptr<ByteSource> source, uint32_t source_index);
enum class JsonEnvelope { docker, journald, json_lines, torchelastic_error };
std::unique_ptr<RecordReader> make_json_reader(JsonEnvelope kind, std::unique_ptr<ByteSource> source,
                                               uint32_t source_index);

}  // namespace faultline::ingest
