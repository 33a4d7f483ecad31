// `faultline merge`: the summary of sharded scans, rebuilt from their JSONL lines alone.
// A job that appears in two files (a shard run twice) counts once, with one warning for the
// file that repeats it (none with -q); the files' own summary lines are ignored.
#include <cstdint>
#include <fstream>
#include <map>

#include "cli/commands.hpp"
#include "scan/scan_record.hpp"
#include "scan/summary.hpp"

namespace faultline::cli {

int run_merge(const Options& options, Output& out) {
  scan::Summary summary;
  bool input_errors = false;
  std::map<std::string, std::string> first_file;  // job -> the file that held it first
  for (const auto& path : options.inputs) {
    uint64_t repeated = 0;
    std::string example, example_file;
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
      if (parsed->type == scan::LineType::kJob) {
        auto [seen, first] = first_file.emplace(parsed->job.job, path);
        if (!summary.add(parsed->job) && repeated++ == 0) {
          example = parsed->job.job;
          example_file = first ? path : seen->second;
        }
      }
    }
    if (repeated > 0 && !options.quiet) {
      out.err("faultline: " + path + ": " + std::to_string(repeated) + (repeated == 1 ? " job" : " jobs") +
              " seen before (the first, '" + example + "', in " + example_file +
              "); each is counted once (a shard given twice?)\n");
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
