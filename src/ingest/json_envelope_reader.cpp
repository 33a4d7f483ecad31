// The JSON envelopes, one object per line, read with simdjson's DOM parser (it validates the
// whole line, so a damaged one is caught and skipped):
//   docker json-file  {"log":"text\n","stream":"stderr","time":"…Z"}; a log without its final
//                     newline (docker splits lines at 16 KiB) continues in the next record of
//                     the same stream.
//   journald          journalctl -o json: MESSAGE (a string, or an array of byte values),
//                     _PID, _HOSTNAME, __REALTIME_TIMESTAMP (µs since the epoch, a string).
//   JSON lines        the message in "message", "msg" or "log"; a traceback in "exc_info" or
//                     "stack_info" comes out as further lines of the same record.
//   torchelastic      error.json, {"message": {"message": "…", "extraInfo": {"py_callstack":
//                     "…", "timestamp": "…"}}} or {"message": "…", "timestamp": N}; the
//                     callstack (which ends with the message) becomes the lines.
#include <simdjson.h>

#include <array>
#include <cmath>

#include "base/text.hpp"
#include "ingest/envelope_reader.hpp"
#include "ingest/envelope_time.hpp"

namespace faultline::ingest {
namespace {

using simdjson::dom::element;

std::string_view string_at(element object, std::string_view key) {
  std::string_view value;
  if (object.at_key(key).get_string().get(value) != simdjson::SUCCESS) return {};
  return value;
}

// An integer given as a JSON number or as a decimal string ("1700000000", journald's "_PID").
std::optional<int64_t> integer_at(element object, std::string_view key) {
  element value;
  if (object.at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  if (int64_t number; value.get_int64().get(number) == simdjson::SUCCESS) return number;
  // A double past int64_t's range (journald's _PID as 1e300) is no integer: the cast would be undefined.
  if (double number;
      value.get_double().get(number) == simdjson::SUCCESS && number >= -0x1p63 && number < 0x1p63) {
    return static_cast<int64_t>(number);
  }
  if (std::string_view text; value.get_string().get(text) == simdjson::SUCCESS)
    return parse_integer(trim(text));
  return std::nullopt;
}

// A time given as RFC 3339 text or as seconds since the epoch (a number, possibly fractional).
Timestamp time_at(element object, std::string_view key) {
  element value;
  if (object.at_key(key).get(value) != simdjson::SUCCESS) return {};
  if (std::string_view text; value.get_string().get(text) == simdjson::SUCCESS) {
    if (Timestamp time = parse_rfc3339(text); time.valid) return time;
    if (auto seconds = parse_integer(trim(text))) return from_unix_time(*seconds);
    return {};
  }
  if (double seconds; value.get_double().get(seconds) == simdjson::SUCCESS && std::isfinite(seconds) &&
                      seconds >= 0 && seconds < 253402300800.0) {
    double whole = std::floor(seconds);
    return from_unix_time(static_cast<int64_t>(whole), static_cast<int64_t>((seconds - whole) * 1e9));
  }
  return {};
}

std::string_view without_final_newline(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return text;
}

class JsonEnvelopeReader final : public EnvelopeReader {
 public:
  JsonEnvelopeReader(JsonEnvelope kind, std::unique_ptr<ByteSource> source, uint32_t source_index)
      : EnvelopeReader(std::move(source), source_index, format_name(kind)), kind_(kind) {}

 private:
  static std::string format_name(JsonEnvelope kind) {
    switch (kind) {
      case JsonEnvelope::docker:
        return "docker-json";
      case JsonEnvelope::journald:
        return "journald";
      case JsonEnvelope::json_lines:
        return "jsonl";
      case JsonEnvelope::torchelastic_error:
        return "torchelastic-error";
    }
    return "jsonl";
  }

  void decode(std::string_view text, uint64_t record_number) override {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: parse from a padded copy.
    padded_.assign(text);
    padded_.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    element object;
    if (parser_.parse(padded_.data(), text.size(), false).get(object) != simdjson::SUCCESS ||
        !object.is_object()) {
      return bad_record(record_number, "not valid JSON, line skipped");
    }
    switch (kind_) {
      case JsonEnvelope::docker:
        return decode_docker(object, record_number);
      case JsonEnvelope::journald:
        return decode_journald(object, record_number);
      case JsonEnvelope::json_lines:
        return decode_json_line(object, text, record_number);
      case JsonEnvelope::torchelastic_error:
        return decode_torchelastic(object, record_number);
    }
  }

  void finish() override {
    for (auto& partial : partial_) end_line(partial);
  }

  void decode_docker(element object, uint64_t record_number) {
    std::string_view log;
    if (object.at_key("log").get_string().get(log) != simdjson::SUCCESS) {
      return bad_record(record_number, "no \"log\" text, line skipped");
    }
    PartialLine& partial = partial_[string_at(object, "stream") == "stderr" ? 1 : 0];
    add_piece(partial, without_final_newline(log), {record_number, time_at(object, "time"), {}, 0});
    if (log.ends_with('\n')) end_line(partial);
  }

  void decode_journald(element object, uint64_t record_number) {
    LineInfo info{record_number, {}, string_at(object, "_HOSTNAME"), integer_at(object, "_PID").value_or(0)};
    if (auto micros = integer_at(object, "__REALTIME_TIMESTAMP")) {
      info.time = from_unix_time(*micros / 1000000, *micros % 1000000 * 1000);
    }
    element message;
    if (object.at_key("MESSAGE").get(message) != simdjson::SUCCESS || message.is_null()) return;
    if (std::string_view text; message.get_string().get(text) == simdjson::SUCCESS) {
      return emit(without_final_newline(text), info);
    }
    simdjson::dom::array values;
    if (message.get_array().get(values) != simdjson::SUCCESS) {
      return bad_record(record_number, "MESSAGE is neither text nor bytes, line skipped");
    }
    // Bytes that were not UTF-8, or a field given several times (an array of strings).
    bytes_.clear();
    for (element value : values) {
      if (uint64_t byte; value.get_uint64().get(byte) == simdjson::SUCCESS && byte < 256) {
        bytes_ += static_cast<char>(byte);
      } else if (std::string_view text; value.get_string().get(text) == simdjson::SUCCESS) {
        if (!bytes_.empty()) bytes_ += '\n';
        bytes_.append(without_final_newline(text));
      }
    }
    emit(without_final_newline(bytes_), info);
  }

  void decode_json_line(element object, std::string_view text, uint64_t record_number) {
    LineInfo info{record_number, {}, {}, 0};
    for (std::string_view key : {"time", "timestamp", "@timestamp", "asctime", "ts"}) {
      if ((info.time = time_at(object, key)).valid) break;
    }
    info.host = string_at(object, "hostname");
    if (info.host.empty()) info.host = string_at(object, "host");
    info.pid = integer_at(object, "pid").value_or(integer_at(object, "process").value_or(0));
    bool found = false;
    for (std::string_view key : {"message", "msg", "log"}) {
      if (std::string_view message; object.at_key(key).get_string().get(message) == simdjson::SUCCESS) {
        emit(without_final_newline(message), info);
        found = true;
        break;
      }
    }
    // A record without a message still goes on as it is: its fields may be what matters.
    if (!found) emit(text, info);
    for (std::string_view key : {"exc_info", "stack_info"}) {
      std::string_view traceback = string_at(object, key);
      if (!traceback.empty()) emit(without_final_newline(traceback), info);
    }
  }

  void decode_torchelastic(element object, uint64_t record_number) {
    LineInfo info{record_number, time_at(object, "timestamp"), {}, 0};
    element message;
    if (object.at_key("message").get(message) != simdjson::SUCCESS) {
      return bad_record(record_number, "no \"message\", line skipped");
    }
    if (std::string_view text; message.get_string().get(text) == simdjson::SUCCESS) {
      return emit(without_final_newline(text), info);
    }
    element extra;
    if (message.at_key("extraInfo").get(extra) == simdjson::SUCCESS) {
      if (Timestamp time = time_at(extra, "timestamp"); time.valid) info.time = time;
      std::string_view callstack = string_at(extra, "py_callstack");
      if (!trim(callstack).empty()) return emit(without_final_newline(callstack), info);
    }
    std::string_view text = string_at(message, "message");
    if (text.empty()) return bad_record(record_number, "no \"message\" text, line skipped");
    emit(without_final_newline(text), info);
  }

  JsonEnvelope kind_;
  simdjson::dom::parser parser_;
  std::string padded_;
  std::string bytes_;
  std::array<PartialLine, 2> partial_;  // docker: stdout, stderr
};

}  // namespace

std::unique_ptr<RecordReader> make_json_reader(JsonEnvelope kind, std::unique_ptr<ByteSource> source,
                                               uint32_t source_index) {
  return std::make_unique<JsonEnvelopeReader>(kind, std::move(source), source_index);
}

}  // namespace faultline::ingest
