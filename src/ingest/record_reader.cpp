#include "ingest/record_reader.hpp"

#include <simdjson.h>

#include <initializer_list>

#include "base/text.hpp"
#include "ingest/envelope_reader.hpp"
#include "ingest/envelope_time.hpp"
#include "ingest/line_reader.hpp"

namespace faultline::ingest {
namespace {

// A LineReader that owns the source it reads (the sniffed bytes replayed, then the rest).
class TextReader final : public RecordReader {
 public:
  TextReader(std::unique_ptr<ByteSource> source, uint32_t source_index)
      : source_(std::move(source)), lines_(*source_, source_index) {}
  bool next(Record& record) override { return lines_.next(record); }
  const Status& status() const override { return lines_.status(); }
  uint64_t bytes() const override { return lines_.bytes(); }
  uint64_t lines() const override { return lines_.lines(); }
  uint64_t lines_cut() const override { return lines_.lines_cut(); }
  std::string format() const override { return lines_.format(); }
  const BinaryStretches* binary_stretches() const override { return lines_.binary_stretches(); }
  std::string_view buffered() const override { return lines_.buffered(); }
  uint64_t refills() const override { return lines_.refills(); }
  uint64_t skip_lines_before(size_t offset, size_t keep) override {
    return lines_.skip_lines_before(offset, keep);
  }

 private:
  std::unique_ptr<ByteSource> source_;
  LineReader lines_;
};

enum class Envelope { text, cri, docker, journald, json_lines, torchelastic_error };

// Reads until the first non-blank line is complete (or kSniffBytes, or the end) and returns
// that line; `taken` keeps every byte read. A read error ends the sniffing: the reader built
// on top meets it again and reports it.
std::string_view first_line(ByteSource& source, std::string& taken) {
  taken.clear();
  size_t scanned = 0;
  for (;;) {
    while (scanned < taken.size()) {
      size_t newline = taken.find('\n', scanned);
      std::string_view line(taken.data() + scanned,
                            (newline == std::string::npos ? taken.size() : newline) - scanned);
      if (newline == std::string::npos) break;
      if (!trim(line).empty() && trim(line) != "\r") return line;
      scanned = newline + 1;
    }
    if (taken.size() >= kSniffBytes) return {};
    size_t old_size = taken.size();
    taken.resize(std::min(kSniffBytes, old_size + 65536));
    auto n = source.read(std::span<char>(taken.data() + old_size, taken.size() - old_size));
    if (!n || *n == 0) {
      taken.resize(old_size);
      return std::string_view(taken).substr(scanned);  // the last line, without its newline
    }
    taken.resize(old_size + *n);
  }
}

bool is_cri_line(std::string_view line) {
  size_t space = line.find(' ');
  if (space == std::string_view::npos || !parse_rfc3339(line.substr(0, space)).valid) return false;
  std::string_view rest = line.substr(space + 1);
  if (!rest.starts_with("stdout ") && !rest.starts_with("stderr ")) return false;
  rest.remove_prefix(7);
  return !rest.empty() && (rest.front() == 'P' || rest.front() == 'F') &&
         (rest.size() == 1 || rest[1] == ' ' || rest[1] == ':' || rest[1] == '\r');
}

Envelope json_envelope(std::string_view line) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(line);
  simdjson::dom::object object;
  if (parser.parse(padded).get_object().get(object) != simdjson::SUCCESS) return Envelope::text;
  auto has = [&](std::string_view key) { return !object.at_key(key).error(); };
  if (has("log") && has("stream")) return Envelope::docker;
  if (has("MESSAGE") || has("__REALTIME_TIMESTAMP") || has("__CURSOR")) return Envelope::journald;
  simdjson::dom::element message;
  if (object.at_key("message").get(message) == simdjson::SUCCESS) {
    if (message.is_object()) return Envelope::torchelastic_error;
    // torchelastic's plain shape has no other keys; a logger's record has more.
    bool only_error_file_keys = has("timestamp");
    for (auto field : object) {
      bool known = false;
      for (std::string_view key : {"message", "timestamp", "errorCode", "extraInfo", "errorTraits"}) {
        known = known || field.key == key;
      }
      only_error_file_keys = only_error_file_keys && known;
    }
    if (message.is_string() && only_error_file_keys) return Envelope::torchelastic_error;
  }
  if (has("message") || has("msg") || has("log")) return Envelope::json_lines;
  return Envelope::text;
}

Envelope detect(std::string_view line) {
  line = trim(line);
  if (line.starts_with("\xef\xbb\xbf")) line.remove_prefix(3);  // UTF-8 byte order mark
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.starts_with('{')) return json_envelope(line);
  if (is_cri_line(line)) return Envelope::cri;
  return Envelope::text;
}

}  // namespace

std::unique_ptr<RecordReader> open_records(ByteSource& source, uint32_t source_index) {
  std::string taken;
  Envelope envelope = detect(first_line(source, taken));
  auto replayed = replay_source(std::move(taken), source);
  switch (envelope) {
    case Envelope::text:
      break;
    case Envelope::cri:
      return make_cri_reader(std::move(replayed), source_index);
    case Envelope::docker:
      return make_json_reader(JsonEnvelope::docker, std::move(replayed), source_index);
    case Envelope::journald:
      return make_json_reader(JsonEnvelope::journald, std::move(replayed), source_index);
    case Envelope::json_lines:
      return make_json_reader(JsonEnvelope::json_lines, std::move(replayed), source_index);
    case Envelope::torchelastic_error:
      return make_json_reader(JsonEnvelope::torchelastic_error, std::move(replayed), source_index);
  }
  return std::make_unique<TextReader>(std::move(replayed), source_index);
}

}  // namespace faultline::ingest
