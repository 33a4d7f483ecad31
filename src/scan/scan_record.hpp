// The lines `faultline scan` writes, one JSON object per line, and reading them back
// (`faultline merge`, and the scan's own summary, so both are computed from the lines alone).
//
//   {"type":"job", "job", "key", "status", "cause", "rule", "initiating_rank", "confidence",
//    "fingerprint", "template", "example_line", "fingerprints", "hosts", "failing_hosts", "files", "members",
//    "inputs", "skipped", "bytes", "lines", "error", "report": {faultline.report/1 of this job}}
//   {"type":"skipped", "key", "source", "reason"}   an input that belongs to no job
//   {"type":"summary", ...}                         the last line (summary.hpp), with the
//                                                   scan's "shard": {"index", "count"} if any
//
// The report holds the job's inputs and skipped sources with their reasons; the counts
// beside it are for readers with jq. Nothing here is thread-safe; every function is reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "ingest/inputs.hpp"
#include "scan/job_plan.hpp"
#include "scan/shard.hpp"

namespace faultline::scan {

struct JobRecord {
  std::string job;
  std::string key;
  std::string error;  // why the job could not be analysed; empty when it was
  std::string cause;  // empty: no diagnosis
  std::string rule;
  std::string fingerprint;       // the diagnosis'
  std::string failure_template;  // the diagnosis', when its cause is `unrecognised`
  std::string example_line;      // the diagnosis' first evidence line
  std::optional<int64_t> initiating_rank;
  double confidence = 0;
  std::vector<std::string> fingerprints;   // of every finding group
  std::vector<std::string> hosts;          // every host the job's lines name
  std::vector<std::string> failing_hosts;  // the hosts of the diagnosis' finding group
  uint64_t files = 0;                      // files on disk
  uint64_t members = 0;                    // archive members among inputs and skipped
  uint64_t inputs = 0;                     // sources analysed
  uint64_t bytes = 0;                      // decompressed bytes of the inputs
  uint64_t lines = 0;
  uint64_t read_errors = 0;  // inputs whose reading stopped early or had bad envelope lines
  std::vector<ingest::Skipped> skipped;

  const char* status() const {
    return !error.empty() ? "failed" : cause.empty() ? "no_diagnosis" : "diagnosed";
  }
};

// One line with its '\n'. `report_json` is the job's faultline.report/1 object (one line);
// the record's counts must describe it.
std::string job_line(const JobRecord& record, std::string_view report_json);
std::string skipped_line(const PlannedSkip& skip);

enum class LineType { kJob, kSkipped, kSummary };
struct ScanLine {
  LineType type = LineType::kJob;
  JobRecord job;               // kJob
  PlannedSkip skip;            // kSkipped
  std::optional<Shard> shard;  // kSummary: the shard the scan ran as (--shard I/N), if any
};
// Reads a line written by job_line, skipped_line or the summary. The counts of a job come
// from its report, not from the copies beside it.
Result<ScanLine> parse_line(std::string_view line);

}  // namespace faultline::scan
