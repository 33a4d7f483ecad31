#include "scan/scan_record.hpp"

#include <simdjson.h>

#include "base/json_writer.hpp"

namespace faultline::scan {
namespace {

using simdjson::dom::element;

void write_strings(JsonWriter& json, const std::vector<std::string>& items) {
  json.begin_inline_array();
  for (const auto& item : items) json.string(item);
  json.end_array();
}

void write_optional_string(JsonWriter& json, const std::string& text) {
  if (text.empty())
    json.null();
  else
    json.string(text);
}

std::string string_at(element object, std::string_view key) {
  std::string_view text;
  if (object[key].get_string().get(text) != simdjson::SUCCESS) return {};
  return std::string(text);
}

uint64_t count_at(element object, std::string_view key) {
  uint64_t value = 0;
  if (object[key].get_uint64().get(value) != simdjson::SUCCESS) return 0;
  return value;
}

std::vector<std::string> strings_at(element object, std::string_view key) {
  std::vector<std::string> out;
  simdjson::dom::array items;
  if (object[key].get_array().get(items) != simdjson::SUCCESS) return out;
  for (element item : items) {
    std::string_view text;
    if (item.get_string().get(text) == simdjson::SUCCESS) out.emplace_back(text);
  }
  return out;
}

Result<JobRecord> read_job(element object) {
  JobRecord record;
  record.job = string_at(object, "job");
  if (record.job.empty()) return Status::error("job line without a \"job\" name");
  record.key = string_at(object, "key");
  record.error = string_at(object, "error");
  record.cause = string_at(object, "cause");
  record.rule = string_at(object, "rule");
  record.fingerprint = string_at(object, "fingerprint");
  record.failure_template = string_at(object, "template");
  record.example_line = string_at(object, "example_line");
  if (int64_t rank; object["initiating_rank"].get_int64().get(rank) == simdjson::SUCCESS)
    record.initiating_rank = rank;
  if (double confidence; object["confidence"].get_double().get(confidence) == simdjson::SUCCESS) {
    record.confidence = confidence;
  }
  record.fingerprints = strings_at(object, "fingerprints");
  record.hosts = strings_at(object, "hosts");
  record.failing_hosts = strings_at(object, "failing_hosts");
  record.files = count_at(object, "files");
  record.members = count_at(object, "members");

  element report;
  if (object["report"].get(report) != simdjson::SUCCESS || !report.is_object()) {
    return Status::error("job line for '" + record.job + "' without its \"report\"");
  }
  simdjson::dom::array inputs, skipped;
  if (report["inputs"].get_array().get(inputs) != simdjson::SUCCESS ||
      report["skipped"].get_array().get(skipped) != simdjson::SUCCESS) {
    return Status::error("report of '" + record.job + "' without \"inputs\" and \"skipped\"");
  }
  for (element input : inputs) {
    ++record.inputs;
    record.bytes += count_at(input, "bytes");
    record.lines += count_at(input, "lines");
    if (!string_at(input, "error").empty() || count_at(input, "bad_lines") > 0) ++record.read_errors;
  }
  for (element item : skipped)
    record.skipped.push_back({string_at(item, "source"), string_at(item, "reason")});
  return record;
}

}  // namespace

std::string job_line(const JobRecord& record, std::string_view report_json) {
  JsonWriter json(false);
  json.begin_object();
  json.key("type").string("job");
  json.key("job").string(record.job);
  json.key("key").string(record.key);
  json.key("status").string(record.status());
  json.key("cause");
  write_optional_string(json, record.cause);
  json.key("rule");
  write_optional_string(json, record.rule);
  json.key("initiating_rank");
  if (record.initiating_rank)
    json.number(*record.initiating_rank);
  else
    json.null();
  json.key("confidence");
  if (record.cause.empty())
    json.null();
  else
    json.number(record.confidence);
  json.key("fingerprint");
  write_optional_string(json, record.fingerprint);
  if (!record.failure_template.empty()) json.key("template").string(record.failure_template);
  if (!record.example_line.empty()) json.key("example_line").string(record.example_line);
  json.key("fingerprints");
  write_strings(json, record.fingerprints);
  json.key("hosts");
  write_strings(json, record.hosts);
  json.key("failing_hosts");
  write_strings(json, record.failing_hosts);
  json.key("files").number(static_cast<int64_t>(record.files));
  json.key("members").number(static_cast<int64_t>(record.members));
  json.key("inputs").number(static_cast<int64_t>(record.inputs));
  json.key("skipped").number(static_cast<int64_t>(record.skipped.size()));
  json.key("bytes").number(static_cast<int64_t>(record.bytes));
  json.key("lines").number(static_cast<int64_t>(record.lines));
  if (!record.error.empty()) json.key("error").string(record.error);
  // JsonWriter has no raw values: the report, already JSON, is spliced in as the last key.
  std::string line = json.take();
  while (!report_json.empty() && (report_json.back() == '\n' || report_json.back() == ' '))
    report_json.remove_suffix(1);
  line += ",\"report\":";
  line += report_json;
  line += "}\n";
  return line;
}

std::string skipped_line(const PlannedSkip& skip) {
  JsonWriter json(false);
  json.begin_object();
  json.key("type").string("skipped");
  json.key("key").string(skip.key);
  json.key("source").string(skip.skipped.source);
  json.key("reason").string(skip.skipped.reason);
  json.end_object();
  return json.take() + "\n";
}

Result<ScanLine> parse_line(std::string_view line) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(line);
  element object;
  if (auto error = parser.parse(padded).get(object))
    return Status::error(std::string("not JSON: ") + simdjson::error_message(error));
  if (!object.is_object()) return Status::error("not a JSON object");
  std::string type = string_at(object, "type");
  ScanLine out;
  if (type == "summary") {
    out.type = LineType::kSummary;
    element shard;
    if (object["shard"].get(shard) == simdjson::SUCCESS) {
      uint64_t index = 0, count = 0;
      if (shard["index"].get_uint64().get(index) != simdjson::SUCCESS ||
          shard["count"].get_uint64().get(count) != simdjson::SUCCESS || count == 0 || index >= count ||
          count > UINT32_MAX)
        return Status::error("summary line whose \"shard\" is not {\"index\": I, \"count\": N} with I < N");
      out.shard = Shard{static_cast<uint32_t>(index), static_cast<uint32_t>(count)};
    }
    return out;
  }
  if (type == "skipped") {
    out.type = LineType::kSkipped;
    out.skip.key = string_at(object, "key");
    out.skip.skipped = {string_at(object, "source"), string_at(object, "reason")};
    if (out.skip.skipped.source.empty()) return Status::error("skipped line without a \"source\"");
    return out;
  }
  if (type != "job")
    return Status::error("not a faultline scan line (\"type\" is not job, skipped or summary)");
  auto job = read_job(object);
  if (!job) return job.status();
  out.type = LineType::kJob;
  out.job = std::move(*job);
  return out;
}

}  // namespace faultline::scan
