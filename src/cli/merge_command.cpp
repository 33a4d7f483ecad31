// `faultline merge`: the summary of sharded scans, rebuilt from their JSONL lines alone.
// A job that appears in two files (a shard run twice) counts once; the files' own summary
// lines are ignored.
#include <cstdint>
#include <fstream>

#include "cli/commands.hpp"
#include "scan/scan_record.hpp"
#include "scan/summary.hpp"

namespace faultline::cli {

int run_merge(const Options& options, Output& out) {
  scan::Summary summary;
  bool input_errors = false;
  for (const auto& path : options.inputs) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      out.err("faultline: " + path + ": cannot be read\n");
      input_errors = true;
      continue;
    }
    std::string line;
    for (uint64_t number = 1; std::getline(file, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto parsed = scan::parse_line(line);
      std::string where = path + ":" + std::to_string(number) + ": ";
      if (!parsed) {
        out.err("faultline: " + where + parsed.status().message() + ", line ignored\n");
        input_errors = true;
        continue;
      }
      if (parsed->type == scan::LineType::kJob) out.learn_hosts(parsed->job.hosts);
      if (parsed->type == scan::LineType::kSkipped) summary.add(parsed->skip);
      if (parsed->type == scan::LineType::kJob && !summary.add(parsed->job)) {
        out.err("faultline: " + where + "job '" + parsed->job.job + "' was seen before, counted once\n");
      }
    }
  }
  if (options.format == Format::kText) {
    out.out(summary.to_text(SIZE_MAX));
  } else {
    out.out(summary.to_json());
    if (!options.quiet) out.err(summary.to_text());
  }
  if (input_errors || summary.skipped() || summary.failed() || summary.read_errors()) return 2;
  return summary.diagnosed() ? 1 : 0;
}

}  // namespace faultline::cli
