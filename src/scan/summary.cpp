#include "scan/summary.hpp"

#include <algorithm>
#include <cstdio>

#include "base/json_writer.hpp"

namespace faultline::scan {
namespace {

// Most first, then by name.
template <typename Map>
std::vector<std::pair<std::string, uint64_t>> by_count(const Map& counts) {
  std::vector<std::pair<std::string, uint64_t>> out(counts.begin(), counts.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::string pad_left(std::string text, size_t width) {
  if (text.size() < width) text.insert(0, width - text.size(), ' ');
  return text;
}

std::string megabytes(uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buffer;
}

}  // namespace

bool Summary::add(const JobRecord& job) {
  if (!names_.insert(job.job).second) return false;
  ++jobs_;
  files_ += job.files;
  members_ += job.members;
  inputs_ += job.inputs;
  bytes_ += job.bytes;
  lines_ += job.lines;
  read_errors_ += job.read_errors;
  for (const auto& item : job.skipped) skipped_.insert({item.source, item.reason});
  if (!job.error.empty()) {
    failed_[job.job] = job.error;
    return true;
  }
  if (job.cause.empty()) {
    no_diagnosis_.insert(job.job);
    return true;
  }
  ++diagnosed_;
  ++causes_[job.cause];
  auto& print = fingerprints_[job.fingerprint];
  ++print.jobs;
  if (print.example.empty() || job.job < print.example) {
    print.example = job.job;
    print.cause = job.cause;
    print.template_text = job.failure_template;
    print.line = job.example_line;
  }
  for (const auto& host : job.failing_hosts) ++failing_hosts_[host];
  return true;
}

std::map<std::string, uint64_t> Summary::unrecognised_counts() const {
  std::map<std::string, uint64_t> counts;
  for (const auto& [fingerprint, print] : fingerprints_) {
    if (print.cause == "unrecognised") counts[fingerprint] = print.jobs;
  }
  return counts;
}

void Summary::add(const PlannedSkip& skip) {
  skipped_.insert({skip.skipped.source, skip.skipped.reason});
}

std::string Summary::to_json() const {
  JsonWriter json(false);
  json.begin_object();
  json.key("type").string("summary");
  json.key("schema").string("faultline.scan/1");
  if (shard_) {
    json.key("shard").begin_object();
    json.key("index").number(int64_t{shard_->index});
    json.key("count").number(int64_t{shard_->count});
    json.end_object();
  }
  json.key("totals").begin_object();
  json.key("jobs").number(static_cast<int64_t>(jobs_));
  json.key("diagnosed").number(static_cast<int64_t>(diagnosed_));
  json.key("no_diagnosis").number(static_cast<int64_t>(no_diagnosis_.size()));
  json.key("failed").number(static_cast<int64_t>(failed_.size()));
  json.key("files").number(static_cast<int64_t>(files_));
  json.key("members").number(static_cast<int64_t>(members_));
  json.key("inputs").number(static_cast<int64_t>(inputs_));
  json.key("skipped").number(static_cast<int64_t>(skipped_.size()));
  json.key("read_errors").number(static_cast<int64_t>(read_errors_));
  json.key("bytes").number(static_cast<int64_t>(bytes_));
  json.key("lines").number(static_cast<int64_t>(lines_));
  json.end_object();
  json.key("causes").begin_array();
  for (const auto& [cause, count] : by_count(causes_)) {
    json.begin_object()
        .key("cause")
        .string(cause)
        .key("jobs")
        .number(static_cast<int64_t>(count))
        .end_object();
  }
  json.end_array();
  json.key("fingerprints").begin_array();
  std::map<std::string, uint64_t> print_counts;
  for (const auto& [fingerprint, print] : fingerprints_) print_counts[fingerprint] = print.jobs;
  for (const auto& [fingerprint, count] : by_count(print_counts)) {
    const Print& print = fingerprints_.at(fingerprint);
    json.begin_object();
    json.key("fingerprint").string(fingerprint);
    json.key("cause").string(print.cause);
    json.key("jobs").number(static_cast<int64_t>(count));
    json.key("example").string(print.example);
    json.end_object();
  }
  json.end_array();
  json.key("unrecognised").begin_array();
  for (const auto& [fingerprint, count] : by_count(unrecognised_counts())) {
    const Print& print = fingerprints_.at(fingerprint);
    json.begin_object();
    json.key("template").string(print.template_text);
    json.key("fingerprint").string(fingerprint);
    json.key("jobs").number(static_cast<int64_t>(count));
    json.key("example").string(print.example);
    json.key("line").string(print.line);
    json.end_object();
  }
  json.end_array();
  json.key("failing_hosts").begin_array();
  for (const auto& [host, count] : by_count(failing_hosts_)) {
    json.begin_object().key("host").string(host).key("jobs").number(static_cast<int64_t>(count)).end_object();
  }
  json.end_array();
  json.key("no_diagnosis").begin_array();
  for (const auto& job : no_diagnosis_) json.string(job);
  json.end_array();
  json.key("failed").begin_array();
  for (const auto& [job, error] : failed_)
    json.begin_object().key("job").string(job).key("error").string(error).end_object();
  json.end_array();
  json.key("skipped").begin_array();
  for (const auto& [source, reason] : skipped_) {
    json.begin_object().key("source").string(source).key("reason").string(reason).end_object();
  }
  json.end_array();
  json.end_object();
  return json.take() + "\n";
}

std::string Summary::to_text(size_t limit) const {
  std::string out = "scan: " + std::to_string(jobs_) + " jobs: " + std::to_string(diagnosed_) +
                    " diagnosed, " + std::to_string(no_diagnosis_.size()) + " with no diagnosis, " +
                    std::to_string(failed_.size()) + " failed\n";
  out += "inputs: " + std::to_string(files_) + " files (" + std::to_string(members_) + " archive members), " +
         std::to_string(inputs_) + " sources analysed, " + std::to_string(skipped_.size()) + " skipped, " +
         std::to_string(read_errors_) + " with read errors; " + megabytes(bytes_) + ", " +
         std::to_string(lines_) + " lines\n";
  auto more = [&](size_t total) {
    return total > limit ? "  ... " + std::to_string(total - limit) + " more in the summary record\n"
                         : std::string();
  };
  if (!causes_.empty()) {
    out += "causes:\n";
    size_t shown = 0;
    for (const auto& [cause, count] : by_count(causes_)) {
      if (shown++ == limit) break;
      out += pad_left(std::to_string(count), 8) + "  " + cause + "\n";
    }
    out += more(causes_.size());
  }
  if (!fingerprints_.empty()) {
    out += "fingerprints:\n";
    std::map<std::string, uint64_t> print_counts;
    for (const auto& [fingerprint, print] : fingerprints_) print_counts[fingerprint] = print.jobs;
    size_t shown = 0;
    for (const auto& [fingerprint, count] : by_count(print_counts)) {
      if (shown++ == limit) break;
      const Print& print = fingerprints_.at(fingerprint);
      out += pad_left(std::to_string(count), 8) + "  " + fingerprint + "  " + print.cause + "  e.g. " +
             print.example + "\n";
    }
    out += more(fingerprints_.size());
  }
  if (auto counts = unrecognised_counts(); !counts.empty()) {
    out += "errors no rule knows, by template (faultline rules suggest turns one into a rule):\n";
    size_t shown = 0;
    for (const auto& [fingerprint, count] : by_count(counts)) {
      if (shown++ == limit) break;
      const Print& print = fingerprints_.at(fingerprint);
      out += pad_left(std::to_string(count), 8) + "  " + print.template_text + "\n          e.g. " +
             print.example + ": " + print.line + "\n";
    }
    out += more(counts.size());
  }
  if (!failing_hosts_.empty()) {
    out += "failing hosts:\n";
    size_t shown = 0;
    for (const auto& [host, count] : by_count(failing_hosts_)) {
      if (shown++ == limit) break;
      out += pad_left(std::to_string(count), 8) + "  " + host + "\n";
    }
    out += more(failing_hosts_.size());
  }
  if (!no_diagnosis_.empty()) {
    out += "jobs with no diagnosis: " + std::to_string(no_diagnosis_.size()) + "\n";
    size_t shown = 0;
    for (const auto& job : no_diagnosis_) {
      if (shown++ == limit) break;
      out += "  " + job + "\n";
    }
    out += more(no_diagnosis_.size());
  }
  if (!failed_.empty()) {
    out += "jobs that could not be analysed: " + std::to_string(failed_.size()) + "\n";
    for (const auto& [job, error] : failed_) out += "  " + job + ": " + error + "\n";
  }
  if (!skipped_.empty()) {
    out += "skipped inputs: " + std::to_string(skipped_.size()) + "\n";
    for (const auto& [source, reason] : skipped_) out += "  " + source + ": " + reason + "\n";
  }
  return out;
}

}  // namespace faultline::scan
